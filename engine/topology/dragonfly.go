package topology

import (
	"fmt"
	"strings"
)

// Dragonfly is the balanced dragonfly of Kim, Dally, Scott and Abts: g =
// a·h+1 groups of a routers; the routers of a group are fully connected by
// local links; each router has h global links and p nodes; every pair of
// groups is joined by exactly one global link.
//
// Router r is router i = r mod a of group G = r / a. Ports: 0..a-2 are
// local (local port q leads to router q of the group if q < i, else q+1),
// a-1..a+h-2 global, a+h-1.. terminal (node r·p+t on terminal port t).
//
// Global links follow the "palm tree" (consecutive) arrangement: global
// link c = i·h + j of group G (router i, global port j) leads to group
// (G + c + 1) mod g, where it arrives on link a·h-1-c of that group. So
// group G reaches group G' through its link (G' − G − 1) mod g, the
// routers of a group serve consecutive target groups, and the pairing is
// symmetric.
//
// Link ids: OutLink(r, p) = r·NumPorts + p, InjectLink(n) = routers·NumPorts
// + n.
type Dragonfly struct {
	p, a, h  int
	groups   int
	routers  int
	ports    int
	network  LinkProps // local links
	global   LinkProps
	terminal LinkProps
	overrides
}

func newDragonfly(p, a, h int, network, terminal, global LinkProps) *Dragonfly {
	g := a*h + 1
	return &Dragonfly{p: p, a: a, h: h, groups: g, routers: a * g, ports: a - 1 + h + p,
		network: network, global: global, terminal: terminal}
}

// Kind is KindDragonfly.
func (d *Dragonfly) Kind() Kind { return KindDragonfly }

// Spec returns the canonical spec.
func (d *Dragonfly) Spec() string {
	var b strings.Builder
	fmt.Fprintf(&b, "dragonfly:p=%d,a=%d,h=%d", d.p, d.a, d.h)
	b.WriteString(formatProps("bw", "lat", d.network, DefaultLink))
	b.WriteString(formatProps("nbw", "nlat", d.terminal, d.network))
	b.WriteString(formatProps("gbw", "glat", d.global, d.network))
	return b.String()
}

// Params returns p (nodes per router), a (routers per group) and h (global
// links per router).
func (d *Dragonfly) Params() (p, a, h int) { return d.p, d.a, d.h }

// Groups is a·h+1.
func (d *Dragonfly) Groups() int { return d.groups }

// NumNodes is p·routers.
func (d *Dragonfly) NumNodes() int { return d.routers * d.p }

// NumRouters is a·groups.
func (d *Dragonfly) NumRouters() int { return d.routers }

// NumPorts is a-1+h+p for every router.
func (d *Dragonfly) NumPorts(int) int { return d.ports }

// GroupOf returns the group of router r and its index in the group.
func (d *Dragonfly) GroupOf(r int) (group, index int) { return r / d.a, r % d.a }

// LocalPort is the port of router index i that leads to router index j of
// the same group (i != j).
func (d *Dragonfly) LocalPort(i, j int) int {
	if j < i {
		return j
	}
	return j - 1
}

// GlobalPort is the port of global link j (0 ≤ j < h).
func (d *Dragonfly) GlobalPort(j int) int { return d.a - 1 + j }

// IsGlobalPort reports whether port p is a global port.
func (d *Dragonfly) IsGlobalPort(p int) bool { return p >= d.a-1 && p < d.a-1+d.h }

// IsTerminalPort reports whether port p is a terminal port.
func (d *Dragonfly) IsTerminalPort(p int) bool { return p >= d.a-1+d.h && p < d.ports }

// Gateway returns the router index within group src and the global port
// through which group src reaches group dst (src != dst).
func (d *Dragonfly) Gateway(src, dst int) (index, port int) {
	c := ((dst-src-1)%d.groups + d.groups) % d.groups
	return c / d.h, d.a - 1 + c%d.h
}

// Peer is what port p of router r leads to.
func (d *Dragonfly) Peer(r, p int) Peer {
	if r < 0 || r >= d.routers || p < 0 || p >= d.ports {
		return Peer{}
	}
	G, i := d.GroupOf(r)
	switch {
	case p < d.a-1:
		j := p
		if j >= i {
			j++
		}
		return Peer{Kind: PeerRouter, ID: G*d.a + j, Port: d.LocalPort(j, i)}
	case p < d.a-1+d.h:
		c := i*d.h + p - (d.a - 1)
		G2 := (G + c + 1) % d.groups
		c2 := d.a*d.h - 1 - c
		return Peer{Kind: PeerRouter, ID: G2*d.a + c2/d.h, Port: d.a - 1 + c2%d.h}
	}
	return Peer{Kind: PeerNode, ID: r*d.p + p - (d.a - 1 + d.h)}
}

// Attach returns node n's router and terminal port.
func (d *Dragonfly) Attach(n int) (router, port int) {
	return n / d.p, d.a - 1 + d.h + n%d.p
}

// NumLinks is routers·ports + nodes.
func (d *Dragonfly) NumLinks() int { return d.routers*d.ports + d.NumNodes() }

// OutLink is r·ports + p.
func (d *Dragonfly) OutLink(r, p int) LinkID {
	if r < 0 || r >= d.routers || p < 0 || p >= d.ports {
		return NoLink
	}
	return LinkID(r*d.ports + p)
}

// InjectLink is routers·ports + n.
func (d *Dragonfly) InjectLink(n int) LinkID {
	if n < 0 || n >= d.NumNodes() {
		return NoLink
	}
	return LinkID(d.routers*d.ports + n)
}

// Link describes channel id.
func (d *Dragonfly) Link(id LinkID) Link {
	i := int(id)
	switch {
	case i < 0 || i >= d.NumLinks():
		return Link{ID: id, Reverse: NoLink}
	case i >= d.routers*d.ports:
		n := i - d.routers*d.ports
		r, p := d.Attach(n)
		return Link{ID: id, Valid: true, From: Peer{Kind: PeerNode, ID: n}, To: Peer{Kind: PeerRouter, ID: r, Port: p},
			Reverse: LinkID(r*d.ports + p), Class: ClassTerminal, Props: d.apply(id, d.terminal)}
	}
	r, p := i/d.ports, i%d.ports
	to := d.Peer(r, p)
	l := Link{ID: id, Valid: true, From: Peer{Kind: PeerRouter, ID: r, Port: p}, To: to}
	switch {
	case to.Kind == PeerNode:
		l.Class, l.Reverse, l.Props = ClassTerminal, d.InjectLink(to.ID), d.apply(id, d.terminal)
	case d.IsGlobalPort(p):
		l.Class, l.Reverse, l.Props = ClassGlobal, LinkID(to.ID*d.ports+to.Port), d.apply(id, d.global)
	default:
		l.Class, l.Reverse, l.Props = ClassLocal, LinkID(to.ID*d.ports+to.Port), d.apply(id, d.network)
	}
	return l
}

// Medium is NoLink.
func (d *Dragonfly) Medium(int) LinkID { return NoLink }

// MinimalHops is the length of the minimal route of dragonfly routing
// from router a to router b: local hop to the gateway, global hop, local
// hop to b, each only when needed (at most 3). It can exceed the graph
// distance (RouterDistance) by one when a two-hop path through a third
// group exists.
func (d *Dragonfly) MinimalHops(a, b int) int {
	if a == b {
		return 0
	}
	Ga, ia := d.GroupOf(a)
	Gb, ib := d.GroupOf(b)
	if Ga == Gb {
		return 1
	}
	h := 1
	if gi, _ := d.Gateway(Ga, Gb); gi != ia {
		h++
	}
	if gj, _ := d.Gateway(Gb, Ga); gj != ib {
		h++
	}
	return h
}

// globalPeer is the router at the far end of global link j of router r.
func (d *Dragonfly) globalPeer(r, j int) int {
	return d.Peer(r, d.a-1+j).ID
}

// RouterDistance is the graph distance between routers a and b (at most
// 3). Besides local–global–local, two global hops through a third group
// can be shorter; they are found in O(h).
func (d *Dragonfly) RouterDistance(a, b int) int {
	m := d.MinimalHops(a, b)
	if m < 3 {
		return m
	}
	Gb, _ := d.GroupOf(b)
	for j := 0; j < d.h; j++ {
		x := d.globalPeer(a, j)
		Gx, ix := d.GroupOf(x)
		if Gx == Gb {
			continue
		}
		if gi, port := d.Gateway(Gx, Gb); gi == ix && d.Peer(x, port).ID == b {
			return 2
		}
	}
	return 3
}

// RouterHops is the router distance between the nodes' routers.
func (d *Dragonfly) RouterHops(a, b int) int { return d.RouterDistance(a/d.p, b/d.p) }

// Hops is the router distance, at least 1 between distinct nodes.
func (d *Dragonfly) Hops(a, b int) int { return directHops(d.RouterHops(a, b), a, b) }

// Layout groups the routers.
func (d *Dragonfly) Layout() Layout {
	return Layout{Style: LayoutGroups, Dims: []int{d.groups, d.a}}
}

// Coords are [group, index].
func (d *Dragonfly) Coords(r int, buf []int) []int {
	G, i := d.GroupOf(r)
	return append(buf, G, i)
}
