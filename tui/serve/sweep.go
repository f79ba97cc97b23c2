package serve

import (
	"time"

	"github.com/tracesim/tracesim/tui"
)

// DefaultSweepBudget bounds a served session's sweeps when the
// configuration leaves a field zero: 50 points, one at a time, two
// minutes of host time. A sweep runs in the server's process, so one
// student must not take every core (or hours of one) from the class.
func DefaultSweepBudget() tui.SweepBudget {
	return tui.SweepBudget{Points: 50, Jobs: 1, WallTime: 2 * time.Minute}
}

// servedSweepBudget fills b's zero fields from DefaultSweepBudget.
func servedSweepBudget(b tui.SweepBudget) tui.SweepBudget {
	d := DefaultSweepBudget()
	if b.Points <= 0 {
		b.Points = d.Points
	}
	if b.Jobs <= 0 {
		b.Jobs = d.Jobs
	}
	if b.WallTime <= 0 {
		b.WallTime = d.WallTime
	}
	return b
}
