package causality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

func correct(t *testing.T, tr *tracefmt.Trace, o CorrectOptions) *Correction {
	t.Helper()
	c, err := Correct(context.Background(), tr, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// verifyCorrection checks what Correct promises: no clock violation is
// left, the original is untouched, only times changed, and every
// interval whose later event is not a corrected sink keeps its length
// within [γΔ, (1+σ)Δ].
func verifyCorrection(t *testing.T, orig, snapshot *tracefmt.Trace, c *Correction, lmin float64) {
	t.Helper()
	if !reflect.DeepEqual(orig, snapshot) {
		t.Fatal("Correct changed its input")
	}
	if c.Original != orig {
		t.Error("Original is not the input")
	}
	rep := check(t, c.Trace, Options{LMin: lmin, Replay: ReplayOff})
	if n := rep.ClockViolations(); n != 0 || c.ViolationsAfter() != 0 {
		t.Fatalf("%d clock violations after correction (reported %d): %v", n, c.ViolationsAfter(), rep.Top(5, nil))
	}
	if c.Passes > 1 || (c.Method == MethodCLC && c.Passes != 1) {
		t.Errorf("passes = %d", c.Passes)
	}
	g := NewGraph(orig)
	gamma := DefaultGamma
	for r := range orig.Ranks {
		a, b := orig.Ranks[r].Events, c.Trace.Ranks[r].Events
		if len(a) != len(b) {
			t.Fatalf("rank %d: %d events, want %d", r, len(b), len(a))
		}
		for i := range a {
			x, y := a[i], b[i]
			y.Time = x.Time
			if x != y {
				t.Fatalf("rank %d event %d: %+v became %+v: more than its time changed", r, i, a[i], b[i])
			}
			if i == 0 {
				continue
			}
			d, nd := a[i].Time-a[i-1].Time, b[i].Time-b[i-1].Time
			if nd < 0 {
				t.Fatalf("rank %d event %d: corrected interval %g < 0", r, i, nd)
			}
			sink := (a[i].Kind == tracefmt.KindRecv && a[i].Match >= 0) || findRef(g.collRefs().sinkAt[r], int32(i)) >= 0
			if d < 0 || sink {
				continue
			}
			tol := 1e-6 + 1e-12*math.Abs(a[i].Time)
			if nd < gamma*d-tol || nd > (1+DefaultSlope)*d+tol {
				t.Fatalf("rank %d event %d (%s): interval %g became %g, outside [%g, %g]", r, i, a[i].Kind, d, nd, gamma*d, (1+DefaultSlope)*d)
			}
		}
	}
	if c.MaxShift > 0 && math.Abs(c.Shift(c.MaxShiftAt)) != c.MaxShift {
		t.Errorf("MaxShift %g but Shift(%v) = %g", c.MaxShift, c.MaxShiftAt, c.Shift(c.MaxShiftAt))
	}
}

// TestCorrectGen is the acceptance test of correction on every
// generated pattern, skewed, with both correcting methods and two
// minimum latencies.
func TestCorrectGen(t *testing.T) {
	for _, p := range gen.PatternNames() {
		for _, m := range []Method{MethodCLC, MethodBoth} {
			for _, lmin := range []float64{0, 1e-6} {
				t.Run(fmt.Sprintf("%s/%s/lmin=%g", p, m, lmin), func(t *testing.T) {
					o := gen.Options{Pattern: p, Iters: 30, Compute: -1, Seed: 5, Skew: 500e-6}
					tr, err := gen.Generate(o)
					if err != nil {
						t.Fatal(err)
					}
					snap, _ := gen.Generate(o)
					before := check(t, tr, Options{LMin: lmin, Replay: ReplayOff}).ClockViolations()
					c := correct(t, tr, CorrectOptions{Method: m, LMin: lmin})
					if before == 0 || c.ViolationsBefore() != before {
						t.Fatalf("violations before: %d, reported %d", before, c.ViolationsBefore())
					}
					verifyCorrection(t, tr, snap, c, lmin)
					if c.MaxShift <= 0 {
						t.Error("nothing moved")
					}
				})
			}
		}
	}
}

// TestOffsets: a trace whose only defect is a constant offset is fixed
// by offsets alone, every interval kept, and the offsets found are the
// skew (up to the freedom the constraints leave).
func TestOffsets(t *testing.T) {
	const text = `tsim 1
ranks 2
unit us
10 0 send to=1 tag=0
20 0 recv from=1 tag=0
30 0 send to=1 tag=0
# rank 1 is 100 us behind: messages take 2 us.
-88 1 recv from=0 tag=0
-81 1 send to=0 tag=0
-68 1 recv from=0 tag=0
`
	tr := parse(t, text)
	snap := parse(t, text)
	c := correct(t, tr, CorrectOptions{Method: MethodOffsets, LMin: 1e-6})
	verifyCorrection(t, tr, snap, c, 1e-6)
	if c.Passes != 0 || c.Offsets == nil {
		t.Fatalf("passes %d offsets %v", c.Passes, c.Offsets)
	}
	// Constraints: θ1 − θ0 ≥ 10 − (−88) − ... : the relative offset must
	// lie in [99, 99] + l_min slack: recv −88 ≥ 10 + 1 − d ⇒ d ≥ 99;
	// 20 ≥ −81 + d + 1 ⇒ d ≤ 100.
	d := (c.Offsets[1] - c.Offsets[0]) / 1e-6
	if d < 99-1e-6 || d > 100+1e-6 {
		t.Errorf("relative offset %g us, want within [99, 100]", d)
	}
	// The trace still starts when it did.
	s0, _ := tr.Span()
	s1, _ := c.Trace.Span()
	if math.Abs(s0-s1) > 1e-9 {
		t.Errorf("start moved from %g to %g", s0, s1)
	}
}

// TestNegativeCycle: a round trip that no constant offset can
// reconcile: rank 1 receives 10 us before rank 0 sends, yet answers in
// time for rank 0 to receive 0.5 us after its send.
func TestNegativeCycle(t *testing.T) {
	const text = `tsim 1
ranks 2
unit us
10 0 send to=1 tag=0
10.5 0 recv from=1 tag=0
100 0 send to=1 tag=0
0 1 recv from=0 tag=0
1 1 send to=0 tag=0
104 1 recv from=0 tag=0
`
	tr := parse(t, text)
	_, err := Correct(context.Background(), tr, CorrectOptions{Method: MethodOffsets})
	var no *NoOffsetsError
	if !errors.As(err, &no) {
		t.Fatalf("error %v, want NoOffsetsError", err)
	}
	if !reflect.DeepEqual(no.Cycle, []int{0, 1, 0}) && !reflect.DeepEqual(no.Cycle, []int{1, 0, 1}) {
		t.Errorf("cycle %v", no.Cycle)
	}
	// Both falls back to the CLC alone and reports the cycle.
	snap := parse(t, text)
	c := correct(t, tr, CorrectOptions{})
	if c.Offsets != nil || len(c.NegativeCycle) != 3 {
		t.Errorf("offsets %v cycle %v", c.Offsets, c.NegativeCycle)
	}
	verifyCorrection(t, tr, snap, c, 0)
}

// TestCorrectBackwards: a clock running backwards is made monotone.
func TestCorrectBackwards(t *testing.T) {
	const text = `tsim 1
ranks 1
unit us
10 0 marker a
5 0 marker b
7 0 marker c
`
	tr := parse(t, text)
	c := correct(t, tr, CorrectOptions{Method: MethodCLC})
	var got []float64
	for _, e := range c.Trace.Ranks[0].Events {
		got = append(got, e.Time)
	}
	want := []float64{10, 10, 10 + 2*DefaultGamma}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("times %v, want %v", got, want)
		}
	}
	if c.Before[KindBackwards] != 1 || c.ViolationsAfter() != 0 {
		t.Errorf("before %v after %v", c.Before, c.After)
	}
}

// TestAmortisation follows one jump: the receive moves 10 us later and
// the events before it stretch along slope σ, the send before it held
// back by its own receiver.
func TestAmortisation(t *testing.T) {
	const text = `tsim 1
ranks 2
unit us
0 0 marker a
1000 0 marker b
1500 0 send to=1 tag=1
1900 0 marker c
2000 0 recv from=1 tag=0
1600 1 recv from=0 tag=1
2010 1 send to=0 tag=0
`
	// Rank 0 receives at 2000 a message sent at 2010: a jump J = 10 at
	// the receive, so an event at x before it moves by
	// max(0, 10 − 0.01·(2000 − x)), unless a limit holds it back.
	tests := []struct {
		name string
		recv float64 // when rank 1 receives rank 0's send at 1500
		want []float64
	}{
		{"free send", 1600, []float64{0, 1000, 1505, 1909, 2010}},
		// The send may move 2 us at most; the marker after it then
		// stretches its 400 us interval by σ at most.
		{"held send", 1502, []float64{0, 1000, 1502, 1906, 2010}},
		{"tight send", 1500, []float64{0, 1000, 1500, 1904, 2010}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr := parse(t, text)
			tr.Ranks[1].Events[0].Time = tt.recv
			c := correct(t, tr, CorrectOptions{Method: MethodCLC})
			ev := c.Trace.Ranks[0].Events
			for i, w := range tt.want {
				if math.Abs(ev[i].Time-w) > 1e-6 {
					t.Errorf("event %d at %.9g, want %g", i, ev[i].Time, w)
				}
			}
			if c.Jumps != 1 || c.Passes != 1 {
				t.Errorf("jumps %d passes %d, want 1 1", c.Jumps, c.Passes)
			}
			if n := check(t, c.Trace, Options{Replay: ReplayOff}).ClockViolations(); n != 0 {
				t.Errorf("%d violations", n)
			}
		})
	}
}

func TestCorrectErrors(t *testing.T) {
	untimed := parse(t, "tsim 1\nranks 1\nuntimed\n- 0 send to=0\n- 0 recv from=0\n")
	if _, err := Correct(context.Background(), untimed, CorrectOptions{}); err == nil {
		t.Error("untimed trace corrected")
	}
	tr := parse(t, headToHead)
	for _, o := range []CorrectOptions{{LMin: -1}, {Gamma: 2}, {Slope: -1}, {MinSpacing: math.NaN()}, {Method: 9}} {
		if _, err := Correct(context.Background(), tr, o); err == nil {
			t.Errorf("options %+v accepted", o)
		}
	}
	for _, s := range []string{"offsets", "clc", "both"} {
		if m, err := ParseMethod(s); err != nil || m.String() != s {
			t.Errorf("ParseMethod(%q) = %v %v", s, m, err)
		}
	}
	if _, err := ParseMethod("magic"); err == nil {
		t.Error("unknown method accepted")
	}
}

// TestCorrectCycle: a causal cycle (two receives before their sends) is
// broken, reported, and the rest corrected.
func TestCorrectCycle(t *testing.T) {
	tr := parse(t, headToHead)
	c := correct(t, tr, CorrectOptions{Method: MethodCLC})
	if len(c.Broken) != 1 {
		t.Fatalf("broken %v, want one edge", c.Broken)
	}
	if c.ViolationsAfter() != 1 {
		t.Errorf("violations after %d, want the broken edge's 1", c.ViolationsAfter())
	}
	if c.Passes != DefaultMaxPasses {
		t.Errorf("passes %d, want the limit %d", c.Passes, DefaultMaxPasses)
	}
}

// randomTrace returns a causally consistent random trace, stamped by
// clocks with random offsets, drift, jitter and occasional backward
// steps: the input of the property test.
func randomTrace(rng *rand.Rand) *tracefmt.Trace {
	P := 2 + rng.IntN(7)
	b := tracefmt.NewBuilder(P, true, tracefmt.Microsecond)
	off := make([]float64, P)
	drift := make([]float64, P)
	for r := range P {
		off[r] = rng.Float64() * 200
		drift[r] = (rng.Float64()*2 - 1) * 1e-3
	}
	now := make([]float64, P) // real time per rank
	stamp := func(r int) float64 {
		x := now[r] + off[r] + drift[r]*now[r]
		if rng.IntN(50) == 0 {
			x -= rng.Float64() * 5 // a clock stepping back
		}
		return math.Round(x*1000) / 1000
	}
	var pending []struct {
		dst, src int
		at       float64
	}
	ops := 50 + rng.IntN(300)
	for range ops {
		r := rng.IntN(P)
		now[r] += rng.Float64() * 20
		switch k := rng.IntN(4); {
		case k == 0 && len(pending) > 0:
			// Receive the oldest message for some rank.
			m := pending[0]
			pending = pending[1:]
			now[m.dst] = max(now[m.dst], m.at) + rng.Float64()
			b.Add(m.dst, tracefmt.Recv(stamp(m.dst), m.src, 0, 0, 8))
		case k == 1:
			// A barrier-like allreduce inside its state.
			last := 0.0
			for q := range P {
				last = max(last, now[q])
			}
			s := b.State("MPI_Allreduce")
			for q := range P {
				b.Add(q, tracefmt.Enter(stamp(q), s))
				b.Add(q, tracefmt.Collective(stamp(q), tracefmt.OpAllreduce, -1, 0, 8, 8))
			}
			for q := range P {
				now[q] = last + 1 + rng.Float64()
				b.Add(q, tracefmt.Leave(stamp(q), s))
			}
		default:
			dst := rng.IntN(P)
			b.Add(r, tracefmt.Send(stamp(r), dst, 0, 0, 8))
			pending = append(pending, struct {
				dst, src int
				at       float64
			}{dst, r, now[r] + 1 + rng.Float64()*3})
		}
	}
	for _, m := range pending {
		now[m.dst] = max(now[m.dst], m.at)
		b.Add(m.dst, tracefmt.Recv(stamp(m.dst), m.src, 0, 0, 8))
	}
	t, err := b.Finish()
	if err != nil {
		panic(err)
	}
	return t
}

// TestPropertyRandomFix: random traces with random skew come out of
// Correct without violations and with bounded intervals, for every
// method that promises it; so do generated traces of random patterns.
func TestPropertyRandomFix(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 7))
	for i := range 60 {
		seed := rng.Uint64()
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 1))
			var tr, snap *tracefmt.Trace
			if i%2 == 0 {
				tr = randomTrace(r)
				snap = randomTrace(rand.New(rand.NewPCG(seed, 1)))
			} else {
				names := gen.PatternNames()
				o := gen.Options{Pattern: names[r.IntN(len(names))], Iters: 1 + r.IntN(10), Compute: -1,
					Seed: r.Int64(), Skew: r.Float64() * 1e-3, Jitter: r.Float64() * 0.5}
				if o.Pattern != "pingpong" {
					o.Ranks = []int{4, 8, 16}[r.IntN(3)]
				}
				var err error
				if tr, err = gen.Generate(o); err != nil {
					t.Fatal(err)
				}
				snap, _ = gen.Generate(o)
			}
			lmin := []float64{0, 1e-7, 5e-7}[r.IntN(3)]
			m := []Method{MethodCLC, MethodBoth}[r.IntN(2)]
			c := correct(t, tr, CorrectOptions{Method: m, LMin: lmin})
			if len(c.Broken) != 0 {
				t.Fatalf("broken edges in a consistent trace: %v", c.Broken)
			}
			verifyCorrection(t, tr, snap, c, lmin)
		})
	}
}

func TestCorrectProgressAndCancel(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 8, Iters: 3000, Compute: -1, Skew: 1e-3})
	if err != nil {
		t.Fatal(err)
	}
	var calls, last int
	c := correct(t, tr, CorrectOptions{Method: MethodCLC, Progress: func(done, total int) {
		if done <= last || done > total || total != tr.NumEvents() {
			t.Errorf("progress %d of %d after %d", done, total, last)
		}
		calls++
		last = done
	}})
	if calls == 0 || c.ViolationsAfter() != 0 {
		t.Errorf("%d progress calls, %d violations after", calls, c.ViolationsAfter())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Correct(ctx, tr, CorrectOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled correction: %v", err)
	}
	if _, err := Check(ctx, tr, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled check: %v", err)
	}
}
