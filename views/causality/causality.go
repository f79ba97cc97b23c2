// Package causality is the Causality tab: it checks the loaded trace's
// causality (engine/causality) in the background, shows the findings by
// kind and class and a sortable list of them with the details of the
// selected one, sends the Timeline to a finding's event, and corrects the
// timestamps, offering the corrected trace to the Timeline as alternative
// times.
//
// The check runs in a command the first time the tab is shown (Init) and
// again when the trace changes (SetTrace); a new check cancels the one in
// flight, and so does the view becoming unreachable (the application drops
// a tab's view when another trace is opened or the session ends), so no
// work outlives the session that asked for it.
package causality

import (
	"cmp"
	"context"
	"runtime"
	"slices"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// SortKey is an order of the findings list.
type SortKey uint8

// Orders of the findings list; the Sort key cycles through them.
const (
	// ByAmount lists clock findings by decreasing amount, then defects
	// and notes by kind: the order of `tracesim check`.
	ByAmount SortKey = iota
	// ByKind lists findings by kind, then rank and event.
	ByKind
	// ByRank lists findings by the rank and index of their first event,
	// then kind.
	ByRank
	numSortKeys
)

var sortNames = [...]string{"amount", "kind", "rank"}

// lminSteps are the minimum latencies the LMin key steps through, in
// seconds, after 0.
var lminSteps = [...]float64{1e-6, 10e-6, 100e-6}

// String returns the order's name.
func (k SortKey) String() string { return sortNames[k] }

// Model is the Causality tab. Create it with New.
type Model struct {
	common component.Common
	keys   KeyMap

	tr *tracefmt.Trace
	// opts are the options of the check; LMin is also the correction's.
	opts causality.Options

	// base is cancelled when the view is dropped (see New); each check or
	// correction runs in a child context so that a newer one can cancel
	// it.
	base context.Context

	check    *run // the check in flight or done
	rep      *causality.Report
	g        *causality.Graph
	checkErr error
	elapsed  time.Duration
	startSec float64 // the run's first timestamp, seconds: times show from it

	fix     *run // the correction in flight or done
	corr    *causality.Correction
	corrErr error

	// all holds every finding; order the three sort orders of it as
	// indices, computed with the report off the event loop.
	all   []causality.Finding
	order [numSortKeys][]int32
	// largest is the largest amount of each kind, for the counts line.
	largest [causality.NumKinds]float64
	sort    SortKey
	rev     bool
	cur     int // position of the selected finding in the sorted list
	top     int // first list row shown

	status string

	memo component.Memo // the frame, drawn again when the state changes
}

// run is one background job; a result is taken only if it belongs to the
// job the model waits for (messages go to every view, and an old job may
// report after a newer one started).
type run struct {
	cancel context.CancelFunc
	start  time.Time
	done   bool
}

var _ component.Model = (*Model)(nil)

// checkDoneMsg carries a finished check.
type checkDoneMsg struct {
	run     *run
	g       *causality.Graph
	rep     *causality.Report
	all     []causality.Finding
	order   [numSortKeys][]int32
	largest [causality.NumKinds]float64
	start   float64
	err     error
}

// correctDoneMsg carries a finished correction.
type correctDoneMsg struct {
	run *run
	c   *causality.Correction
	err error
}

// New returns a Causality tab of tr drawing in c's area. Nothing is
// checked until Init (the tab is shown).
func New(c component.Common, tr *tracefmt.Trace) *Model {
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{common: c, keys: DefaultKeyMap(), base: ctx,
		opts: causality.Options{Replay: causality.ReplayAuto}}
	// The application has no hook for a view it drops; cancelling when
	// the view is collected stops a check that nobody will read. The
	// cleanup holds only the cancel function, never the model.
	runtime.AddCleanup(m, func(cancel context.CancelFunc) { cancel() }, cancel)
	m.tr = tr
	return m
}

// SetTrace replaces the trace, cancelling any check or correction in
// flight, and returns the command that checks the new one.
func (m *Model) SetTrace(tr *tracefmt.Trace) tea.Cmd {
	m.stop()
	m.tr = tr
	m.rep, m.g, m.checkErr, m.all, m.order = nil, nil, nil, nil, [numSortKeys][]int32{}
	m.corr, m.corrErr, m.check, m.fix = nil, nil, nil, nil
	m.cur, m.top, m.status = 0, 0, ""
	m.memo.Invalidate()
	return m.startCheck()
}

// SetLMin sets the minimum message latency (seconds) of the check and the
// correction and returns the command that checks again.
func (m *Model) SetLMin(lmin float64) tea.Cmd {
	m.opts.LMin = lmin
	return m.SetTrace(m.tr)
}

// stop cancels the work in flight.
func (m *Model) stop() {
	for _, r := range []*run{m.check, m.fix} {
		if r != nil && !r.done {
			r.cancel()
		}
	}
}

// Close cancels the work in flight; the view is unusable afterwards.
// Dropping the view has the same effect, later.
func (m *Model) Close() { m.stop() }

// Init implements component.Model: it starts the check.
func (m *Model) Init() tea.Cmd {
	if m.check != nil {
		return nil
	}
	return m.startCheck()
}

// startCheck returns the command that checks the trace off the event
// loop; the graph is built there too (linear, but a big trace's takes a
// while) and kept for the correction.
func (m *Model) startCheck() tea.Cmd {
	if m.tr == nil {
		return nil
	}
	ctx, cancel := context.WithCancel(m.base)
	r := &run{cancel: cancel, start: time.Now()}
	m.check = r
	m.memo.Invalidate()
	tr, opts := m.tr, m.opts
	// The graph is shared with the other sessions (and the Timeline's
	// cone) through the cache; checks and corrections only read it.
	d := m.common.Cache()
	return func() tea.Msg {
		defer cancel()
		g := derived.Graph(d, tr)
		rep, err := g.Check(ctx, opts)
		start, _ := tr.Span() // a scan of every event: not on the event loop
		msg := checkDoneMsg{run: r, g: g, rep: rep, err: err, start: tr.Seconds(start)}
		if err == nil {
			msg.all = rep.Findings()
			msg.order = sortOrders(msg.all)
			for i := range msg.all {
				f := &msg.all[i]
				msg.largest[f.Kind] = max(msg.largest[f.Kind], f.Amount)
			}
		}
		return msg
	}
}

// sortOrders returns the findings' indices in each sort order.
func sortOrders(all []causality.Finding) (o [numSortKeys][]int32) {
	for k := range o {
		o[k] = make([]int32, len(all))
		for i := range o[k] {
			o[k][i] = int32(i)
		}
	}
	byEvent := func(a, b *causality.Finding) int {
		return cmp.Or(cmp.Compare(a.Events[0].Rank, b.Events[0].Rank), cmp.Compare(a.Events[0].Index, b.Events[0].Index),
			cmp.Compare(a.Events[1].Rank, b.Events[1].Rank), cmp.Compare(a.Events[1].Index, b.Events[1].Index))
	}
	// Findings() lists them by kind already: a stable sort keeps that.
	slices.SortStableFunc(o[ByAmount], func(i, j int32) int {
		a, b := &all[i], &all[j]
		ca, cb := a.Kind.Class(), b.Kind.Class()
		if ca != cb {
			return cmp.Compare(ca, cb)
		}
		if ca == causality.ClassClock {
			return cmp.Compare(b.Amount, a.Amount)
		}
		return 0
	})
	slices.SortStableFunc(o[ByRank], func(i, j int32) int {
		a, b := &all[i], &all[j]
		return cmp.Or(byEvent(a, b), cmp.Compare(a.Kind, b.Kind))
	})
	return o
}

// startCorrect returns the command that corrects the timestamps off the
// event loop.
func (m *Model) startCorrect() tea.Cmd {
	switch {
	case m.g == nil:
		m.status = "wait for the check to finish"
		return nil
	case !m.rep.Timed:
		m.status = "an untimed trace has no timestamps to correct"
		return nil
	case m.fix != nil && !m.fix.done:
		m.status = "correcting already"
		return nil
	}
	ctx, cancel := context.WithCancel(m.base)
	r := &run{cancel: cancel, start: time.Now()}
	m.fix, m.corr, m.corrErr, m.status = r, nil, nil, ""
	g, lmin := m.g, m.opts.LMin
	return func() tea.Msg {
		defer cancel()
		c, err := g.Correct(ctx, causality.CorrectOptions{Method: causality.MethodBoth, LMin: lmin})
		return correctDoneMsg{run: r, c: c, err: err}
	}
}

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	m.common.SetSize(width, height)
	m.memo.Invalidate()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Keys returns the tab's key map.
func (m *Model) Keys() KeyMap { return m.keys }

// Report returns the check's report, nil while it runs or when it failed.
func (m *Model) Report() *causality.Report { return m.rep }

// Correction returns the last correction, nil when none finished.
func (m *Model) Correction() *causality.Correction { return m.corr }

// Checking reports whether a check is in flight.
func (m *Model) Checking() bool { return m.check != nil && !m.check.done }

// Correcting reports whether a correction is in flight.
func (m *Model) Correcting() bool { return m.fix != nil && !m.fix.done }

// Sort returns the list's order and whether it is reversed.
func (m *Model) Sort() (SortKey, bool) { return m.sort, m.rev }

// Findings returns the findings in the list's order.
func (m *Model) Findings() []causality.Finding {
	out := make([]causality.Finding, m.Len())
	for i := range out {
		out[i] = *m.at(i)
	}
	return out
}

// Len returns the number of findings listed.
func (m *Model) Len() int { return len(m.all) }

// Selected returns the selected finding; false when there is none.
func (m *Model) Selected() (causality.Finding, bool) {
	if m.cur >= m.Len() {
		return causality.Finding{}, false
	}
	return *m.at(m.cur), true
}

// at returns the finding at position i of the sorted list.
func (m *Model) at(i int) *causality.Finding {
	o := m.order[m.sort]
	if m.rev {
		i = len(o) - 1 - i
	}
	return &m.all[o[i]]
}

// Renders returns how many frames the view has drawn, for tests of its
// cache.
func (m *Model) Renders() int { return m.memo.Renders() }

// Selection implements the application's Selector: the selected finding
// in the status bar.
func (m *Model) Selection() string {
	f, ok := m.Selected()
	if !ok {
		return ""
	}
	return f.Kind.String() + " " + eventsText(&f)
}

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case checkDoneMsg:
		if msg.run != m.check {
			return m, nil
		}
		msg.run.done = true
		m.elapsed = time.Since(msg.run.start)
		m.memo.Invalidate()
		if msg.err != nil {
			m.checkErr = msg.err
			return m, nil
		}
		m.g, m.rep, m.all, m.order, m.largest, m.startSec = msg.g, msg.rep, msg.all, msg.order, msg.largest, msg.start
		m.cur, m.top = 0, 0
	case correctDoneMsg:
		if msg.run != m.fix {
			return m, nil
		}
		msg.run.done = true
		m.memo.Invalidate()
		if msg.err != nil {
			m.corrErr = msg.err
			return m, nil
		}
		m.corr = msg.c
		c := msg.c
		return m, func() tea.Msg { return component.AltTraceMsg{Trace: c.Trace, Label: "corrected"} }
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.move(-3)
		case tea.MouseWheelDown:
			m.move(3)
		}
		m.memo.Invalidate()
	case tea.MouseClickMsg:
		// A click on a row of the list selects its finding.
		f := m.layout(m.common.Width, m.common.Height)
		if i := msg.Y - len(f.head) - 1; msg.Button == tea.MouseLeft && i >= 0 && i < f.rows && m.top+i < m.Len() {
			m.cur = m.top + i
			m.memo.Invalidate()
		}
	case component.ThemeMsg:
		m.memo.Invalidate()
	}
	return m, nil
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	ks := m.keys
	// A key that does nothing must not cost a frame (see Renders).
	handled, hadStatus := true, m.status != ""
	m.status = ""
	defer func() {
		if handled || hadStatus {
			m.memo.Invalidate()
		}
	}()
	if d, ok := ks.List.Move(k, m.listRows()); ok {
		m.move(d)
		return nil
	}
	switch {
	case key.Matches(k, ks.Sort):
		m.sort = (m.sort + 1) % numSortKeys
		m.cur, m.top = 0, 0
		m.status = "sorted by " + m.sort.String()
	case key.Matches(k, ks.Reverse):
		m.rev = !m.rev
		m.cur, m.top = 0, 0
		m.status = "sorted by " + m.sort.String()
		if m.rev {
			m.status += ", reversed"
		}
	case key.Matches(k, ks.Focus):
		f, ok := m.Selected()
		if !ok {
			m.status = "no finding selected"
			return nil
		}
		ev := f.Events[1]
		if ev.Rank < 0 {
			ev = f.Events[0]
		}
		if ev.Rank < 0 {
			m.status = "this finding names no event"
			return nil
		}
		return func() tea.Msg { return component.FocusEventMsg{Event: ev} }
	case key.Matches(k, ks.Correct):
		return m.startCorrect()
	case key.Matches(k, ks.LMin):
		// l_min steps through the values worth trying: 0 (reversals
		// only, as `tracesim check` by default), Scalasca's 1 µs, and
		// larger ones that space corrected messages visibly apart.
		next := 0.0
		for _, v := range lminSteps {
			if v > m.opts.LMin*(1+1e-9) {
				next = v
				break
			}
		}
		cmd := m.SetLMin(next)
		m.status = "l_min " + units.FormatDuration(next) + ": checking again"
		return cmd
	case key.Matches(k, ks.Recheck):
		return m.SetTrace(m.tr)
	case key.Matches(k, ks.Cancel):
		switch {
		case m.Correcting():
			m.fix.cancel()
			m.fix = nil
			m.status = "correction cancelled"
		case m.Checking():
			m.check.cancel()
			m.check.done = true
			m.checkErr = context.Canceled
			m.status = "check cancelled (R checks again)"
		}
	default:
		handled = false
	}
	return nil
}

// move moves the selection by n findings.
func (m *Model) move(n int) {
	if m.Len() == 0 {
		return
	}
	m.cur = min(max(m.cur+n, 0), m.Len()-1)
}
