package causality

import (
	"context"
	"math"
	"os"
	"reflect"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
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

// TestPhysicalSendQsort: in the real Paraver qsort sample, rank 3 sends
// two 4-byte messages (tag 11) to rank 2 whose data left 21–24 µs after
// the call and 20–22 µs after it arrived (84,092 µs out, 84,070 µs in;
// 109,086 µs out, 109,066 µs in): reversals the call times (84,068 µs,
// 109,065 µs) hid. Correcting the trace removes them.
func TestPhysicalSendQsort(t *testing.T) {
	path := sharedDir + "paraver/qsort_beo3.prv"
	if _, err := os.Stat(path); os.IsNotExist(err) {
		t.Skipf("%s absent", path)
	}
	tr, _, err := formats.Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := check(t, tr, Options{Replay: ReplayOff})
	type rev struct {
		events [2]tracefmt.EventRef
		amount float64
	}
	var got []rev
	for _, f := range rep.Findings() {
		if f.Kind == KindReversal {
			got = append(got, rev{f.Events, math.Round(f.Amount * 1e6)})
		}
	}
	want := []rev{{[2]tracefmt.EventRef{ref(3, 49), ref(2, 64)}, 22}, {[2]tracefmt.EventRef{ref(3, 186), ref(2, 215)}, 20}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("reversals %v, want %v (µs)", got, want)
	}
	c := correct(t, tr, CorrectOptions{})
	if c.Before[KindReversal] != 2 || c.ViolationsAfter() != 0 {
		t.Errorf("correction: %d reversals before, %d violations after; want 2, 0", c.Before[KindReversal], c.ViolationsAfter())
	}
}
