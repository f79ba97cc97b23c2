package stats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestGoldenTI shows Stats of a SimGrid time-independent trace (recorded
// by SMPI 3.32): its actions are MPI calls, listed with their counts,
// where there once was "No states in this trace".
func TestGoldenTI(t *testing.T) {
	tr, err := simgridti.ReadFile("../../tracefmt/simgridti/testdata/smpi332/trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		w, h  int
		funcs []string // the functions there is room for
	}{
		{80, 24, []string{"Compute", "MPI_Isend", "MPI_Irecv"}},
		{160, 48, []string{"Compute", "MPI_Isend", "MPI_Irecv", "MPI_Allreduce", "MPI_Waitall", "MPI_Sendrecv"}},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), tr)
			m.SetSize(tc.w, tc.h)
			v := viewtest.ASCII(t, m.View())
			if strings.Contains(v, "No states") {
				t.Errorf("Stats says there are no states:\n%s", v)
			}
			for _, f := range tc.funcs {
				if !strings.Contains(v, f) {
					t.Errorf("Stats does not list %s:\n%s", f, v)
				}
			}
			viewtest.Golden(t, v)
		})
	}
}
