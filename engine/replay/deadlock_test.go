package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// The deadlock report of a large world stays small: the first ranks in
// full, the others counted by operation, each rank's lists cut short.
func TestDeadlockReportIsBounded(t *testing.T) {
	const P = 256
	// Every rank posts a receive from every other rank, then waits for
	// all of them; nobody sends (2.2 MB of report before the bound).
	gather := func(t *testing.T) *tracefmt.Trace {
		p := newProg(t, P)
		for r := range P {
			for q := range P {
				if q != r {
					p.irecv(r, q, 0, 8)
				}
			}
			p.waitall(r)
		}
		return p.trace()
	}
	// A ring of synchronous sends: one cycle through every rank.
	ring := func(t *testing.T) *tracefmt.Trace {
		p := newProg(t, P)
		for r := range P {
			p.ssend(r, (r+1)%P, 0, 8).recv(r, (r+P-1)%P, 0, 8)
		}
		return p.trace()
	}
	tests := []struct {
		name        string
		trace       func(*testing.T) *tracefmt.Trace
		message     string
		explain     []string
		more        []string
		first       BlockedRank
		cycleRanks  int
		wantListed  int
		maxJSONSize int
	}{
		{name: "gather", trace: gather,
			message: "deadlock: ranks wait for each other in a cycle 0 → 1 → 0; 256 of 256 ranks blocked; " +
				"rank 0 in MPI_Waitall (event 255) waits for a message from rank 1 (tag 0) and a message from rank 2 (tag 0) and " +
				"a message from rank 3 (tag 0) and a message from rank 4 (tag 0) and a message from rank 5 (tag 0) and " +
				"a message from rank 6 (tag 0) and a message from rank 7 (tag 0) and a message from rank 8 (tag 0) and 247 more; ",
			more: []string{"240 in MPI_Waitall"},
			first: BlockedRank{Rank: 0, Event: 255, Op: "MPI_Waitall (event 255)", WaitsFor: []int{1, 2, 3, 4, 5, 6, 7, 8}, MoreWaitsFor: 247,
				Waiting: []string{"a message from rank 1 (tag 0)", "a message from rank 2 (tag 0)", "a message from rank 3 (tag 0)",
					"a message from rank 4 (tag 0)", "a message from rank 5 (tag 0)", "a message from rank 6 (tag 0)",
					"a message from rank 7 (tag 0)", "a message from rank 8 (tag 0)"}, MoreWaiting: 247},
			cycleRanks: 2, wantListed: 16, maxJSONSize: 16 << 10},
		{name: "ring", trace: ring,
			message: "deadlock: ranks wait for each other in a cycle 0 → 1 → 2 → 3 → 4 → 5 → 6 → 7 → 8 → 9 → 10 → 11 → 12 → 13 → 14 → … → 255 → 0 of 256 ranks; " +
				"256 of 256 ranks blocked; rank 0 in MPI_Ssend to 1, tag 0, 8 B (event 0) waits for its 8 B send to rank 1 to be received; ",
			explain: []string{
				"cause: synchronous sends (MPI_Ssend) wait for their receive: rank 0's 8 B to rank 1, rank 1's 8 B to rank 2, rank 2's 8 B to rank 3, " +
					"rank 3's 8 B to rank 4, rank 4's 8 B to rank 5, rank 5's 8 B to rank 6, rank 6's 8 B to rank 7, rank 7's 8 B to rank 8, 248 more",
				"correction: none in the MPI: an MPI_Ssend waits for its receive whatever the MPI, so the program is unsafe as written; --send buffered replays them as if buffered",
			},
			more: []string{"240 in MPI_Ssend"},
			first: BlockedRank{Rank: 0, Event: 0, Op: "MPI_Ssend to 1, tag 0, 8 B (event 0)", WaitsFor: []int{1},
				Waiting: []string{"its 8 B send to rank 1 to be received"}},
			cycleRanks: 256, wantListed: 16, maxJSONSize: 8 << 10},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, res := simulate(t, tc.trace(t), Default(), Options{})
			d := res.Deadlock
			if d == nil {
				t.Fatal("no deadlock")
			}
			// The explanation of the send semantics ends the message.
			end := strings.Join(append([]string{"; …"}, tc.explain...), "; ")
			if !strings.HasPrefix(d.Message, tc.message) || !strings.HasSuffix(d.Message, end) {
				t.Errorf("message\n%s\nwant it to start with\n%s\nand end with\n%s", d.Message, tc.message, end)
			}
			if fmt.Sprint(d.Explanation) != fmt.Sprint(tc.explain) {
				t.Errorf("explanation %q, want %q", d.Explanation, tc.explain)
			}
			if d.BlockedTotal != P || len(d.Blocked) != tc.wantListed || fmt.Sprint(d.MoreBlocked) != fmt.Sprint(tc.more) {
				t.Errorf("%d blocked, %d listed, more %q; want %d, %d, %q", d.BlockedTotal, len(d.Blocked), d.MoreBlocked, P, tc.wantListed, tc.more)
			}
			if got := fmt.Sprintf("%+v", d.Blocked[0]); got != fmt.Sprintf("%+v", tc.first) {
				t.Errorf("first blocked rank\n%s\nwant\n%s", got, fmt.Sprintf("%+v", tc.first))
			}
			if len(d.Cycle) != tc.cycleRanks+1 {
				t.Errorf("cycle of %d ranks, want %d", len(d.Cycle)-1, tc.cycleRanks)
			}
			data, err := json.Marshal(d)
			if err != nil {
				t.Fatal(err)
			}
			if len(data) > tc.maxJSONSize {
				t.Errorf("the report is %d bytes of JSON, more than %d", len(data), tc.maxJSONSize)
			}
		})
	}
}
