package causality

import (
	"context"
	"reflect"
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestCheckParallel checks a trace large enough for the scan's
// goroutines against a direct reading of the definitions, with one, two
// and three goroutines: the findings must be the same, in the same order.
func TestCheckParallel(t *testing.T) {
	o := gen.Options{Pattern: "stencil2d", Ranks: 36, Iters: 1, Compute: -1, Skew: 50e-6, Seed: 3}
	c, err := gen.Expect(o)
	if err != nil {
		t.Fatal(err)
	}
	o.Iters = 2*minScanEvents/c.Events + 1
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	// Some clocks that step back and some sizes that differ.
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		for i := range ev {
			if (i*7+r)%997 == 0 {
				ev[i].Time -= 2e-6 / tr.Unit.Seconds()
			}
			if (i*3+r)%1009 == 0 {
				ev[i].Size++
			}
		}
	}
	const lmin = 1e-6
	want := referenceCheck(NewGraph(tr), lmin)
	for k := range want {
		if len(want[k]) == 0 {
			t.Fatalf("no %v findings to compare", Kind(k))
		}
	}
	for _, procs := range []int{1, 2, 3} {
		old := runtime.GOMAXPROCS(procs)
		rep, err := Check(context.Background(), tr, Options{LMin: lmin, Replay: ReplayOff})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if !reflect.DeepEqual(rep.ByKind[k], want[k]) {
				t.Errorf("GOMAXPROCS %d: %d %v findings, want %d (or not the same)", procs, len(rep.ByKind[k]), Kind(k), len(want[k]))
			}
		}
	}
}

// referenceCheck returns the clock and size findings of g's trace, found
// one definition at a time: messages in sender order, clocks by rank,
// collective calls in call order.
func referenceCheck(g *Graph, lmin float64) map[Kind][]Finding {
	tr := g.t
	u := tr.Unit.Seconds()
	lmin /= u
	out := map[Kind][]Finding{}
	tr.Messages(func(s, r tracefmt.EventRef) bool {
		se, re := tr.Event(s), tr.Event(r)
		if re.Time < se.Time+lmin {
			k := KindLatency
			if re.Time < se.Time {
				k = KindReversal
			}
			out[k] = append(out[k], Finding{Kind: k, Events: [2]tracefmt.EventRef{s, r},
				Times: [2]float64{se.Time * u, re.Time * u}, Amount: (se.Time + lmin - re.Time) * u})
		}
		if re.Size != se.Size {
			out[KindSizeMismatch] = append(out[KindSizeMismatch], Finding{Kind: KindSizeMismatch, Events: [2]tracefmt.EventRef{s, r},
				Times: [2]float64{se.Time * u, re.Time * u}, Amount: float64(re.Size - se.Size)})
		}
		return true
	})
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		for i := 1; i < len(ev); i++ {
			if ev[i].Time < ev[i-1].Time {
				out[KindBackwards] = append(out[KindBackwards], Finding{Kind: KindBackwards,
					Events: [2]tracefmt.EventRef{{Rank: int32(r), Index: int32(i - 1)}, {Rank: int32(r), Index: int32(i)}},
					Times:  [2]float64{ev[i-1].Time * u, ev[i].Time * u}, Amount: (ev[i-1].Time - ev[i].Time) * u})
			}
		}
	}
	for _, in := range g.colls {
		for _, x := range in.sinks {
			latest := in.sources[0]
			for _, s := range in.sources {
				if tr.Event(s).Time > tr.Event(latest).Time {
					latest = s
				}
			}
			v, xt := tr.Event(latest).Time, tr.Event(x).Time
			if xt < v+lmin {
				out[KindCollective] = append(out[KindCollective], Finding{Kind: KindCollective, Events: [2]tracefmt.EventRef{latest, x},
					Times: [2]float64{v * u, xt * u}, Amount: (v + lmin - xt) * u})
			}
		}
	}
	return out
}
