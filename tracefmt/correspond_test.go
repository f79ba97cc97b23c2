package tracefmt

import (
	"strconv"
	"strings"
	"testing"
)

// callTrace builds a two-rank timed trace from a compact script per rank:
// "E:name" enters a state, "L:name" leaves it, "S:peer:tag" sends,
// "R:peer:tag" receives, "C" is a compute burst; events are 1 unit apart.
func callTrace(t *testing.T, script ...string) *Trace {
	t.Helper()
	b := NewBuilder(len(script), true, Microsecond)
	for r, s := range script {
		for i, w := range strings.Fields(s) {
			at := float64(i)
			f := strings.Split(w, ":")
			var e Event
			switch f[0] {
			case "E", "L":
				st, ok := b.LookupState(f[1])
				if !ok {
					st = b.DefineState(StateDef{Name: f[1], Category: CategoryOf(f[1])})
				}
				e = Enter(at, st)
				if f[0] == "L" {
					e = Leave(at, st)
				}
			case "S", "R":
				peer, _ := strconv.Atoi(f[1])
				tag, _ := strconv.Atoi(f[2])
				e = Send(at, peer, int32(tag), 0, 8)
				if f[0] == "R" {
					e = Recv(at, peer, int32(tag), 0, 8)
				}
			case "C":
				e = ComputeTime(at, 1)
			}
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestCorrespond(t *testing.T) {
	// The recorded run and a replay that adds compute states, a
	// collective's own messages (tag 0, as an expanded allreduce sends)
	// and a call the recording lacks.
	rec := callTrace(t,
		"E:MPI_Send S:1:0 L:MPI_Send E:MPI_Send S:1:0 L:MPI_Send E:MPI_Allreduce L:MPI_Allreduce",
		"E:MPI_Recv R:0:0 L:MPI_Recv E:MPI_Recv R:0:0 L:MPI_Recv E:MPI_Allreduce L:MPI_Allreduce",
	)
	pred := callTrace(t,
		"E:Compute L:Compute E:MPI_Send S:1:0 L:MPI_Send E:Compute L:Compute E:MPI_Send S:1:0 L:MPI_Send E:MPI_Allreduce S:1:0 R:1:0 L:MPI_Allreduce E:MPI_Barrier L:MPI_Barrier",
		"E:MPI_Recv R:0:0 L:MPI_Recv E:MPI_Recv R:0:0 L:MPI_Recv E:MPI_Allreduce R:0:0 S:0:0 L:MPI_Allreduce",
	)
	c := Correspond(rec, pred)
	tests := []struct {
		name      string
		rank, rec int32
		pred      int32 // -1: no counterpart
	}{
		{"first send's state", 0, 0, 2},
		{"first send", 0, 1, 3},
		{"first send's leave", 0, 2, 4},
		{"second send, after an extra compute state", 0, 4, 8},
		{"allreduce enter", 0, 6, 10},
		{"allreduce leave, around the collective's own messages", 0, 7, 13},
		{"receive on rank 1", 1, 1, 1},
		{"second receive", 1, 4, 4},
		{"rank 1 allreduce", 1, 6, 6},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := c.AtoB(EventRef{Rank: tc.rank, Index: tc.rec})
			if !ok || got.Index != tc.pred || got.Rank != tc.rank {
				t.Fatalf("AtoB(%d:%d) = %v, %v; want index %d", tc.rank, tc.rec, got, ok, tc.pred)
			}
			back, ok := c.BtoA(got)
			if !ok || back.Index != tc.rec {
				t.Fatalf("BtoA(%v) = %v, %v; want index %d", got, back, ok, tc.rec)
			}
		})
	}
	unpaired := []struct {
		name string
		ref  EventRef
	}{
		{"a compute state the recording lacks", EventRef{Rank: 0, Index: 0}},
		{"a collective's own send", EventRef{Rank: 0, Index: 11}},
		{"a collective's own receive", EventRef{Rank: 1, Index: 7}},
		{"a call the recording lacks", EventRef{Rank: 0, Index: 14}},
		{"out of range", EventRef{Rank: 5, Index: 0}},
	}
	for _, tc := range unpaired {
		t.Run(tc.name, func(t *testing.T) {
			if got, ok := c.BtoA(tc.ref); ok {
				t.Fatalf("BtoA(%v) = %v, want none", tc.ref, got)
			}
		})
	}
}

func TestFinishTimes(t *testing.T) {
	tr := callTrace(t, "C C C", "C", "")
	got := tr.FinishTimes()
	want := []float64{2, 0, 0}
	for r := range want {
		if got[r] != want[r] {
			t.Fatalf("FinishTimes() = %v, want %v", got, want)
		}
	}
}
