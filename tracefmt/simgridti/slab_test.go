package simgridti

import (
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// slabEvent is the i-th event of rank r in the slab tests: a compute
// burst whose amount names both.
func slabEvent(r, i int) tracefmt.Event {
	return tracefmt.ComputeWork(0, float64(r*1e7+i))
}

// TestSlabStreams adds events to ranks sharing a slab in the orders a
// trace lists them and checks that every stream holds its own events,
// that appending past a stream's capacity never writes into another's,
// and how much room moving streams left unused.
func TestSlabStreams(t *testing.T) {
	tests := []struct {
		name  string
		order [][2]int // runs of (rank, events)
		// maxDead bounds the unused room the moves left, as a fraction
		// of the room handed out.
		maxDead float64
	}{
		{"one rank after the other", [][2]int{{0, 50000}, {1, 50000}, {2, 50000}, {3, 70000}}, 0.01},
		{"inits first (gen's single file)", [][2]int{{0, 1}, {1, 1}, {2, 1}, {3, 1}, {0, 90000}, {1, 90000}, {2, 90000}, {3, 90000}}, 0.01},
		{"a rank larger than a block", [][2]int{{0, 5 * slabFirst}, {1, 1000}}, 0.5},
		{"alternating lines", alternate(8, 20000), 0.25},
		{"alternating runs", alternateRuns(4, 30, 3000), 0.25},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &eventSlab{}
			ranks := map[int]*rankState{}
			n := map[int]int{}
			for _, run := range tc.order {
				r := run[0]
				rs := ranks[r]
				if rs == nil {
					rs = &rankState{slab: s}
					ranks[r] = rs
				}
				for range run[1] {
					rs.add(slabEvent(r, n[r]))
					n[r]++
				}
			}
			check := func(what string) {
				t.Helper()
				for r, rs := range ranks {
					if len(rs.events) != n[r] {
						t.Fatalf("%s: rank %d has %d events, want %d", what, r, len(rs.events), n[r])
					}
					for i, e := range rs.events {
						if want := slabEvent(r, i); e != want {
							t.Fatalf("%s: rank %d event %d is %v, want %v", what, r, i, e.Amount(), want.Amount())
						}
					}
				}
			}
			check("after the adds")
			// What a later stage may do with a stream: append to it up
			// to its capacity, and past it.
			for r, rs := range ranks {
				for end := cap(rs.events) + 1; len(rs.events) < end; {
					rs.events = append(rs.events, slabEvent(r, len(rs.events)))
				}
				n[r] = len(rs.events)
			}
			check("after appending to every stream")
			if got := float64(s.dead) / float64(s.used); got > tc.maxDead {
				t.Errorf("unused room %d of %d handed out (%.2f), want at most %.2f", s.dead, s.used, got, tc.maxDead)
			}
		})
	}
}

// alternate lists ranks events one at a time, rank after rank.
func alternate(ranks, each int) [][2]int {
	var out [][2]int
	for range each {
		for r := range ranks {
			out = append(out, [2]int{r, 1})
		}
	}
	return out
}

// alternateRuns lists ranks runs runs of k events each, rank after rank.
func alternateRuns(ranks, runs, k int) [][2]int {
	var out [][2]int
	for range runs {
		for r := range ranks {
			out = append(out, [2]int{r, k})
		}
	}
	return out
}

// TestSlabGrowsTailInPlace checks that the ranks of an index, read one
// after the other, lie one after the other in a block and that the rank
// being read grows without moving: no copy of its events, and the
// memory the read faults in is that of the trace.
func TestSlabGrowsTailInPlace(t *testing.T) {
	s := &eventSlab{}
	var prev *rankState
	for r := range 4 {
		rs := &rankState{slab: s}
		if prev != nil {
			rs.hint = len(prev.events)
		}
		rs.add(slabEvent(r, 0))
		first := &rs.events[0]
		if prev != nil {
			end := prev.events[:cap(prev.events)]
			if want := &s.buf[len(s.buf)-cap(rs.events)]; first != want || &end[len(end)-1] != &s.buf[len(s.buf)-cap(rs.events)-1] {
				t.Fatalf("rank %d does not start where rank %d's room ends", r, r-1)
			}
		}
		for i := 1; i < 5000; i++ {
			rs.add(slabEvent(r, i))
			if &rs.events[0] != first {
				t.Fatalf("rank %d moved at event %d (capacity %d)", r, i, cap(rs.events))
			}
		}
		if spare := cap(rs.events) - len(rs.events); spare > slabStep {
			t.Errorf("rank %d keeps %d events of room unused, want at most %d", r, spare, slabStep)
		}
		prev = rs
	}
	if s.dead != 0 {
		t.Errorf("%d events of room left unused, want none", s.dead)
	}
}
