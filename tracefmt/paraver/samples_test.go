package paraver

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// externalDir holds the third-party samples (see its SOURCES.md).
var externalDir = testshared.Dir() + "/paraver"

// readSample reads a sample .prv with the files beside it, skipping the
// test when the samples are absent.
func readSample(t testing.TB, name string) *tracefmt.Trace {
	t.Helper()
	path := filepath.Join(externalDir, name)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		t.Skipf("sample %s absent", path)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(path, f, DirOpener(filepath.Dir(path)))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// stateCounts counts the intervals (enters) of each named state.
func stateCounts(tr *tracefmt.Trace) map[string]int {
	out := map[string]int{}
	for r := range tr.Ranks {
		for _, e := range tr.Ranks[r].Events {
			if e.Kind == tracefmt.KindEnter {
				out[tr.StateName(e.State())]++
			}
		}
	}
	return out
}

// TestQsortSample pins what the Extrae qsort sample (old header, 4 tasks,
// 8 communicators, global operation records) reads as. Its tracer
// (MPITrace) wrote MPI_Reduce's exit as a second MPI_Reduce event: one
// MPI_Reduce interval per reduce, 18 as the global operation records say.
func TestQsortSample(t *testing.T) {
	tr := readSample(t, "qsort_beo3.prv")
	s := tracefmt.Summarize(tr)
	if s.Ranks != 4 || s.Events != 1117 || s.Messages.Matched != 33 || s.Messages.UnmatchedSends+s.Messages.UnmatchedRecvs != 0 || s.Collectives != 45 {
		t.Errorf("%d ranks, %d events, %+v, %d collectives; want 4, 1117, 33 matched, 45", s.Ranks, s.Events, s.Messages, s.Collectives)
	}
	if tr.Unit != tracefmt.Microsecond || s.Duration != 0.260199 {
		t.Errorf("unit %v, duration %v s; want µs, 0.260199 s", tr.Unit, s.Duration)
	}
	got := stateCounts(tr)
	want := map[string]int{
		"MPI_Send": 33, "MPI_Recv": 33, "MPI_Reduce": 18, "MPI_Bcast": 18, "MPI_Allreduce": 9,
		"MPI_Init": 4, "MPI_Finalize": 4, "Running": 101, "Waiting a message": 33,
		"Group Communication": 107, "Application": 4, "division (qsort_jenui.c)": 9, "State 15": 8,
	}
	for name, n := range want {
		if got[name] != n {
			t.Errorf("state %q: %d intervals, want %d", name, got[name], n)
		}
	}
	markers := map[string]int{}
	for r := range tr.Ranks {
		for _, e := range tr.Ranks[r].Events {
			if e.Kind == tracefmt.KindMarker {
				markers[tr.Markers[e.Marker()].Name]++
			}
		}
	}
	if len(markers) != 3 || markers["Instructions completed (Instr completed)"] != 44 {
		t.Errorf("markers %v, want 3 counters of 44 each", markers)
	}
	if len(tr.Comms) != 8 || tr.Comms[0].ID != 91 || tr.Comms[3].Name != "comm 94" || len(tr.Comms[3].Ranks) != 3 || tr.Comms[3].Ranks[0] != 1 {
		t.Errorf("communicators %+v", tr.Comms)
	}
	if c := tr.States[tr.Ranks[0].Events[0].State()]; c.Name != "Not created" || c.Color != "#ffffff" {
		t.Errorf("first state %+v, want Not created, #ffffff", c)
	}
	// Roots come from the sizes: the reduce's root only receives, the
	// broadcast's only sends.
	var roots []string
	for r := range tr.Ranks {
		for _, e := range tr.Ranks[r].Events {
			if e.Kind == tracefmt.KindCollective && r == 3 {
				roots = append(roots, e.Op().String()+"@"+tr.Comms[e.Comm].Name+":"+itoa(e.Root()))
			}
		}
	}
	wantRoots := "reduce@MPI_COMM_WORLD:0 bcast@MPI_COMM_WORLD:0 allreduce@MPI_COMM_WORLD:-1 reduce@MPI_COMM_WORLD:0 bcast@MPI_COMM_WORLD:0 " +
		"reduce@comm 94:1 bcast@comm 94:1 allreduce@comm 94:-1 reduce@comm 94:1 bcast@comm 94:1 " +
		"reduce@comm 96:2 bcast@comm 96:2 allreduce@comm 96:-1 reduce@comm 96:2 bcast@comm 96:2"
	if g := join(roots); g != wantRoots {
		t.Errorf("rank 3's collectives:\n%s\nwant\n%s", g, wantRoots)
	}
}
