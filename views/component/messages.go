package component

import "github.com/tracesim/tracesim/tracefmt"

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
