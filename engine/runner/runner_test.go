package runner

import (
	"context"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// TestAdvanceNearTimeLimit asks for steps whose end lies past 2^63 ps.
// Unchecked sums wrapped to a negative target, at which nothing ran: the
// run never moved on. Checked sums saturate at des.Never, which runs to
// the end.
func TestAdvanceNearTimeLimit(t *testing.T) {
	tests := []struct {
		name string
		req  Request
	}{
		{"delta of Never", Request{Op: Delta, Dt: des.Never}},
		{"delta past the limit", Request{Op: Delta, Dt: des.Never - des.Nanosecond}},
		{"paced run at a huge rate", Request{Op: Run, Target: des.Never, Rate: 1e30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 4, Iters: 2, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			r := New(tr, replay.Default())
			ctx := context.Background()
			// Step until the engine is past zero: from zero the sums do
			// not overflow and the wrap goes unseen.
			var first Slice
			for i := 0; i < 100 && !first.Done && first.Err == nil && (r.sim == nil || r.sim.Now() == 0); i++ {
				first = r.Advance(ctx, Request{Op: Event})
			}
			if s := first; s.Err != nil || s.Done || r.sim.Now() <= 0 {
				t.Fatalf("first step: engine at %v, done %v, err %v; want a run under way", r.sim.Now(), s.Done, s.Err)
			}
			var s Slice
			// A paced slice may stop at its frame's host deadline; a
			// few slices must end a 4-rank ring.
			for i := 0; i < 20 && !s.Done; i++ {
				s = r.Advance(ctx, tt.req)
				if s.Err != nil {
					t.Fatalf("slice %d: %v", i, s.Err)
				}
				if s.Clock < 0 {
					t.Fatalf("slice %d: clock %v wrapped below zero", i, s.Clock)
				}
			}
			if !s.Done {
				t.Fatalf("run not done after 20 slices; clock %v", s.Clock)
			}
			if s.Results == nil || s.Clock.Seconds() != s.Results.Makespan {
				t.Errorf("clock %v at the end, want the makespan %v", s.Clock, s.Results)
			}
		})
	}
}
