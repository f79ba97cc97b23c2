package timeline

import (
	"os"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog2"
)

// TestCollectiveSizeUnknown: a collective MPE logged without its sizes
// (MPI_Allreduce) says "size unknown" when selected; one with them
// (MPI_Alltoall) gives its bytes.
func TestCollectiveSizeUnknown(t *testing.T) {
	f, err := os.Open("../../testdata/mpe/colls.clog2")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := clog2.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	first := map[tracefmt.CollOp]tracefmt.EventRef{}
	for i, e := range tr.Ranks[0].Events {
		if _, ok := first[e.Op()]; e.Kind == tracefmt.KindCollective && !ok {
			first[e.Op()] = tracefmt.EventRef{Rank: 0, Index: int32(i)}
		}
	}
	for _, tc := range []struct {
		op        tracefmt.CollOp
		want, not string
	}{
		{tracefmt.OpAllreduce, "allreduce  MPI_COMM_WORLD  size unknown", "sent"},
		{tracefmt.OpAlltoall, "alltoall  MPI_COMM_WORLD  sent 4 KiB  recvd 4 KiB", "size unknown"},
	} {
		ref, ok := first[tc.op]
		if !ok {
			t.Fatalf("no %s on rank 0", tc.op)
		}
		m := newModel(t, 160, 24, tr)
		m.Focus(ref)
		v := m.View()
		if !strings.Contains(v, tc.want) || strings.Contains(v, tc.not) {
			t.Errorf("%s selected: want %q and no %q in\n%s", tc.op, tc.want, tc.not, v)
		}
	}
}
