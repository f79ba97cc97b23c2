package replay

import (
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestFlowSharing checks that the flow model's answer moves where link
// sharing moves: the topology, the placement and the routing change the
// makespan of the same trace, by the factor the shared links give.
func TestFlowSharing(t *testing.T) {
	a2a := generate(t, gen.Options{Pattern: "alltoall", Ranks: 16, Iters: 2, Size: 65536})
	halo := generate(t, gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 4, Size: 262144})
	makespan := func(t *testing.T, tr *tracefmt.Trace, kv []string) float64 {
		t.Helper()
		cfg := cfgWith(t, append([]string{"model", "flow", "bandwidth", "10Gb/s", "latency", "100ns", "sample-period", "0", "cpu-scale", "0"}, kv...)...)
		_, res := simulate(t, tr, cfg, Options{})
		if !res.Complete {
			t.Fatalf("%v: incomplete", kv)
		}
		return res.Makespan
	}
	tests := []struct {
		name       string
		tr         *tracefmt.Trace
		slow, fast []string
		minX, maxX float64 // bounds on slow/fast
	}{
		// A ring's bisection is two links against the crossbar's 16
		// node links: the alltoall's exchanges take several times
		// longer.
		{"alltoall ring:16 vs crossbar:16", a2a,
			[]string{"topology", "ring:16"}, []string{"topology", "crossbar:16"}, 3, 20},
		// On a torus, a 2-D stencil placed linearly talks to its
		// neighbours; placed at random its flows cross and share links.
		{"stencil torus:4x4, random vs linear placement", halo,
			[]string{"topology", "torus:4x4", "placement", "random:seed=3"}, []string{"topology", "torus:4x4"}, 1.2, 10},
		// Valiant routing sends each flow through a random router:
		// longer routes, more sharing than dimension order. (The flow
		// model builds it with the virtual channels it needs.)
		{"alltoall torus:4x4, valiant vs dor", a2a,
			[]string{"topology", "torus:4x4", "routing", "valiant"}, []string{"topology", "torus:4x4", "routing", "dor"}, 1.05, 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, f := makespan(t, tc.tr, tc.slow), makespan(t, tc.tr, tc.fast)
			if x := s / f; x < tc.minX || x > tc.maxX {
				t.Errorf("makespans %.6g s and %.6g s: ratio %.3g, want %g to %g", s, f, x, tc.minX, tc.maxX)
			} else {
				t.Logf("%.6g s vs %.6g s: ×%.3g", s, f, x)
			}
		})
	}
}
