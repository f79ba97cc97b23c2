package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// fillScan is fill as it was before it kept the lowest bound level from
// step to step (the reference of TestFillKeepsLowestBound): every step
// scans the flows not fixed for the lowest bound level.
func (s *system) fillScan() {
	ratio, fixed, level, w := s.ratio[:len(s.id)], s.fixed[:len(s.slot)], s.level[:len(s.slot)], s.w
	lOff, lFlow := s.lOff, s.lFlow
	var live, open []int32
	for j, r := range ratio {
		if !math.IsInf(r, 1) {
			live = append(live, int32(j))
		}
	}
	for i := range s.slot {
		open = append(open, int32(i))
	}
	for len(open) > 0 {
		x := math.Inf(1)
		k := 0
		for _, j := range live {
			if r := ratio[j]; !math.IsInf(r, 1) {
				live[k] = j
				k++
				x = fmin(x, r)
			}
		}
		live = live[:k]
		xb := math.Inf(1)
		k = 0
		for _, i := range open {
			if !fixed[i] {
				open[k] = i
				k++
				xb = fmin(xb, level[i])
			}
		}
		open = open[:k]
		if xb < x || math.IsInf(x, 1) {
			if math.IsInf(xb, 1) {
				for _, i := range open {
					s.fix(int(i), 0, -1)
				}
				break
			}
			thr := xb * (1 + boundTol)
			for _, i := range open {
				if !fixed[i] && level[i] <= thr {
					s.fix(int(i), s.bound[i], -1)
				}
			}
			continue
		}
		thr := x * (1 + levelTol)
		for _, j := range live {
			if ratio[j] > thr {
				continue
			}
			for _, e := range lFlow[lOff[j]:lOff[j+1]] {
				if i := e & math.MaxInt32; !fixed[i] {
					s.fix(int(i), x*w[i], j)
				}
			}
		}
	}
}

// randomFillSystem is a system as build leaves it: 1 to 60 flows on 0 to
// 4 of 1 to 24 links (some crossed on the way back, some fatpipes, some
// with a load kept), build's sums in build's order. Bounds are drawn
// from a few values, weights too when near is set, and capacities then
// differ by parts in 10^10: levels repeat, or lie within the tolerances
// of each other, and flows reach their bounds before their links fill.
func randomFillSystem(rng *rand.Rand, near bool) *system {
	s := &system{coef: [2]float64{1, 0.05}}
	L, F := 1+rng.IntN(24), 1+rng.IntN(60)
	s.fOff = []int32{0}
	for range L {
		c := 1e9 * (0.5 + rng.Float64())
		if near {
			c = 1e9 * (1 + float64(rng.IntN(3))*1e-10) * float64(1+rng.IntN(2))
		}
		k := 0.0
		if rng.IntN(3) == 0 {
			k = c * rng.Float64() * 0.5
		}
		s.cap, s.kept, s.fat = append(s.cap, c), append(s.kept, k), append(s.fat, rng.IntN(20) == 0)
	}
	for range F {
		w := []float64{1, 0.5, 2}[rng.IntN(3)]
		if !near {
			w = 0.25 + rng.Float64()
		}
		b := 0.0
		if rng.IntN(3) > 0 {
			b = []float64{1e8, 2e8, 4e8, 3e8 * (1 + 1e-11), 5e8, 1e9}[rng.IntN(6)]
		}
		lv := math.Inf(1)
		if b > 0 {
			lv = b / w
		}
		s.w, s.bound, s.level = append(s.w, w), append(s.bound, b), append(s.level, lv)
		for _, j := range rng.Perm(L)[:rng.IntN(min(L, 4)+1)] {
			s.fLink = append(s.fLink, int32(j)|ctBit(rng.IntN(5) == 0))
		}
		s.fOff = append(s.fOff, int32(len(s.fLink)))
	}
	return s.built()
}

// built completes a system whose links' capacities, kept loads and
// fatpipes and whose flows' weights, bounds, levels and links are set,
// as build does: the links' sums in build's order, their ratios and
// flows.
func (s *system) built() *system {
	F, L := len(s.w), len(s.cap)
	s.id, s.slot = make([]int32, L), make([]int32, F)
	for i := range s.slot {
		s.slot[i] = int32(i)
	}
	s.val, s.fixed, s.at = make([]float64, F), make([]bool, F), make([]int32, F)
	s.rem, s.usage, s.ubase, s.bsum, s.ratio = make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L)
	s.unfixed, s.lOff, s.lcount = make([]int32, L), make([]int32, L+1), make([]int32, L)
	for i := range F {
		b := s.bound[i]
		if b <= 0 {
			b = math.Inf(1)
		}
		for _, x := range s.fLink[s.fOff[i]:s.fOff[i+1]] {
			j := x & math.MaxInt32
			s.ubase[j] += s.coef[ctOf(x)] * s.w[i]
			s.bsum[j] += s.coef[ctOf(x)] * b
			s.lcount[j]++
		}
	}
	for j := range L {
		s.lOff[j+1] = s.lOff[j] + s.lcount[j]
		s.rem[j], s.usage[j] = fmax(s.cap[j]-s.kept[j], 0), s.ubase[j]
		s.ratio[j] = math.Inf(1)
		if s.lcount[j] > 0 && s.usage[j] > 0 && !s.fat[j] && !(s.rem[j] > s.bsum[j]*(1+unsatTol)) {
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
	for i := range s.at {
		s.at[i] = -1
	}
	return s
}

// copyFill copies what fill reads and changes.
func (s *system) copyFill() *system {
	c := *s
	c.val, c.fixed, c.at = slices.Clone(s.val), slices.Clone(s.fixed), slices.Clone(s.at)
	c.rem, c.usage, c.ratio, c.unfixed = slices.Clone(s.rem), slices.Clone(s.usage), slices.Clone(s.ratio), slices.Clone(s.unfixed)
	c.live, c.open = nil, nil
	return &c
}

// fillDiff describes the first difference between two filled systems'
// rates, links fixed at, remaining capacities, Σ c·w and unfixed counts;
// "" when none.
func fillDiff(got, want *system) string {
	for i := range want.val {
		if math.Float64bits(got.val[i]) != math.Float64bits(want.val[i]) || got.at[i] != want.at[i] {
			return fmt.Sprintf("flow %d: %v at %d, want %v at %d", i, got.val[i], got.at[i], want.val[i], want.at[i])
		}
	}
	if !sameBits(got.rem, want.rem) || !sameBits(got.usage, want.usage) || !slices.Equal(got.unfixed, want.unfixed) {
		return "links' remaining capacities, Σ c·w or counts differ"
	}
	return ""
}

// TestFillKeepsLowestBound fills 8,000 random systems (half with
// repeated and near levels) with fill, which scans the flows for the
// lowest bound level only when the last flow at it is fixed, and with
// fillScan, which scans them at every step, and requires the same
// rates, links fixed at and link states, bit for bit. Flows must reach
// their bounds in many of them (bound steps, and steps where the lowest
// bound level is fixed at a link), or the test would not test the kept
// level.
func TestFillKeepsLowestBound(t *testing.T) {
	atBound := 0
	for _, near := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(19, 28))
		for n := range 4000 {
			s := randomFillSystem(rng, near)
			want := s.copyFill()
			want.fillScan()
			got := s.copyFill()
			got.fill()
			if d := fillDiff(got, want); d != "" {
				t.Fatalf("near %v system %d: %s", near, n, d)
			}
			for i := range want.at {
				if want.at[i] < 0 && want.val[i] > 0 {
					atBound++
					break
				}
			}
		}
	}
	t.Logf("%d of 8,000 systems have flows fixed at their bounds", atBound)
	if atBound < 2000 {
		t.Fatalf("%d systems with flows at their bounds: want at least 2,000", atBound)
	}
}

// TestFillLinkFallingToLevel: a link whose ratio is above a step's
// threshold when the step starts can fall to it when a fix at the level
// rounds its ratio down (link 1 here: its ratio is the first number
// above the threshold, and after flow 1 is fixed at the level it rounds
// to it), and the step must then fix its flows too, as the scan of every
// link does: fill, which visits only the links within levelTol of the
// lowest ratio seen, must see the fall.
func TestFillLinkFallingToLevel(t *testing.T) {
	s := &system{coef: [2]float64{1, 0.05}}
	s.cap, s.kept, s.fat = []float64{2e9, 4.61171880561172e18}, []float64{0, 0}, []bool{false, false}
	w2 := 4.6117188e9
	s.w, s.bound, s.level = []float64{1, 1, w2}, []float64{0, 0, 0}, []float64{math.Inf(1), math.Inf(1), math.Inf(1)}
	s.fLink, s.fOff = []int32{0, 0, 1, 1}, []int32{0, 1, 3, 4}
	s.built()
	x := s.ratio[0]
	if thr := x * (1 + levelTol); !(s.ratio[1] > thr) || s.ratio[1] != math.Nextafter(thr, math.Inf(1)) {
		t.Fatalf("link 1's ratio %v: want the first number above the threshold %v", s.ratio[1], thr)
	}
	want := s.copyFill()
	want.fillScan()
	if want.at[2] != 1 || math.Float64bits(want.val[2]) != math.Float64bits(x*w2) {
		t.Fatalf("the scan of every link fixes flow 2 at link %d at %v: want link 1 at %v (the fall)", want.at[2], want.val[2], x*w2)
	}
	got := s.copyFill()
	got.fill()
	if d := fillDiff(got, want); d != "" {
		t.Fatal(d)
	}
}
