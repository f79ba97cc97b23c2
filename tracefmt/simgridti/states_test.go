package simgridti

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
)

// stateRuns lists each rank's states as "Name(kinds of the events inside)"
// and checks that every enter is paired with the leave that follows its
// action's events.
func stateRuns(t *testing.T, tr *tracefmt.Trace) [][]string {
	t.Helper()
	out := make([][]string, tr.Size())
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		out[r] = []string{}
		for i := 0; i < len(ev); i++ {
			e := &ev[i]
			if e.Kind != tracefmt.KindEnter {
				continue
			}
			j := int(e.Match)
			if j <= i || ev[j].Kind != tracefmt.KindLeave || ev[j].Match != int32(i) || ev[j].State() != e.State() {
				t.Fatalf("rank %d event %d: enter of %s not paired with its leave", r, i, tr.StateName(e.State()))
			}
			var inside []string
			for k := i + 1; k < j; k++ {
				inside = append(inside, ev[k].Kind.String())
			}
			out[r] = append(out[r], tr.StateName(e.State())+"("+strings.Join(inside, " ")+")")
			i = j
		}
	}
	return out
}

// TestActionStates: every action that does something is a state named as
// the MPI call it stands for, around the events it became; location is a
// marker and init/finalize do nothing.
func TestActionStates(t *testing.T) {
	tests := []struct {
		name string
		text string
		want [][]string
	}{
		{
			name: "point to point",
			text: "0 init\n1 init\n0 compute 1e6\n0 isend 1 0 8\n1 irecv 0 0 8\n0 location a.c 3\n" +
				"0 wait 0 1 0\n1 wait 0 1 0\n0 send 1 1 4\n1 recv 0 1 4\n0 sendRecv 4 1 4 1\n1 sendRecv 4 0 4 0\n" +
				"1 sleep 0.5\n0 Ssend 1 2 4\n1 recv 0 2 4\n0 finalize\n1 finalize\n",
			want: [][]string{
				{"Compute(compute)", "MPI_Isend(send)", "MPI_Wait(wait)", "MPI_Send(send)", "MPI_Sendrecv(send recv)", "MPI_Ssend(send)"},
				{"MPI_Irecv(recv)", "MPI_Wait(wait)", "MPI_Recv(recv)", "MPI_Sendrecv(send recv)", "Sleep(compute)", "MPI_Recv(recv)"},
			},
		},
		{
			name: "collectives and waitall",
			text: "0 irecv 1 0 8\n1 isend 0 0 8\n0 waitall\n1 waitall 1\n" +
				"0 allreduce 8 1000\n1 allReduce 8 1000\n0 barrier\n1 barrier\n0 bcast 8\n1 bcast 8\n" +
				"0 alltoall 4 4\n1 alltoall 4 4\n0 reducescatter 2 2 0\n1 reducescatter 2 2 0\n0 waitAny 2\n",
			want: [][]string{
				{"MPI_Irecv(recv)", "MPI_Waitall(wait)", "MPI_Allreduce(coll compute)", "MPI_Barrier(coll)", "MPI_Bcast(coll)",
					"MPI_Alltoall(coll)", "MPI_Reduce_scatter(coll)", "MPI_Waitany(marker)"},
				{"MPI_Isend(send)", "MPI_Waitall(wait)", "MPI_Allreduce(coll compute)", "MPI_Barrier(coll)", "MPI_Bcast(coll)",
					"MPI_Alltoall(coll)", "MPI_Reduce_scatter(coll)"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := mustRead(t, tt.text)
			if err := tr.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := stateRuns(t, tr); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("states\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	tr := mustRead(t, tests[1].text)
	cats := map[string]tracefmt.Category{}
	for _, s := range tr.States {
		cats[s.Name] = s.Category
	}
	want := map[string]tracefmt.Category{
		"MPI_Irecv": tracefmt.CatP2P, "MPI_Isend": tracefmt.CatP2P, "MPI_Waitall": tracefmt.CatWait,
		"MPI_Allreduce": tracefmt.CatCollective, "MPI_Barrier": tracefmt.CatCollective, "MPI_Bcast": tracefmt.CatCollective,
		"MPI_Alltoall": tracefmt.CatCollective, "MPI_Reduce_scatter": tracefmt.CatCollective, "MPI_Waitany": tracefmt.CatWait,
	}
	if !reflect.DeepEqual(cats, want) {
		t.Errorf("state categories %v, want %v", cats, want)
	}
}

// TestActionStatesReal: in SimGrid's own traces every rank has states and
// every event but markers lies inside one.
func TestActionStatesReal(t *testing.T) {
	dir := testshared.Dir() + "/simgrid-ti"
	files, _ := filepath.Glob(filepath.Join(dir, "*.txt"))
	files = append(files, filepath.Join("testdata", "smpi332", "trace.txt"))
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			if _, err := os.Stat(f); err != nil {
				t.Skip(err)
			}
			tr, err := ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				depth, states := 0, 0
				for i := range ev {
					switch ev[i].Kind {
					case tracefmt.KindEnter:
						depth++
						states++
					case tracefmt.KindLeave:
						depth--
					case tracefmt.KindMarker:
					default:
						if depth != 1 {
							t.Fatalf("rank %d event %d (%s) outside any action state", r, i, ev[i].Kind)
						}
					}
				}
				if len(ev) > 0 && states == 0 {
					t.Errorf("rank %d has %d events and no state", r, len(ev))
				}
			}
		})
	}
}
