package analysis

import (
	"context"
	"math"
	"os"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// openMPE reads a real MPE trace, skipping when it is absent (the shared
// samples may be).
func openMPE(t *testing.T, path string) *tracefmt.Trace {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		t.Skipf("%s absent", path)
	}
	tr, _, err := formats.Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestMPERankZero: on real MPE recordings, rank 0's profile covers its own
// events only, not the definitions MPE writes on rank 0 at finalize: its
// span is that of its events, and its computation is all of that span
// when it logs no MPI call (cpilog's rank 0 logs only user and compute
// states) or the little time between its MPI calls (the master of a
// master-worker program computes about 30 µs of its 186 ms; the
// definitions once made that 18 ms).
func TestMPERankZero(t *testing.T) {
	tests := []struct {
		path string
		// maxCompute bounds rank 0's share of compute and user time, or
		// is -1 when that must be all of its span.
		maxCompute float64
	}{
		{"../../../shared/testdata-external/clog2/cpilog.clog2", -1},
		{"../../testdata/mpe/masterworker.clog2", 0.01},
		{"../../testdata/mpe/colls.clog2", 0.05},
		{"../../testdata/mpe/allreduce.clog2", 0.05},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			tr := openMPE(t, tc.path)
			p := ComputeProfile(tr, All(), nil)
			r0 := p.Ranks[0]
			ev := tr.Ranks[0].Events
			if span := tr.Seconds(ev[len(ev)-1].Time - ev[0].Time); math.Abs(r0.Span-span) > 1e-12 {
				t.Errorf("rank 0 span %v s, its events span %v s", r0.Span, span)
			}
			if _, end := tr.Span(); ev[len(ev)-1].Time > end {
				t.Errorf("rank 0 ends after the trace")
			}
			busy := r0.Time[Compute] + r0.Time[User]
			if tc.maxCompute < 0 {
				if math.Abs(busy-r0.Span) > 1e-9 {
					t.Errorf("rank 0 computes %v s (user %v s) of %v s, want all of it", r0.Time[Compute], r0.Time[User], r0.Span)
				}
				return
			}
			if busy > tc.maxCompute*r0.Span {
				t.Errorf("rank 0 computes %v s of %v s, want at most %.0f %%", busy, r0.Span, 100*tc.maxCompute)
			}
		})
	}
}
