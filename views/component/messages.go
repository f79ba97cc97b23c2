package component

import (
	"context"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/tracefmt"
)

// Messages that views send to the application (through tea.Cmd) and that
// the application routes to other views. They keep views independent of
// each other: a view says what it wants shown, the tui package decides
// which tab shows it.

// FocusEventMsg asks the application to switch to the Timeline, bring
// Event into view and select it (and its message partner, if any).
type FocusEventMsg struct {
	Event tracefmt.EventRef
}

// AltTraceMsg offers the Timeline another version of the loaded trace
// with the same ranks and events but other times (timestamps corrected by
// the causality checker) or a different run of the same program (a
// simulated replay). Label names it in the status bar and legend ("corrected",
// "sim #2"). A nil Trace withdraws the alternative.
type AltTraceMsg struct {
	Trace *tracefmt.Trace
	Label string
	// Predicted says Trace is a simulated replay with events of its own
	// (a state per CPU burst, the messages of expanded collectives): the
	// Timeline shows it beside the recorded run, pairing events by rank
	// and call order, instead of as other times for the same events.
	Predicted bool
}

// OpenTraceMsg asks the application to make Trace the loaded trace, as if
// the user had opened Path.
type OpenTraceMsg struct {
	Trace *tracefmt.Trace
	Path  string
}

// StatusMsg shows a short transient message in the status bar.
type StatusMsg string

// ShowTabMsg asks the application to switch to the tab of that name
// ("Timeline"), as if the user had pressed its key.
type ShowTabMsg struct {
	Name string
}

// ThemeMsg tells the views that the session's theme changed (the
// application has set Session.Theme): views whose styles or cached
// colours derive from the theme rebuild them.
type ThemeMsg struct{}

// ConfigMsg carries a valid machine configuration from the Machine tab.
// The Simulate tab uses it for its next run (or at once when nothing has
// run yet); a run under way keeps the configuration it started with.
type ConfigMsg struct {
	// Config is the configuration; it has passed Config.Validate.
	Config replay.Config
	// Name is the preset it came from, "custom" once edited, for the run
	// history.
	Name string
	// FullSpeed asks the Simulate tab to run it unpaced (a sweep point,
	// WhatIf.SetPoint).
	FullSpeed bool
}

// A simulation runs in slices, each an engine/runner.Runner.Advance
// call: the Simulate tab asks for one with an AdvanceMsg, the application
// runs it off the UI goroutine (where it keeps the session's simulation
// budget) and hands the result back as a SliceMsg. While a slice is in
// flight the view does not touch the Runner, so the engine has one owner
// at a time, and a view that is dropped simply stops the chain.

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

// PredictMsg asks the Simulate tab for a fresh run of the whole trace on
// the current machine, as fast as the host allows, whose simulated trace
// it then offers to the Timeline as "predicted on <machine>" (the
// application sends it when an untimed trace is loaded). Progress goes to
// the status bar.
type PredictMsg struct{}

// StopMsg stops a run that PredictMsg started (the application sends it on
// esc); other runs are left alone.
type StopMsg struct{}
