package runner

import (
	"context"
	"testing"
	"time"

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

// TestDeltaCutShortResumes cuts a Δt step at its host-time bound (a
// context already past its deadline: a loaded host): the slice is not
// reached, and the next Delta goes on to the same end rather than
// starting a new step from where the first stopped. Each key press of
// Δt then advances the clock by exactly Δt.
func TestDeltaCutShortResumes(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 4, Iters: 1000, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// A Run slice lasts at most a Frame of host time: run slices to
	// the end.
	full := New(tr, replay.Default())
	var whole Slice
	for i := 0; i < 100000 && !whole.Done && whole.Err == nil; i++ {
		whole = full.Advance(context.Background(), Request{Op: Run, Target: des.Never})
	}
	if !whole.Done || whole.Err != nil {
		t.Fatalf("whole run: done %v, err %v", whole.Done, whole.Err)
	}
	// A quarter of the run: thousands of engine events, more than the
	// replay runs between two looks at its context.
	dt := whole.Clock / 4
	r := New(tr, replay.Default())
	late, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	cut := r.Advance(late, Request{Op: Delta, Dt: dt})
	if cut.Err != nil || cut.Reached || cut.Clock >= dt {
		t.Fatalf("cut step: err %v, reached %v, clock %v; want unreached, short of %v", cut.Err, cut.Reached, cut.Clock, dt)
	}
	// step presses Δt once: slices until the step is reached (a loaded
	// host may cut this one too), none of them past its end.
	step := func(ctx context.Context, end des.Time) Slice {
		t.Helper()
		var s Slice
		for i := 0; i < 1000 && !s.Reached; i++ {
			s = r.Advance(ctx, Request{Op: Delta, Dt: dt})
			if s.Err != nil || s.Done || (end > 0 && s.Clock > end) {
				t.Fatalf("slice %d: err %v, done %v, clock %v; want a step to %v", i, s.Err, s.Done, s.Clock, end)
			}
		}
		return s
	}
	for i, w := range []des.Time{dt, 2 * dt} {
		if s := step(context.Background(), w); !s.Reached || s.Clock != w {
			t.Fatalf("step %d: reached %v, clock %v; want reached at %v", i, s.Reached, s.Clock, w)
		}
	}
	// Another kind of request abandons an unfinished step: the next Δt
	// counts from where that request left the clock.
	r.Advance(late, Request{Op: Delta, Dt: dt})
	ev := r.Advance(context.Background(), Request{Op: Event})
	s := step(context.Background(), ev.Clock+dt)
	if !s.Reached || s.Clock != ev.Clock+dt {
		t.Fatalf("after an event step at %v: reached %v, clock %v; want %v", ev.Clock, s.Reached, s.Clock, ev.Clock+dt)
	}
}
