package routing

import (
	"github.com/tracesim/tracesim/engine/topology"
)

type dflyMode uint8

const (
	dflyMinimal dflyMode = iota
	dflyValiant
	dflyUGAL
)

// dflyAlg routes on a dragonfly. The VC class of a hop is the number of
// global hops the packet has taken before it (0, 1, or 2 on Valiant
// routes): local → global → local → global → local climbs the classes, so
// no dependency cycle can form (Kim et al.).
type dflyAlg struct {
	base
	d       *topology.Dragonfly
	mode    dflyMode
	a, h, p int
	groups  int
}

func newDflyAlg(name string, d *topology.Dragonfly, opt Options) *dflyAlg {
	al := &dflyAlg{d: d, groups: d.Groups()}
	al.p, al.a, al.h = d.Params()
	classes := 2
	switch name {
	case "valiant":
		al.mode, classes = dflyValiant, 3
	case "ugal":
		al.mode, classes = dflyUGAL, 3
	}
	al.base = newBase(name, d, opt, classes)
	al.max = opt.VCs
	return al
}

// Init fills st; Valiant routes choose their intermediate group here,
// UGAL decides at the first router.
func (al *dflyAlg) Init(st *State, src, dst int) {
	al.initState(st, src, dst)
	if al.mode == dflyValiant && src/al.p != int(st.DstRouter) {
		st.Inter = int32(al.pickGroup(src/al.p/al.a, int(st.DstRouter)/al.a))
	}
}

// pickGroup returns a random group other than gs and gd, or -1 when there
// is none.
func (al *dflyAlg) pickGroup(gs, gd int) int {
	lo, hi := min(gs, gd), max(gs, gd)
	n := al.groups - 1
	if lo != hi {
		n--
	}
	if n <= 0 {
		return -1
	}
	g := al.intn(n)
	if g >= lo {
		g++
	}
	if lo != hi && g >= hi {
		g++
	}
	return g
}

// next is the port that moves router r towards group tg, or towards router
// t when r is already in tg.
func (al *dflyAlg) next(r, tg, t int) int {
	G, i := r/al.a, r%al.a
	if G == tg {
		return al.d.LocalPort(i, t%al.a)
	}
	gi, port := al.d.Gateway(G, tg)
	if gi == i {
		return port
	}
	return al.d.LocalPort(i, gi)
}

// hopsTo counts the hops from router r to router t via group tg first.
func (al *dflyAlg) valiantHops(r, tg, t int) int {
	G, i := r/al.a, r%al.a
	gi, port := al.d.Gateway(G, tg)
	h := 1
	if gi != i {
		h++
	}
	arrival := al.d.Peer(G*al.a+gi, port).ID
	return h + al.d.MinimalHops(arrival, t)
}

// Route implements Algorithm.
func (al *dflyAlg) Route(r, inPort, inVC int, st *State, out []Choice) []Choice {
	class := 0
	switch {
	case al.d.IsTerminalPort(inPort):
		if al.mode == dflyUGAL && st.Flags&stateDecided == 0 {
			al.decide(r, st)
		}
	case al.d.IsGlobalPort(inPort):
		class = int(al.vcClass[inVC]) + 1
	default:
		class = int(al.vcClass[inVC])
	}
	class = min(class, al.classes-1)
	G := r / al.a
	if st.Inter >= 0 && st.Phase == 0 && G == int(st.Inter) {
		st.Phase = 1
	}
	t := int(st.DstRouter)
	var f Flags
	tg := t / al.a
	if st.Inter >= 0 {
		f = Detour
		if st.Phase == 0 {
			tg = int(st.Inter)
		}
	}
	if r == t && tg == G {
		return append(out, Choice{Port: int32(al.a - 1 + al.h + int(st.Dst)%al.p), Flags: Eject})
	}
	return al.appendVCs(out, al.next(r, tg, t), class, f)
}

// decide is UGAL-L: compare the load of the minimal first hop times the
// minimal hop count with that of a Valiant first hop times its hop count.
func (al *dflyAlg) decide(r int, st *State) {
	st.Flags |= stateDecided
	t := int(st.DstRouter)
	gi := al.pickGroup(r/al.a, t/al.a)
	if gi < 0 || r == t {
		return
	}
	pm := al.next(r, t/al.a, t)
	pv := al.next(r, gi, t)
	qm := al.portLoad(r, pm) * al.d.MinimalHops(r, t)
	qv := al.portLoad(r, pv) * al.valiantHops(r, gi, t)
	if qv < qm {
		st.Inter = int32(gi)
	}
}
