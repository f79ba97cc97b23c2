package simulate

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/views/component"
)

// The view never runs the simulation. Each piece of work is a slice of an
// engine/runner.Runner; the view asks for one with an component.AdvanceMsg, the
// application (package tui) runs it off the UI goroutine and hands the
// result back as a component.SliceMsg. While a slice is in flight Update does not
// touch the Runner; when its message arrives, Update decides whether to
// ask for the next one. So the engine has one owner at a time, snapshots
// reach the UI at most about 30 times a second, a key press is handled at
// once (it only changes what the next slice does), the application can
// enforce a per-session budget at the one place simulations run, and a
// view that is dropped simply stops the chain: no goroutine is left behind.

// engine is the view's handle on one run: its Runner, and what the
// history needs to know about it.
type engine struct {
	gen  int
	cfg  replay.Config
	name string // the configuration's name, for the history
	run  *runner.Runner
}

// slice returns the command that asks for one slice of kind o.
func (e *engine) slice(ctx context.Context, o runner.Op, target des.Time, rate float64, dt des.Time, withTrace bool) tea.Cmd {
	msg := component.AdvanceMsg{Runner: e.run, Ctx: ctx, Gen: e.gen,
		Request: runner.Request{Op: o, Target: target, Rate: rate, Dt: dt, Trace: withTrace}}
	return func() tea.Msg { return msg }
}
