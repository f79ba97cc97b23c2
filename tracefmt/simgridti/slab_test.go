package simgridti

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
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
		{"a rank larger than a block", [][2]int{{0, 5 * slabMin}, {1, 1000}}, 0.5},
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
// after the other, lie one after the other in a block with no room
// between them, and that a rank being read grows without moving once
// the rank before gave its size: no copy of its events, and the memory
// the read touches is that of the trace.
func TestSlabGrowsTailInPlace(t *testing.T) {
	s := &eventSlab{world: 4}
	var ranks []*rankState
	total := 0
	for r := range 4 {
		rs := &rankState{slab: s}
		if r > 0 {
			rs.hint = len(ranks[r-1].events)
		}
		rs.add(slabEvent(r, 0))
		first := &rs.events[0]
		if r > 0 {
			prev := ranks[r-1].events
			if cap(prev) != len(prev) {
				t.Errorf("rank %d keeps room for %d events once rank %d started", r-1, cap(prev)-len(prev), r)
			}
		}
		if r > 1 {
			// Ranks 1 to 3 share the block sized for them.
			prev := ranks[r-1].events
			if at := len(s.buf) - cap(rs.events) - 1; at < 0 || &prev[:cap(prev)][cap(prev)-1] != &s.buf[at] {
				t.Fatalf("rank %d does not start where rank %d ends", r, r-1)
			}
		}
		for i := 1; i < 5000; i++ {
			rs.add(slabEvent(r, i))
			if r > 0 && &rs.events[0] != first {
				t.Fatalf("rank %d moved at event %d (capacity %d)", r, i, cap(rs.events))
			}
		}
		total += len(rs.events)
		ranks = append(ranks, rs)
	}
	last := ranks[len(ranks)-1].events
	if spare := cap(last) - len(last); spare > slabStep {
		t.Errorf("the last rank keeps room for %d events, want at most %d", spare, slabStep)
	}
	// Only the first rank, whose size nothing told, may have moved.
	if left := s.used - total - (cap(last) - len(last)); left < 0 || left > slabMin {
		t.Errorf("%d events handed out for %d, leaving %d unused, want at most %d", s.used, total, left, slabMin)
	}
	if n := len(s.buf) + cap(s.buf) - len(s.buf); n > total {
		t.Errorf("the last block holds room for %d events, more than the %d of the whole trace", n, total)
	}
}

// TestSlabHoldsTheTrace reads generated traces whole, as one file and
// as an index of per-rank files, and checks that the blocks hold little
// more room than the trace's events: their room counts in the Go heap
// (`tracesim bench` ti/read's B/event) whether or not it is touched.
func TestSlabHoldsTheTrace(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 200, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	index := filepath.Join(t.TempDir(), "trace.txt")
	if err := WriteIndex(index, tr, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, layout := range []string{"single", "index"} {
		for _, procs := range []int{1, 2} {
			t.Run(fmt.Sprintf("%s/GOMAXPROCS=%d", layout, procs), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				p := newParser(context.Background(), false, 16<<10)
				var got *tracefmt.Trace
				var err error
				if layout == "single" {
					got, err = p.read("", bytes.NewReader(buf.Bytes()), nil)
				} else {
					f, ferr := os.Open(index)
					if ferr != nil {
						t.Fatal(ferr)
					}
					defer f.Close()
					got, err = p.read(index, f, DirOpener(filepath.Dir(index)))
				}
				if err != nil {
					t.Fatal(err)
				}
				events := got.NumEvents()
				if events != tr.NumEvents() {
					t.Fatalf("read %d events, want %d", events, tr.NumEvents())
				}
				// The first ranks, whose sizes nothing tells, and the
				// last block, sized for ranks alike, leave some room: up
				// to half the events in a trace this small (4-11 % on
				// traces of millions of events).
				if limit := events + events/2; p.slab.held > limit {
					t.Errorf("blocks hold room for %d events for %d read, want at most %d", p.slab.held, events, limit)
				}
			})
		}
	}
}
