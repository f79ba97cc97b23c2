package flow

import (
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
