package simgridti

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// TestRealSamples pins every event of SimGrid's own replay examples and of
// a trace SimGrid 3.32's tracer wrote (testdata/smpi332).
func TestRealSamples(t *testing.T) {
	tests := []struct {
		file     string
		want     [][]string // every rank's events; nil: only the counts below
		messages tracefmt.MessageCounts
		colls    int
		bytes    int64 // point-to-point bytes sent
		flops    float64
		counts   []map[string]int // events per kind and rank, when want is nil
	}{
		{
			file: "simgrid-examples/actions_with_isend.txt",
			want: [][]string{
				{"compute 1e+09f", "send>1 t0 1000000B", "compute 1e+09f", "recv<2 t2 1000000B"},
				{"recv<0 t0 1000000B nb req1", "compute 5e+08f", "test req1", "compute 5e+08f", "wait req1", "send>2 t1 1000000B"},
				{"compute 2e+09f", "recv<1 t1 1000000B nb req1", "compute 2.5e+08f", "test req1", "compute 2.5e+08f",
					"wait req1", "send>0 t2 1000000B nb req2", "compute 5e+08f"},
			},
			messages: tracefmt.MessageCounts{Matched: 3},
			bytes:    3e6,
			flops:    6e9,
		},
		{
			file: "simgrid-examples/actions_waitall.txt",
			want: [][]string{
				{"recv<1 t0 2000B nb req1", "recv<2 t2 3000B nb req2", "waitall"},
				{"send>0 t0 2000B nb req1", "send>2 t1 3000B nb req2", "waitall"},
				{"recv<1 t1 3000B nb req1", "send>0 t2 3000B nb req2", "waitall"},
			},
			messages: tracefmt.MessageCounts{Matched: 3},
			bytes:    8000,
		},
		{
			// Counts given in MPI_DOUBLE (datatype 0): 275427 × 8 bytes.
			file: "simgrid-examples/actions_allgatherv.txt",
			want: [][]string{
				{"allgatherv root-1 2203416/8242408"},
				{"allgatherv root-1 2203416/8242408"},
				{"allgatherv root-1 2203416/8242408"},
				{"allgatherv root-1 1632160/8242408"},
			},
			colls: 4,
		},
		{
			file:     "smpi332/trace.txt",
			messages: tracefmt.MessageCounts{Matched: 9, WildcardRecvs: 2},
			colls:    48,
			bytes:    400 + 400 + 40 + 3 + 32 + 10 + 20 + 40 + 3,
			counts: []map[string]int{
				{"send": 5, "recv": 4, "wait": 3, "coll": 16, "compute": 28},
				{"send": 4, "recv": 5, "wait": 2, "coll": 16, "compute": 27},
				{"coll": 16, "compute": 16},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			tr, err := ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if tr.Timed || tr.Format != "ti" || tr.Unit != tracefmt.Second {
				t.Errorf("timed %v format %q unit %v, want untimed ti trace in seconds", tr.Timed, tr.Format, tr.Unit)
			}
			got := describeRanks(tr)
			if tt.want != nil && !reflect.DeepEqual(got, tt.want) {
				t.Errorf("events:\n got %q\nwant %q", got, tt.want)
			}
			if tt.counts != nil {
				if len(got) != len(tt.counts) {
					t.Fatalf("%d ranks, want %d", len(got), len(tt.counts))
				}
				actions := actionsOnly(tr)
				for r := range tt.counts {
					kinds := map[string]int{}
					for _, e := range actions.Ranks[r].Events {
						kinds[e.Kind.String()]++
					}
					if !reflect.DeepEqual(kinds, tt.counts[r]) {
						t.Errorf("rank %d: events per kind %v, want %v", r, kinds, tt.counts[r])
					}
				}
			}
			s := tracefmt.Summarize(tr)
			if s.Messages != tt.messages {
				t.Errorf("messages %+v, want %+v", s.Messages, tt.messages)
			}
			if s.Collectives != tt.colls || s.Bytes != tt.bytes || s.Compute.Flops != tt.flops && tt.counts == nil {
				t.Errorf("collectives %d bytes %d flops %g, want %d, %d, %g", s.Collectives, s.Bytes, s.Compute.Flops, tt.colls, tt.bytes, tt.flops)
			}
		})
	}
}

// TestSMPI332Details pins, compute bursts aside, every event of the trace
// SimGrid 3.32's tracer wrote for testdata/smpi332/mpi_calls.c: -333
// wildcards (resolved to rank 1, the only sender), tag-less sendRecv,
// Ssend of MPI_LONG_DOUBLE (16 bytes), waitall with a count, a test that
// completed its request (no wait follows), and vector collectives whose
// per-rank counts depend on the rank.
func TestSMPI332Details(t *testing.T) {
	tr, err := ReadFile("testdata/smpi332/trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	colls := func(bcast1, bcast0, reduce, a2av, gather, gatherv, allgatherv, scatter, scatterv, rs string) []string {
		return []string{"barrier root-1 0/0", "bcast root1 " + bcast1, "bcast root0 " + bcast0,
			"reduce root2 " + reduce, "allreduce root-1 124/124", "alltoall root-1 96/96", "alltoallv root-1 " + a2av,
			"gather root1 " + gather, "gatherv root0 " + gatherv, "allgather root-1 48/144", "allgatherv root-1 " + allgatherv,
			"scatter root0 " + scatter, "scatterv root2 " + scatterv, "reducescatter root-1 " + rs,
			"scan root-1 64/64", "exscan root-1 72/72"}
	}
	want := [][]string{
		append([]string{"send>1 t7 400B", "send>1 t8 400B nb req1", "wait req1", "recv<1 t9 10B any-src",
			"recv<1 t10 20B any-src nb req2", "wait req2", "send>1 t0 40B sr", "recv<1 t0 48B sr",
			"send>1 t4 3B nb req3", "recv<1 t4 3B nb req4", "waitall", "send>1 t5 32B sync"},
			colls("0/160", "84/0", "240/0", "132/132", "40/0", "40/132", "80/264", "168/56", "0/80", "264/80")...),
		append([]string{"recv<0 t7 400B", "recv<0 t8 400B nb req1", "test req1", "send>0 t9 10B", "send>0 t10 20B",
			"send>0 t0 40B sr", "recv<0 t0 48B sr", "send>0 t4 3B nb req2", "recv<0 t4 3B nb req3", "waitall",
			"recv<0 t5 32B"},
			colls("160/0", "0/84", "240/0", "144/144", "40/120", "44/0", "88/264", "0/56", "0/88", "264/88")...),
		colls("0/160", "0/84", "240/240", "156/156", "40/0", "48/0", "96/264", "0/56", "264/96", "264/96"),
	}
	got := describeRanks(tr)
	for r := range got {
		var mpi []string
		for _, s := range got[r] {
			if !strings.HasPrefix(s, "compute ") {
				mpi = append(mpi, s)
			}
		}
		if !reflect.DeepEqual(mpi, want[r]) {
			t.Errorf("rank %d:\n got %q\nwant %q", r, mpi, want[r])
		}
	}
	if last := got[2][len(got[2])-1]; last != "compute 38.1351f" {
		t.Errorf("rank 2 ends with %s, want compute 38.1351f", last)
	}
}

// TestSampleCopiesUnchanged checks the copies in testdata against the
// sha256 sums of ../shared/testdata-external/SOURCES.md.
func TestSampleCopiesUnchanged(t *testing.T) {
	sums := map[string]string{
		"actions_allgatherv.txt": "257c8e18e8482f60ae2848a6637a904dec0ff2fcd58c1677f72810eaa2d89b48",
		"actions_waitall.txt":    "64676c2d2181af2d3bcbe0f8732635b520129f1bc6aab1c9a9d8d670f1345d9f",
		"actions_with_isend.txt": "f54d5e9cda5a4210a63d6b8f5444a4d188352bab68750aa6de7c31d71dfb62e6",
	}
	for name, want := range sums {
		b, err := os.ReadFile(filepath.Join("testdata/simgrid-examples", name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			t.Errorf("%s: sha256 %s, want %s", name, got, want)
		}
		// The shared originals, when present, are the same bytes.
		orig, err := os.ReadFile(filepath.Join(testshared.Dir(), "simgrid-ti", name))
		if err == nil && string(orig) != string(b) {
			t.Errorf("%s differs from ../shared/testdata-external/simgrid-ti/%s", name, name)
		}
	}
}

// TestLongInputKeepsNames reads inputs longer than the line reader's
// buffer, whose lines alias it: the names and arguments the reader keeps
// past a line (marker names, action states, the arguments of collectives
// settled at the end, location texts) must not change as the buffer is
// reused.
func TestLongInputKeepsNames(t *testing.T) {
	var b strings.Builder
	b.WriteString("0 init\n1 init\n0 waitAny 1 2\n1 location main.c 12\n0 alltoall 4 4\n1 alltoall 4 4\n")
	for b.Len() < 3*readChunk {
		b.WriteString("0 compute 1000\n1 compute 1000\n")
	}
	b.WriteString("0 waitAny 3\n1 location main.c 12\n0 finalize\n1 finalize\n")
	tr, err := Read(strings.NewReader(b.String()), nil)
	if err != nil {
		t.Fatal(err)
	}
	var markers []string
	for _, m := range tr.Markers {
		markers = append(markers, m.Name)
	}
	if want := []string{"waitAny", "location"}; !reflect.DeepEqual(markers, want) {
		t.Errorf("markers %q, want %q", markers, want)
	}
	var texts []string
	for _, r := range tr.Ranks {
		for i := range r.Events {
			if e := &r.Events[i]; e.Kind == tracefmt.KindMarker {
				texts = append(texts, tr.Text(e))
			}
			if e := &r.Events[i]; e.Kind == tracefmt.KindCollective && (e.Size != 8 || e.RecvBytes() != 8) {
				t.Errorf("alltoall sends %d B and receives %d B, want 8 and 8 (2 ranks × 4 bytes)", e.Size, e.RecvBytes())
			}
		}
	}
	if want := []string{"1 2", "3", "main.c:12", "main.c:12"}; !reflect.DeepEqual(texts, want) {
		t.Errorf("marker texts %q, want %q", texts, want)
	}
	var states []string
	for _, s := range tr.States {
		states = append(states, s.Name)
	}
	if want := []string{"MPI_Waitany", "MPI_Alltoall", "Compute"}; !reflect.DeepEqual(states, want) {
		t.Errorf("states %q, want %q", states, want)
	}
}
