package analysis

import (
	"math"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

func TestFinishShift(t *testing.T) {
	// trace builds a trace in unit whose rank r's events are at times[r],
	// a run that starts at its first event.
	trace := func(unit tracefmt.Unit, timed bool, times ...[]float64) *tracefmt.Trace {
		tr := &tracefmt.Trace{Unit: unit, Timed: timed, Comms: []tracefmt.Comm{{}}}
		for _, ts := range times {
			var evs []tracefmt.Event
			for _, x := range ts {
				evs = append(evs, tracefmt.WaitAll(x))
			}
			tr.Ranks = append(tr.Ranks, tracefmt.Rank{Events: evs})
		}
		return tr
	}
	nan := math.NaN()
	tests := []struct {
		name      string
		rec, pred *tracefmt.Trace
		want      []float64
	}{
		{"later, earlier, same",
			trace(tracefmt.Second, true, []float64{10, 12}, []float64{10, 15}, []float64{11, 13}),
			trace(tracefmt.Second, true, []float64{0, 3}, []float64{0, 4}, []float64{1, 3}),
			[]float64{1, -1, 0}},
		{"each run counted from its own start, in its own unit",
			trace(tracefmt.Second, true, []float64{100, 100.002}, []float64{100, 100.001}),
			trace(tracefmt.Nanosecond, true, []float64{0, 3e6}, []float64{0, 1e6}),
			[]float64{0.001, 0}},
		{"rounding below a billionth of the run is 0",
			trace(tracefmt.Second, true, []float64{0, 1}),
			trace(tracefmt.Second, true, []float64{0, 1 + 1e-10}),
			[]float64{0}},
		{"an untimed recording has no finish",
			trace(tracefmt.Second, false, []float64{0, 1}, []float64{0, 2}),
			trace(tracefmt.Second, true, []float64{0, 1}, []float64{0, 2}),
			[]float64{nan, nan}},
		{"a rank the prediction lacks",
			trace(tracefmt.Second, true, []float64{0, 1}, []float64{0, 2}),
			trace(tracefmt.Second, true, []float64{0, 1.5}),
			[]float64{0.5, nan}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FinishShift(tc.rec, tc.pred)
			if len(got) != len(tc.want) {
				t.Fatalf("%d ranks, want %d", len(got), len(tc.want))
			}
			for r, w := range tc.want {
				if math.IsNaN(w) != math.IsNaN(got[r]) || !math.IsNaN(w) && math.Abs(got[r]-w) > 1e-12 {
					t.Errorf("rank %d: shift %v s, want %v s", r, got[r], w)
				}
			}
		})
	}
}
