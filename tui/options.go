package tui

import (
	"context"
	"time"

	"charm.land/log/v2"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/engine/preset"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/causality"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
	"github.com/tracesim/tracesim/views/learn"
	"github.com/tracesim/tracesim/views/machine"
	"github.com/tracesim/tracesim/views/matrix"
	"github.com/tracesim/tracesim/views/simulate"
	"github.com/tracesim/tracesim/views/sizes"
	"github.com/tracesim/tracesim/views/stats"
	sweepview "github.com/tracesim/tracesim/views/sweep"
	"github.com/tracesim/tracesim/views/timeline"
)

// Options configure one session of the application.
type Options struct {
	// Trace is the trace to show at start. When it is nil and Path is set,
	// the application loads Path itself (with progress, cancellable);
	// when both are empty it starts empty and offers the file picker.
	Trace *tracefmt.Trace
	// Path names the trace: the file to load, or the label of Trace in
	// the status bar.
	Path string
	// Format forces the format of Path and of files opened in the picker
	// ("" detects it from the content).
	Format string
	// Theme is a theme name (themes.Names); "" chooses dark or light from
	// the terminal's background.
	Theme string
	// NoColor selects the monochrome theme whatever Theme says.
	NoColor bool
	// Environ is the session's environment (os.Environ() locally, the SSH
	// session's environment when served); NO_COLOR in it selects the
	// monochrome theme.
	Environ []string
	// Library is the directory the file picker starts in and may not
	// leave: files outside it are refused, symbolic links included. Empty
	// means no restriction (the picker starts in the current directory).
	// A server must set it.
	Library string
	// Files opens and saves the files the session names besides traces
	// (topology graphs, placement maps, configurations): a server gives
	// each session one on its library with a save directory of the
	// student's own. Nil with a Library set means the Library, saves
	// included; nil without one means the file system by path.
	Files *userfile.Space
	// Context cancels loads in progress when done (the session ended);
	// nil means context.Background().
	Context context.Context
	// Tabs replaces the application's tabs; nil means DefaultTabs().
	Tabs []Tab
	// Open, when set, loads the traces the application opens (Path and
	// the picker's choices) instead of formats.Open: an SSH server passes
	// its shared library cache, so that every session gets the same
	// read-only trace instead of a copy. Paths have passed the Library
	// check first.
	Open func(ctx context.Context, path string) (*tracefmt.Trace, error)
	// SimBudget limits each simulation the session runs; the zero value
	// means no limit. An SSH server sets it so that one student cannot
	// take the machine from a classroom.
	SimBudget SimBudget
	// SweepBudget limits the sweeps the session runs (points, workers,
	// host time); the zero value means no limit and a worker per CPU.
	SweepBudget SweepBudget
	// Derived, when set, shares the views' derived data (the Timeline's
	// summary, indexes, the happens-before graph) with the other sessions
	// given the same cache: a server passes one cache to all of its
	// sessions so that a class on one trace builds them once. Nil means
	// the session builds its own.
	Derived *derived.Cache
	// Keys binds global actions (KeyActions) to other keys, from the
	// user's configuration; nil keeps DefaultKeyMap.
	Keys map[string][]string
	// Preset is the key of the machine preset (engine/preset) the Machine
	// tab starts from when Tabs is nil; "" is the default machine.
	Preset string
	// Log receives debug records of the traces loaded and the simulations
	// run (tracesim --debug-log), written from command goroutines, never
	// from Update; nil logs nothing.
	Log *log.Logger
	// Lesson, when set, adds the Learn tab (key 0) showing it, opens the
	// session on that tab and sets the machine the lesson asks for; the
	// trace (Trace or Path) is the lesson's.
	Lesson *lesson.Lesson
	// Progress records the student's progress through Lesson (the class
	// server's database); nil records nothing.
	Progress learn.Progress
	// LessonAnswers, when set, are Lesson's expected answers on Trace
	// (lesson.Solve): a server computes them once for all its sessions.
	// Nil computes them in the background for the session.
	LessonAnswers []*lesson.Expected
	// StartTab names the tab shown first (a teacher's Class tab); ""
	// means the first one, or the Learn tab with a Lesson.
	StartTab string
}

// debug writes a record to l, if there is one.
func debug(l *log.Logger, msg string, keyvals ...any) {
	if l != nil {
		l.Debug(msg, keyvals...)
	}
}

// SimBudget bounds the simulations of one session: the application stops
// a run that reaches a limit and the Simulate tab says which one (limits
// are checked between slices of about one frame, so a run may overshoot
// by one slice). R starts a fresh run with a fresh budget.
type SimBudget struct {
	// WallTime is the host time one simulation may use (time spent
	// paused does not count); 0 means no limit.
	WallTime time.Duration
	// Events is the number of engine events one simulation may process;
	// 0 means no limit.
	Events int64
}

// Tab is one tab of the application: a name for the tab bar and a
// constructor for its view.
type Tab struct {
	// Name is shown in the tab bar and the help.
	Name string
	// New builds the tab's view of a trace, drawing in c's area. The
	// application calls it the first time the tab is shown, and again
	// after another trace is opened; tr is never nil.
	New func(c component.Common, tr *tracefmt.Trace) component.Model
}

// DefaultTabs returns the application's tabs in tab-bar order; keys 1–9
// select them. Adding a view is adding one line here.
func DefaultTabs() []Tab {
	return []Tab{
		{"Timeline", func(c component.Common, tr *tracefmt.Trace) component.Model { return timeline.New(c, tr) }},
		{"Matrix", func(c component.Common, tr *tracefmt.Trace) component.Model { return matrix.New(c, tr) }},
		{"Sizes", func(c component.Common, tr *tracefmt.Trace) component.Model { return sizes.New(c, tr) }},
		{"Stats", func(c component.Common, tr *tracefmt.Trace) component.Model { return stats.New(c, tr) }},
		{"Causality", func(c component.Common, tr *tracefmt.Trace) component.Model { return causality.New(c, tr) }},
		{"Machine", func(c component.Common, tr *tracefmt.Trace) component.Model { return machine.New(c, tr) }},
		{"Simulate", func(c component.Common, tr *tracefmt.Trace) component.Model { return simulate.New(c, tr) }},
		// The session's sweeps: the application gives the view the
		// latest one (SweepSetter).
		{SweepTab, func(c component.Common, _ *tracefmt.Trace) component.Model { return sweepview.New(c, nil) }},
	}
}

// SweepTabs returns the Sweep tab on a sweep result (views/sweep) first,
// followed by the rest of DefaultTabs: `tracesim sweep show`. The Sweep tab sets the session's
// machine (Session.WhatIf), which the Machine and Simulate tabs share, so
// that enter on a point opens its run in Simulate; open loads a row's
// trace and machine (nil when the result's spec is unknown).
func SweepTabs(res *sw.Table, name string, open func(ctx context.Context, row []string) (sweepview.Run, error)) []Tab {
	// The view's state outlives the views, which are rebuilt when a
	// point's trace opens.
	st := sweepview.NewState(res, name, open)
	tabs := []Tab{{SweepTab, func(c component.Common, _ *tracefmt.Trace) component.Model { return sweepview.New(c, st) }}}
	for _, t := range DefaultTabs() {
		if t.Name != SweepTab { // first here
			tabs = append(tabs, t)
		}
	}
	return tabs
}

// TimelineTab is the name of the tab that FocusEventMsg switches to.
const TimelineTab = "Timeline"

// Optional interfaces a tab's view may implement; the application checks
// for them after every message.
type (
	// Windower reports the visible time window (trace units); the
	// Timeline does, and the application passes it to WindowSetters.
	Windower interface{ Window() (start, end float64) }
	// WindowSetter follows the Timeline's visible window.
	WindowSetter interface{ SetWindow(start, end float64) }
	// Selector describes the current selection for the status bar.
	Selector interface{ Selection() string }
	// AltSetter shows an alternative version of the trace at once: a view
	// built while one is offered gets it this way (component.AltTraceMsg
	// reaches the views that exist through Update, where they may index
	// it in the background).
	AltSetter interface {
		SetAlt(tr *tracefmt.Trace, label string)
	}
	// PredictedSetter is a view that shows a simulated replay of the
	// loaded trace beside it (the Timeline).
	PredictedSetter interface {
		SetPredicted(tr *tracefmt.Trace, label string)
	}
	// InputCapturer is a view with a focused text input (a search box):
	// while Capturing is true it gets every key before the global
	// bindings, so typing "q" does not quit.
	InputCapturer interface{ Capturing() bool }
)

// theme picks the session's theme from the options and the terminal's
// background.
func (o *Options) theme(dark bool) *themes.Theme {
	if o.NoColor || themes.NoColor(o.Environ) {
		return themes.Mono()
	}
	switch o.Theme {
	case "":
		return themes.Default(nil, dark)
	case "colorblind", "colourblind", "cb":
		return themes.ColorBlind(dark)
	}
	t, err := themes.ByName(o.Theme)
	if err != nil {
		return themes.Default(nil, dark)
	}
	return t
}

// presetWhatIf returns a session's what-if state starting from the named
// preset; an unknown or invalid name (the caller validated it) keeps the
// default machine.
func presetWhatIf(name string) *component.WhatIf {
	wi := component.NewWhatIf()
	if name == "" {
		return wi
	}
	p, err := preset.Lookup(name)
	if err != nil {
		return wi
	}
	if cfg, err := p.Config(); err == nil {
		wi.SetConfig(cfg, p.Name)
	}
	return wi
}
