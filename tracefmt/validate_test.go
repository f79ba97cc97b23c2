package tracefmt

import (
	"strconv"
	"strings"
	"testing"
)

// TestValidateLargeReportsFirstError: a trace large enough to be checked
// on several goroutines still reports the first broken event in rank
// order.
func TestValidateLargeReportsFirstError(t *testing.T) {
	const ranks = 8
	n := parallelEvents/ranks + 10
	tr := &Trace{Ranks: make([]Rank, ranks), Comms: []Comm{{Name: "MPI_COMM_WORLD"}}}
	for r := range tr.Ranks {
		ev := make([]Event, n)
		for i := range ev {
			ev[i] = Collective(float64(i), OpBarrier, -1, 0, 0, 0)
		}
		tr.Ranks[r].Events = ev
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("valid trace: %v", err)
	}
	tr.Ranks[6].Events[3] = Send(0, 99, 0, 0, 1)
	tr.Ranks[2].Events[n-1] = Send(0, 0, 0, 0, -1)
	tr.Ranks[2].Events[n-2] = Send(0, 0, 0, 7, 1)
	err := tr.Validate()
	if err == nil || !strings.HasPrefix(err.Error(), "rank 2 event "+strconv.Itoa(n-2)+" ") {
		t.Fatalf("Validate() = %v, want the error of rank 2 event %d", err, n-2)
	}
}
