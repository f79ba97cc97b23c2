package flow

import "math"

// fillStep is one step of a fill, as fill logs it for the next round:
// its kind, its level (the lowest link ratio, or the lowest bound
// level), the first link at that ratio (a link step) and the end of its
// fixes in system.fixes.
type fillStep struct {
	lv   float64
	am   int32
	end  int32
	kind int8
}

// The kinds of fillStep: flows fixed at the links saturated at the
// level, at their bounds, or at rate 0 (nothing limits them).
const (
	stepLink int8 = iota
	stepBound
	stepNone
)

// replay starts the fill of a round that build extended (check added
// flows, system.extF of them were there before) with the steps of the
// previous round's fill that this round's fill would take unchanged,
// applying their fixes without the scans that found them, and reports
// how many steps it replayed; fill goes on from there. It keeps the log
// of those steps for the next round.
//
// The rounds' systems differ only on the links of the added flows (the
// touched links: their loads, Σ c·w and flows; new links are on added
// flows only): every other link has the same flows in the same order
// and starts from the same state to the bit (see build), and the flows
// before the added ones keep their weights, bounds and numbers. A step
// whose fixes are the same in both rounds leaves the untouched links in
// the same state in both, so by induction a step is the previous round's
// when, before it, in this round:
//
//   - a link step at level x, whose first link at x was untouched (the
//     lowest ratio of the untouched links, the same in both rounds, is
//     x): every touched link's ratio is above x·(1+levelTol) and stays
//     above it through the step's fixes (so no touched link saturates
//     and the lowest ratio is x), no added flow's bound level is below x
//     (the step is a link step), and the previous round fixed no flow at
//     a touched link in it (then it fixes the same flows at the same
//     untouched links, in the same order: the links' lists are the
//     same);
//   - a bound step at level b: every touched link's ratio is above b
//     (the step stays a bound step) and every added flow's bound level
//     above b·(1+boundTol) (the same flows reach their bounds: the
//     others' levels do not change).
//
// Replay stops at the first step that fails these tests, or at a step
// fixing flows at rate 0; a touched link whose ratio falls to the level
// during a step (rounding can lower a ratio that the step's fixes should
// raise) makes it start the fill again from build's state.
func (s *system) replay() int {
	F0 := s.extF
	F, L := len(s.slot), len(s.id)
	for len(s.touched) < L {
		s.touched = append(s.touched, false)
	}
	touched, tl := s.touched[:L], s.tlist[:0]
	fOff, fLink, level := s.fOff, s.fLink, s.level
	nmin := math.Inf(1) // the added flows' lowest bound level
	for i := F0; i < F; i++ {
		nmin = fmin(nmin, level[i])
		for _, x := range fLink[fOff[i]:fOff[i+1]] {
			if j := x & math.MaxInt32; !touched[j] {
				touched[j] = true
				tl = append(tl, j)
			}
		}
	}
	ratio, w, bound := s.ratio, s.w, s.bound
	steps, fixes := s.steps, s.fixes
	k, q := 0, int32(0) // steps replayed, end of their fixes
	restart := false
steps:
	for ; k < len(steps); k++ {
		if s.replayStop > 0 && k == s.replayStop {
			restart = true
			break
		}
		st := steps[k]
		t := math.Inf(1) // the touched links' lowest ratio
		for _, j := range tl {
			t = fmin(t, ratio[j])
		}
		switch st.kind {
		case stepLink:
			thr := st.lv * (1 + levelTol)
			if touched[st.am] || !(t > thr) || nmin < st.lv {
				break steps
			}
			for p := q; p < st.end; p += 2 {
				if touched[fixes[p+1]] {
					break steps
				}
			}
			for p := q; p < st.end; p += 2 {
				i, j := fixes[p], fixes[p+1]
				s.fix(int(i), st.lv*w[i], j)
				for _, x := range fLink[fOff[i]:fOff[i+1]] {
					if j := x & math.MaxInt32; touched[j] && ratio[j] <= thr {
						restart = true
						break steps
					}
				}
			}
		case stepBound:
			if !(t > st.lv) || !(nmin > st.lv*(1+boundTol)) {
				break steps
			}
			for p := q; p < st.end; p += 2 {
				i := fixes[p]
				s.fix(int(i), bound[i], -1)
			}
		default:
			break steps
		}
		q = st.end
	}
	for _, j := range tl {
		touched[j] = false
	}
	s.tlist = tl
	if restart {
		s.restart()
		k, q = 0, 0
	}
	s.steps, s.fixes = steps[:k], fixes[:q]
	if k > 0 {
		s.resumed++
		s.replayedSteps += k
	}
	return k
}

// restart puts the system back as build left it (the flows unfixed, the
// links' remaining capacities, Σ c·w, unfixed counts and ratios as build
// computes them), for a fill from the start.
func (s *system) restart() {
	for i := range s.slot {
		s.val[i], s.fixed[i], s.at[i] = 0, false, -1
	}
	for j := range s.id {
		s.rem[j], s.usage[j] = fmax(s.cap[j]-s.kept[j], 0), s.ubase[j]
		s.unfixed[j] = s.lOff[j+1] - s.lOff[j]
		s.ratio[j] = math.Inf(1)
		if s.unfixed[j] > 0 && s.usage[j] > 0 && !s.fat[j] && (s.fresh || !(s.rem[j] > s.bsum[j]*(1+unsatTol))) {
			s.ratio[j] = s.rem[j] / s.usage[j]
		}
	}
}

// fillVerified fills a round that replay could start twice from build's
// state, whole and with replay, and counts in replayDiffers the rounds
// whose rates, links fixed at, remaining capacities, Σ c·w, unfixed
// counts, ratios or logged steps and fixes differ in a bit (tests). The
// replayed fill's results stay.
func (s *system) fillVerified() {
	F, L := len(s.slot), len(s.id)
	type state struct {
		val, rem, usage, ratio []float64
		fixed                  []bool
		at, unfixed, fixes     []int32
		steps                  []fillStep
	}
	save := func() state {
		return state{append([]float64(nil), s.val[:F]...), append([]float64(nil), s.rem[:L]...),
			append([]float64(nil), s.usage[:L]...), append([]float64(nil), s.ratio[:L]...),
			append([]bool(nil), s.fixed[:F]...), append([]int32(nil), s.at[:F]...),
			append([]int32(nil), s.unfixed[:L]...), append([]int32(nil), s.fixes...),
			append([]fillStep(nil), s.steps...)}
	}
	built := save()
	extF, extL := s.extF, s.extL
	s.replayVerify, s.extF, s.extL = false, 0, 0
	s.fill()
	whole := save()
	copy(s.val, built.val)
	copy(s.rem, built.rem)
	copy(s.usage, built.usage)
	copy(s.ratio, built.ratio)
	copy(s.fixed, built.fixed)
	copy(s.at, built.at)
	copy(s.unfixed, built.unfixed)
	s.fixes, s.steps = append(s.fixes[:0], built.fixes...), append(s.steps[:0], built.steps...)
	s.extF, s.extL = extF, extL
	s.fill()
	s.replayVerify = true
	got := save()
	s.replayChecked++
	if !sameBits(got.val, whole.val) || !sameBits(got.rem, whole.rem) || !sameBits(got.usage, whole.usage) ||
		!sameBits(got.ratio, whole.ratio) || !slicesEqual(got.fixed, whole.fixed) || !slicesEqual(got.at, whole.at) ||
		!slicesEqual(got.unfixed, whole.unfixed) || !slicesEqual(got.fixes, whole.fixes) || !sameSteps(got.steps, whole.steps) {
		s.replayDiffers++
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// sameSteps tells whether two fills' logs hold the same steps, levels
// compared bit for bit.
func sameSteps(a, b []fillStep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if math.Float64bits(x.lv) != math.Float64bits(y.lv) || x.am != y.am || x.end != y.end || x.kind != y.kind {
			return false
		}
	}
	return true
}
