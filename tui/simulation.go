package tui

import (
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/views/component"
)

// Simulations run here, not in the views: the Simulate tab asks for each
// slice of its run with a component.AdvanceMsg, and the application runs
// the slice on a command goroutine and routes the component.SliceMsg back.
// Being the one place where simulations advance, it is also where the
// session's SimBudget is kept.

// simUse is what the run under way has used of the budget.
type simUse struct {
	run    *runner.Runner
	wall   time.Duration // host time spent simulating
	events uint64        // engine events processed
}

// advance runs the slice a asks for, unless the run has used up the
// session's budget: then the view gets a SliceMsg with an error that says
// which limit it reached, and the run stops there (R starts a fresh one).
func (m *Model) advance(a component.AdvanceMsg) tea.Cmd {
	first := m.sim.run != a.Runner
	if first {
		m.sim = simUse{run: a.Runner}
	}
	if err := m.overBudget(); err != nil {
		return func() tea.Msg { return component.SliceMsg{Gen: a.Gen, Slice: runner.Slice{Err: err}} }
	}
	lg, path := m.opts.Log, m.path
	return func() tea.Msg {
		if first {
			debug(lg, "simulation started", "trace", path)
		}
		s := a.Runner.Advance(a.Ctx, a.Request)
		if s.Done || s.Err != nil {
			debug(lg, "simulation ended", "trace", path, "simulated", s.Clock, "err", s.Err)
		}
		return component.SliceMsg{Gen: a.Gen, Slice: s}
	}
}

// account adds a finished slice to the budget of the run under way.
func (m *Model) account(s component.SliceMsg) {
	m.sim.wall += s.Slice.Wall
	if s.Slice.Snap != nil {
		m.sim.events = s.Slice.Snap.Events
	}
}

// overBudget says which limit the run under way has reached, if any.
func (m *Model) overBudget() error {
	b := m.opts.SimBudget
	switch {
	case b.Events > 0 && m.sim.events >= uint64(b.Events):
		return fmt.Errorf("this session's simulation budget of %d engine events is spent (R starts a new run)", b.Events)
	case b.WallTime > 0 && m.sim.wall >= b.WallTime:
		return fmt.Errorf("this session's simulation budget of %s of host time is spent (R starts a new run)", b.WallTime)
	}
	return nil
}
