package platform

import (
	"fmt"
	"strconv"

	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
)

func (p *parser) linkCtn(a *attrs, line int) error {
	id, err := a.required("id")
	if err != nil {
		return err
	}
	dir, _ := a.get("direction")
	switch dir {
	case "", "NONE":
		dir = ""
	case "UP", "DOWN":
	default:
		return p.errAt(line, "link_ctn", "direction=%q (expected UP, DOWN or NONE)", dir)
	}
	if err := a.finish(); err != nil {
		return err
	}
	l, ok := p.zone.links[id]
	if !ok {
		return p.errAt(line, "link_ctn", "no link %q is declared before this route", id)
	}
	if (l.sharing == SplitDuplex) != (dir != "") {
		if dir == "" {
			return p.errAt(line, "link_ctn", "link %q is SPLITDUPLEX: give direction=UP or DOWN", id)
		}
		return p.errAt(line, "link_ctn", "link %q is %s: direction=%s applies to SPLITDUPLEX links only", id, l.sharing, dir)
	}
	p.route.links = append(p.route.links, hop{link: id, dir: dir})
	return nil
}

// explicit turns a zone of hosts, links and routes into a star: it must
// give each host a private link and route every pair of distinct hosts
// through the source's link then the destination's, and a host to itself
// through at most one loopback link.
func (p *parser) explicit(z *zoneDecl) error {
	bad := func(line int, elem, format string, args ...any) error {
		return p.errAt(line, elem, format, args...)
	}
	if len(z.cabinets) > 0 {
		for _, pt := range z.points {
			if pt.router {
				return bad(pt.line, "router", "routers in a zone of cabinets are not modelled")
			}
		}
		return p.cabinets(z)
	}
	if z.backbone != nil {
		return bad(z.backboneLine, "backbone", "a backbone without cabinets is not modelled (a cluster's is its bb_bw and bb_lat)")
	}
	if len(z.hosts) == 0 {
		if len(z.links) > 0 || len(z.routes) > 0 || len(z.points) > 0 {
			return bad(z.line, "zone", "zone %q has links or routes but no hosts", z.id)
		}
		return nil
	}
	if z.routing != "Full" && z.routing != "Floyd" && z.routing != "Dijkstra" && z.routing != "DijkstraCache" {
		return bad(z.line, "zone", "routing=%q with explicit hosts is not modelled (expected Full, Floyd or Dijkstra with a route for every pair of hosts)", z.routing)
	}
	index := map[string]int{}
	for i, h := range z.hosts {
		index[h.name] = i
		if h.cores != z.hosts[0].cores {
			return bad(h.line, "host", "host %q has core=%d, host %q core=%d: hosts of different core counts are not modelled", h.name, h.cores, z.hosts[0].name, z.hosts[0].cores)
		}
	}
	n := len(z.hosts)
	// Every route, symmetrical ones in both directions.
	type directed struct {
		links []hop
		line  int
	}
	routes := map[[2]int]directed{}
	add := func(r routeDecl, src, dst int, links []hop) error {
		// SimGrid 3.32 aborts on a second route between the same hosts,
		// the reverse of a symmetrical one included.
		key := [2]int{src, dst}
		if prev, dup := routes[key]; dup {
			return bad(r.line, "route", "the route from %q to %q already exists (line %d; routes are symmetrical by default)", z.hosts[src].name, z.hosts[dst].name, prev.line)
		}
		routes[key] = directed{links: links, line: r.line}
		return nil
	}
	for _, r := range z.routes {
		src, ok1 := index[r.src]
		dst, ok2 := index[r.dst]
		if !ok1 || !ok2 {
			// A router's route: the general routes (general.go)
			// name the point that is neither.
			return p.general(z)
		}
		if err := add(r, src, dst, r.links); err != nil {
			return err
		}
		if r.sym && src != dst {
			if err := add(r, dst, src, reverseHops(r.links)); err != nil {
				return err
			}
		}
	}
	// The private link of each host, from the first route that shows it.
	own := make([]string, n)
	var loop *topology.LinkProps
	loopLine := 0
	owner := map[string]int{}
	// claim makes l host h's private link; false when another host's
	// it is, or h already has another.
	claim := func(h int, l hop) bool {
		if own[h] == "" {
			if o, taken := owner[l.link]; taken && o != h {
				return false
			}
			own[h], owner[l.link] = l.link, h
			return true
		}
		return own[h] == l.link
	}
	for src := 0; src < n; src++ {
		for dst := 0; dst < n; dst++ {
			r, ok := routes[[2]int{src, dst}]
			if src == dst {
				if !ok {
					continue
				}
				lp := z.links[r.links[0].link].props
				if len(r.links) != 1 || loop != nil && lp != *loop {
					return p.general(z)
				}
				loop, loopLine = &lp, r.line
				continue
			}
			if !ok || len(r.links) != 2 || r.links[0].dir == "DOWN" || r.links[1].dir == "UP" ||
				!claim(src, r.links[0]) || !claim(dst, r.links[1]) {
				// Not a star: SimGrid's routes as they are.
				return p.general(z)
			}
		}
	}
	pl := &Platform{File: p.file, Speed: z.hosts[0].speed, Cores: z.hosts[0].cores, Hosts: make([]string, n), Uniform: true, Loopback: loop, LoopbackLine: loopLine}
	if loop == nil {
		// No route from a host to itself: SimGrid's FullZone, FloydZone
		// and DijkstraZone route it over the network model's implicit
		// loopback link (FATPIPE), not up the host's link and down.
		pl.Loopback = &topology.LinkProps{Bandwidth: LoopbackBandwidth}
		pl.LoopbackFatPipe = true
	}
	for i, h := range z.hosts {
		pl.Hosts[i] = h.name
	}
	pl.Speeds = hostSpeeds(z.hosts)
	if n == 1 {
		return bad(z.hosts[0].line, "host", "a platform of one host has no network to simulate")
	}
	first := z.links[own[0]]
	pl.Link, pl.Sharing = first.props, first.sharing
	over := map[topology.LinkID]topology.LinkProps{}
	for h := 0; h < n; h++ {
		l := z.links[own[h]]
		if l.sharing != first.sharing {
			return p.general(z)
		}
		if l.props != first.props {
			pl.Uniform = false
		}
	}
	if first.sharing != SplitDuplex {
		pl.SharingLine = first.line
	}
	t, err := topology.ParseWith("crossbar:"+strconv.Itoa(n), topology.Options{Link: &first.props, Terminal: &first.props})
	if err != nil {
		return bad(z.line, "zone", "%v", err)
	}
	if !pl.Uniform {
		pl.Link = topology.LinkProps{}
		for h := 0; h < n; h++ {
			props := z.links[own[h]].props
			over[t.InjectLink(h)] = props
			r, port := t.Attach(h)
			over[t.OutLink(r, port)] = props
		}
		if t, err = topology.WithOverrides(t, over); err != nil {
			return bad(z.line, "zone", "%v", err)
		}
	}
	pl.Topology = t
	pl.Summary = fmt.Sprintf("zone %s: star of %d hosts with private links", z.id, n)
	if c := z.hosts[0].cores; c > 1 {
		pl.Summary = fmt.Sprintf("zone %s: star of %d hosts of %d cores with private links", z.id, n, c)
	}
	if pl.Uniform {
		pl.Summary += fmt.Sprintf(" of %s, %s", units.FormatRate(pl.Link.Bandwidth), units.FormatDuration(float64(pl.Link.Latency)/1e12))
	}
	pl.Summary += speedRange(pl.Speeds)
	p.network = pl
	return nil
}
