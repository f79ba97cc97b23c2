package analysis

import (
	"cmp"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog2"
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
		{testshared.Dir() + "/clog2/cpilog.clog2", -1},
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

// TestMPERankZeroComputeFromEvents (issue 13's "rank 0's compute matches
// the sum of its Compute/user states"): on every real MPE recording, rank
// 0's compute and user time in the Stats profile equals what its raw
// events say independently: the time from its first to its last real
// event (CLOG2 definition records are not real events, even if a reader
// kept them as markers) not covered by any MPI, wait or I/O state. MPE
// logs only the MPI calls of an MPICH program, so the gaps are its
// computation; cpilog logs Compute and user states and no MPI call, so
// those states lie within that time. The definitions MPE writes on rank 0
// at finalize once added a fifth of the run to rank 0's compute.
func TestMPERankZeroComputeFromEvents(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/mpe/*.clog2")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no recordings in testdata/mpe")
	}
	paths = append(paths, testshared.Dir()+"/clog2/cpilog.clog2")
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			tr := openMPE(t, path)
			ev := tr.Ranks[0].Events
			first, last := math.Inf(1), math.Inf(-1)
			for i := range ev {
				if e := &ev[i]; e.Kind != tracefmt.KindMarker || !clog2.IsBookkeeping(tr.Markers[e.Marker()].Name) {
					first, last = min(first, e.Time), max(last, e.Time)
				}
			}
			if first > last {
				t.Fatal("rank 0 has no real events")
			}
			// The intervals of rank 0's states, from each enter to its
			// leave (an unmatched enter to the end): MPI, wait and I/O
			// states apart from Compute and user ones.
			var mpi, comp [][2]float64
			for i := range ev {
				e := &ev[i]
				if e.Kind != tracefmt.KindEnter {
					continue
				}
				iv := [2]float64{e.Time, last}
				if e.Match >= 0 {
					iv[1] = ev[e.Match].Time
				}
				switch tr.States[e.State()].Category {
				case tracefmt.CatCompute, tracefmt.CatUser:
					comp = append(comp, iv)
				default:
					mpi = append(mpi, iv)
				}
			}
			want := tr.Seconds(last - first - unionLength(mpi, first, last))
			inStates := tr.Seconds(unionLength(comp, first, last))
			r0 := ComputeProfile(tr, All(), nil).Ranks[0]
			got := r0.Time[Compute] + r0.Time[User]
			if math.Abs(got-want) > 1e-9*max(1, want) {
				t.Errorf("rank 0 computes %v s (compute %v s, user %v s) in the Stats profile; its events say %v s", got, r0.Time[Compute], r0.Time[User], want)
			}
			if inStates > got+1e-9 {
				t.Errorf("rank 0's Compute/user states cover %v s, more than its compute and user time %v s", inStates, got)
			}
			t.Logf("rank 0: compute+user %.6f s of %.6f s, %.6f s of it in Compute/user states", got, r0.Span, inStates)
		})
	}
}

// unionLength returns the length of the union of the intervals inside
// [lo, hi].
func unionLength(ivs [][2]float64, lo, hi float64) float64 {
	ivs = slices.Clone(ivs)
	slices.SortFunc(ivs, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
	total, reach := 0.0, lo
	for _, iv := range ivs {
		a, b := max(iv[0], reach), min(iv[1], hi)
		if b > a {
			total += b - a
			reach = b
		}
	}
	return total
}
