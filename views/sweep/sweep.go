// Package sweep is the Sweep view: a parameter sweep's result
// (engine/sweep) plotted as one column against an axis, one line per
// value of a second axis, over a table of the points with sort and
// filter; enter opens the selected point's run in the Simulate tab with
// its machine. The chart is drawn with views/cellbuf.
package sweep

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/replay"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component"
)

// Run is a point ready to simulate: its trace and machine.
type Run struct {
	Trace *tracefmt.Trace
	// Path names the trace in the status bar.
	Path   string
	Config replay.Config
}

// State is what the Sweep tab keeps while the application rebuilds its
// views (it does when another trace opens, as enter does): the result,
// the chart's choices, the selected point, the sort and the filter. One
// per session, used from the Bubble Tea goroutine only.
type State struct {
	table *sw.Table
	name  string
	open  func(ctx context.Context, row []string) (Run, error)

	dims    []int // key columns: trace, the axes, rep
	metrics []int // numeric result columns
	x, by   int   // indexes into dims; by −1: one line
	metric  int   // index into metrics
	sortCol int   // column index, −1: point order
	desc    bool
	filter  string
	sel     int // selected row, an index into table.Rows (−1: none)
	top     int // first table row shown, in view order

	// A sweep the session runs: points finished of total, whether it
	// still runs, and how it ended (Progress).
	running     bool
	done, total int
	elapsed     time.Duration
	note        string
	// ver counts the changes made to the state from outside the view
	// (Refresh, Progress): a frame drawn before is stale.
	ver int
	// noOpen says why points cannot be opened, when open is nil.
	noOpen string
}

// NoOpen sets what enter says when the result's points cannot be
// opened (there is no open function).
func (s *State) NoOpen(why string) { s.noOpen = why }

// Progress records how far a sweep the session runs has got: done points
// of total after elapsed host time (the title estimates the time left
// from it), running until it ends; note says how it ended ("stopped", an
// error), shown in the title.
func (s *State) Progress(done, total int, elapsed time.Duration, running bool, note string) {
	s.done, s.total, s.elapsed, s.running, s.note = done, total, elapsed, running, note
	s.ver++
}

// Running reports whether the sweep the state shows is still running.
func (s *State) Running() bool { return s.running }

// Table returns the result the state shows.
func (s *State) Table() *sw.Table { return s.table }

// Refresh takes in rows added to the table since the state was made (a
// sweep the session runs adds them as points finish): the plotted
// columns are those that now hold numbers, the plotted one kept, and the
// first row is selected when none was.
func (s *State) Refresh() {
	s.ver++
	cur := -1
	if s.metric < len(s.metrics) {
		cur = s.metrics[s.metric]
	}
	s.metrics = s.metrics[:0]
	for c := s.table.Column("makespan_s"); c >= 0 && c < len(s.table.Columns); c++ {
		if numeric(s.table, c) {
			s.metrics = append(s.metrics, c)
		}
	}
	s.metric = max(slices.Index(s.metrics, cur), 0)
	if s.sel < 0 && len(s.table.Rows) > 0 {
		s.sel = 0
	}
}

// NewState returns the Sweep tab's state for a result named name. open
// loads a row's trace and machine (nil: points cannot be opened).
func NewState(t *sw.Table, name string, open func(ctx context.Context, row []string) (Run, error)) *State {
	s := &State{table: t, name: name, open: open, sortCol: -1, by: -1}
	axes := t.AxisColumns()
	s.dims = append(s.dims, t.Column("trace"))
	for _, a := range axes {
		s.dims = append(s.dims, t.Column(a))
	}
	if i := t.Column("rep"); i >= 0 {
		s.dims = append(s.dims, i)
	}
	first := t.Column("makespan_s")
	for c := first; c >= 0 && c < len(t.Columns); c++ {
		if numeric(t, c) {
			s.metrics = append(s.metrics, c)
		}
	}
	// x: the first numeric axis, else the first axis, else the trace;
	// lines: the first other dimension that varies.
	s.x = 0
	if len(axes) > 0 {
		s.x = 1
	}
	for d := 1; d < len(s.dims); d++ {
		if _, ok := sw.AxisNumber(t.Columns[s.dims[d]], firstValue(t, s.dims[d])); ok {
			s.x = d
			break
		}
	}
	// Lines by an axis rather than by trace: traces differ in scale.
	for _, d := range append(seq(1, len(s.dims)), 0) {
		if d != s.x && distinct(t, s.dims[d]) > 1 {
			s.by = d
			break
		}
	}
	if len(t.Rows) > 0 {
		s.sel = 0
	} else {
		s.sel = -1
	}
	return s
}

// seq returns lo, lo+1, …, hi−1.
func seq(lo, hi int) []int {
	var out []int
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// numeric reports whether column c holds numbers (empty cells allowed)
// and at least one.
func numeric(t *sw.Table, c int) bool {
	n := 0
	for _, r := range t.Rows {
		if r[c] == "" {
			continue
		}
		if _, err := strconv.ParseFloat(r[c], 64); err != nil {
			return false
		}
		n++
	}
	return n > 0
}

func firstValue(t *sw.Table, c int) string {
	if len(t.Rows) == 0 {
		return ""
	}
	return t.Rows[0][c]
}

func distinct(t *sw.Table, c int) int {
	seen := map[string]bool{}
	for _, r := range t.Rows {
		seen[r[c]] = true
	}
	return len(seen)
}

// Model is the Sweep view.
type Model struct {
	common  component.Common
	keys    KeyMap
	st      *State
	editing bool // the filter prompt has the keys
	// in edits the filter while editing: cursor movement, word deletion
	// (ctrl+w, alt+backspace), paste. Its value is the state's filter as
	// it is typed (the table follows); only the value and the cursor are
	// drawn, into the prompt row's cells.
	in    textinput.Model
	ctx   context.Context
	buf   chartBuf
	chart sweepChart // the plot ntcharts drew last
	bar   sweepBar   // where the frame drawn last has its progress bar
	// memo keeps the frame; seenSt and seen are the state and its
	// version the frame shows (the application changes the state as a
	// sweep runs).
	memo   component.Memo
	seenSt *State
	seen   int
}

// New returns the Sweep view of the state's result (nil: no sweep yet,
// until SetState gives one). The point it opens becomes the machine of
// c's session (its WhatIf), which the Simulate tab runs.
func New(c component.Common, st *State) *Model {
	return &Model{common: c, keys: DefaultKeyMap(), st: st, ctx: context.Background()}
}

// Init implements component.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetState shows another sweep: a session's Sweep tab shows the latest
// one started or opened.
func (m *Model) SetState(st *State) {
	m.st = st
	m.editing = false
	m.memo.Invalidate()
}

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) { m.common.SetSize(width, height) }

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Capturing reports whether the filter prompt is open: it gets every key.
func (m *Model) Capturing() bool { return m.editing }

// Selection describes the selected point for the status bar, shortly
// (the bar also shows transient messages after it): its number, its axes'
// values and, when the sweep has several traces, which one.
func (m *Model) Selection() string {
	s := m.st
	if s == nil || s.sel < 0 {
		return ""
	}
	r := s.table.Rows[s.sel]
	parts := []string{"point " + r[0] + ":"}
	for _, d := range s.dims[1:] {
		parts = append(parts, r[d])
	}
	if n := distinct(s.table, s.dims[0]); n > 1 {
		var traces []string
		for _, row := range s.table.Rows {
			if !slices.Contains(traces, row[s.dims[0]]) {
				traces = append(traces, row[s.dims[0]])
			}
		}
		parts = append(parts, fmt.Sprintf("· trace %d/%d", slices.Index(traces, r[s.dims[0]])+1, n))
	}
	return strings.Join(parts, " ")
}

// rows returns the rows shown, filtered and sorted: indexes into
// table.Rows.
func (s *State) rows() []int {
	var out []int
	terms := strings.Fields(strings.ToLower(s.filter))
	for i, r := range s.table.Rows {
		if s.matches(r, terms) {
			out = append(out, i)
		}
	}
	if s.sortCol >= 0 {
		c := s.sortCol
		num := numeric(s.table, c)
		slices.SortStableFunc(out, func(a, b int) int {
			x, y := s.table.Rows[a][c], s.table.Rows[b][c]
			r := strings.Compare(x, y)
			if num {
				fx, ex := strconv.ParseFloat(x, 64)
				fy, ey := strconv.ParseFloat(y, 64)
				switch {
				case ex != nil && ey != nil:
					r = 0
				case ex != nil:
					return 1 // empty cells last either way
				case ey != nil:
					return -1
				default:
					r = cmp.Compare(fx, fy)
				}
			}
			if s.desc {
				r = -r
			}
			return r
		})
	}
	return out
}

// matches reports whether row r passes every filter term: "col=value"
// (the column's value contains value) or text any cell contains.
func (s *State) matches(r []string, terms []string) bool {
	for _, t := range terms {
		if col, val, ok := strings.Cut(t, "="); ok {
			c := -1
			for i, name := range s.table.Columns {
				if strings.EqualFold(name, col) {
					c = i
				}
			}
			if c >= 0 {
				if !strings.Contains(strings.ToLower(r[c]), val) {
					return false
				}
				continue
			}
		}
		found := false
		for _, cell := range r {
			if strings.Contains(strings.ToLower(cell), t) {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// line returns the rows of the selected point's line: those that share
// its values of every dimension but x, in x order (the table's order of
// first appearance, which is the spec's).
func (s *State) line(rows []int, sel int) []int {
	var out []int
	for _, i := range rows {
		if s.sameExcept(i, sel, s.x, -1) {
			out = append(out, i)
		}
	}
	s.sortByX(out)
	return out
}

// sameExcept reports whether rows a and b agree on every dimension but
// the dims skip1 and skip2.
func (s *State) sameExcept(a, b, skip1, skip2 int) bool {
	ra, rb := s.table.Rows[a], s.table.Rows[b]
	for d, c := range s.dims {
		if d != skip1 && d != skip2 && ra[c] != rb[c] {
			return false
		}
	}
	return true
}

// xValues returns the distinct x values of the result in order, and
// their numbers when every one is numeric.
func (s *State) xValues() ([]string, []float64) {
	c := s.dims[s.x]
	var vals []string
	for _, r := range s.table.Rows {
		if !slices.Contains(vals, r[c]) {
			vals = append(vals, r[c])
		}
	}
	nums := make([]float64, len(vals))
	for i, v := range vals {
		n, ok := sw.AxisNumber(s.table.Columns[c], v)
		if !ok {
			return vals, nil
		}
		nums[i] = n
	}
	// Numbers are plotted in increasing order.
	idx := make([]int, len(vals))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(nums[a], nums[b]) })
	sv, sn := make([]string, len(vals)), make([]float64, len(vals))
	for i, j := range idx {
		sv[i], sn[i] = vals[j], nums[j]
	}
	return sv, sn
}

func (s *State) sortByX(rows []int) {
	vals, _ := s.xValues()
	c := s.dims[s.x]
	slices.SortStableFunc(rows, func(a, b int) int {
		return slices.Index(vals, s.table.Rows[a][c]) - slices.Index(vals, s.table.Rows[b][c])
	})
}

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	if m.st == nil {
		return m, nil
	}
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, openedMsg:
		// Any of these may change what is shown.
		m.memo.Invalidate()
	}
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if m.editing {
			return m, m.filterKey(msg)
		}
		return m, m.key(msg)
	case tea.PasteMsg:
		if m.editing {
			return m, m.filterKey(msg)
		}
	case openedMsg:
		return m, m.opened(msg)
	}
	return m, nil
}

// filterKey edits the filter: enter keeps it, esc clears it, any other
// key or a paste goes to the text input.
func (m *Model) filterKey(msg tea.Msg) tea.Cmd {
	s := m.st
	k, isKey := msg.(tea.KeyPressMsg)
	switch {
	case isKey && key.Matches(k, m.keys.Accept):
		m.editing = false
		m.in.Blur()
	case isKey && key.Matches(k, m.keys.Clear):
		m.editing = false
		m.in.Blur()
		s.filter = ""
	default:
		// The cursor is drawn in the prompt's cells, not blinked: the
		// input's commands (blinks) are not needed.
		m.in, _ = m.in.Update(msg)
		s.filter = m.in.Value()
	}
	m.keepSelection()
	return nil
}

// editFilter opens the filter prompt on the current filter, the cursor
// at its end.
func (m *Model) editFilter() {
	in := textinput.New()
	in.Prompt = ""
	in.CharLimit = 500
	in.SetValue(m.st.filter)
	in.Focus()
	m.in, m.editing = in, true
}

// keepSelection selects the first row shown when the selected one is
// filtered out.
func (m *Model) keepSelection() {
	rows := m.st.rows()
	if len(rows) == 0 {
		return
	}
	if !slices.Contains(rows, m.st.sel) {
		m.st.sel = rows[0]
	}
}

func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	s, k := m.st, m.keys
	rows := s.rows()
	pos := slices.Index(rows, s.sel)
	move := func(to int) {
		if len(rows) > 0 {
			s.sel = rows[min(max(to, 0), len(rows)-1)]
		}
	}
	if d, ok := k.List.Move(msg, m.tableRows()-1); ok {
		move(pos + d) // clamped: home and end move by half an int
		return nil
	}
	switch {
	case key.Matches(msg, k.Prev), key.Matches(msg, k.Next):
		if s.sel < 0 {
			return nil
		}
		line := s.line(rows, s.sel)
		i := slices.Index(line, s.sel)
		if key.Matches(msg, k.Prev) {
			i--
		} else {
			i++
		}
		if i >= 0 && i < len(line) {
			s.sel = line[i]
		}
	case key.Matches(msg, k.XAxis):
		if len(s.dims) > 1 {
			s.x = (s.x + 1) % len(s.dims)
			if s.by == s.x {
				// The lines move to the dimension x left.
				s.by = -1
				for d := range s.dims {
					if d != s.x && distinct(s.table, s.dims[d]) > 1 {
						s.by = d
						break
					}
				}
			}
		}
	case key.Matches(msg, k.Lines):
		// Cycle through the dimensions other than x, then one line.
		for {
			s.by++
			if s.by >= len(s.dims) {
				s.by = -1
				break
			}
			if s.by != s.x {
				break
			}
		}
	case key.Matches(msg, k.Metric):
		if len(s.metrics) > 0 {
			s.metric = (s.metric + 1) % len(s.metrics)
		}
	case key.Matches(msg, k.Sort):
		// point order, then each column in turn.
		s.sortCol++
		if s.sortCol >= len(s.table.Columns) {
			s.sortCol = -1
		}
	case key.Matches(msg, k.Reverse):
		s.desc = !s.desc
	case key.Matches(msg, k.Filter):
		m.editFilter()
	case key.Matches(msg, k.Clear):
		s.filter = ""
	case key.Matches(msg, k.Open):
		return m.open()
	}
	return nil
}

// openedMsg carries a point's loaded trace and machine back to the
// Bubble Tea goroutine.
type openedMsg struct {
	run   Run
	point string
	err   error
}

// open loads the selected point's trace and machine in the background.
func (m *Model) open() tea.Cmd {
	s := m.st
	if s.sel < 0 {
		return nil
	}
	if s.open == nil {
		why := s.noOpen
		if why == "" {
			why = "this result has no spec beside it: give tracesim sweep show --spec SPEC to open points"
		}
		return func() tea.Msg { return component.StatusMsg(why) }
	}
	row := slices.Clone(s.table.Rows[s.sel])
	ctx := m.ctx
	return func() tea.Msg {
		run, err := s.open(ctx, row)
		return openedMsg{run: run, point: row[0], err: err}
	}
}

// opened makes the point's machine the session's and opens its trace in
// the Simulate tab.
func (m *Model) opened(msg openedMsg) tea.Cmd {
	if msg.err != nil {
		return func() tea.Msg { return component.StatusMsg("sweep point " + msg.point + ": " + msg.err.Error()) }
	}
	// Unpaced: r runs the point to completion at full speed, as the
	// sweep did, not at the pace set for watching a run.
	cfgMsg := component.WhatIfOf(m.common).SetPoint(msg.run.Config, "sweep point "+msg.point)
	return tea.Sequence(
		func() tea.Msg { return component.OpenTraceMsg{Trace: msg.run.Trace, Path: msg.run.Path} },
		func() tea.Msg { return cfgMsg },
		func() tea.Msg { return component.ShowTabMsg{Name: "Simulate"} },
		func() tea.Msg {
			return component.StatusMsg("sweep point " + msg.point + " in Simulate: r runs it to the end at full speed (+/- pace it)")
		},
	)
}

// formatValue writes a result value for a column: durations with their
// unit, other numbers with four significant digits.
func formatValue(col, v string) string {
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	switch {
	case strings.HasSuffix(col, "_s"):
		return units.FormatDuration(f)
	case col == "bytes":
		return units.FormatBytes(int64(f))
	case strings.Contains(col, "util"):
		return units.FormatPercent(f, 1)
	case f == math.Trunc(f) && math.Abs(f) < 1e15:
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	return strconv.FormatFloat(f, 'g', 4, 64)
}
