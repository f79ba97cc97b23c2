package topology

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// Grid is a ring, a k-ary n-mesh, a k-ary n-cube (torus) or a hypercube: the
// routers sit on a k0×k1×…×k(n-1) grid and each links to its neighbours
// along every dimension; the ring and the torus add wraparound links. A
// hypercube is the n-dimensional grid of side 2.
//
// Router r has coordinates x_d = (r / stride_d) mod k_d with stride_0 = 1,
// so dimension 0 (X) varies fastest. Ports: dimension d has a "+" port
// (towards x_d+1) and a "−" port (towards x_d−1), numbered PortOf(d, +1) =
// 2d' and PortOf(d, −1) = 2d'+1 where d' counts the dimensions before d;
// a dimension of size 2 has a single port that toggles the coordinate (a
// torus or ring of size 2 has no separate wraparound link). The C terminal
// ports follow the network ports; node n sits on router n / C at terminal
// port n mod C.
//
// Link ids: OutLink(r, p) = r·NumPorts + p (boundary ports of a mesh are
// unused ids), InjectLink(n) = NumRouters·NumPorts + n.
type Grid struct {
	kind     Kind
	dims     []int
	wrap     []bool
	conc     int
	stride   []int
	routers  int
	netPorts int
	ports    int
	plus     []int // port towards x+1, per dimension
	minus    []int // port towards x−1 (== plus for size-2 dimensions)
	portDim  []int
	portDir  []int8 // +1, −1, or 0 for a size-2 toggle port
	pow2     bool
	shift    []uint
	mask     []int
	network  LinkProps
	terminal LinkProps
	overrides
}

func newGrid(kind Kind, dims []int, conc int, network, terminal LinkProps) *Grid {
	g := &Grid{kind: kind, dims: append([]int(nil), dims...), conc: conc, network: network, terminal: terminal, pow2: true}
	n := len(dims)
	g.wrap = make([]bool, n)
	g.stride = make([]int, n)
	g.plus = make([]int, n)
	g.minus = make([]int, n)
	g.shift = make([]uint, n)
	g.mask = make([]int, n)
	s := 1
	for d, k := range dims {
		g.wrap[d] = (kind == KindTorus || kind == KindRing) && k > 2
		g.stride[d] = s
		if k&(k-1) != 0 {
			g.pow2 = false
		}
		g.shift[d] = uint(bits.TrailingZeros(uint(s)))
		g.mask[d] = k - 1
		s *= k
		g.plus[d] = len(g.portDim)
		if k == 2 {
			g.minus[d] = g.plus[d]
			g.portDim = append(g.portDim, d)
			g.portDir = append(g.portDir, 0)
		} else {
			g.minus[d] = g.plus[d] + 1
			g.portDim = append(g.portDim, d, d)
			g.portDir = append(g.portDir, +1, -1)
		}
	}
	g.routers = s
	g.netPorts = len(g.portDim)
	g.ports = g.netPorts + conc
	return g
}

// Kind is KindRing, KindMesh, KindTorus or KindHypercube.
func (g *Grid) Kind() Kind { return g.kind }

// Spec returns the canonical spec.
func (g *Grid) Spec() string {
	var b strings.Builder
	b.WriteString(g.kind.String())
	b.WriteByte(':')
	switch g.kind {
	case KindRing:
		b.WriteString(strconv.Itoa(g.dims[0]))
	case KindHypercube:
		b.WriteString(strconv.Itoa(len(g.dims)))
	default:
		for d, k := range g.dims {
			if d > 0 {
				b.WriteByte('x')
			}
			b.WriteString(strconv.Itoa(k))
		}
	}
	if g.conc != 1 {
		fmt.Fprintf(&b, ",c=%d", g.conc)
	}
	b.WriteString(formatProps("bw", "lat", g.network, DefaultLink))
	b.WriteString(formatProps("nbw", "nlat", g.terminal, g.network))
	return b.String()
}

// NumNodes is routers × nodes per router.
func (g *Grid) NumNodes() int { return g.routers * g.conc }

// NumRouters is the product of the dimension sizes.
func (g *Grid) NumRouters() int { return g.routers }

// NumPorts is the same for every router: network ports plus terminal ports.
func (g *Grid) NumPorts(int) int { return g.ports }

// NumDims is the number of dimensions.
func (g *Grid) NumDims() int { return len(g.dims) }

// Size is k_d, the number of routers along dimension d.
func (g *Grid) Size(d int) int { return g.dims[d] }

// Wraps reports whether dimension d has wraparound links (torus or ring
// with more than two routers along d).
func (g *Grid) Wraps(d int) bool { return g.wrap[d] }

// Concentration is the number of nodes per router.
func (g *Grid) Concentration() int { return g.conc }

// NetPorts is the number of router-to-router ports; terminal port j of a
// router is NetPorts()+j.
func (g *Grid) NetPorts() int { return g.netPorts }

// Coord is router r's coordinate along dimension d.
func (g *Grid) Coord(r, d int) int {
	if g.pow2 {
		return (r >> g.shift[d]) & g.mask[d]
	}
	return (r / g.stride[d]) % g.dims[d]
}

// Stride is the router-number distance between neighbours along d.
func (g *Grid) Stride(d int) int { return g.stride[d] }

// RouterAt is the router with the given coordinates (len NumDims; each
// reduced modulo the dimension size).
func (g *Grid) RouterAt(coords []int) int {
	r := 0
	for d, x := range coords {
		k := g.dims[d]
		x %= k
		if x < 0 {
			x += k
		}
		r += x * g.stride[d]
	}
	return r
}

// PortOf is the port of dimension d in direction dir (+1 or −1). For a
// dimension of size 2 both directions give the single toggle port.
func (g *Grid) PortOf(d, dir int) int {
	if dir >= 0 {
		return g.plus[d]
	}
	return g.minus[d]
}

// PortDim returns the dimension and direction (+1, −1, or 0 for a toggle
// port) of network port p; ok is false for terminal ports.
func (g *Grid) PortDim(p int) (d, dir int, ok bool) {
	if p < 0 || p >= g.netPorts {
		return 0, 0, false
	}
	return g.portDim[p], int(g.portDir[p]), true
}

// step moves x one hop in direction dir along dimension d; ok is false at
// a mesh boundary. wrapped reports a wraparound (dateline) crossing.
func (g *Grid) step(x, d, dir int) (nx int, wrapped, ok bool) {
	k := g.dims[d]
	switch {
	case dir == 0 || k == 2:
		return 1 - x, false, true
	case dir > 0:
		if x+1 < k {
			return x + 1, false, true
		}
		if g.wrap[d] {
			return 0, true, true
		}
	default:
		if x > 0 {
			return x - 1, false, true
		}
		if g.wrap[d] {
			return k - 1, true, true
		}
	}
	return 0, false, false
}

// IsWrapLink reports whether leaving router r through port p crosses a
// wraparound link (the dateline of that ring).
func (g *Grid) IsWrapLink(r, p int) bool {
	if p < 0 || p >= g.netPorts {
		return false
	}
	d := g.portDim[p]
	_, wrapped, ok := g.step(g.Coord(r, d), d, int(g.portDir[p]))
	return ok && wrapped
}

// Peer is what port p of router r leads to.
func (g *Grid) Peer(r, p int) Peer {
	if r < 0 || r >= g.routers || p < 0 || p >= g.ports {
		return Peer{}
	}
	if p >= g.netPorts {
		return Peer{Kind: PeerNode, ID: r*g.conc + p - g.netPorts}
	}
	d, dir := g.portDim[p], int(g.portDir[p])
	x := g.Coord(r, d)
	nx, _, ok := g.step(x, d, dir)
	if !ok {
		return Peer{}
	}
	back := p
	switch dir {
	case +1:
		back = g.minus[d]
	case -1:
		back = g.plus[d]
	}
	return Peer{Kind: PeerRouter, ID: r + (nx-x)*g.stride[d], Port: back}
}

// Attach returns node n's router and terminal port.
func (g *Grid) Attach(n int) (router, port int) {
	return n / g.conc, g.netPorts + n%g.conc
}

// NumLinks is routers × ports + nodes.
func (g *Grid) NumLinks() int { return g.routers*g.ports + g.NumNodes() }

// OutLink is r·NumPorts + p, or NoLink at a mesh boundary.
func (g *Grid) OutLink(r, p int) LinkID {
	if g.Peer(r, p).Kind == PeerNone {
		return NoLink
	}
	return LinkID(r*g.ports + p)
}

// InjectLink is routers·ports + n.
func (g *Grid) InjectLink(n int) LinkID {
	if n < 0 || n >= g.NumNodes() {
		return NoLink
	}
	return LinkID(g.routers*g.ports + n)
}

// Link describes channel id.
func (g *Grid) Link(id LinkID) Link {
	i := int(id)
	switch {
	case i < 0 || i >= g.NumLinks():
		return Link{ID: id, Reverse: NoLink}
	case i >= g.routers*g.ports:
		n := i - g.routers*g.ports
		r, p := g.Attach(n)
		return Link{ID: id, Valid: true, From: Peer{Kind: PeerNode, ID: n}, To: Peer{Kind: PeerRouter, ID: r, Port: p},
			Reverse: LinkID(r*g.ports + p), Class: ClassTerminal, Props: g.apply(id, g.terminal)}
	}
	r, p := i/g.ports, i%g.ports
	to := g.Peer(r, p)
	l := Link{ID: id, From: Peer{Kind: PeerRouter, ID: r, Port: p}, To: to, Reverse: NoLink}
	switch to.Kind {
	case PeerNode:
		l.Valid, l.Class, l.Reverse, l.Props = true, ClassTerminal, g.InjectLink(to.ID), g.apply(id, g.terminal)
	case PeerRouter:
		l.Valid, l.Class, l.Level, l.Props = true, ClassNetwork, g.portDim[p], g.apply(id, g.network)
		l.Reverse = LinkID(to.ID*g.ports + to.Port)
	}
	return l
}

// Medium is NoLink: grids have no shared channel.
func (g *Grid) Medium(int) LinkID { return NoLink }

// RouterDistance is the number of hops between routers a and b.
func (g *Grid) RouterDistance(a, b int) int {
	h := 0
	for d, k := range g.dims {
		x, y := g.Coord(a, d), g.Coord(b, d)
		delta := x - y
		if delta < 0 {
			delta = -delta
		}
		if g.wrap[d] && k-delta < delta {
			delta = k - delta
		}
		h += delta
	}
	return h
}

// RouterHops is the Manhattan distance (with wraparound on tori).
func (g *Grid) RouterHops(a, b int) int { return g.RouterDistance(a/g.conc, b/g.conc) }

// Hops is the router distance, at least 1 between distinct nodes.
func (g *Grid) Hops(a, b int) int { return directHops(g.RouterHops(a, b), a, b) }

// Layout is a grid of the dimension sizes.
func (g *Grid) Layout() Layout {
	return Layout{Style: LayoutGrid, Dims: append([]int(nil), g.dims...), Wrap: append([]bool(nil), g.wrap...)}
}

// Coords appends the coordinates of router r.
func (g *Grid) Coords(r int, buf []int) []int {
	for d := range g.dims {
		buf = append(buf, g.Coord(r, d))
	}
	return buf
}
