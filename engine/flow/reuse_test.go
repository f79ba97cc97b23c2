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
