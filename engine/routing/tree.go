package routing

import (
	"github.com/tracesim/tracesim/engine/topology"
)

// treeAlg is up/down routing on a fat tree: up until the switch is an
// ancestor of the destination, then down along the destination's digits.
// All VCs are usable: up/down paths cannot form a dependency cycle (the
// up links only ever wait for up or down links above, down links only for
// down links below).
type treeAlg struct {
	base
	t    *topology.FatTree
	pol  policy
	k    int
	kpow []int
}

func newTreeAlg(name, variant string, t *topology.FatTree, opt Options) *treeAlg {
	a := &treeAlg{t: t, k: t.K(), pol: policyDmodK}
	if variant != "" {
		a.pol = policyOf(variant)
	}
	a.base = newBase(name, t, opt, 1)
	a.kpow = make([]int, t.Levels())
	for l, p := 0, 1; l < t.Levels(); l, p = l+1, p*a.k {
		a.kpow[l] = p
	}
	if a.pol == policyRR {
		a.rr = make([]uint32, t.NumRouters())
	}
	maxUp := 0
	for l := 0; l < t.Levels(); l++ {
		maxUp = max(maxUp, t.NumUp(l))
	}
	a.max = max(maxUp, 1) * opt.VCs
	return a
}

// Init fills st.
func (a *treeAlg) Init(st *State, src, dst int) { a.initState(st, src, dst) }

// Route implements Algorithm.
func (a *treeAlg) Route(r, inPort, inVC int, st *State, out []Choice) []Choice {
	d := int(st.Dst)
	l, _ := a.t.Level(r)
	if a.t.IsAncestor(r, d) {
		port := a.t.DownPort(l, d)
		if l == 0 {
			return append(out, Choice{Port: int32(port), Flags: Eject})
		}
		return a.appendVCs(out, port, 0, 0)
	}
	w := a.t.NumUp(l)
	if a.pol == policyDmodK {
		// Destination-mod-k: the digit of d at this level picks the parent.
		return a.appendVCs(out, a.k+(d/a.kpow[l])%w, 0, 0)
	}
	start := len(out)
	for j := 0; j < w; j++ {
		out = a.appendVCs(out, a.k+j, 0, 0)
	}
	a.order(a.pol, r, out[start:], a.vcs)
	return out
}
