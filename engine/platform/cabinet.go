package platform

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// cabinetDecl is a <cabinet> of a routing="Cluster" zone: hosts
// prefix+radical+suffix, each with a private SPLITDUPLEX link of the
// cabinet's bandwidth and latency to the zone's switch.
type cabinetDecl struct {
	id    string
	first int // its first host in zoneDecl.hosts
	n     int
	link  topology.LinkProps
	line  int
}

// cabinet reads a <cabinet> into the current zone: its hosts go into the
// zone's hosts, in declaration order.
func (p *parser) cabinet(a *attrs, line int) error {
	z := p.zone
	hr, err := p.hostRange(a, line)
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	if len(z.hosts) == 0 {
		if err := p.claim(line, "cabinet"); err != nil {
			return err
		}
	}
	c := cabinetDecl{id: hr.id, first: len(z.hosts), n: len(hr.nums), link: hr.link, line: line}
	for _, r := range hr.nums {
		z.hosts = append(z.hosts, hostDecl{name: hr.prefix + strconv.Itoa(r) + hr.suffix, speed: hr.speed, cores: 1, line: line})
	}
	z.cabinets = append(z.cabinets, c)
	return nil
}

// zoneBackbone reads a zone's <backbone>: a SHARED link every message
// between two of its hosts crosses.
func (p *parser) zoneBackbone(a *attrs, line int) error {
	z := p.zone
	if _, err := a.required("id"); err != nil {
		return err
	}
	bw, err := a.bandwidth("bandwidth")
	if err != nil {
		return err
	}
	lat, err := a.latency("latency")
	if err != nil {
		return err
	}
	if err := a.finish(); err != nil {
		return err
	}
	if z.backbone != nil {
		return p.errAt(line, "backbone", "a second backbone (the first is on line %d)", z.backboneLine)
	}
	z.backbone, z.backboneLine = &topology.LinkProps{Bandwidth: bw, Latency: lat}, line
	return nil
}

// hostSpeeds returns the hosts' speeds in order when they differ, nil
// when they are all alike (Platform.Speeds).
func hostSpeeds(hosts []hostDecl) []float64 {
	for _, h := range hosts {
		if h.speed != hosts[0].speed {
			speeds := make([]float64, len(hosts))
			for i, h := range hosts {
				speeds[i] = h.speed
			}
			return speeds
		}
	}
	return nil
}

// speedRange describes hosts of different speeds for a summary: ", hosts
// of 1 Gf/s to 2 Gf/s"; "" when they are alike (nil).
func speedRange(speeds []float64) string {
	if speeds == nil {
		return ""
	}
	lo, hi := slices.Min(speeds), slices.Max(speeds)
	return fmt.Sprintf(", hosts of %s to %s", units.FormatFlops(lo)+"/s", units.FormatFlops(hi)+"/s")
}

// cabinets turns a routing="Cluster" zone of cabinets and a backbone into
// a crossbar with that backbone, each host's links its cabinet's (SimGrid
// routes a message up its source's link, across the backbone, down its
// destination's).
func (p *parser) cabinets(z *zoneDecl) error {
	bad := func(line int, elem, format string, args ...any) error {
		return p.errAt(line, elem, format, args...)
	}
	switch {
	case z.routing != "Cluster":
		return bad(z.line, "zone", "routing=%q with cabinets: expected routing=\"Cluster\"", z.routing)
	case len(z.links) > 0 || len(z.routes) > 0 || len(z.hosts) != z.cabinets[len(z.cabinets)-1].first+z.cabinets[len(z.cabinets)-1].n:
		return bad(z.line, "zone", "zone %q mixes cabinets with hosts, links or routes of its own, which is not modelled", z.id)
	}
	seen := map[string]int{}
	for _, h := range z.hosts {
		if l, ok := seen[h.name]; ok {
			return bad(h.line, "cabinet", "host %q is already declared on line %d", h.name, l)
		}
		seen[h.name] = h.line
	}
	c0 := z.cabinets[0]
	n := len(z.hosts)
	if n == 1 {
		return bad(c0.line, "cabinet", "a platform of one host has no network to simulate")
	}
	pl := &Platform{File: p.file, Speed: z.hosts[0].speed, Cores: 1, Link: c0.link, Uniform: true, Hosts: make([]string, n)}
	for i, h := range z.hosts {
		pl.Hosts[i] = h.name
	}
	pl.Speeds = hostSpeeds(z.hosts)
	for _, c := range z.cabinets {
		if c.link != c0.link {
			pl.Uniform = false
		}
	}
	if z.backbone != nil {
		pl.Backbone, pl.BackboneSharing, pl.BackboneLine = z.backbone, Shared, z.backboneLine
	}
	var t topology.Topology = topology.NewCrossbar(n, c0.link, z.backbone)
	if !pl.Uniform {
		pl.Link = topology.LinkProps{}
		over := map[topology.LinkID]topology.LinkProps{}
		for _, c := range z.cabinets {
			for h := c.first; h < c.first+c.n; h++ {
				over[t.InjectLink(h)] = c.link
				r, port := t.Attach(h)
				over[t.OutLink(r, port)] = c.link
			}
		}
		var err error
		if t, err = topology.WithOverrides(t, over); err != nil {
			return bad(z.line, "zone", "%v", err)
		}
	}
	pl.Topology = t
	pl.Summary = fmt.Sprintf("zone %s: %d cabinets of %d hosts in all", z.id, len(z.cabinets), n)
	if pl.Uniform {
		pl.Summary += fmt.Sprintf(", %s, %s links", units.FormatRate(c0.link.Bandwidth), units.FormatDuration(float64(c0.link.Latency)/1e12))
	}
	if bb := z.backbone; bb != nil {
		pl.Summary += fmt.Sprintf(", a %s, %s SHARED backbone", units.FormatRate(bb.Bandwidth), units.FormatDuration(float64(bb.Latency)/1e12))
	}
	pl.Summary += speedRange(pl.Speeds)
	p.network = pl
	return nil
}
