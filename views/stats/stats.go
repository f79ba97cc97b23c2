// Package stats is the statistics view: a per-rank profile (computation,
// MPI, waiting and I/O time as stacked horizontal bars) and a summary of
// the MPI functions (calls, total, mean and maximum time), both sortable.
package stats

import (
	"fmt"
	"image/color"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// Table names one of the view's two tables.
type Table int

// The tables.
const (
	Ranks Table = iota
	Functions
)

// sortState is a table's sort column, direction and scroll offset.
type sortState struct {
	col    int
	desc   bool
	offset int
}

// Model is the stats view.
type Model struct {
	common component.Common
	keys   KeyMap

	tr      *tracefmt.Trace
	prof    *analysis.Profile
	allTime float64 // sum of the ranks' spans, for percentages

	// The Timeline's window, and whether the view profiles only it.
	windowed bool
	// ownScale draws each rank's bar over the full width (shares of its
	// own time); by default bars share one scale, the longest rank's
	// time, so that the imbalance they exist to show shows.
	ownScale   bool
	start, end float64
	span       *derived.Span // shown times count from its start
	hasWindow  bool
	stale      bool // prof must be recomputed for the window setting

	focus Table
	sorts [2]sortState
	order [2][]int // row order of each table

	rows [2]int         // rows each table showed at the last render, for paging
	memo component.Memo // the frame, drawn again when the state changes
}

// New returns a stats view of tr.
func New(c component.Common, tr *tracefmt.Trace) *Model {
	m := &Model{common: c, keys: DefaultKeyMap()}
	m.sorts[Functions] = sortState{col: 2, desc: true}
	m.SetTrace(tr)
	return m
}

// SetTrace replaces the trace the view shows.
func (m *Model) SetTrace(tr *tracefmt.Trace) {
	m.tr = tr
	d := m.common.Cache()
	m.span = derived.SpanOf(d, tr)
	m.windowed, m.hasWindow, m.stale = false, false, false
	m.setProfile(m.wholeRun())
}

// wholeRun returns the profile of the whole run, shared with the other
// sessions through the derived-data cache: the view only reads it.
func (m *Model) wholeRun() *analysis.Profile {
	d := m.common.Cache()
	return derived.Profile(d, m.tr)
}

// SetWindow gives the view the Timeline's visible window (trace units),
// profiled instead of the whole run in window mode.
func (m *Model) SetWindow(start, end float64) {
	if m.hasWindow && start == m.start && end == m.end {
		return
	}
	m.start, m.end, m.hasWindow = start, end, true
	if m.windowed {
		m.stale = true
		m.memo.Invalidate()
	}
}

// refresh recomputes the profile after the window setting changed; it
// waits until the view is drawn so that panning the Timeline costs
// nothing while another tab is shown.
func (m *Model) refresh() {
	if !m.stale {
		return
	}
	m.stale = false
	offsets := [2]int{m.sorts[Ranks].offset, m.sorts[Functions].offset}
	if m.windowed && m.hasWindow && m.tr.Timed {
		m.setProfile(analysis.ComputeProfile(m.tr, analysis.Window{Start: m.start, End: m.end}, nil))
	} else {
		m.setProfile(m.wholeRun())
	}
	m.sorts[Ranks].offset, m.sorts[Functions].offset = offsets[0], offsets[1]
}

func (m *Model) setProfile(p *analysis.Profile) {
	m.prof = p
	m.allTime = p.AllTime()
	m.sorts[Ranks].offset, m.sorts[Functions].offset = 0, 0
	m.resort()
}

// Profile returns the statistics shown; they may be shared with other
// sessions, so the caller must not change them.
func (m *Model) Profile() *analysis.Profile { return m.prof }

// Sort returns the focused table, its sort column and direction.
func (m *Model) Sort() (t Table, col int, desc bool) {
	s := m.sorts[m.focus]
	return m.focus, s.col, s.desc
}

// Init implements component.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	m.common.SetSize(width, height)
	m.memo.Invalidate()
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		m.key(msg)
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scroll(-3)
		case tea.MouseWheelDown:
			m.scroll(3)
		}
	case component.ThemeMsg:
		m.memo.Invalidate()
	}
	return m, nil
}

func (m *Model) key(msg tea.KeyPressMsg) {
	s := &m.sorts[m.focus]
	if d, ok := m.keys.List.Move(msg, m.rows[m.focus]-1); ok {
		m.scroll(d)
		return
	}
	switch {
	case key.Matches(msg, m.keys.Sort):
		n := len(m.rankCols())
		if m.focus == Functions {
			n = len(analysis.FuncColumns())
		}
		s.col = (s.col + 1) % n
		// Names and ranks read best ascending, quantities descending.
		s.desc = s.col != 0
		s.offset = 0
		m.resort()
	case key.Matches(msg, m.keys.Reverse):
		s.desc = !s.desc
		s.offset = 0
		m.resort()
	case key.Matches(msg, m.keys.Switch):
		m.focus = 1 - m.focus
		m.memo.Invalidate()
	case key.Matches(msg, m.keys.Window):
		m.windowed = !m.windowed
		m.stale = true
		m.memo.Invalidate()
	case key.Matches(msg, m.keys.Scale):
		m.ownScale = !m.ownScale
		m.memo.Invalidate()
	}
}

func (m *Model) scroll(d int) {
	s := &m.sorts[m.focus]
	n := len(m.order[m.focus])
	o := max(0, min(s.offset+d, n-max(m.rows[m.focus], 1)))
	if o != s.offset {
		s.offset = o
		m.memo.Invalidate()
	}
}

// resort orders both tables by their sort columns.
func (m *Model) resort() {
	m.memo.Invalidate()
	rs, fs := m.sorts[Ranks], m.sorts[Functions]
	m.order[Ranks] = m.prof.RankOrder(rs.col, rs.desc)
	m.order[Functions] = m.prof.FuncOrder(fs.col, fs.desc)
}

// Renders returns how many times the view has been drawn (not served from
// its cache).
func (m *Model) Renders() int { return m.memo.Renders() }

// View implements component.Model.
func (m *Model) View() string {
	return m.memo.View(m.common, func(w, h int) string {
		m.refresh()
		return m.render(w, h)
	})
}

func (m *Model) render(w, h int) string {
	if w >= 130 {
		lw := w / 2
		left := m.rankTable(lw-1, h)
		right := m.funcTable(w-lw, h)
		return lipgloss.JoinHorizontal(lipgloss.Top, left, " ", right)
	}
	// The function table is short and fixed; the rank table scrolls.
	funcNeed := len(m.order[Functions]) + 2
	top := h - min(funcNeed, h/2)
	if rankNeed := len(m.prof.Ranks) + 2; rankNeed < top {
		top = rankNeed
	}
	parts := []string{}
	if top > 0 {
		parts = append(parts, m.rankTable(w, top))
	}
	if h-top > 0 {
		parts = append(parts, m.funcTable(w, h-top))
	}
	return strings.Join(parts, "\n")
}

// header renders a table's title and column headings.
func (m *Model) header(t Table, title string, cols []string, widths []int) (string, string) {
	st := m.common.Theme.Styles
	// The focused table (the one `f` switches to and the sort, scroll
	// and order keys act on) is marked as the Machine tab marks its
	// current row: a ▸ and a highlighted title; bold alone did not show.
	mark, ts := "  ", st.Dim
	if m.focus == t {
		mark, ts = "▸ ", st.TableSelected.Bold(true)
	}
	s := m.sorts[t]
	dir := "▲"
	if s.desc {
		dir = "▼"
	}
	var hb strings.Builder
	for i, c := range cols {
		if i == s.col {
			c += dir
		}
		if i == 0 {
			hb.WriteString(fmt.Sprintf("%-*s", widths[i], c))
		} else {
			hb.WriteString(fmt.Sprintf(" %*s", widths[i], c))
		}
	}
	return mark + ts.Render(title), st.TableHeader.Render(hb.String())
}

// rankCols returns the rank table's columns.
func (m *Model) rankCols() []string {
	return analysis.RankColumns(m.prof.Timed)
}

// rankCell formats column col of the rank table.
func (m *Model) rankCell(rp *analysis.RankProfile, col int) string {
	if m.prof.Timed {
		return units.FormatDuration(rp.Time[col-1])
	}
	switch col {
	case 1:
		return units.FormatDuration(rp.Burst)
	case 2:
		return units.FormatFlops(rp.Work)
	case 3:
		return strconv.FormatInt(rp.Sends, 10)
	}
	return units.FormatBytes(rp.Bytes)
}

func (m *Model) rankTable(w, h int) string {
	th := m.common.Theme
	cols := m.rankCols()
	widths := make([]int, len(cols))
	widths[0] = 6
	for i := 1; i < len(cols); i++ {
		widths[i] = 9
	}
	title, hdr := m.header(Ranks, "Per-rank profile", cols, widths)
	scale := "one scale (x: per rank)"
	if m.ownScale {
		scale = "per-rank scale (x: one scale)"
	}
	note := "  whole run (w: window) · bars " + scale + " · s sort · f other table"
	switch {
	case !m.prof.Timed:
		note = "  untimed trace: amounts, not times"
	case m.windowed && m.hasWindow:
		sec := m.tr.Unit.Seconds()
		note = fmt.Sprintf("  window %s–%s (w: whole run)", units.FormatDuration((m.start-m.span.Start)*sec), units.FormatDuration((m.end-m.span.Start)*sec))
	}
	lines := []string{title + th.Styles.Dim.Render(note), hdr}
	rows := max(h-2, 0)
	m.rows[Ranks] = rows
	fixed := 6 + (len(cols)-1)*10
	barW := max(w-fixed-1, 0)
	order := m.order[Ranks]
	s := m.sorts[Ranks]
	var top float64     // the largest work, for untimed bars
	var longest float64 // the largest total time, for the shared scale
	for i := range m.prof.Ranks {
		rp := &m.prof.Ranks[i]
		top = max(top, rp.Work, rp.Burst)
		longest = max(longest, rp.Total())
	}
	if m.ownScale {
		longest = 0
	}
	for i := s.offset; i < len(order) && len(lines) < h; i++ {
		rp := &m.prof.Ranks[order[i]]
		line := fmt.Sprintf("%-6d", rp.Rank)
		for c := 1; c < len(cols); c++ {
			line += fmt.Sprintf(" %9s", m.rankCell(rp, c))
		}
		if barW > 0 {
			if m.prof.Timed {
				line += " " + m.bar(rp, barW, longest)
			} else if top > 0 {
				seg := m.segment(analysis.Compute, max(rp.Work, rp.Burst))
				line += " " + m.barRow(barW, func(b *cellbuf.Buffer) { b.Stacked(0, 0, barW, top, []cellbuf.Segment{seg}) })
			}
		}
		lines = append(lines, line)
	}
	return component.Fit(lines, w, h)
}

// activityColor is the colour of an activity's bar segment.
func activityColor(th *themes.Theme, a analysis.Activity) (color.Color, rune) {
	cat := [...]tracefmt.Category{tracefmt.CatCompute, tracefmt.CatUser, tracefmt.CatP2P, tracefmt.CatWait, tracefmt.CatIO}[a]
	return th.Categories[cat], th.Fill(cat)
}

// bar draws a rank's time shares as a stacked bar of width w: the full
// width is scale seconds (0: the rank's own time).
func (m *Model) bar(rp *analysis.RankProfile, w int, scale float64) string {
	total := rp.Total()
	segs := make([]cellbuf.Segment, 0, analysis.NumActivities)
	for a := analysis.Activity(0); a < analysis.NumActivities; a++ {
		segs = append(segs, m.segment(a, rp.Time[a]))
	}
	bw := w
	if scale > 0 && total > 0 {
		// Shares of the longest rank's time: shorter ranks end early.
		bw = int(float64(w)*total/scale + 0.5)
	}
	return m.barRow(w, func(b *cellbuf.Buffer) { b.Stacked(0, 0, bw, total, segs) })
}

// segment is activity a's part of a bar: a block in its colour, or its
// glyph in monochrome (compute, a blank there, marked '·').
func (m *Model) segment(a analysis.Activity, v float64) cellbuf.Segment {
	th := m.common.Theme
	c, g := activityColor(th, a)
	switch {
	case !th.Mono:
		g = '█'
	case g == ' ':
		g = '·'
	}
	return cellbuf.Segment{V: v, Glyph: g, St: cellbuf.Style{Fg: cellbuf.FromColor(c)}}
}

// barRow renders what draw puts in a row of w cells.
func (m *Model) barRow(w int, draw func(*cellbuf.Buffer)) string {
	b := cellbuf.New(w, 1)
	b.Mode = cellbuf.ModeOf(m.common.Theme)
	draw(b)
	return b.Render()
}

func (m *Model) funcTable(w, h int) string {
	th := m.common.Theme
	nameW := max(w-(6+1+10+1+10+1+10+1+10+1+6), 12)
	widths := []int{nameW, 6, 10, 10, 10, 6}
	title, hdr := m.header(Functions, "Functions", analysis.FuncColumns(), widths)
	legend := ""
	for a := analysis.Activity(0); a < analysis.NumActivities; a++ {
		seg := m.segment(a, 1)
		legend += " " + m.barRow(1, func(b *cellbuf.Buffer) { b.Set(0, 0, seg.Glyph, seg.St) }) + " " + a.String()
	}
	lines := []string{title + th.Styles.Dim.Render("  bars:") + legend, hdr}
	m.rows[Functions] = max(h-2, 0)
	order := m.order[Functions]
	s := m.sorts[Functions]
	for i := s.offset; i < len(order) && len(lines) < h; i++ {
		f := &m.prof.Funcs[order[i]]
		pct := 0.0
		if m.allTime > 0 {
			pct = 100 * f.Total / m.allTime
		}
		lines = append(lines, fmt.Sprintf("%-*s %6s %10s %10s %10s %6s",
			nameW, ansi.Truncate(f.Name, nameW, "…"), strconv.Itoa(f.Calls),
			units.FormatDuration(f.Total), units.FormatDuration(f.Mean()), units.FormatDuration(f.Max),
			fmt.Sprintf("%.1f", pct)))
	}
	if len(order) == 0 && len(lines) < h {
		lines = append(lines, th.Styles.Dim.Render("No states in this trace."))
	}
	return component.Fit(lines, w, h)
}
