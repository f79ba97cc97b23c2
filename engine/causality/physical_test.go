package causality

import (
	"context"
	"math"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestPhysicalSendTimes: where a trace records when a send's data left
// (Paraver's physical send) apart from the call, the clock condition is
// checked from that time, and both corrections move the receive past it.
func TestPhysicalSendTimes(t *testing.T) {
	// The send call is at 10 us and the receive at 15 us: fine by the
	// calls, but the data left at 18 us, 3 us after it arrived.
	const text = `tsim 1
ranks 2
unit us
10 0 send to=1 tag=1 size=8
15 1 recv from=0 tag=1 size=8
20 1 send to=0 tag=2 size=8
30 0 recv from=1 tag=2 size=8
`
	withDelay := func(t *testing.T) *tracefmt.Trace {
		tr := parse(t, text)
		tr.SetMessageTimes([]tracefmt.MessageTime{{Event: ref(0, 0), Delta: 8}})
		return tr
	}
	tests := []struct {
		name      string
		tr        func(t *testing.T) *tracefmt.Trace
		reversals int
		amount    float64
		times     [2]float64
	}{
		{"calls only", func(t *testing.T) *tracefmt.Trace { return parse(t, text) }, 0, 0, [2]float64{}},
		{"physical send recorded", withDelay, 1, 3e-6, [2]float64{18e-6, 15e-6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := check(t, tc.tr(t), Options{Replay: ReplayOff})
			if rep.Counts[KindReversal] != tc.reversals || rep.ClockViolations() != tc.reversals {
				t.Fatalf("counts %v, want %d reversal(s) and nothing else", counts(rep), tc.reversals)
			}
			for _, f := range rep.Findings() {
				if f.Kind == KindReversal && (math.Abs(f.Amount-tc.amount) > 1e-12 || math.Abs(f.Times[0]-tc.times[0]) > 1e-12 || math.Abs(f.Times[1]-tc.times[1]) > 1e-12) {
					t.Errorf("reversal amount %g at %v, want %g at %v", f.Amount, f.Times, tc.amount, tc.times)
				}
			}
		})
	}
	for _, m := range []Method{MethodOffsets, MethodCLC} {
		t.Run("correct "+m.String(), func(t *testing.T) {
			tr := withDelay(t)
			c, err := Correct(context.Background(), tr, CorrectOptions{Method: m, LMin: 1e-6})
			if err != nil {
				t.Fatal(err)
			}
			if c.Before[KindReversal] != 1 || c.ViolationsAfter() != 0 {
				t.Errorf("violations %d before (%d reversals), %d after; want 1, 1, 0", c.ViolationsBefore(), c.Before[KindReversal], c.ViolationsAfter())
			}
			if got, lim := c.Trace.Event(ref(1, 0)).Time, c.Trace.PhysicalSend(ref(0, 0))+1; got < lim-1e-9 {
				t.Errorf("corrected receive at %g us, before the physical send + l_min %g us", got, lim)
			}
		})
	}
}
