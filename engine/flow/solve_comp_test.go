package flow

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// compSystem is a random system of groups flows over groups×4 links,
// each flow on 1 to 3 links of its own group (so the groups are apart),
// as build leaves it. With near, the links' capacities of a group differ
// from the others' by a few parts in 10^10 and the weights repeat, so
// that the groups' levels are often equal or within levelTol of each
// other; some flows have bounds, some links are crossed on the way back.
func compSystem(rng *rand.Rand, groups int, near bool) *system {
	s := &system{coef: [2]float64{1, 0.05}}
	L := groups * 4
	capa := make([]float64, L)
	for j := range capa {
		if near {
			capa[j] = 1e9 * (1 + float64(rng.IntN(3))*1e-10) * float64(1+rng.IntN(2))
		} else {
			capa[j] = 1e9 * (0.5 + rng.Float64())
		}
	}
	s.fOff = []int32{0}
	for g := range groups {
		for range 3 + rng.IntN(8) {
			w := []float64{1, 0.5, 2}[rng.IntN(3)]
			if !near {
				w = 0.25 + rng.Float64()
			}
			bound := 0.0
			if rng.IntN(4) == 0 {
				bound = []float64{2e8, 4e8, 3e8 * (1 + 1e-11)}[rng.IntN(3)]
			}
			lv := math.Inf(1)
			if bound > 0 {
				lv = bound / w
			}
			s.slot = append(s.slot, int32(len(s.slot)))
			s.w, s.bound, s.level = append(s.w, w), append(s.bound, bound), append(s.level, lv)
			for _, j := range rng.Perm(4)[:1+rng.IntN(3)] {
				s.fLink = append(s.fLink, int32(g*4+j)|ctBit(rng.IntN(5) == 0))
			}
			s.fOff = append(s.fOff, int32(len(s.fLink)))
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
		if s.usage[j] > 0 {
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
	c.split = split{}
	return &c
}

// TestFillSplitIsWholeFill fills random systems of several components
// whole and by components (falling back to the whole fill when their
// levels are too close) and requires the same rates and links fixed at,
// bit for bit; both ways must occur. Without the test of the levels
// (nocheck), some systems must come out different: the fallback is what
// keeps them equal.
func TestFillSplitIsWholeFill(t *testing.T) {
	for _, tc := range []struct {
		name string
		near bool
	}{{"apart", false}, {"near", true}} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(19, 7))
			split, fell, broken := 0, 0, 0
			for n := range 400 {
				whole := compSystem(rng, 2+rng.IntN(8), tc.near)
				if len(whole.slot) < splitMin {
					continue
				}
				comps, unchecked := whole.clone(), whole.clone()
				whole.fill()
				if comps.fillSplit() {
					split++
				} else {
					fell++
					comps.fill()
				}
				if !sameBits(whole.val, comps.val) || !slices.Equal(whole.at, comps.at) {
					t.Fatalf("system %d: by components %v at %v, whole %v at %v", n, comps.val, comps.at, whole.val, whole.at)
				}
				unchecked.split.nocheck = true
				if !unchecked.fillSplit() {
					unchecked.fill()
				}
				if !sameBits(whole.val, unchecked.val) || !slices.Equal(whole.at, unchecked.at) {
					broken++
				}
			}
			t.Logf("split %d, fell back %d, wrong without the test %d", split, fell, broken)
			if split == 0 {
				t.Errorf("no system was filled by components")
			}
			if tc.near && (fell == 0 || broken == 0) {
				t.Errorf("near levels: fell back %d times, wrong without the test %d times; want both > 0", fell, broken)
			}
		})
	}
}

// TestLevelsApart pins the test of the components' levels.
func TestLevelsApart(t *testing.T) {
	l, b := func(x float64) uint64 { return stepKey(x, false) }, func(x float64) uint64 { return stepKey(x, true) }
	for _, tc := range []struct {
		steps []uint64
		want  bool
	}{
		{nil, true},
		{[]uint64{l(2), l(1), l(2), b(3)}, true},
		{[]uint64{l(1), l(1 + 2e-9)}, true},
		{[]uint64{l(1), l(1 + 5e-10)}, false},
		{[]uint64{b(1 + 5e-10), l(1)}, false},
		{[]uint64{l(1), b(1)}, false},
		{[]uint64{l(1), l(math.Nextafter(1, 2))}, false},
	} {
		if got := levelsApart(slices.Clone(tc.steps)); got != tc.want {
			t.Errorf("levelsApart(%v) = %v, want %v", tc.steps, got, tc.want)
		}
	}
}
