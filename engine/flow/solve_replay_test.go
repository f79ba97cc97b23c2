package flow

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestReplayIsWholeFill: on the CG-like loop, the drifting stencil and
// random traffic (with and without crosstraffic, SHARED and FATPIPE
// links, bounds), every round that could replay the previous round's
// fill is filled both whole and with the replay, and the two agree to
// the bit — rates, links fixed at, remaining capacities, Σ c·w, counts,
// ratios, and the logged steps and fixes; every message arrives at the
// same picosecond as without replay, and steps are replayed.
func TestReplayIsWholeFill(t *testing.T) {
	checked, resumed, steps := 0, 0, 0
	for _, c := range solverCases(t, 4, 31) {
		want, _ := c.run("nowhole,nomemo,noreplay")
		got, n := c.run("nowhole,nomemo,replayverify")
		sameTimes(t, c.name, "without replay", got, want)
		s := &n.sys
		if s.replayDiffers > 0 {
			t.Fatalf("%s: %d of %d replayed rounds differ from the whole fill", c.name, s.replayDiffers, s.replayChecked)
		}
		checked, resumed, steps = checked+s.replayChecked, resumed+s.resumed, steps+s.replayedSteps
		got, _ = c.run("nowhole,nomemo")
		sameTimes(t, c.name, "without replay (replay alone)", got, want)
	}
	t.Logf("%d rounds checked, %d resumed after %d steps replayed", checked, resumed, steps)
	if checked < 1000 || resumed < 100 {
		t.Fatalf("%d rounds checked, %d resumed: want at least 1,000 and 100", checked, resumed)
	}
}

// replayCase is a random system as build would build it, in two rounds:
// the first's flows and links, then flows added on old and new links,
// whose kept loads the added flows' rates before the solve lower.
type replayCase struct {
	capa, kept []float64
	fat        []bool
	w, bound   []float64
	links      [][]int32 // per flow, with crosstraffic bits
}

// system builds rc's first F flows over its first L links as build does
// (the same sums in the same order), with fill's log of prev when
// given: extF and extL then name prev's system.
func (rc *replayCase) system(F, L int, prev *system) *system {
	s := &system{coef: [2]float64{1, 0.05}}
	s.slot, s.id = make([]int32, F), make([]int32, L)
	s.fOff = []int32{0}
	s.w, s.bound, s.level = slices.Clone(rc.w[:F]), slices.Clone(rc.bound[:F]), make([]float64, F)
	for i := range F {
		s.slot[i] = int32(i)
		s.level[i] = math.Inf(1)
		if rc.bound[i] > 0 {
			s.level[i] = rc.bound[i] / rc.w[i]
		}
		s.fLink = append(s.fLink, rc.links[i]...)
		s.fOff = append(s.fOff, int32(len(s.fLink)))
	}
	s.val, s.fixed, s.at = make([]float64, F), make([]bool, F), make([]int32, F)
	s.kept, s.cap, s.fat = slices.Clone(rc.kept[:L]), slices.Clone(rc.capa[:L]), slices.Clone(rc.fat[:L])
	s.rem, s.usage, s.ubase, s.bsum, s.ratio = make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L), make([]float64, L)
	s.unfixed, s.lOff = make([]int32, L), make([]int32, L+1)
	for i := range F {
		b := s.bound[i]
		if b <= 0 {
			b = math.Inf(1)
		}
		for _, x := range s.fLink[s.fOff[i]:s.fOff[i+1]] {
			j := x & math.MaxInt32
			s.ubase[j] += s.coef[ctOf(x)] * s.w[i]
			s.bsum[j] += s.coef[ctOf(x)] * b
			s.lOff[j+1]++
		}
	}
	for j := range L {
		s.lOff[j+1] += s.lOff[j]
	}
	s.lFlow = make([]int32, s.lOff[L])
	fill := make([]int32, L)
	for i := range F {
		for _, x := range s.fLink[s.fOff[i]:s.fOff[i+1]] {
			j := x & math.MaxInt32
			s.lFlow[s.lOff[j]+fill[j]] = int32(i) | x&math.MinInt32
			fill[j]++
		}
	}
	s.restart()
	if prev != nil {
		s.steps, s.fixes = slices.Clone(prev.steps), slices.Clone(prev.fixes)
		s.logF, s.logL, s.extF, s.extL = len(prev.slot), len(prev.id), len(prev.slot), len(prev.id)
	}
	return s
}

// randomReplayCase draws a first round of 1 to 40 flows over 2 to 24
// links and adds 1 to 8 flows, on old links and on up to 3 new ones.
// With near, capacities differ by parts in 10^10 and weights repeat, so
// that levels are often equal or within levelTol of each other.
func randomReplayCase(rng *rand.Rand, near bool) (rc *replayCase, F1, L1 int) {
	rc = &replayCase{}
	L1 = 2 + rng.IntN(23)
	L := L1 + rng.IntN(4)
	for j := range L {
		c := 1e9 * (0.5 + rng.Float64())
		if near {
			c = 1e9 * (1 + float64(rng.IntN(3))*1e-10) * float64(1+rng.IntN(2))
		}
		k := 0.0
		if j < L1 && rng.IntN(3) == 0 {
			k = c * rng.Float64() * 0.5
		}
		rc.capa, rc.kept, rc.fat = append(rc.capa, c), append(rc.kept, k), append(rc.fat, rng.IntN(20) == 0)
	}
	flow := func(maxL int) {
		w := []float64{1, 0.5, 2}[rng.IntN(3)]
		if !near {
			w = 0.25 + rng.Float64()
		}
		b := 0.0
		if rng.IntN(4) == 0 {
			b = []float64{2e8, 4e8, 3e8 * (1 + 1e-11)}[rng.IntN(3)]
		}
		var links []int32
		for _, j := range rng.Perm(maxL)[:rng.IntN(min(maxL, 4)+1)] {
			links = append(links, int32(j)|ctBit(rng.IntN(5) == 0))
		}
		rc.w, rc.bound, rc.links = append(rc.w, w), append(rc.bound, b), append(rc.links, links)
	}
	F1 = 1 + rng.IntN(40)
	for range F1 {
		flow(L1)
	}
	for range 1 + rng.IntN(8) {
		flow(L)
	}
	// New links carry only added flows; an added flow's rate before the
	// solve leaves its old links' kept loads.
	for _, links := range rc.links[F1:] {
		for _, x := range links {
			if j := x & math.MaxInt32; int(j) < L1 && rng.IntN(2) == 0 {
				rc.kept[j] = fmax(rc.kept[j]-rc.capa[j]*0.1*rng.Float64(), 0)
			}
		}
	}
	return rc, F1, L1
}

// TestReplayRandomSystems fills 6,000 random two-round systems (half
// with near levels) whole and with the first round's fill replayed, and
// with the replay stopped after one or two steps and the fill started
// again, and requires the same rates, links fixed at, remaining
// capacities and steps, bit for bit; steps must be replayed in many of
// them, and a step replayed that the whole fill does not take (the
// tests of replay skipped) must change some results.
func TestReplayRandomSystems(t *testing.T) {
	replayed, steps, broken := 0, 0, 0
	for _, near := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(19, 11))
		for n := range 3000 {
			rc, F1, L1 := randomReplayCase(rng, near)
			L := len(rc.capa)
			first := rc.system(F1, L1, nil)
			first.fill()
			F := len(rc.w)
			whole := rc.system(F, L, nil)
			whole.fill()
			for _, stop := range []int{0, 1, 2} {
				got := rc.system(F, L, first)
				got.replayStop = stop
				got.fill()
				if stop == 0 && got.resumed > 0 {
					replayed++
					steps += got.replayedSteps
				}
				if d := replayDiff(got, whole); d != "" {
					t.Fatalf("near %v system %d (stop %d, %d steps replayed): %s", near, n, stop, got.replayedSteps, d)
				}
			}
			// Replaying every step of the first round, whatever the
			// tests say, must not go unnoticed when the rounds differ.
			if len(first.steps) > 0 {
				forced := rc.system(F, L, first)
				forced.forceReplay()
				forced.fill()
				if d := replayDiff(forced, whole); d != "" && d != "steps differ" {
					broken++
				}
			}
		}
	}
	t.Logf("%d of 6,000 systems replayed %d steps; forcing the replay changed %d", replayed, steps, broken)
	if replayed < 1000 || broken < 100 {
		t.Fatalf("%d systems replayed steps, forced replays changed %d: want at least 1,000 and 100", replayed, broken)
	}
}

// forceReplay applies every step of the log as replay would, without
// its tests (to show that they matter): the fill then goes on from
// there.
func (s *system) forceReplay() {
	for k, st := range s.steps {
		q := int32(0)
		if k > 0 {
			q = s.steps[k-1].end
		}
		for p := q; p < st.end; p += 2 {
			i, j := s.fixes[p], s.fixes[p+1]
			v := s.bound[i]
			if st.kind == stepLink {
				v = st.lv * s.w[i]
			} else if st.kind == stepNone {
				v = 0
			}
			if !s.fixed[i] {
				s.fix(int(i), v, j)
			}
		}
	}
	s.extF = 0
}

// replayDiff describes the first difference between two filled systems'
// rates, links fixed at, remaining capacities and steps; "" when none.
// The steps are compared last: a forced replay (forceReplay) logs only
// the steps after it.
func replayDiff(got, want *system) string {
	for i := range want.val {
		if math.Float64bits(got.val[i]) != math.Float64bits(want.val[i]) || got.at[i] != want.at[i] {
			return "flow rate or link differs"
		}
	}
	if !sameBits(got.rem, want.rem) {
		return "remaining capacities differ"
	}
	if !sameSteps(got.steps, want.steps) || !slices.Equal(got.fixes, want.fixes) {
		return "steps differ"
	}
	return ""
}
