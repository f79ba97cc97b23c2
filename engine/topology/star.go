package topology

import (
	"strconv"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// Star is a single router with every node on its own port: a crossbar
// (KindCrossbar), where transfers between distinct port pairs proceed in
// parallel, or a bus (KindBus), a shared medium that carries one transfer
// at a time.
//
// Node i sits on port i. Link ids: OutLink(0, i) = i (router to node i),
// InjectLink(i) = N + i, and for a bus the medium is link 2N.
//
// How models use a bus: routing is trivial (the output port is the
// destination's port), but every packet that crosses the router must also
// hold the medium, Medium(0), for its serialization time at the medium's
// bandwidth, so transfers are serialized network-wide; the medium carries
// the bus latency, and the taps (terminal links) have the bus bandwidth and
// zero latency so that, under cut-through, a packet is serialized once and
// delayed once. The medium's utilisation is the bus utilisation. Analytic
// models see one hop between distinct nodes.
//
// A crossbar may have a backbone (SimGrid's bb_bw and bb_lat): a medium
// every message between nodes crosses, one channel for both directions,
// between the sender's terminal link and the receiver's. Its terminal
// links keep their own bandwidth and latency, so a route is the two
// terminal links and the backbone, as in SimGrid's cluster; analytic
// models still see two hops.
type Star struct {
	kind     Kind
	n        int
	props    LinkProps  // terminal links (crossbar) or the medium (bus)
	backbone *LinkProps // a crossbar's backbone, nil for none
	overrides
}

func newCrossbar(n int, p LinkProps, backbone *LinkProps) *Star {
	return &Star{kind: KindCrossbar, n: n, props: p, backbone: backbone}
}
func newBus(n int, p LinkProps) *Star { return &Star{kind: KindBus, n: n, props: p} }

// NewCrossbar returns a crossbar of n nodes whose terminal links have
// the properties p and, when backbone is not nil, whose traffic between
// nodes crosses a backbone of those properties (see Star).
func NewCrossbar(n int, p LinkProps, backbone *LinkProps) *Star {
	if backbone != nil {
		bb := *backbone
		backbone = &bb
	}
	return newCrossbar(n, p, backbone)
}

// Backbone returns the properties of a crossbar's backbone and whether it
// has one.
func (s *Star) Backbone() (LinkProps, bool) {
	if s.backbone == nil {
		return LinkProps{}, false
	}
	return s.apply(LinkID(2*s.n), *s.backbone), true
}

// hasMedium reports whether link 2N exists: a bus's medium or a
// crossbar's backbone.
func (s *Star) hasMedium() bool { return s.kind == KindBus || s.backbone != nil }

// Kind is KindCrossbar or KindBus.
func (s *Star) Kind() Kind { return s.kind }

// Spec returns the canonical spec.
func (s *Star) Spec() string {
	spec := s.kind.String() + ":" + strconv.Itoa(s.n) + formatProps("bw", "lat", s.props, DefaultLink)
	if bb := s.backbone; bb != nil {
		// bbbw always, so that the backbone survives a round trip.
		spec += ",bbbw=" + units.FormatRateExact(bb.Bandwidth) + formatProps("", "bblat", *bb, LinkProps{Bandwidth: bb.Bandwidth})
	}
	return spec
}

// NumNodes is the number of ports.
func (s *Star) NumNodes() int { return s.n }

// NumRouters is 1.
func (s *Star) NumRouters() int { return 1 }

// NumPorts is the number of nodes.
func (s *Star) NumPorts(int) int { return s.n }

// Peer of port p is node p.
func (s *Star) Peer(r, p int) Peer {
	if r != 0 || p < 0 || p >= s.n {
		return Peer{}
	}
	return Peer{Kind: PeerNode, ID: p}
}

// Attach puts node n on port n.
func (s *Star) Attach(n int) (router, port int) { return 0, n }

// NumLinks is 2N, plus the medium of a bus or the backbone.
func (s *Star) NumLinks() int {
	if s.hasMedium() {
		return 2*s.n + 1
	}
	return 2 * s.n
}

// OutLink(0, p) is p.
func (s *Star) OutLink(r, p int) LinkID {
	if r != 0 || p < 0 || p >= s.n {
		return NoLink
	}
	return LinkID(p)
}

// InjectLink(n) is N + n.
func (s *Star) InjectLink(n int) LinkID {
	if n < 0 || n >= s.n {
		return NoLink
	}
	return LinkID(s.n + n)
}

// Link describes channel id.
func (s *Star) Link(id LinkID) Link {
	i := int(id)
	tap := s.props
	if s.kind == KindBus {
		tap.Latency = 0
	}
	switch {
	case i < 0 || i >= s.NumLinks():
		return Link{ID: id, Reverse: NoLink}
	case i < s.n:
		return Link{ID: id, Valid: true, From: Peer{Kind: PeerRouter, Port: i}, To: Peer{Kind: PeerNode, ID: i},
			Reverse: LinkID(s.n + i), Class: ClassTerminal, Props: s.apply(id, tap)}
	case i < 2*s.n:
		n := i - s.n
		return Link{ID: id, Valid: true, From: Peer{Kind: PeerNode, ID: n}, To: Peer{Kind: PeerRouter, Port: n},
			Reverse: LinkID(n), Class: ClassTerminal, Props: s.apply(id, tap)}
	}
	medium := s.props
	if s.backbone != nil {
		medium = *s.backbone
	}
	return Link{ID: id, Valid: true, From: Peer{Kind: PeerRouter}, To: Peer{Kind: PeerRouter},
		Reverse: NoLink, Class: ClassMedium, Props: s.apply(id, medium)}
}

// Medium is the bus channel or the crossbar's backbone (2N), NoLink for
// a crossbar without one.
func (s *Star) Medium(r int) LinkID {
	if s.hasMedium() && r == 0 {
		return LinkID(2 * s.n)
	}
	return NoLink
}

// RouterHops is 0: every node is on the same router.
func (s *Star) RouterHops(a, b int) int { return 0 }

// Hops is 2 between distinct nodes of a crossbar (in and out of the
// switch) and 1 on a bus (one transmission over the medium).
func (s *Star) Hops(a, b int) int {
	if a == b {
		return 0
	}
	if s.kind == KindBus {
		return 1
	}
	return 2
}

// Layout is a single router.
func (s *Star) Layout() Layout { return Layout{Style: LayoutStar, Dims: []int{1}} }

// Coords of the router are [0].
func (s *Star) Coords(r int, buf []int) []int { return append(buf, r) }
