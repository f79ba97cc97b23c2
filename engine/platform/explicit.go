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
		return p.cabinets(z)
	}
	if z.backbone != nil {
		return bad(z.backboneLine, "backbone", "a backbone without cabinets is not modelled (a cluster's is its bb_bw and bb_lat)")
	}
	if len(z.hosts) == 0 {
		if len(z.links) > 0 || len(z.routes) > 0 {
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
			name := r.src
			if ok1 {
				name = r.dst
			}
			return bad(r.line, "route", "%q is not a host of zone %q (routers and routes between zones are not modelled)", name, z.id)
		}
		if err := add(r, src, dst, r.links); err != nil {
			return err
		}
		if r.sym && src != dst {
			rev := make([]hop, len(r.links))
			for i, h := range r.links {
				switch h.dir {
				case "UP":
					h.dir = "DOWN"
				case "DOWN":
					h.dir = "UP"
				}
				rev[len(r.links)-1-i] = h
			}
			if err := add(r, dst, src, rev); err != nil {
				return err
			}
		}
	}
	// The private link of each host, from the first route that shows it.
	own := make([]string, n)
	ownLine := make([]int, n)
	var loop *topology.LinkProps
	loopLine := 0
	owner := map[string]int{}
	claim := func(h int, l hop, line int) error {
		if own[h] == "" {
			if o, taken := owner[l.link]; taken && o != h {
				return bad(line, "route", "link %q is the private link of %q and of %q: only star routes (each host its own link) are modelled", l.link, z.hosts[o].name, z.hosts[h].name)
			}
			own[h], ownLine[h], owner[l.link] = l.link, line, h
			return nil
		}
		if own[h] != l.link {
			return bad(line, "route", "host %q reaches the network through link %q here and through %q on line %d: only star routes (each host its own link) are modelled", z.hosts[h].name, l.link, own[h], ownLine[h])
		}
		return nil
	}
	for src := 0; src < n; src++ {
		for dst := 0; dst < n; dst++ {
			r, ok := routes[[2]int{src, dst}]
			if src == dst {
				if !ok {
					continue
				}
				if len(r.links) != 1 {
					return bad(r.line, "route", "the route from %q to itself has %d links: one loopback link is modelled", z.hosts[src].name, len(r.links))
				}
				lp := z.links[r.links[0].link].props
				if loop != nil && lp != *loop {
					return bad(r.line, "route", "loopback links of different bandwidth or latency are not modelled")
				}
				loop, loopLine = &lp, r.line
				continue
			}
			if !ok {
				return bad(z.line, "zone", "no route from %q to %q: every pair of hosts needs one under routing=%s", z.hosts[src].name, z.hosts[dst].name, z.routing)
			}
			if len(r.links) != 2 {
				return bad(r.line, "route", "the route from %q to %q has %d links: only star routes (the source's link, then the destination's) are modelled", z.hosts[src].name, z.hosts[dst].name, len(r.links))
			}
			if r.links[0].dir == "DOWN" || r.links[1].dir == "UP" {
				return bad(r.line, "route", "the route from %q to %q goes down its source's link or up its destination's", z.hosts[src].name, z.hosts[dst].name)
			}
			if err := claim(src, r.links[0], r.line); err != nil {
				return err
			}
			if err := claim(dst, r.links[1], r.line); err != nil {
				return err
			}
		}
	}
	pl := &Platform{File: p.file, Speed: z.hosts[0].speed, Cores: z.hosts[0].cores, Hosts: make([]string, n), Uniform: true, Loopback: loop, LoopbackLine: loopLine}
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
			return bad(l.line, "link", "link %q is %s, link %q %s: links of different sharing policies are not modelled", own[h], l.sharing, own[0], first.sharing)
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
