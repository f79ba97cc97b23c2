package flow

import (
	"math"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestReuseChangesNothing: when check adds flows, the solver extends the
// system it built and skips the links whose re-solved flows did not
// change (build, check); building every round anew and checking every
// link instead (system.fresh) delivers every message at the same
// picosecond, on the CG-like loop, the drifting stencil and random
// traffic (randomTraffic).
func TestReuseChangesNothing(t *testing.T) {
	same := func(name string, got, want []des.Time) {
		t.Helper()
		sameTimes(t, name, "building anew", got, want)
	}
	for _, platform := range []string{"star", "torus"} {
		got, _ := runCG(t, platform, 5, "checked")
		want, _ := runCG(t, platform, 5, "fresh")
		same("cg "+platform, got, want)
	}
	for _, side := range []int{8, 16} {
		got, _ := runStencil(t, side, 8, "checked")
		want, _ := runStencil(t, side, 8, "fresh")
		same("stencil "+itoa(side*side), got, want)
	}
	for trial := range 36 {
		spec, cfg, sends := randomTraffic(t, trial, 11, 300)
		h, _ := run(t, cfg, sends)
		fresh, _ := runSetup(t, cfg, sends, func(n *Network) { n.sys.fresh = true })
		got, want := make([]des.Time, len(sends)), make([]des.Time, len(sends))
		for id := range sends {
			got[id], want[id] = h.delivered[int32(id)], fresh.delivered[int32(id)]
		}
		same("random "+spec+" trial "+itoa(trial), got, want)
	}
}

// TestFixedAtCounts: after every solve of random traffic (on which some
// flows use a constraint both ways), each constraint's count of the flows
// fixed at it (fixedAt, by which check passes over a link without
// scanning its flows) is the number of its flows' uses whose bottleneck
// it is, counted afresh.
func TestFixedAtCounts(t *testing.T) {
	for trial := range 12 {
		spec, cfg, sends := randomTraffic(t, trial, 11, 300)
		solves := 0
		_, _ = runSetup(t, cfg, sends, func(n *Network) {
			var hook func(des.Time)
			hook = func(now des.Time) {
				n.solveWith = nil
				n.solve(now)
				n.solveWith = hook
				solves++
				for l := range n.links {
					want := int32(0)
					for _, e := range n.elems(&n.links[l]) {
						if n.bneck[e.f] == int32(l) {
							want++
						}
					}
					if got := n.fixedAt[l]; got != want {
						t.Fatalf("%s trial %d, solve %d at %v: constraint %d counts %d uses by flows fixed at it, its flows have %d",
							spec, trial, solves, now, l, got, want)
					}
				}
			}
			n.solveWith = hook
		})
		if solves == 0 {
			t.Fatalf("%s trial %d: no solve", spec, trial)
		}
	}
}

// TestExtendedBuildIsFresh: a build that extends the previous round's
// system (check added flows) moves the previous lists of the links' flows
// and places only the added flows' uses; right after each such build,
// building the same round from nothing gives the same system to the bit:
// the links' flow lists and offsets, kept loads, remaining capacities,
// Σ c·w, counts and ratios. On random traffic (randomTraffic), with the
// memo of systems off so that every round is built.
func TestExtendedBuildIsFresh(t *testing.T) {
	extended, moved := 0, 0
	hook := func(n *Network) {
		n.sys.memo.off = true
		n.sys.extended = func(F0 int) {
			s := &n.sys
			F, L := len(s.slot), len(s.id)
			E := s.lOff[L]
			type sys struct {
				lOff, lFlow, unfixed            []int32
				kept, rem, usage, ratio, w, lev []float64
			}
			take := func() sys {
				return sys{slices.Clone(s.lOff[:L+1]), slices.Clone(s.lFlow[:E]), slices.Clone(s.unfixed[:L]),
					slices.Clone(s.kept[:L]), slices.Clone(s.rem[:L]), slices.Clone(s.usage[:L]),
					slices.Clone(s.ratio[:L]), slices.Clone(s.w[:F]), slices.Clone(s.level[:F])}
			}
			got := take()
			// An added flow on a link before one with a flow of the
			// previous round: that list was moved.
			added := false
		lists:
			for j := range L {
				for _, x := range got.lFlow[got.lOff[j]:got.lOff[j+1]] {
					if i := int(x & math.MaxInt32); i >= F0 {
						added = true
					} else if added {
						moved++
						break lists
					}
				}
			}
			hook := s.extended
			s.extended, s.builtF, s.builtL = nil, 0, 0
			n.build()
			s.extended = hook
			want := take()
			extended++
			if !slices.Equal(got.lOff, want.lOff) || !slices.Equal(got.lFlow, want.lFlow) ||
				!slices.Equal(got.unfixed, want.unfixed) {
				t.Fatalf("extended build of %d flows, %d links: lists differ from a fresh build\ngot  %v %v %v\nwant %v %v %v",
					F, L, got.lOff, got.lFlow, got.unfixed, want.lOff, want.lFlow, want.unfixed)
			}
			for _, p := range [][2][]float64{{got.kept, want.kept}, {got.rem, want.rem}, {got.usage, want.usage},
				{got.ratio, want.ratio}, {got.w, want.w}, {got.lev, want.lev}} {
				if !sameBits(p[0], p[1]) {
					t.Fatalf("extended build of %d flows, %d links: numbers differ from a fresh build\ngot  %v\nwant %v",
						F, L, p[0], p[1])
				}
			}
		}
	}
	for trial := range 36 {
		_, cfg, sends := randomTraffic(t, trial, 11, 300)
		_, _ = runSetup(t, cfg, sends, hook)
	}
	if extended < 100 || moved < 100 {
		t.Fatalf("%d extended builds compared, %d of them moving lists: want 100 or more of each", extended, moved)
	}
	t.Logf("%d extended builds compared, %d of them moving lists", extended, moved)
}
