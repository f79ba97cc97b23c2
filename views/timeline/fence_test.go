package timeline

import (
	"math"
	"sort"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestFencedRange checks that the fenced searches find the same positions
// as a plain binary search and the counts a scan of the events gives, at
// every event's time, just before and after it, and outside the run, on
// lists shorter than one fence step and many steps long, with skewed
// clocks (times that tie across a rank's sends).
func TestFencedRange(t *testing.T) {
	for _, tc := range []struct {
		name   string
		o      gen.Options
		fences int // rank 0's send fence has at least this many times
	}{
		{"ring, 3 iterations (under one step)", gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Seed: 1}, 1},
		{"stencil2d, 120 iterations", gen.Options{Pattern: "stencil2d", Ranks: 4, Iters: 120, Seed: 1, Skew: 80e-6}, 4},
		{"alltoall, 40 iterations (collectives: empty lists)", gen.Options{Pattern: "alltoall", Ranks: 8, Iters: 40, Seed: 2, Jitter: 0.2}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := genTrace(t, tc.o)
			ix := newIndex(tr)
			if n := len(ix.ranks[0].sendFence); n < tc.fences {
				t.Fatalf("rank 0's send fence has %d times, want at least %d", n, tc.fences)
			}
			for r := range tr.Ranks {
				ri := &ix.ranks[r]
				var times []float64
				for i := range tr.Ranks[r].Events {
					tm := ix.time(r, i)
					times = append(times, tm, math.Nextafter(tm, math.Inf(-1)), math.Nextafter(tm, math.Inf(1)))
				}
				times = append(times, math.Inf(-1), math.Inf(1), -1, 1e9)
				for _, l := range []struct {
					name  string
					list  []int32
					fence []float64
					kind  tracefmt.Kind
				}{{"sends", ri.sends, ri.sendFence, tracefmt.KindSend}, {"recvs", ri.recvs, ri.recvFence, tracefmt.KindRecv}} {
					for k, a := range times {
						b := times[(k*7+3)%len(times)]
						lo, hi := ix.fencedRange(r, l.list, l.fence, a, b)
						wlo, whi := ix.rangeIn(r, l.list, a, b)
						if lo != wlo || hi != whi {
							t.Fatalf("rank %d %s [%v, %v): fenced positions %d..%d, want %d..%d", r, l.name, a, b, lo, hi, wlo, whi)
						}
						n := 0
						for i := range tr.Ranks[r].Events {
							if tm := ix.time(r, i); tr.Ranks[r].Events[i].Kind == l.kind && tm >= a && tm < b {
								n++
							}
						}
						if hi-lo != n {
							t.Fatalf("rank %d %s [%v, %v): %d events, a scan counts %d", r, l.name, a, b, hi-lo, n)
						}
					}
				}
			}
		})
	}
}

// TestMsgCountCache asks a cache for counts across windows, ranks and two
// indices in turn and wants each index's own counts, never a count kept
// from another window or index.
func TestMsgCountCache(t *testing.T) {
	ta := genTrace(t, gen.Options{Pattern: "stencil2d", Ranks: 4, Iters: 60, Seed: 1})
	tb := genTrace(t, gen.Options{Pattern: "ring", Ranks: 6, Iters: 20, Seed: 3})
	a, b := newIndex(ta), newIndex(tb)
	// Windows as fractions of each trace's span.
	at := func(tr *tracefmt.Trace, f float64) float64 {
		s, e := spanOf(tr)
		return s + f*(e-s)
	}
	var c msgCountCache
	nonzero := 0
	for k, tc := range []struct {
		ix     *index
		tr     *tracefmt.Trace
		r      int
		lo, hi float64
	}{
		{a, ta, 0, 0, 1}, {a, ta, 3, 0, 1}, {a, ta, 0, 0, 1}, {a, ta, 0, 0.1, 0.2}, {a, ta, 2, 0.1, 0.2},
		{b, tb, 5, 0.1, 0.2}, {b, tb, 0, 0, 1}, {a, ta, 0, 0, 1}, {a, ta, 1, 0.5, 0.5},
	} {
		lo, hi := at(tc.tr, tc.lo), at(tc.tr, tc.hi)
		s, r := c.get(tc.ix, tc.r, lo, hi)
		ws, wr := tc.ix.msgCounts(tc.r, lo, hi)
		if s != ws || r != wr {
			t.Errorf("ask %d (rank %d, [%v, %v]): %d sends %d recvs, want %d and %d", k, tc.r, lo, hi, s, r, ws, wr)
		}
		if s > 0 {
			nonzero++
		}
	}
	if nonzero < 5 {
		t.Errorf("%d asks counted any sends: the asks mostly compare zeros", nonzero)
	}
}

// TestSearchStarts compares the fenced search of each state's interval
// starts with sort.SearchFloat64s at every start, next to it, and outside
// the run.
func TestSearchStarts(t *testing.T) {
	for _, tc := range []struct {
		name string
		o    gen.Options
		long bool // some state has more than two fence times
	}{
		{"ring, 3 iterations", gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Seed: 1}, false},
		{"stencil2d, 120 iterations, skewed", gen.Options{Pattern: "stencil2d", Ranks: 4, Iters: 120, Seed: 1, Skew: 80e-6}, true},
		{"alltoall, 200 iterations", gen.Options{Pattern: "alltoall", Ranks: 8, Iters: 200, Seed: 2, Jitter: 0.2}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := newIndex(genTrace(t, tc.o))
			long := false
			for r := range ix.ranks {
				for _, ru := range ix.ranks[r].runs {
					long = long || len(ru.fence) > 2
					ts := []float64{math.Inf(-1), math.Inf(1), -1}
					for _, s := range ru.starts {
						ts = append(ts, s, math.Nextafter(s, math.Inf(-1)), math.Nextafter(s, math.Inf(1)))
					}
					for _, x := range ts {
						if got, want := ru.searchStarts(x), sort.SearchFloat64s(ru.starts, x); got != want {
							t.Fatalf("rank %d state %d at %v: position %d, want %d", r, ru.state, x, got, want)
						}
					}
				}
			}
			if long != tc.long {
				t.Errorf("a state with more than two fence times: %v, want %v", long, tc.long)
			}
		})
	}
}
