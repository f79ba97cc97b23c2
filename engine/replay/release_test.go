package replay

import (
	"reflect"
	"strings"
	"testing"
)

// TestFinishReleasesFlightTables: a run that ends with every message
// delivered drops its message and receive tables before Results allocates
// its per-rank arrays, and still reports the same messages and ranks; a
// run that deadlocks keeps them for its report, which names the stuck
// message's sender.
func TestFinishReleasesFlightTables(t *testing.T) {
	build := func(n int64, recv bool) *Sim {
		p := newProg(t, 2)
		for r := range 2 {
			p.send(r, 1-r, 7, n)
			if recv {
				p.recv(r, 1-r, 7, n)
			}
		}
		s, err := New(p.trace(), cfgWith(t, "send", "auto"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name      string
		size      int64
		recv      bool
		released  bool
		unmatched int
	}{
		{"eager, ends", 1000, true, true, 0},
		// Both requests to send wait for receives never posted.
		{"rendezvous, deadlocks", 1 << 20, true, false, 2},
		// Every rank ends and the network drains, but the messages wait
		// unreceived in the unexpected queues: Results counts them
		// through the tables, which must stay.
		{"eager, never received", 1000, false, false, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := build(c.size, c.recv)
			var before Results
			for s.Step() {
				before = s.Results()
			}
			res := runToEnd(t, s, nil)
			if got := s.msgs == nil && s.ops == nil; got != c.released {
				t.Fatalf("tables released: %v, want %v", got, c.released)
			}
			if res.Messages.Unmatched != c.unmatched {
				t.Fatalf("unmatched %d, want %d", res.Messages.Unmatched, c.unmatched)
			}
			// Results reads the count finish took, not a second walk.
			if !s.endCounted || s.endUnmatched != c.unmatched {
				t.Fatalf("finish's count: taken %v, %d, want %d", s.endCounted, s.endUnmatched, c.unmatched)
			}
			wantDone := 0
			for r := range s.ranks {
				if s.ranks[r].state == StateDone {
					wantDone++
				}
			}
			if s.ranksDone != wantDone {
				t.Fatalf("ranksDone %d, want %d (ranks in StateDone)", s.ranksDone, wantDone)
			}
			if !c.recv {
				if res.Deadlock != nil || !res.Complete {
					t.Fatalf("complete %v, deadlock %+v", res.Complete, res.Deadlock)
				}
				return
			}
			if c.released {
				if res.Deadlock != nil || !res.Complete {
					t.Fatalf("deadlock: %+v", res.Deadlock)
				}
				if res.Messages.Count != 2 || res.Ranks[0].Sent != 1 || res.Ranks[1].Received != 1 {
					t.Errorf("messages %+v, ranks %+v", res.Messages, res.Ranks)
				}
				// The last step's results, taken before the release,
				// list the same ranks.
				if !reflect.DeepEqual(res.Ranks, before.Ranks) {
					t.Errorf("ranks after release %+v, before %+v", res.Ranks, before.Ranks)
				}
				return
			}
			if res.Deadlock == nil || !strings.Contains(res.Deadlock.Message, "deadlock") {
				t.Fatalf("deadlock report %+v", res.Deadlock)
			}
		})
	}
}
