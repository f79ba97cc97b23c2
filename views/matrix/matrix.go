// Package matrix is the traffic matrix view: a sender × receiver heat map
// of point-to-point bytes, message counts or mean message size on a
// logarithmic colour scale, with row and column totals, a legend and a
// cursor that names the pair under it. Ranks are binned when there are
// more of them than cells, and the matrix can be shown in node space
// (k consecutive ranks per node) as a simulated machine would see it.
package matrix

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/derived"
)

// Mode is the quantity the matrix shows.
type Mode int

// Modes, in the order the mode key cycles them.
const (
	Bytes Mode = iota
	Count
	MeanSize
	numModes
)

// String names the mode.
func (m Mode) String() string {
	switch m {
	case Count:
		return "messages"
	case MeanSize:
		return "mean size"
	}
	return "bytes"
}

// Model is the matrix view.
type Model struct {
	common component.Common
	keys   KeyMap

	ranks   *analysis.Traffic // rank space
	shown   *analysis.Traffic // rank or node space, what is drawn
	perNode int               // ranks per node; 1 is rank space

	mode   Mode
	cx, cy int // cursor, in display cells

	// layout, recomputed when the size, grouping or data change
	lay layout

	memo component.Memo // the frame, drawn again when the state changes
}

// layout is the display-space aggregation of the shown matrix.
type layout struct {
	bin        int // shown rows per display cell
	n          int // display cells per side
	cellW      int
	labelW     int
	totalW     int
	bytes      [][]int64
	count      [][]int64
	rowB, colB []int64
	rowC, colC []int64
}

// New returns a matrix view of tr's point-to-point traffic.
func New(c component.Common, tr *tracefmt.Trace) *Model {
	return NewFromTraffic(c, traffic(c, tr))
}

// traffic returns tr's matrix, shared with the other sessions through c's
// cache: the view only reads it (Nodes and relayout make new matrices).
func traffic(c component.Common, tr *tracefmt.Trace) *analysis.Traffic {
	d := c.Cache()
	return derived.Traffic(d, tr)
}

// NewFromTraffic returns a matrix view of an already computed matrix.
func NewFromTraffic(c component.Common, t *analysis.Traffic) *Model {
	m := &Model{common: c, keys: DefaultKeyMap(), ranks: t, shown: t, perNode: 1}
	m.relayout()
	return m
}

// Init implements component.Model.
func (m *Model) Init() tea.Cmd { return nil }

// SetTrace replaces the trace the matrix shows.
func (m *Model) SetTrace(tr *tracefmt.Trace) {
	m.ranks = traffic(m.common, tr)
	m.perNode = 1
	m.shown = m.ranks
	m.cx, m.cy = 0, 0
	m.relayout()
}

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) {
	if m.common.SetSize(width, height) {
		m.relayout()
	}
}

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return m.keys.ShortHelp() }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return m.keys.FullHelp() }

// Shown returns the matrix drawn, in rank space or in node space, and
// the ranks per node (1: rank space). It may be shared with other
// sessions: the caller must not change it.
func (m *Model) Shown() (t *analysis.Traffic, perNode int) { return m.shown, m.perNode }

// Mode returns the quantity shown.
func (m *Model) Mode() Mode { return m.mode }

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if key.Matches(msg, m.keys.Nodes) && m.ranks.Ranks < 4 {
			// No grouping of two ranks or more per node leaves two nodes.
			return m, func() tea.Msg {
				return component.StatusMsg(fmt.Sprintf("node space needs 4 ranks or more; this trace has %d", m.ranks.Ranks))
			}
		}
		m.key(msg)
	case tea.MouseClickMsg:
		m.click(msg.Mouse())
	case component.ThemeMsg:
		m.memo.Invalidate()
	}
	return m, nil
}

func (m *Model) key(msg tea.KeyPressMsg) {
	x, y := m.cx, m.cy
	switch {
	case key.Matches(msg, m.keys.Up):
		y--
	case key.Matches(msg, m.keys.Down):
		y++
	case key.Matches(msg, m.keys.Left):
		x--
	case key.Matches(msg, m.keys.Right):
		x++
	case key.Matches(msg, m.keys.Home):
		x, y = 0, 0
	case key.Matches(msg, m.keys.Mode):
		m.mode = (m.mode + 1) % numModes
		m.memo.Invalidate()
		return
	case key.Matches(msg, m.keys.Nodes):
		m.cycleNodes()
		return
	default:
		return
	}
	m.moveTo(x, y)
}

func (m *Model) moveTo(x, y int) {
	n := m.lay.n
	x = max(0, min(x, n-1))
	y = max(0, min(y, n-1))
	if x != m.cx || y != m.cy {
		m.cx, m.cy = x, y
		m.memo.Invalidate()
	}
}

// cycleNodes moves to the next ranks-per-node setting: 1 (rank space),
// 2, 4, … up to half the ranks, then back to rank space.
func (m *Model) cycleNodes() {
	k := m.perNode * 2
	var t *analysis.Traffic
	if k <= m.ranks.Ranks/2 {
		t = m.ranks.Nodes(k)
	}
	if t == nil {
		k, t = 1, m.ranks
	}
	m.perNode, m.shown = k, t
	m.cx, m.cy = 0, 0
	m.relayout()
}

// click moves the cursor to the clicked cell.
func (m *Model) click(ms tea.Mouse) {
	l := &m.lay
	if l.cellW == 0 {
		return
	}
	x := (ms.X - l.labelW - 1) / l.cellW
	y := ms.Y - gridTop
	if ms.X < l.labelW+1 || x >= l.n || y < 0 || y >= l.n {
		return
	}
	m.moveTo(x, y)
}

// Lines above the grid: the title and the column header.
const (
	gridTop   = 2
	fixedRows = gridTop + 3 // + column totals, legend, cursor line
)

// relayout bins the shown matrix into the cells the size allows.
func (m *Model) relayout() {
	m.memo.Invalidate()
	t := m.shown
	size := t.Size()
	w, h := m.common.Width, m.common.Height
	l := layout{}
	l.labelW = max(len(strconv.Itoa(t.Ranks-1)), 2)
	l.totalW = 9
	rowsAvail := max(h-fixedRows, 1)
	colsAvail := max(w-l.labelW-1-1-l.totalW, 1)
	l.bin = max(ceilDiv(size, rowsAvail), ceilDiv(size, colsAvail), 1)
	l.n = ceilDiv(size, l.bin)
	// Cells about twice as wide as tall look square; wider ones only
	// stretch the picture.
	l.cellW = max(1, min(4, colsAvail/max(l.n, 1)))
	l.bytes, l.count = analysis.Square(l.n), analysis.Square(l.n)
	l.rowB, l.colB = make([]int64, l.n), make([]int64, l.n)
	l.rowC, l.colC = make([]int64, l.n), make([]int64, l.n)
	for i := 0; i < size; i++ {
		for j := 0; j < size; j++ {
			b, c := t.Bytes[i][j], t.Count[i][j]
			if c == 0 && b == 0 {
				continue
			}
			y, x := i/l.bin, j/l.bin
			l.bytes[y][x] += b
			l.count[y][x] += c
			l.rowB[y] += b
			l.colB[x] += b
			l.rowC[y] += c
			l.colC[x] += c
		}
	}
	m.lay = l
	m.cx = max(0, min(m.cx, l.n-1))
	m.cy = max(0, min(m.cy, l.n-1))
}

func ceilDiv(a, b int) int {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// value returns the quantity of the current mode for bytes b in c
// messages.
func (m *Model) value(b, c int64) float64 {
	switch m.mode {
	case Count:
		return float64(c)
	case MeanSize:
		if c == 0 {
			return 0
		}
		return float64(b) / float64(c)
	}
	return float64(b)
}

func (m *Model) format(v float64) string {
	switch m.mode {
	case Count:
		return strconv.FormatInt(int64(v), 10)
	}
	return units.FormatBytes(int64(math.Round(v)))
}

// span names the ranks (or nodes) of display cell i.
func (m *Model) span(i int) string {
	t := m.shown
	first := i * m.lay.bin * t.Scale
	last := min((i+1)*m.lay.bin*t.Scale, t.Ranks) - 1
	unit := "rank"
	if m.perNode > 1 {
		unit = "node"
		first, last = i*m.lay.bin, min((i+1)*m.lay.bin, t.Size())-1
	}
	if first == last {
		return fmt.Sprintf("%s %d", unit, first)
	}
	return fmt.Sprintf("%ss %d–%d", unit, first, last)
}

// Renders returns how many times the view has been drawn (not served from
// its cache); tests use it to check that idle keys cost nothing.
func (m *Model) Renders() int { return m.memo.Renders() }

// View implements component.Model.
func (m *Model) View() string {
	return m.memo.View(m.common, func(w, h int) string { return component.Fit(m.render(), w, h) })
}

func (m *Model) render() []string {
	th := m.common.Theme
	st := th.Styles
	l := &m.lay
	lines := make([]string, 0, l.n+fixedRows)

	space := "rank space"
	if m.perNode > 1 {
		space = fmt.Sprintf("node space, block:%d (%d nodes)", m.perNode, m.shown.Size())
	}
	title := st.Title.Render("Traffic "+m.mode.String()) + st.Dim.Render(" · rows send, columns receive · "+space)
	switch {
	case l.bin*m.shown.Scale > 1 && m.perNode == 1:
		title += st.Dim.Render(fmt.Sprintf(" · %d ranks per cell", l.bin*m.shown.Scale))
	case l.bin > 1 && m.perNode > 1:
		title += st.Dim.Render(fmt.Sprintf(" · %d nodes per cell", l.bin))
	}
	lines = append(lines, title)

	// Column header: a label every few cells, where it fits.
	hdr := []byte(strings.Repeat(" ", l.labelW+1+l.n*l.cellW))
	step := max(1, ceilDiv(l.labelW+1, l.cellW))
	for x := 0; x < l.n; x += step {
		s := strconv.Itoa(x * l.bin * m.shown.Scale)
		if m.perNode > 1 {
			s = strconv.Itoa(x * l.bin)
		}
		at := l.labelW + 1 + x*l.cellW
		if at+len(s) <= len(hdr) && (x == 0 || hdr[at-1] == ' ') {
			copy(hdr[at:], s)
		}
	}
	lines = append(lines, st.Dim.Render(string(hdr)+" "+fmt.Sprintf("%*s", l.totalW, "sent")))

	// The colour scale is logarithmic between the smallest and the
	// largest non-zero value, so that a few large messages do not wash
	// out everything else.
	cells, cols := newRange(), newRange()
	for y := 0; y < l.n; y++ {
		for x := 0; x < l.n; x++ {
			cells.add(m.value(l.bytes[y][x], l.count[y][x]))
		}
		cols.add(m.value(l.colB[y], l.colC[y]))
	}
	// The rows and the Σ row go into one cell buffer: one SGR sequence
	// per run of equal cells rather than one lipgloss render per cell.
	c := cellbuf.FromColor
	dim := cellbuf.Style{Fg: c(th.Muted)}
	none := cellbuf.Style{Fg: c(th.Subtle)}
	sel := cellbuf.Style{Fg: c(th.Selection), Attrs: cellbuf.Bold}
	if th.Mono {
		sel = cellbuf.Style{Attrs: cellbuf.Bold | cellbuf.Reverse}
	}
	bold := cellbuf.Style{Attrs: cellbuf.Bold}
	buf := cellbuf.New(l.labelW+1+l.n*l.cellW+1+l.totalW, l.n+1)
	buf.Mode = cellbuf.ModeOf(th)
	cell := func(x, y int, v float64, r valueRange, cursor bool) {
		x = l.labelW + 1 + x*l.cellW
		switch {
		case cursor:
			g := "◆"
			if l.cellW >= 2 {
				g = "[" + strings.Repeat(" ", l.cellW-2) + "]"
			}
			buf.SetString(x, y, g, sel, -1)
		case v <= 0:
			buf.Set(x, y, '·', none)
		default:
			buf.Heat(x, y, l.cellW, r.scale(v), th)
		}
	}
	row := func(y int, lab, total string, st cellbuf.Style) {
		buf.SetString(0, y, fmt.Sprintf("%*s", l.labelW, lab), dim, -1)
		buf.SetString(l.labelW+1+l.n*l.cellW+1, y, fmt.Sprintf("%*s", l.totalW, total), st, -1)
	}
	for y := 0; y < l.n; y++ {
		lab := strconv.Itoa(y * l.bin * m.shown.Scale)
		if m.perNode > 1 {
			lab = strconv.Itoa(y * l.bin)
		}
		if !(y == 0 || l.bin > 1 || y%max(1, ceilDiv(l.n, 16)) == 0 || y == m.cy) {
			lab = ""
		}
		for x := 0; x < l.n; x++ {
			cell(x, y, m.value(l.bytes[y][x], l.count[y][x]), cells, x == m.cx && y == m.cy)
		}
		row(y, lab, m.format(m.value(l.rowB[y], l.rowC[y])), cellbuf.Style{})
	}
	// Column totals as their own heat row: their numbers do not fit under
	// cells one or two characters wide; the cursor line gives the value.
	for x := 0; x < l.n; x++ {
		cell(x, l.n, m.value(l.colB[x], l.colC[x]), cols, false)
	}
	var totB, totC int64
	for _, b := range l.rowB {
		totB += b
	}
	for _, c := range l.rowC {
		totC += c
	}
	row(l.n, "Σ", m.format(m.value(totB, totC)), bold)
	lines = append(lines, strings.Split(buf.Render(), "\n")...)
	lines = append(lines, m.legend(cells))

	if l.n > 0 {
		y, x := m.cy, m.cx
		v := m.value(l.bytes[y][x], l.count[y][x])
		info := fmt.Sprintf("%s → %s: ", m.span(y), m.span(x))
		detail := fmt.Sprintf("%s in %d msgs", units.FormatBytes(l.bytes[y][x]), l.count[y][x])
		if m.mode != Bytes {
			detail = m.format(v) + " (" + detail + ")"
		}
		lines = append(lines, st.Bold.Render(info)+detail+
			st.Dim.Render(fmt.Sprintf(" · row %s · col %s", m.format(m.value(l.rowB[y], l.rowC[y])), m.format(m.value(l.colB[x], l.colC[x])))))
	}
	return lines
}

// valueRange is the smallest and largest non-zero value of a set.
type valueRange struct{ lo, hi float64 }

func newRange() valueRange { return valueRange{math.Inf(1), 0} }

func (r *valueRange) add(v float64) {
	if v > 0 {
		r.lo, r.hi = math.Min(r.lo, v), math.Max(r.hi, v)
	}
}

// scale maps v to [0, 1] on a log scale from lo to hi (0 for v ≤ 0, 1
// when every value is the same).
func (r valueRange) scale(v float64) float64 {
	switch {
	case v <= 0 || r.hi <= 0:
		return 0
	case r.hi <= r.lo:
		return 1
	}
	return math.Max(0, math.Min(1, math.Log(v/r.lo)/math.Log(r.hi/r.lo)))
}

// legend shows the colour (or glyph) ramp with its end values.
func (m *Model) legend(r valueRange) string {
	th := m.common.Theme
	if r.hi <= 0 {
		msg := "no point-to-point messages"
		if t := m.shown; t.Collectives > 0 {
			msg += fmt.Sprintf("; %d collective calls (%s) not shown", t.Collectives, units.FormatBytes(t.CollectiveBytes))
		}
		return th.Styles.Dim.Render(msg)
	}
	lo, hi := m.format(r.lo), m.format(r.hi)
	const steps = 8
	buf := cellbuf.New(len([]rune(lo))+1+steps+1+len([]rune(hi)), 1)
	buf.Mode = cellbuf.ModeOf(th)
	buf.HeatLegend(0, 0, buf.Width(), lo, hi, steps, th, cellbuf.Style{Fg: cellbuf.FromColor(th.Muted)})
	return th.Styles.Dim.Render("scale (log): · none  ") + buf.Render()
}
