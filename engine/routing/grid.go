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
}

// DeferQueueOrder implements QueueOrderer: adaptive routing orders its
// minimal choices by occupancy; the others have no such order to defer.
func (a *gridAlg) DeferQueueOrder() bool {
	if a.mode != modeAdaptive {
		return false
	}
	a.deferOrder = true
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
// dimension order), then dimension order's escape hop on VC 0 — what
// dorChoices gives for it, written out. It runs at every hop of every
// packet, hence each dimension read from one record.
func (a *gridAlg) adaptive(r, inPort, inVC, target int, out []Choice) []Choice {
	start := len(out)
	lo, hi := a.vcLo[1], a.vcHi[1]
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
		p := g.plus
		if dir < 0 {
			p = g.minus
		}
		for v := lo; v < hi; v++ {
			out = append(out, Choice{Port: p, VC: v})
		}
		if tie {
			p = g.minus // dir is +1 on a tie
			for v := lo; v < hi; v++ {
				out = append(out, Choice{Port: p, VC: v})
			}
		}
	}
	if len(out)-start > 1 && hi > lo && !a.deferOrder {
		a.byQueue(r, out[start:])
	}
	// The escape hop: VC 0 of dimension order's port; entering its ring
	// (or moving onto VC 0 of it) under bubble flow control needs the
	// bubble.
	g := &a.dims[escD]
	port, arrival := g.plus, g.minus
	if escDir < 0 {
		port, arrival = g.minus, g.plus
	}
	f := Escape
	if g.wrap && a.flow != flowNone && !(int32(inPort) == arrival && inVC == 0) {
		f |= Bubble
	}
	return append(out, Choice{Port: port, VC: 0, Flags: f})
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
