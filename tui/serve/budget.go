package serve

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/simulate"
)

// simulateTabName is the tab whose runs the budget bounds.
const simulateTabName = "Simulate"

// budgetTabs returns the application's default tabs with the Simulate
// tab's view wrapped so that each run stays within b. The Simulate tab
// does not read tui.Options.SimBudget itself (yet); wrapping it from here
// enforces the budget through its exported state (Status, Snapshot) and
// its own pause key, without changing it. The wrapper also keeps the
// view from drawing while its first slice builds the engine (see View),
// so it is applied with a zero budget too.
func budgetTabs(b tui.SimBudget) []tui.Tab {
	tabs := tui.DefaultTabs()
	for i := range tabs {
		if tabs[i].Name != simulateTabName {
			continue
		}
		inner := tabs[i].New
		tabs[i].New = func(c *component.Common, tr *tracefmt.Trace) component.Model {
			v := inner(c, tr)
			run, ok := v.(simRunner)
			if !ok {
				return v // not the view this wrapper knows how to bound
			}
			return &budgeted{Model: v, run: run, c: c, budget: b, now: time.Now}
		}
	}
	return tabs
}

// simRunner is what the budget reads of the Simulate tab's view.
type simRunner interface {
	Status() simulate.Status
	Snapshot() *replay.Snapshot
}

// budgeted bounds the runs of a Simulate view: host time spent running
// (pauses excluded) and engine events, per run. A run that reaches a
// limit is paused, and the keys that would advance it do nothing until
// the user resets (R), which starts a new run with a fresh budget.
type budgeted struct {
	component.Model
	run    simRunner
	c      *component.Common
	budget tui.SimBudget
	now    func() time.Time

	status simulate.Status // as last seen
	since  time.Time       // start of the running stretch under way
	used   time.Duration   // running time of the run's earlier stretches
	spent  string          // the limit reached, "" while within budget
	last   string          // the view's last drawing
}

// advancing matches the Simulate keys that move a run forward.
func advancing() key.Binding {
	return key.NewBinding(key.WithKeys("space", "r", "s", "m", "d", "t"))
}

// Update implements component.Model.
func (b *budgeted) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && b.spent != "" && !b.capturing() && key.Matches(k, advancing()) {
		return b, status(b.notice())
	}
	var cmd tea.Cmd
	b.Model, cmd = b.Model.Update(msg)
	if r, ok := b.Model.(simRunner); ok {
		b.run = r
	}
	return b, tea.Batch(cmd, b.check())
}

// check accounts the running time and pauses a run over budget.
func (b *budgeted) check() tea.Cmd {
	b.observe()
	if b.status != simulate.Running || b.spent != "" {
		return nil
	}
	used := b.used + b.now().Sub(b.since)
	switch sn := b.run.Snapshot(); {
	case b.budget.Events > 0 && sn != nil && sn.Events >= uint64(b.budget.Events):
		b.spent = fmt.Sprintf("%d engine events", b.budget.Events)
	case b.budget.WallTime > 0 && used >= b.budget.WallTime:
		b.spent = fmt.Sprintf("%s of host time", b.budget.WallTime)
	default:
		return nil
	}
	// Pause it the way the user would: the view stops its slices and
	// keeps the state reached, which stays on screen.
	var cmd tea.Cmd
	b.Model, cmd = b.Model.Update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	if r, ok := b.Model.(simRunner); ok {
		b.run = r
	}
	b.observe()
	return tea.Batch(cmd, status(b.notice()))
}

// observe follows the view's status: running stretches add up within a
// run; a run that starts afresh (from ready, finished or failed) or a
// reset starts a fresh budget.
func (b *budgeted) observe() {
	st, now := b.run.Status(), b.now()
	switch {
	case st == simulate.Running && b.status != simulate.Running:
		if b.status != simulate.Paused {
			b.used, b.spent = 0, ""
		}
		b.since = now
	case st != simulate.Running && b.status == simulate.Running:
		b.used += now.Sub(b.since)
	}
	if st == simulate.Idle {
		b.used, b.spent = 0, ""
	}
	b.status = st
}

func (b *budgeted) notice() string {
	return "Simulation budget reached (" + b.spent + " per run): R resets for a new run."
}

// View implements component.Model: while the budget is spent, its last
// line says so.
func (b *budgeted) View() string {
	// Between the request of a run and the result of its first slice,
	// the slice's goroutine creates the engine while simulate's View
	// reads that field (views/simulate drawHeader: m.eng.sim): a data
	// race, which -race reports for every served simulation. Until the
	// view keeps that state on its own side, show the last drawing for
	// that moment (a frame at most); the first result brings a new one.
	st := b.run.Status()
	if b.run.Snapshot() == nil && (st == simulate.Running || st == simulate.Paused) && b.last != "" {
		return b.last
	}
	v := b.Model.View()
	b.last = v
	if b.spent == "" {
		return v
	}
	w := b.c.Width
	line := " " + b.notice()
	if n := ansi.StringWidth(line); n < w {
		line += strings.Repeat(" ", w-n)
	}
	line = b.c.Theme.Styles.Warn.Reverse(true).Render(ansi.Truncate(line, w, "…"))
	// The last line: the first is the view's status ("‖ paused"), which
	// should stay visible.
	if i := strings.LastIndexByte(v, '\n'); i >= 0 {
		return v[:i+1] + line
	}
	return line
}

// Capturing forwards the view's text input focus (tui.InputCapturer), so
// that typing in its prompt is not taken for global keys.
func (b *budgeted) Capturing() bool { return b.capturing() }

func (b *budgeted) capturing() bool {
	c, ok := b.Model.(tui.InputCapturer)
	return ok && c.Capturing()
}

func status(s string) tea.Cmd {
	return func() tea.Msg { return component.StatusMsg(s) }
}
