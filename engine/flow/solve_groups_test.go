package flow

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// groupSystem is a random system, as build leaves it, of groups flows
// over groups×4 links, each flow on 1 to 3 links of its own group, plus
// `shared` links every group's flows may cross that cannot saturate
// (ratio +Inf, as build leaves a link its flows cannot fill), and a few
// flows on those only. With near, the links' capacities differ by a few
// parts in 10^10 and the weights repeat, so that the groups' levels are
// often equal or within levelTol of each other; some flows have bounds,
// some links are crossed on the way back.
func groupSystem(rng *rand.Rand, groups, shared int, near bool) *system {
	s := &system{coef: [2]float64{1, 0.05}}
	L := groups*4 + shared
	capa := make([]float64, L)
	for j := range capa {
		if near {
			capa[j] = 1e9 * (1 + float64(rng.IntN(3))*1e-10) * float64(1+rng.IntN(2))
		} else {
			capa[j] = 1e9 * (0.5 + rng.Float64())
		}
	}
	s.fOff = []int32{0}
	flow := func(links []int32) {
		w := []float64{1, 0.5, 2}[rng.IntN(3)]
		if !near {
			w = 0.25 + rng.Float64()
		}
		bound := 0.0
		if rng.IntN(4) == 0 || len(links) == 0 {
			bound = []float64{2e8, 4e8, 3e8 * (1 + 1e-11)}[rng.IntN(3)]
		}
		lv := math.Inf(1)
		if bound > 0 {
			lv = bound / w
		}
		s.slot = append(s.slot, int32(len(s.slot)))
		s.w, s.bound, s.level = append(s.w, w), append(s.bound, bound), append(s.level, lv)
		for _, j := range links {
			s.fLink = append(s.fLink, j|ctBit(rng.IntN(5) == 0))
		}
		if shared > 0 && rng.IntN(2) == 0 {
			s.fLink = append(s.fLink, int32(groups*4+rng.IntN(shared)))
		}
		s.fOff = append(s.fOff, int32(len(s.fLink)))
	}
	for g := range groups {
		for range 3 + rng.IntN(8) {
			var links []int32
			for _, j := range rng.Perm(4)[:1+rng.IntN(3)] {
				links = append(links, int32(g*4+j))
			}
			flow(links)
		}
		if shared > 0 && rng.IntN(3) == 0 {
			flow(nil) // on shared links only, or none
		}
	}
	F := len(s.slot)
	s.id = make([]int32, L)
	s.val, s.fixed, s.at = make([]float64, F), make([]bool, F), make([]int32, F)
	for i := range s.at {
		s.at[i] = -1
	}
	s.rem, s.usage, s.ratio = slices.Clone(capa), make([]float64, L), make([]float64, L)
	s.unfixed, s.lOff = make([]int32, L), make([]int32, L+1)
	for i := range F {
		for _, x := range s.fLink[s.fOff[i]:s.fOff[i+1]] {
			j := x & math.MaxInt32
			s.usage[j] += s.coef[ctOf(x)] * s.w[i]
			s.lOff[j+1]++
		}
	}
	for j := range L {
		s.lOff[j+1] += s.lOff[j]
		s.ratio[j] = math.Inf(1)
		if s.usage[j] > 0 && j < groups*4 {
			s.ratio[j] = s.rem[j] / s.usage[j]
		}
	}
	s.lFlow = make([]int32, s.lOff[L])
	for i := range F {
		for _, x := range s.fLink[s.fOff[i]:s.fOff[i+1]] {
			j := x & math.MaxInt32
			s.lFlow[s.lOff[j]+s.unfixed[j]] = int32(i) | x&math.MinInt32
			s.unfixed[j]++
		}
	}
	return s
}

// clone copies what fill reads and changes.
func (s *system) clone() *system {
	c := *s
	c.val, c.fixed, c.at = slices.Clone(s.val), slices.Clone(s.fixed), slices.Clone(s.at)
	c.rem, c.usage, c.ratio, c.unfixed = slices.Clone(s.rem), slices.Clone(s.usage), slices.Clone(s.ratio), slices.Clone(s.unfixed)
	c.groups = fillGroups{}
	return &c
}

// TestFillGroupsIsWholeFill fills random systems of several components
// whole and by groups — from the first step, or after one, two or four
// whole steps — and requires the same rates and links fixed at, bit for
// bit, and the same remaining capacity of every link that could
// saturate. Near levels must occur: some systems' components have
// different lowest levels within levelTol of each other, where filling
// each component alone gives other rates (filled here too, to show the
// cases are there).
func TestFillGroupsIsWholeFill(t *testing.T) {
	for _, tc := range []struct {
		name   string
		near   bool
		shared int
	}{{"apart", false, 0}, {"near", true, 0}, {"apart-shared", false, 3}, {"near-shared", true, 3}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(19, 7))
			grouped, alone := 0, 0
			for n := range 400 {
				whole := groupSystem(rng, 1+rng.IntN(40), tc.shared, tc.near)
				live, before := slices.Clone(whole.ratio), whole.clone()
				whole.groups.off = true
				whole.fill()
				after := []int{1, 2, 3, 5}[n%4]
				byGroups := before.clone()
				byGroups.groups.minOpen, byGroups.groups.after = 1, after
				byGroups.fill()
				if byGroups.groups.x != nil {
					grouped++
				}
				for i := range whole.val {
					if math.Float64bits(whole.val[i]) != math.Float64bits(byGroups.val[i]) || whole.at[i] != byGroups.at[i] {
						t.Fatalf("system %d (groups after %d steps) flow %d: by groups %v at %d, whole %v at %d", n, after-1, i, byGroups.val[i], byGroups.at[i], whole.val[i], whole.at[i])
					}
				}
				for j, r := range live {
					if !math.IsInf(r, 1) && math.Float64bits(whole.rem[j]) != math.Float64bits(byGroups.rem[j]) {
						t.Fatalf("system %d link %d: remaining %v by groups, %v whole", n, j, byGroups.rem[j], whole.rem[j])
					}
				}
				if tc.near && !sameBits(whole.val, fillAlone(before)) {
					alone++
				}
			}
			t.Logf("by groups %d of 400, differ filled component by component %d", grouped, alone)
			if grouped < 250 {
				t.Errorf("only %d of 400 systems filled by groups", grouped)
			}
			if tc.near && alone == 0 {
				t.Errorf("near levels: no system differs when its components are filled alone")
			}
		})
	}
}

// all is 0, 1, …, n-1.
func all(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

// fillAlone fills each group of s, a system not filled yet, on its own,
// to its end before the next starts, so that a group's steps see only its
// own levels — the fill the grouped steps must not be — and returns the
// rates.
func fillAlone(s *system) []float64 {
	split := s.clone()
	G := split.makeGroups(all(len(s.id)), all(len(s.slot)))
	if G <= 1 {
		split.groups.off = true
		split.fill()
		return split.val
	}
	g := &split.groups
	val := make([]float64, len(s.slot))
	for k := range G {
		one := s.clone()
		og := &one.groups
		og.lOff, og.fOff = []int32{0, g.ln[k]}, []int32{0, g.fn[k]}
		og.ln, og.fn = []int32{g.ln[k]}, []int32{g.fn[k]}
		og.links, og.flows = g.links[g.lOff[k]:g.lOff[k+1]], g.flows[g.fOff[k]:g.fOff[k+1]]
		og.x, og.xb = []float64{g.x[k]}, []float64{g.xb[k]}
		one.fillSteps(1)
		for _, i := range og.flows {
			val[i] = one.val[i]
		}
	}
	return val
}
