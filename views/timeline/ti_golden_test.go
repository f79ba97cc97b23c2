package timeline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/simgridti"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestGoldenTI draws a SimGrid time-independent trace (recorded by SMPI
// 3.32): every action is a state named as its MPI call, so every rank has
// states and the legend lists them.
func TestGoldenTI(t *testing.T) {
	tr, err := simgridti.ReadFile("../../tracefmt/simgridti/testdata/smpi332/trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w, h   int
		legend []string // what the legend has room for
	}{
		{80, 24, []string{"Compute", "MPI_Send", "MPI_Isend", "MPI_Wait", "MPI_Irecv", "MPI_Waitall"}},
		{160, 48, []string{"Compute", "MPI_Isend", "MPI_Waitall", "MPI_Allreduce", "MPI_Alltoallv", "MPI_Reduce_scatter"}},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			m := newModel(t, tc.w, tc.h, tr)
			v := m.View()
			for _, name := range tc.legend {
				if !strings.Contains(v, " "+name+" ") {
					t.Errorf("the legend lacks %s:\n%s", name, v)
				}
			}
			// Every rank's row draws states (█ MPI calls, ▓ collectives
			// and Compute in the mono theme, ░ waits).
			for r := range tr.Size() {
				row := ""
				for _, l := range strings.Split(v, "\n") {
					if len(l) > 3 && strings.Trim(l[:3], " >") == fmt.Sprint(r) {
						row, _, _ = strings.Cut(l, "│")
					}
				}
				if !strings.ContainsAny(row, "█▓░") {
					t.Errorf("rank %d: no state drawn in %q", r, row)
				}
			}
			viewtest.Golden(t, v)
		})
	}
}
