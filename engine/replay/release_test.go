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
	build := func(n int64) *Sim {
		p := newProg(t, 2)
		for r := range 2 {
			p.send(r, 1-r, 7, n)
			p.recv(r, 1-r, 7, n)
		}
		s, err := New(p.trace(), cfgWith(t, "send", "auto"), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		name     string
		size     int64
		released bool
	}{
		{"eager, ends", 1000, true},
		{"rendezvous, deadlocks", 1 << 20, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := build(c.size)
			var before Results
			for s.Step() {
				before = s.Results()
			}
			res := runToEnd(t, s, nil)
			if got := s.msgs == nil && s.ops == nil; got != c.released {
				t.Fatalf("tables released: %v, want %v", got, c.released)
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
