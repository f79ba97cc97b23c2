package simulate

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
)

// The view never runs the simulation. Each piece of work is a slice of an
// engine/runner.Runner; the view asks for one with an AdvanceMsg, the
// application (package tui) runs it off the UI goroutine and hands the
// result back as a SliceMsg. While a slice is in flight Update does not
// touch the Runner; when its message arrives, Update decides whether to
// ask for the next one. So the engine has one owner at a time, snapshots
// reach the UI at most about 30 times a second, a key press is handled at
// once (it only changes what the next slice does), the application can
// enforce a per-session budget at the one place simulations run, and a
// view that is dropped simply stops the chain: no goroutine is left behind.

// AdvanceMsg asks the application to advance Runner by one slice on a
// goroutine of its own and to deliver the result as a SliceMsg.
type AdvanceMsg struct {
	Runner  *runner.Runner
	Ctx     context.Context
	Request runner.Request
	// Gen identifies the run the slice belongs to; a SliceMsg of an
	// older run is ignored.
	Gen int
}

// SliceMsg is the result of the slice an AdvanceMsg asked for.
type SliceMsg struct {
	Gen   int
	Slice runner.Slice
}

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
	msg := AdvanceMsg{Runner: e.run, Ctx: ctx, Gen: e.gen,
		Request: runner.Request{Op: o, Target: target, Rate: rate, Dt: dt, Trace: withTrace}}
	return func() tea.Msg { return msg }
}

// PredictMsg asks the Simulate tab for a fresh run of the whole trace on
// the current machine, as fast as the host allows, whose simulated trace
// it then offers to the Timeline as "predicted on <machine>" (the
// application sends it when an untimed trace is loaded). Progress goes to
// the status bar.
type PredictMsg struct{}

// StopMsg stops a run that PredictMsg started (the application sends it on
// esc); other runs are left alone.
type StopMsg struct{}
