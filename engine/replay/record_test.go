package replay

import (
	"context"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestTraceSoFar stops a replay part way and checks the trace of the run
// so far: nothing after the current time, every state closed, sends
// still in flight unmatched; the run then goes on unchanged, and at the
// end the trace so far is the whole trace.
func TestTraceSoFar(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 8, Iters: 3, Size: 8192, Compute: 100e-6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	whole, err := RunToTrace(context.Background(), tr, Default())
	if err != nil {
		t.Fatal(err)
	}
	_, end := whole.Span()
	for _, frac := range []float64{0.1, 0.5, 0.9} {
		s, err := New(tr, Default(), Options{RecordTrace: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RunUntil(context.Background(), des.Time(end*frac)); err != nil {
			t.Fatal(err)
		}
		part, err := s.TraceSoFar()
		if err != nil {
			t.Fatalf("at %.0f%%: %v", frac*100, err)
		}
		now := float64(s.Now())
		n, wholeN := part.NumEvents(), whole.NumEvents()
		if n == 0 || n >= wholeN {
			t.Errorf("at %.0f%%: %d events of %d", frac*100, n, wholeN)
		}
		for r := range part.Ranks {
			for i, e := range part.Ranks[r].Events {
				if e.Time > now {
					t.Fatalf("at %.0f%%: rank %d event %d at %g after now %g", frac*100, r, i, e.Time, now)
				}
				if (e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave) && e.Match < 0 {
					t.Fatalf("at %.0f%%: rank %d event %d: a state left open", frac*100, r, i)
				}
			}
		}
		if err := s.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		full, err := s.Trace()
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.TraceSoFar()
		if err != nil {
			t.Fatal(err)
		}
		if full.NumEvents() != wholeN || again.NumEvents() != wholeN {
			t.Errorf("at the end after a stop at %.0f%%: %d and %d events, want %d", frac*100, full.NumEvents(), again.NumEvents(), wholeN)
		}
	}
}
