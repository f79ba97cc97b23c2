package flow

import (
	"math"
	"slices"
)

// splitMin is the number of flows from which fill tries the system's
// components one by one (fillSplit): below it a system has few levels
// and the whole fill's rescans cost little.
const splitMin = 32

// split is fillSplit's scratch, reused from fill to fill.
type split struct {
	// comp is each flow's component (-1: not reached yet), lcomp each
	// link's (-1: none, or a link that cannot saturate).
	comp, lcomp []int32
	// The flows and links of component c are flows[fOff[c]:fOff[c+1]]
	// and links[lOff[c]:lOff[c+1]], in the system's order.
	flows, links []int32
	fOff, lOff   []int32
	// stack is the search's, steps the levels of every component's fill
	// (stepKey).
	stack []int32
	steps []uint64
	// What fill changes of the links, saved for the whole fill when the
	// components' levels fail the test.
	rem, usage, ratio []float64
	unfixed           []int32
	// off makes fillSplit never split (tests, measurements); nocheck
	// skips its test of the levels (tests: it must make them fail).
	off, nocheck bool
}

// stepKey is a level a fill fixed flows at, and whether at their bounds,
// as one number that orders as the level (levels are positive and not
// NaN, so their bits order as they do) with the bound steps after the
// link steps of the same level.
func stepKey(level float64, bound bool) uint64 {
	k := math.Float64bits(level) << 1
	if bound {
		k |= 1
	}
	return k
}

// fillSplit is fill done one connected component at a time — flows
// joined by the links they share that can still saturate — and reports
// whether it did it; when it did not (one component, a small system, or
// levels too close), the system is as build left it, for fill.
//
// The whole fill raises one level over every component: each step fixes,
// in every component, the links within levelTol of the lowest ratio (at
// that lowest ratio) or the flows within boundTol of the lowest bound
// level. A component's flows and links touch no other's, so each
// component sees the same steps alone as in the whole fill provided a
// step of the whole fill that reaches it is one of its own: that no
// component has a level strictly between another's level L and
// L·(1+levelTol), nor the same level with the other kind of step (a
// bound against a link). fillSplit merges the components' levels and
// tests that (levelTol for both kinds, the larger tolerance); when the
// test fails it restores the links and reports false, and the caller
// fills the whole system, so the rates are the whole fill's to the bit
// either way. A component's own levels may also fail the test (it then
// costs a whole fill more, never a wrong rate).
func (s *system) fillSplit() bool {
	sp := &s.split
	F, L := len(s.slot), len(s.id)
	if sp.off || s.fresh || F < splitMin {
		return false
	}
	ratio := s.ratio[:L]
	fOff, fLink, lOff, lFlow := s.fOff[:F+1], s.fLink, s.lOff[:L+1], s.lFlow
	comp, lcomp := grow(sp.comp, F), grow(sp.lcomp, L)
	for i := range comp {
		comp[i] = -1
	}
	for j := range lcomp {
		lcomp[j] = -1
	}
	// Components by a depth-first search from each flow not reached yet,
	// in the system's order, through the links that can saturate.
	nc := int32(0)
	stack := sp.stack[:0]
	for i0 := range F {
		if comp[i0] >= 0 {
			continue
		}
		comp[i0] = nc
		stack = append(stack[:0], int32(i0))
		for len(stack) > 0 {
			i := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, x := range fLink[fOff[i]:fOff[i+1]] {
				j := x & math.MaxInt32
				if lcomp[j] >= 0 || math.IsInf(ratio[j], 1) {
					continue
				}
				lcomp[j] = nc
				for _, e := range lFlow[lOff[j]:lOff[j+1]] {
					if k := e & math.MaxInt32; comp[k] < 0 {
						comp[k] = nc
						stack = append(stack, k)
					}
				}
			}
		}
		nc++
	}
	sp.stack, sp.comp, sp.lcomp = stack, comp, lcomp
	if nc == 1 {
		return false
	}
	// The flows and links of each component, in order (counting sorts).
	cf, cl := grow(sp.fOff, int(nc)+1), grow(sp.lOff, int(nc)+1)
	clear(cf)
	clear(cl)
	for _, c := range comp {
		cf[c+1]++
	}
	nl := 0
	for _, c := range lcomp {
		if c >= 0 {
			cl[c+1]++
			nl++
		}
	}
	for c := range nc {
		cf[c+1] += cf[c]
		cl[c+1] += cl[c]
	}
	flows, links := grow(sp.flows, F), grow(sp.links, nl)
	for i, c := range comp {
		flows[cf[c]] = int32(i)
		cf[c]++
	}
	for j, c := range lcomp {
		if c >= 0 {
			links[cl[c]] = int32(j)
			cl[c]++
		}
	}
	// The counting sorts moved each start to the next component's.
	copy(cf[1:], cf[:nc])
	copy(cl[1:], cl[:nc])
	cf[0], cl[0] = 0, 0
	sp.flows, sp.links, sp.fOff, sp.lOff = flows, links, cf, cl
	// What fill changes, for the whole fill if the test fails.
	sp.rem = append(sp.rem[:0], s.rem[:L]...)
	sp.usage = append(sp.usage[:0], s.usage[:L]...)
	sp.ratio = append(sp.ratio[:0], ratio...)
	sp.unfixed = append(sp.unfixed[:0], s.unfixed[:L]...)
	steps := sp.steps[:0]
	for c := range nc {
		steps = s.fillOn(links[cl[c]:cl[c+1]], flows[cf[c]:cf[c+1]], true, steps)
	}
	sp.steps = steps
	if sp.nocheck || levelsApart(steps) {
		return true
	}
	copy(s.rem, sp.rem)
	copy(s.usage, sp.usage)
	copy(s.ratio, sp.ratio)
	copy(s.unfixed, sp.unfixed)
	val, fixed, at := s.val[:F], s.fixed[:F], s.at[:F]
	for i := range F {
		val[i], fixed[i], at[i] = 0, false, -1
	}
	return false
}

// levelsApart sorts steps (stepKey) and tells whether each is either the
// same as the one before it or above it by more than levelTol.
func levelsApart(steps []uint64) bool {
	slices.Sort(steps)
	for k := 1; k < len(steps); k++ {
		a, b := steps[k-1], steps[k]
		if a == b {
			continue
		}
		if a>>1 == b>>1 {
			return false // one level, a link's and a bound's
		}
		if math.Float64frombits(b>>1) <= math.Float64frombits(a>>1)*(1+levelTol) {
			return false
		}
	}
	return true
}
