package serve

import (
	"testing"
	"time"

	"github.com/tracesim/tracesim/tui"
)

// A served session's sweeps are always bounded: the fields the
// configuration leaves zero take DefaultSweepBudget's, never "no limit"
// nor a worker per CPU.
func TestServedSweepBudget(t *testing.T) {
	tests := []struct {
		name string
		cfg  tui.SweepBudget
		want tui.SweepBudget
	}{
		{"zero", tui.SweepBudget{}, tui.SweepBudget{Points: 50, Jobs: 1, WallTime: 2 * time.Minute}},
		{"given", tui.SweepBudget{Points: 8, Jobs: 2, WallTime: time.Second}, tui.SweepBudget{Points: 8, Jobs: 2, WallTime: time.Second}},
		{"some", tui.SweepBudget{Points: 200}, tui.SweepBudget{Points: 200, Jobs: 1, WallTime: 2 * time.Minute}},
		{"negative", tui.SweepBudget{Points: -1, Jobs: -1, WallTime: -1}, tui.SweepBudget{Points: 50, Jobs: 1, WallTime: 2 * time.Minute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := servedSweepBudget(tc.cfg); got != tc.want {
				t.Errorf("budget %+v, want %+v", got, tc.want)
			}
		})
	}
}
