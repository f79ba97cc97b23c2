package routing

import (
	"github.com/tracesim/tracesim/engine/topology"
)

type gridMode uint8

const (
	modeDOR gridMode = iota
	modeAdaptive
	modeMinimal
	modeValiant
)

type flowMode uint8

const (
	flowNone     flowMode = iota // no deadlock avoidance (or none needed: meshes)
	flowDateline                 // dateline VC classes on wrapping dimensions
	flowBubble                   // bubble flow control on wrapping dimensions
)

// gridAlg routes on rings, meshes, tori and hypercubes.
type gridAlg struct {
	base
	mode     gridMode
	flow     flowMode
	pol      policy
	n        int
	k        []int32
	stride   []int32
	pow2     bool
	shift    []uint8
	mask     []int32
	wrap     []bool
	plus     []int32
	minus    []int32
	netPorts int
	conc     int
	routers  int
	phases   int // VC classes per dateline half: 2 for Valiant, else 1
	dims     []gridDim
	// deferOrder: the adaptive choices stay in static order for the
	// caller to take the least occupied (DeferQueueOrder).
	deferOrder bool
	// scratch holds the minimal ports of a hop without the hop table.
	scratch []int32
	// hops is the hop table (hopTable) by offset of the target, nil
	// when there is none; hopPorts holds its ports and hopHigh the top
	// bit of every dimension's field of a router number.
	hops     []gridHop
	hopPorts []int32
	hopHigh  int
}

// DeferQueueOrder implements QueueOrderer: adaptive routing orders its
// minimal choices by occupancy; the others have no such order to defer.
func (a *gridAlg) DeferQueueOrder() bool {
	if a.mode != modeAdaptive {
		return false
	}
	a.deferOrder = true
	if a.hops == nil {
		a.hopTable()
	}
	return true
}

// gridDim is one dimension as the adaptive path reads it.
type gridDim struct {
	k, stride, mask int32
	plus, minus     int32 // ports towards +1 and −1
	shift           uint8
	wrap            bool
}

func newGridAlg(name, baseName, variant string, g *topology.Grid, opt Options) *gridAlg {
	a := &gridAlg{n: g.NumDims(), netPorts: g.NetPorts(), conc: g.Concentration(), routers: g.NumRouters(), pow2: true, phases: 1}
	wrap := hasWrap(g)
	switch baseName {
	case "dor":
		a.mode = modeDOR
	case "adaptive":
		a.mode = modeAdaptive
	case "minimal":
		a.mode = modeMinimal
		a.pol = policyOf(variant)
	case "valiant":
		a.mode = modeValiant
		a.phases = 2
	}
	if wrap {
		switch {
		case variant == "bubble" || a.mode == modeAdaptive:
			a.flow = flowBubble
		case variant == "none" || a.mode == modeMinimal:
			a.flow = flowNone
		default:
			a.flow = flowDateline
		}
	}
	classes := a.phases
	switch {
	case a.flow == flowDateline:
		classes = 2 * a.phases
	case a.mode == modeAdaptive:
		classes = 2 // class 0 = escape VC 0, class 1 = adaptive VCs
	}
	a.base = newBase(name, g, opt, classes)
	if a.mode == modeAdaptive {
		// Exactly one escape VC, whatever the VC count.
		a.vcLo[0], a.vcHi[0], a.vcLo[1], a.vcHi[1] = 0, 1, 1, uint8(opt.VCs)
		for v := range a.vcClass {
			a.vcClass[v] = uint8(min(v, 1))
		}
	}
	if a.pol == policyRR {
		a.rr = make([]uint32, a.routers)
	}
	for d := 0; d < a.n; d++ {
		k := g.Size(d)
		a.k = append(a.k, int32(k))
		a.stride = append(a.stride, int32(g.Stride(d)))
		a.wrap = append(a.wrap, g.Wraps(d))
		a.plus = append(a.plus, int32(g.PortOf(d, +1)))
		a.minus = append(a.minus, int32(g.PortOf(d, -1)))
		if k&(k-1) != 0 {
			a.pow2 = false
		}
		sh := 0
		for 1<<sh < g.Stride(d) {
			sh++
		}
		a.shift = append(a.shift, uint8(sh))
		a.mask = append(a.mask, int32(k-1))
		a.dims = append(a.dims, gridDim{k: int32(k), stride: int32(g.Stride(d)), mask: int32(k - 1),
			plus: a.plus[d], minus: a.minus[d], shift: uint8(sh), wrap: g.Wraps(d)})
	}
	a.max = a.netPorts*opt.VCs + 1
	return a
}

func (a *gridAlg) coord(r, d int) int {
	if a.pow2 {
		return (r >> a.shift[d]) & int(a.mask[d])
	}
	return (r / int(a.stride[d])) % int(a.k[d])
}

// Init fills st; Valiant routes pick their intermediate router here.
func (a *gridAlg) Init(st *State, src, dst int) {
	a.initState(st, src, dst)
	if a.mode == modeValiant {
		st.Inter = int32(a.intn(a.routers))
		if r, _ := a.topo.Attach(src); r == int(st.DstRouter) {
			// Nodes of one router talk through it; no detour.
			st.Inter, st.Phase = -1, 1
		}
	}
}

// dir returns the direction to travel along dimension d from x to y (x !=
// y): +1, -1, or 0 for a dimension of size 2; tie reports that both
// directions are minimal (half-way round a ring of even size).
func (a *gridAlg) dir(d, x, y int) (dir int, tie bool) {
	k := int(a.k[d])
	if k == 2 {
		return 0, false
	}
	if !a.wrap[d] {
		if y > x {
			return +1, false
		}
		return -1, false
	}
	delta := y - x
	if delta < 0 {
		delta += k
	}
	switch {
	case 2*delta < k:
		return +1, false
	case 2*delta == k:
		return +1, true
	}
	return -1, false
}

func (a *gridAlg) port(d, dir int) int {
	if dir < 0 {
		return int(a.minus[d])
	}
	return int(a.plus[d])
}

// arrival is the input port of a packet travelling along d in direction dir.
func (a *gridAlg) arrival(d, dir int) int {
	if dir < 0 {
		return int(a.plus[d])
	}
	return int(a.minus[d])
}

// Repeatable implements Repeatable: dimension order and adaptive routing
// compute their choices from the packet's position and destination (the
// adaptive order also from queue lengths, read only); Valiant's phase and
// the minimal routing's random and round-robin orders change state.
func (a *gridAlg) Repeatable() bool { return a.mode == modeDOR || a.mode == modeAdaptive }

// Route implements Algorithm.
func (a *gridAlg) Route(r, inPort, inVC int, st *State, out []Choice) []Choice {
	target := int(st.DstRouter)
	phase := 0
	var detour Flags
	if a.mode == modeValiant {
		if st.Phase == 0 && r == int(st.Inter) {
			st.Phase = 1
		}
		if st.Phase == 0 {
			target = int(st.Inter)
		} else {
			phase = 1
		}
		detour = Detour
	}
	if r == target && (a.mode != modeValiant || st.Phase == 1) {
		return append(out, Choice{Port: int32(a.netPorts + int(st.Dst)%a.conc), Flags: Eject})
	}
	switch a.mode {
	case modeDOR, modeValiant:
		for d := 0; d < a.n; d++ {
			if x, y := a.coord(r, d), a.coord(target, d); x != y {
				dir, _ := a.dir(d, x, y)
				return a.dorChoices(out, r, inPort, inVC, d, x, dir, phase, detour)
			}
		}
	case modeAdaptive:
		return a.adaptive(r, inPort, inVC, target, out)
	case modeMinimal:
		start := len(out)
		for d := 0; d < a.n; d++ {
			x, y := a.coord(r, d), a.coord(target, d)
			if x == y {
				continue
			}
			dir, tie := a.dir(d, x, y)
			out = a.appendVCs(out, a.port(d, dir), 0, 0)
			if tie {
				out = a.appendVCs(out, a.port(d, -dir), 0, 0)
			}
		}
		a.order(a.pol, r, out[start:], a.vcs)
		return out
	}
	return out
}

// adaptive is Route's adaptive mode away from the destination router: the
// minimal ports on the adaptive VCs, least occupied first (ties in
// dimension order), then dimension order's escape hop on VC 0.
func (a *gridAlg) adaptive(r, inPort, inVC, target int, out []Choice) []Choice {
	start := len(out)
	h := Compact{VCLo: a.vcLo[1], VCHi: a.vcHi[1]}
	a.minimalHop(r, inPort, inVC, target, &h)
	out = h.AppendChoices(out)
	if len(out)-start > 2 && h.VCHi > h.VCLo && !a.deferOrder {
		a.byQueue(r, out[start:len(out)-1])
	}
	return out
}

// RouteCompact implements CompactRouting for adaptive routing: its choices
// in static order (the order Route gives once DeferQueueOrder was called).
// h.Ports is then the algorithm's own: read only, valid until the next
// call.
func (a *gridAlg) RouteCompact(r, inPort, inVC int, st *State, h *Compact) bool {
	if a.mode != modeAdaptive {
		return false
	}
	target := int(st.DstRouter)
	if r == target {
		h.Ports = h.Ports[:0]
		h.VCLo, h.VCHi = 0, 0
		h.Last = Choice{Port: int32(a.netPorts + int(st.Dst)%a.conc), Flags: Eject}
		return true
	}
	h.VCLo, h.VCHi = a.vcLo[1], a.vcHi[1]
	a.minimalHop(r, inPort, inVC, target, h)
	return true
}

// minimalHop sets h.Ports and h.Last to the minimal ports from router r
// (not target) to target and the escape hop, from the hop table when
// there is one (hopTable).
func (a *gridAlg) minimalHop(r, inPort, inVC, target int, h *Compact) {
	var esc gridEscape
	if a.hops != nil {
		// Every dimension's size is a power of two: subtract the
		// coordinates field by field without borrows between fields
		// (SIMD within a register), which gives the offset of target
		// from r modulo each dimension's size, as a router number.
		o := ((target | a.hopHigh) - (r &^ a.hopHigh)) ^ ((target ^ ^r) & a.hopHigh)
		e := &a.hops[o]
		h.Ports = a.hopPorts[e.first : e.first+uint32(e.n)]
		esc = e.esc
	} else {
		h.Ports, esc = a.minimal(r, target, a.scratch[:0])
		a.scratch = h.Ports
	}
	f := Escape
	if esc.bubble && !(int32(inPort) == esc.arrival && inVC == 0) {
		f |= Bubble
	}
	h.Last = Choice{Port: esc.port, VC: 0, Flags: f}
}

// gridEscape is adaptive routing's escape hop from a router towards a
// target: VC 0 of dimension order's port. Under bubble flow control,
// entering its ring (or moving onto VC 0 of it) needs the bubble: bubble
// unless the packet came in by arrival on VC 0.
type gridEscape struct {
	port, arrival int32
	bubble        bool
}

// gridHop is an entry of the hop table: the minimal ports towards an
// offset, hopPorts[first:first+n], and the escape hop.
type gridHop struct {
	first uint32
	n     uint8
	esc   gridEscape
}

// maxHopTable is the most routers for which DeferQueueOrder builds the
// hop table (about 20 B per router, plus the ports).
const maxHopTable = 1 << 20

// hopTable builds the hop table when every dimension's size is a power of
// two and the minimal ports along it depend only on the offset modulo
// that size (it wraps, or has two routers): the choices towards target
// from r are those towards the offset of target from r, from router 0.
func (a *gridAlg) hopTable() {
	if !a.pow2 || a.routers > maxHopTable {
		return
	}
	// Router numbers pack the coordinates into fields of log2 k bits,
	// dimension 0 lowest.
	high := 0
	for _, g := range a.dims {
		if g.k > 2 && !g.wrap {
			return
		}
		if g.k > 1 {
			high |= 1 << (int(g.shift) + bitsOf(g.k) - 1)
		}
	}
	a.hopHigh = high
	a.hops = make([]gridHop, a.routers)
	a.hopPorts = a.hopPorts[:0]
	for o := 1; o < a.routers; o++ {
		first := len(a.hopPorts)
		var esc gridEscape
		a.hopPorts, esc = a.minimal(0, o, a.hopPorts)
		a.hops[o] = gridHop{first: uint32(first), n: uint8(len(a.hopPorts) - first), esc: esc}
	}
}

// bitsOf is log2 of k, a power of two.
func bitsOf(k int32) int {
	b := 0
	for 1<<b < int(k) {
		b++
	}
	return b
}

// minimal appends to ports the minimal ports from router r (not target)
// to target, in dimension order (both directions of a dimension half-way
// round its ring, + first), and returns them with the escape hop.
func (a *gridAlg) minimal(r, target int, ports []int32) ([]int32, gridEscape) {
	escD, escDir := -1, 0
	for d := range a.dims {
		g := &a.dims[d]
		var x, y int
		if a.pow2 {
			x, y = (r>>g.shift)&int(g.mask), (target>>g.shift)&int(g.mask)
		} else {
			x, y = (r/int(g.stride))%int(g.k), (target/int(g.stride))%int(g.k)
		}
		if x == y {
			continue
		}
		dir, tie := a.dir(d, x, y)
		if escD < 0 {
			escD, escDir = d, dir
		}
		if dir < 0 {
			ports = append(ports, g.minus)
		} else {
			ports = append(ports, g.plus)
		}
		if tie {
			ports = append(ports, g.minus) // dir is +1 on a tie
		}
	}
	g := &a.dims[escD]
	esc := gridEscape{port: g.plus, arrival: g.minus, bubble: g.wrap && a.flow != flowNone}
	if escDir < 0 {
		esc.port, esc.arrival = g.minus, g.plus
	}
	return ports, esc
}

// dorChoices appends the dimension-order hop along d (coordinate x,
// direction dir) on the VCs its flow control allows. phase selects the
// Valiant VC class; f is added to every choice.
func (a *gridAlg) dorChoices(out []Choice, r, inPort, inVC, d, x, dir, phase int, f Flags) []Choice {
	port := a.port(d, dir)
	if !a.wrap[d] || a.flow == flowNone {
		c := phase
		if a.flow == flowDateline {
			c = 2 * phase
		}
		if a.mode == modeAdaptive {
			c = 0
		}
		return a.appendVCs(out, port, c, f)
	}
	sameRing := inPort == a.arrival(d, dir)
	switch a.flow {
	case flowDateline:
		inClass := int(a.vcClass[inVC])
		crossed := sameRing && inClass == 2*phase+1
		if (dir > 0 && x == int(a.k[d])-1) || (dir < 0 && x == 0) {
			crossed = true // this hop is the wraparound link
		}
		c := 2 * phase
		if crossed {
			c++
		}
		return a.appendVCs(out, port, c, f)
	case flowBubble:
		c := phase
		if a.mode == modeAdaptive {
			c = 0
		}
		lo, hi := int(a.vcLo[c]), int(a.vcHi[c])
		// Continuing on the same ring and VC needs no bubble; list it first.
		if sameRing && inVC >= lo && inVC < hi {
			out = append(out, Choice{Port: int32(port), VC: uint8(inVC), Flags: f})
		}
		for v := lo; v < hi; v++ {
			if !(sameRing && v == inVC) {
				out = append(out, Choice{Port: int32(port), VC: uint8(v), Flags: f | Bubble})
			}
		}
		return out
	}
	return out
}
