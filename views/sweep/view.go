package sweep

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
)

// chartBuf is the view's cell buffer, reused between frames.
type chartBuf struct {
	b *cellbuf.Buffer
}

// styles are the view's cell styles for the session's theme.
type styles struct {
	norm, title, dim, bold, sel, axis cellbuf.Style
	series                            []cellbuf.Style
}

func (m *Model) styles() styles {
	th := m.common.Theme
	c := cellbuf.FromColor
	st := styles{
		norm:  cellbuf.Style{Fg: c(th.Foreground)},
		title: cellbuf.Style{Fg: c(th.Accent), Attrs: cellbuf.Bold},
		dim:   cellbuf.Style{Fg: c(th.Muted)},
		bold:  cellbuf.Style{Fg: c(th.Foreground), Attrs: cellbuf.Bold},
		sel:   cellbuf.Style{Fg: c(th.Foreground), Bg: c(th.Selection), Attrs: cellbuf.Bold | cellbuf.Reverse},
		axis:  cellbuf.Style{Fg: c(th.Subtle)},
	}
	if th.Mono {
		st.sel = cellbuf.Style{Attrs: cellbuf.Reverse}
	}
	for _, col := range th.Series {
		st.series = append(st.series, cellbuf.Style{Fg: c(col), Attrs: cellbuf.Bold})
	}
	if len(st.series) == 0 {
		st.series = []cellbuf.Style{st.bold}
	}
	return st
}

// markerGlyphs tell the lines apart without colour.
const markerGlyphs = "●■▲◆▼★✚○□△"

// chartHeight is the rows the chart takes of a view h rows high.
func chartHeight(h int) int {
	if h < 12 {
		return max(h-4, 0)
	}
	return h * 3 / 5
}

// tableRows is the number of table rows shown.
func (m *Model) tableRows() int {
	h := m.common.Height
	return max(h-1-chartHeight(h)-2, 1)
}

// View implements component.Model. The frame is kept until a key, a
// result's new rows or progress, the size or the theme change it.
func (m *Model) View() string {
	if m.st != m.seenSt || (m.st != nil && m.st.ver != m.seen) {
		m.memo.Invalidate()
		m.seenSt = m.st
		if m.st != nil {
			m.seen = m.st.ver
		}
	}
	return m.memo.View(m.common, m.draw)
}

// draw draws the frame at w×h.
func (m *Model) draw(w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.buf.b == nil {
		m.buf.b = cellbuf.New(w, h)
	}
	b := m.buf.b
	b.Resize(w, h)
	b.Mode = cellbuf.ModeOf(m.common.Theme)
	b.Clear(cellbuf.Style{})
	st := m.styles()
	s := m.st
	if s == nil {
		b.SetString(0, 0, "Sweep", st.title, w)
		for i, l := range []string{
			"No sweep yet.",
			"",
			"On the Machine tab, select a setting (bandwidth, latency, topology, …)",
			"and press s to sweep it: its values run on the loaded trace, here.",
			"Or press o and open a sweep result (.csv or .parquet).",
		} {
			b.SetString(0, 2+i, l, st.dim, w)
		}
		return b.Render()
	}
	rows := s.rows()

	title := fmt.Sprintf("Sweep · %s · %d points", s.name, len(s.table.Rows))
	if s.note != "" {
		title += " · " + s.note
	}
	if s.running {
		title = "Sweep · " + s.name + " "
	}
	if s.filter != "" || m.editing {
		title += fmt.Sprintf(" · %d shown", len(rows))
	}
	x := b.SetString(0, 0, ansi.Truncate(title, w, "…"), st.title, w)
	m.bar = sweepBar{}
	if s.running {
		// A progress bar (bubbles, spliced in by withBar) and the
		// points done, the estimated time left, how to stop.
		eta := "estimating the time left"
		if s.done > 0 && s.elapsed > 0 {
			left := time.Duration(float64(s.elapsed) * float64(s.total-s.done) / float64(s.done))
			eta = "about " + left.Round(time.Second).String() + " left"
		}
		tail := fmt.Sprintf(" %d/%d points · %s · esc stops", s.done, s.total, eta)
		bw := min(max(w-x-ansi.StringWidth(tail), 0), 40)
		if bw < 5 {
			bw = 0
		}
		m.bar = sweepBar{x: x, w: bw}
		if s.total > 0 {
			m.bar.f = float64(s.done) / float64(s.total)
		}
		x += bw
		x += b.SetString(x, 0, tail, st.dim, w-x)
	}
	if len(s.table.Rows) == 0 {
		msg := "The result has no points yet."
		if s.running {
			msg = "Running the first points…"
		}
		b.SetString(0, 2, msg, st.dim, w)
		return m.withBar(b.Render())
	}
	if len(s.metrics) > 0 && !s.running {
		desc := fmt.Sprintf(" · %s vs %s", s.table.Columns[s.metrics[s.metric]], s.table.Columns[s.dims[s.x]])
		if s.by >= 0 {
			desc += ", a line per " + s.table.Columns[s.dims[s.by]]
		}
		b.SetString(x, 0, ansi.Truncate(desc, max(w-x, 0), "…"), st.dim, w-x)
	}
	ch := chartHeight(h)
	if ch >= 5 && len(s.metrics) > 0 {
		m.drawChart(b, st, rows, 1, ch)
	}
	m.drawTable(b, st, rows, 1+ch, h-1-ch)
	return m.withBar(b.Render())
}

// sweepBar is where draw left room for a running sweep's progress bar on
// the title row: its column, width (0: none) and the fraction done.
type sweepBar struct {
	x, w int
	f    float64
}

// withBar puts a running sweep's progress bar, a bubbles progress, into
// the room draw left on the frame's first row (the bar draws itself with
// lipgloss, not into the cell buffer), as the Simulate tab does.
func (m *Model) withBar(frame string) string {
	if m.bar.w <= 0 {
		return frame
	}
	row, rest := frame, ""
	if end := strings.IndexByte(frame, '\n'); end >= 0 {
		row, rest = frame[:end], frame[end:]
	}
	th := m.common.Theme
	bar := component.ProgressBar(m.bar.w, m.bar.f, th.Accent, th.Muted, m.buf.b.Mode == cellbuf.ModeColor)
	return ansi.Truncate(row, m.bar.x, "") + bar + ansi.TruncateLeft(row, m.bar.x+m.bar.w, "") + rest
}

// drawChart plots the selected column against x for the rows that share
// the selected point's values of every other dimension but the lines'.
// ntcharts draws the plot (plotChart, kept while nothing it shows
// changes); the selected point is marked on the kept cells and the legend
// is drawn below them in every frame.
func (m *Model) drawChart(b *cellbuf.Buffer, st styles, rows []int, top, ch int) {
	s := m.st
	w := b.Width()
	if s.sel < 0 || !slices.Contains(rows, s.sel) {
		b.SetString(0, top+1, "No point selected.", st.dim, w)
		return
	}
	// The slice: the selected point's rows, varying in x and the lines'
	// dimension only.
	var slice []int
	for _, i := range rows {
		if s.sameExcept(i, s.sel, s.x, s.by) {
			slice = append(slice, i)
		}
	}
	// Lines, in their order of first appearance.
	var lineVals []string
	for _, i := range slice {
		if v := s.lineOf(i); !slices.Contains(lineVals, v) {
			lineVals = append(lineVals, v)
		}
	}
	// The plot: all rows but the legend's.
	k := chartKey{w: w - 1, h: ch - 1, th: m.common.Theme, ver: s.ver, metric: s.metrics[s.metric], x: s.x, by: s.by}
	k.rows = rowsKey(slice)
	c := &m.chart
	if k != c.key || c.cells == nil {
		c.plot(k, s, slice, lineVals, st)
	}
	if c.empty != "" {
		b.SetString(0, top+1, c.empty, st.dim, w)
		return
	}
	for r := 0; r < k.h; r++ {
		for col := 0; col < k.w; col++ {
			if cl := c.cells[r*k.w+col]; cl.Rune != 0 {
				b.Set(col, top+r, cl.Rune, cl.Style)
			}
		}
	}
	markers := []rune(markerGlyphs)
	if p, ok := c.marks[s.sel]; ok {
		b.Set(p.x, top+p.y, markers[p.line%len(markers)], st.sel)
	}
	// Legend: each line's marker and value.
	metric := s.table.Columns[s.metrics[s.metric]]
	legendX, y := 0, top+ch-1
	for li, lv := range lineVals {
		name := lv
		if s.by < 0 {
			name = metric
		}
		item := string(markers[li%len(markers)]) + " " + name
		if legendX+ansi.StringWidth(item) > w {
			break
		}
		b.SetString(legendX, y, item, st.series[li%len(st.series)], w-legendX)
		legendX += ansi.StringWidth(item) + 2
	}
	// What the other dimensions are fixed at.
	var fixed []string
	r := s.table.Rows[s.sel]
	for d, c := range s.dims {
		if d != s.x && d != s.by && distinct(s.table, c) > 1 {
			fixed = append(fixed, s.table.Columns[c]+"="+r[c])
		}
	}
	if len(fixed) > 0 && legendX < w-4 {
		b.SetString(legendX, y, ansi.Truncate("· "+strings.Join(fixed, " "), w-legendX, "…"), st.dim, w-legendX)
	}
}

// lineOf returns the value of the lines' dimension of row i ("" when
// there is one line).
func (s *State) lineOf(i int) string {
	if s.by < 0 {
		return ""
	}
	return s.table.Rows[i][s.dims[s.by]]
}

// rowsKey writes a slice's rows as a string, for chartKey.
func rowsKey(rows []int) string {
	var b []byte
	for _, i := range rows {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ',')
	}
	return string(b)
}

// chartKey is what a plot depends on: its box, the theme, the result
// (its version: rows arrive while a sweep runs), the plotted column, x,
// the lines' dimension and the rows plotted.
type chartKey struct {
	w, h          int
	th            *themes.Theme
	ver           int
	metric, x, by int
	rows          string
}

// mark is where a point's marker is in a plot: its cell and line.
type mark struct{ x, y, line int }

// sweepChart is the plot ntcharts drew last, kept as cells: a frame
// whose chart does not change (a move along the line, a table scroll,
// a sort) copies them, and marks the selected point on the copy.
type sweepChart struct {
	key   chartKey
	cells []cellbuf.Cell // w×h, row by row; Rune 0 is left as it is
	marks map[int]mark   // the plotted rows' markers
	empty string         // why nothing is plotted, if so
	draws int            // ntcharts drawings, for tests

	lc               *linechart.Model // reused while the size stays
	drawn            []int            // lc's cells drawn, y*w+x
	touched          []bool           // the cells a drawing may have set
	xLabels, yLabels map[int]string   // lc's labels
	tags             []lipgloss.Style
}

// ntcharts styles its cells with lipgloss; the plot is copied into a
// cellbuf frame, so each part is drawn with a tag colour that says which
// of the view's styles the cell takes.
const (
	tagAxis = iota + 16
	tagLabel
	tagSeries // tagSeries+i: line i
)

// tag returns the style of tag n, made once.
func (c *sweepChart) tag(n int) lipgloss.Style {
	for len(c.tags) <= n-tagAxis {
		c.tags = append(c.tags, lipgloss.NewStyle().Foreground(ansi.IndexedColor(tagAxis+len(c.tags))))
	}
	return c.tags[n-tagAxis]
}

// chart returns the linechart to draw a w×h plot of [xlo, xhi]×[ylo, yhi]
// in, empty: the one drawn before when the size is the same (its canvas
// is most of a drawing's allocations), else a new one. Its labels are
// c.xLabels and c.yLabels, by column and row from the origin.
func (c *sweepChart) chart(w, h int, xlo, xhi, ylo, yhi float64) *linechart.Model {
	if c.lc == nil || c.lc.Width() != w || c.lc.Height() != h {
		lc := linechart.New(w, h, xlo, xhi, ylo, yhi,
			linechart.WithXYSteps(1, 1),
			linechart.WithStyles(c.tag(tagAxis), c.tag(tagLabel), c.tag(tagSeries)),
			linechart.WithYLabelFormatter(func(i int, _ float64) string { return c.yLabels[i] }),
			linechart.WithXLabelFormatter(func(i int, _ float64) string { return c.xLabels[i] }))
		c.lc = &lc
		return c.lc
	}
	lc := c.lc
	// Canvas.Clear allocates every row again: the cells drawn last time
	// are emptied in place.
	for _, i := range c.drawn {
		lc.Canvas.SetCell(canvas.Point{X: i % w, Y: i / w}, canvas.Cell{})
	}
	lc.SetXYRange(xlo, xhi, ylo, yhi)
	lc.SetViewXYRange(xlo, xhi, ylo, yhi)
	lc.UpdateGraphSizes() // the value labels' width may differ
	return lc
}

// plot draws the chart of the slice's rows with ntcharts' linechart: the
// value axis with round ticks, the x axis labelled at the x values (by
// value, on a log scale when they span a factor of 20 or more, evenly
// spaced when they are not numbers), a braille line and a marker per
// point for each line. Markers of different lines that fall on one cell
// are set side by side (dodged), so that no line hides another's point.
func (c *sweepChart) plot(k chartKey, s *State, slice []int, lineVals []string, st styles) {
	c.key, c.empty, c.marks = k, "", map[int]mark{}
	c.draws++
	if len(c.cells) != k.w*k.h {
		c.cells = make([]cellbuf.Cell, k.w*k.h)
	}
	clear(c.cells)
	metric := s.table.Columns[k.metric]
	xc := s.dims[s.x]
	xs, nums := s.xValues()
	type point struct {
		row, line int
		x, y      float64
	}
	var pts []point
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, i := range slice {
		v, err := strconv.ParseFloat(s.table.Rows[i][k.metric], 64)
		if err != nil {
			continue
		}
		ylo, yhi = min(ylo, v), max(yhi, v)
		pts = append(pts, point{row: i, line: slices.Index(lineVals, s.lineOf(i)), y: v})
	}
	if len(pts) == 0 {
		c.empty = "No values of " + metric + " here."
		return
	}
	if ylo >= 0 && ylo < yhi/2 {
		ylo = 0
	}
	if ylo == yhi {
		ylo, yhi = ylo-math.Max(math.Abs(ylo)*0.1, 1e-12), yhi+math.Max(math.Abs(yhi)*0.1, 1e-12)
	}
	// The value axis: round ticks, a label every three rows at most, the
	// range widened to whole ticks.
	gh := k.h - 2 // the plot's rows; below them the x axis and its labels
	if gh < 2 || k.w < 12 {
		c.empty = " "
		return
	}
	step := niceStep(yhi-ylo, max(gh/3, 1))
	ylo, yhi = math.Floor(ylo/step+1e-9)*step, math.Ceil(yhi/step-1e-9)*step
	yRow := func(v float64) int { return 1 + int(math.Round((v-ylo)/(yhi-ylo)*float64(gh-1))) }
	clear(c.yLabels)
	clear(c.xLabels)
	if c.yLabels == nil {
		c.yLabels, c.xLabels = map[int]string{}, map[int]string{}
	}
	yLabels, xLabels := c.yLabels, c.xLabels
	for t := ylo; t <= yhi+step/2; t += step {
		yLabels[yRow(t)] = formatValue(metric, strconv.FormatFloat(t, 'g', 6, 64))
	}

	// x: a value per x value, log10 on a log scale, the index when not
	// numeric.
	logX := nums != nil && nums[0] > 0 && nums[len(nums)-1]/nums[0] >= 20
	xOf := make(map[string]float64, len(xs))
	for i, v := range xs {
		switch {
		case nums == nil:
			xOf[v] = float64(i)
		case logX:
			xOf[v] = math.Log10(nums[i])
		default:
			xOf[v] = nums[i]
		}
	}
	xlo, xhi := xOf[xs[0]], xOf[xs[len(xs)-1]]
	if nums == nil || xlo == xhi {
		// Categories (or a single value) sit inside the axis, not on it.
		xlo, xhi = xlo-0.5, xhi+0.5
	}
	for i := range pts {
		pts[i].x = xOf[s.table.Rows[pts[i].row][xc]]
	}
	lc := c.chart(k.w, k.h, xlo, xhi, ylo, yhi)
	c.drawn = c.drawn[:0]
	if len(c.touched) != k.w*k.h {
		c.touched = make([]bool, k.w*k.h)
	}
	clear(c.touched)
	touch := func(x, y int) {
		if x >= 0 && x < k.w && y >= 0 && y < k.h {
			c.touched[y*k.w+x] = true
		}
	}
	ox, oy := lc.Origin().X, lc.Origin().Y
	// A point's cell, as linechart's DrawRune puts it.
	cell := func(x, y float64) (int, int) {
		p := canvas.CanvasPointFromFloat64Point(lc.Origin(), lc.ScaleFloat64Point(canvas.Float64Point{X: x, Y: y}))
		return p.X + 1, p.Y - 1
	}
	// The braille lines join the markers' cells: a point's value is
	// moved to the middle of its marker's cell (markers are whole cells,
	// the braille grid has 2×4 dots a cell; unsnapped, a line would pass
	// a row above or below its marker).
	snap := func(x, y float64) canvas.Float64Point {
		cx, cy := cell(x, y)
		fx := float64(cx-ox-1) / float64(max(lc.GraphWidth()-1, 1))
		fy := float64(oy-1-cy) / float64(max(gh-1, 1))
		return canvas.Float64Point{X: xlo + fx*(xhi-xlo), Y: ylo + fy*(yhi-ylo)}
	}
	// x labels centred under their points where they fit, the last
	// value's first and then the others from the left, each a cell
	// clear of those kept: both ends of the axis are labelled.
	gw := lc.GraphWidth()
	type span struct{ a, b int }
	var kept []span
	order := append([]int{len(xs) - 1}, seq(0, len(xs)-1)...)
	for _, j := range order {
		v := xs[j]
		x, _ := cell(xOf[v], ylo)
		i := x - ox - len([]rune(v))/2
		i = max(min(i, gw+1-len(v)), 1) // linechart drops a label it would cut
		sp := span{i, i + ansi.StringWidth(v)}
		if slices.ContainsFunc(kept, func(o span) bool { return sp.a <= o.b && o.a <= sp.b }) {
			continue
		}
		kept = append(kept, sp)
		xLabels[i] = v
	}
	lc.DrawXYAxisAndLabel()
	// Lines first, in x order, then every marker on top.
	grid := graph.NewBrailleGrid(lc.GraphWidth(), lc.GraphHeight(), xlo, xhi, ylo, yhi)
	for li := range lineVals {
		var line []point
		for _, p := range pts {
			if p.line == li {
				line = append(line, p)
			}
		}
		slices.SortStableFunc(line, func(a, b point) int { return cmp.Compare(a.x, b.x) })
		// linechart's DrawBrailleLine: the braille grid's points of each
		// segment, each dot combined into its cell. Its own way makes a
		// grid of the plot's size for every segment and turns every cell
		// of it into a rune: 4 ms of a 300×100 drawing's 8, where this
		// costs what the lines' dots do.
		sty := c.tag(tagSeries + li)
		for j := 1; j < len(line); j++ {
			for _, p := range graph.GetLinePoints(grid.GridPoint(snap(line[j-1].x, line[j-1].y)), grid.GridPoint(snap(line[j].x, line[j].y))) {
				var d runes.PatternDots
				d[brailleDot[p.X%2][p.Y%4]] = true
				at := canvas.Point{X: ox + 1 + p.X/2, Y: p.Y / 4}
				graph.DrawBrailleRune(&lc.Canvas, at, runes.BraillePatternFromPatternDots(d), sty)
				touch(at.X, at.Y)
			}
		}
	}
	markers := []rune(markerGlyphs)
	at := map[[2]int][]point{}
	var cells [][2]int
	for _, p := range pts {
		x, y := cell(p.x, p.y)
		key := [2]int{x, y}
		if at[key] == nil {
			cells = append(cells, key)
		}
		at[key] = append(at[key], p)
	}
	for _, key := range cells {
		same := at[key]
		slices.SortStableFunc(same, func(a, b point) int { return a.line - b.line })
		// Centred on the cell, inside the plot's columns.
		first := min(max(key[0]-(len(same)-1)/2, ox+1), k.w-len(same))
		for j, p := range same {
			x := max(first+j, ox+1)
			lc.Canvas.SetCell(canvas.Point{X: x, Y: key[1]}, canvas.NewCellWithStyle(markers[p.line%len(markers)], c.tag(tagSeries+p.line)))
			c.marks[p.row] = mark{x: x, y: key[1], line: p.line}
			touch(x, key[1])
		}
	}
	// linechart right-aligns the value labels by their length in bytes:
	// one with a µ ends a cell short of the axis, and moves up to it.
	for r := 0; r <= oy; r++ {
		if ox < 1 || yLabels[oy-r] == "" || lc.Canvas.Cell(canvas.Point{X: ox - 1, Y: r}).Rune != 0 {
			continue
		}
		for col := ox - 1; col > 0; col-- {
			lc.Canvas.SetCell(canvas.Point{X: col, Y: r}, lc.Canvas.Cell(canvas.Point{X: col - 1, Y: r}))
		}
		lc.Canvas.SetCell(canvas.Point{X: 0, Y: r}, canvas.Cell{})
	}
	// The cells drawn: the axes and their labels, and those touched.
	// (A canvas cell is read by value with its lipgloss style: reading
	// the empty middle of a 300×100 plot would be half the drawing.)
	for r := 0; r < k.h; r++ {
		for col := 0; col <= ox; col++ {
			touch(col, r)
		}
	}
	for r := oy; r < k.h; r++ {
		for col := 0; col < k.w; col++ {
			touch(col, r)
		}
	}
	for i, t := range c.touched {
		if !t {
			continue
		}
		r, col := i/k.w, i%k.w
		cl := lc.Canvas.Cell(canvas.Point{X: col, Y: r})
		if cl.Rune == 0 {
			continue
		}
		c.drawn = append(c.drawn, i)
		sty := st.axis
		if ic, ok := cl.Style.GetForeground().(ansi.IndexedColor); ok {
			switch n := int(ic); {
			case n == tagLabel:
				sty = st.dim
			case n >= tagSeries:
				sty = st.series[(n-tagSeries)%len(st.series)]
			}
		}
		c.cells[i] = cellbuf.Cell{Rune: cl.Rune, Style: sty}
	}
}

// brailleDot is the index (runes.PatternDots) of the dot at column x
// (0–1) and row y (0–3) of a braille cell.
var brailleDot = [2][4]int{{0, 1, 2, 6}, {3, 4, 5, 7}}

// niceStep returns a round step (1, 2, 2.5 or 5 times a power of ten)
// that divides span into at most n intervals.
func niceStep(span float64, n int) float64 {
	raw := span / float64(max(n, 1))
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*mag >= raw*(1-1e-9) {
			return f * mag
		}
	}
	return 10 * mag
}

// tableCols returns the columns the table shows: the point, the
// plotted column, the makespan, the sort column, the point's dimensions,
// and the error when a point has one. Numbers come first so that narrow
// terminals cut the long trace names, not the results.
func (s *State) tableCols() []int {
	cols := []int{0}
	if len(s.metrics) > 0 {
		cols = append(cols, s.metrics[s.metric])
	}
	if mk := s.table.Column("makespan_s"); mk >= 0 && !slices.Contains(cols, mk) {
		cols = append(cols, mk)
	}
	if s.sortCol >= 0 && !slices.Contains(cols, s.sortCol) {
		cols = append(cols, s.sortCol)
	}
	for _, d := range s.dims {
		if !slices.Contains(cols, d) {
			cols = append(cols, d)
		}
	}
	if e := s.table.Column("error"); e >= 0 && !slices.Contains(cols, e) {
		for _, r := range s.table.Rows {
			if r[e] != "" {
				cols = append(cols, e)
				break
			}
		}
	}
	return cols
}

// drawTable draws the header and the rows around the selected one.
func (m *Model) drawTable(b *cellbuf.Buffer, st styles, rows []int, top, th int) {
	s := m.st
	w := b.Width()
	cols := s.tableCols()
	cells := func(i int) []string {
		out := make([]string, len(cols))
		for k, c := range cols {
			out[k] = formatValue(s.table.Columns[c], s.table.Rows[i][c])
		}
		return out
	}
	// Long values (trace names, topologies) get a fifth of the width.
	textW := max(12, w/5)
	widths := make([]int, len(cols))
	for k, c := range cols {
		name := s.table.Columns[c]
		if c == s.sortCol {
			name += map[bool]string{false: "↑", true: "↓"}[s.desc]
		}
		widths[k] = len([]rune(name))
	}
	for _, i := range rows {
		for k, v := range cells(i) {
			widths[k] = max(widths[k], min(len([]rune(v)), textW))
		}
	}
	draw := func(y int, vals []string, sty cellbuf.Style) {
		x := 0
		for k, v := range vals {
			if x >= w {
				break
			}
			b.SetString(x, y, elide(v, min(widths[k], w-x)), sty, w-x)
			x += widths[k] + 2
		}
	}
	header := make([]string, len(cols))
	for k, c := range cols {
		header[k] = s.table.Columns[c]
		if c == s.sortCol {
			header[k] += map[bool]string{false: "↑", true: "↓"}[s.desc]
		}
	}
	draw(top, header, st.bold)
	n := th - 2
	if m.editing || s.filter != "" {
		n--
	}
	n = max(n, 1)
	pos := max(slices.Index(rows, s.sel), 0)
	// Keep the selected row in view.
	if pos < s.top {
		s.top = pos
	}
	if pos >= s.top+n {
		s.top = pos - n + 1
	}
	s.top = min(s.top, max(len(rows)-n, 0))
	for k := 0; k < n && s.top+k < len(rows); k++ {
		i := rows[s.top+k]
		sty := st.norm
		if i == s.sel {
			b.Fill(0, top+1+k, w, 1, ' ', st.sel)
			sty = st.sel
		}
		draw(top+1+k, cells(i), sty)
	}
	if len(rows) == 0 {
		b.SetString(0, top+1, "No point matches the filter.", st.dim, w)
	}
	if m.editing || s.filter != "" {
		y := top + th - 1
		if !m.editing {
			b.SetString(0, y, "filter: "+s.filter+"  (/ edits, esc clears)", st.dim, w)
			return
		}
		// The text input's value and its cursor: a block at the end, or
		// the character under it reversed.
		x := b.SetString(0, y, "filter: ", st.dim, w)
		val := m.in.Value()
		x0 := x
		x += b.SetString(x, y, val, st.norm, w-x)
		if pos := m.in.Position(); pos < len([]rune(val)) {
			if c := b.Ptr(x0+ansi.StringWidth(string([]rune(val)[:pos])), y); c != nil {
				c.Attrs |= cellbuf.Reverse
			}
		} else {
			x += b.SetString(x, y, "█", st.norm, w-x)
		}
		b.SetString(x, y, "  (enter keeps it, esc clears)", st.dim, w-x)
	}
}

// elide cuts s to w cells with an ellipsis in the middle, so that both
// ends, which tell long values apart (a trace's command and its last
// flag, a topology's kind and size), stay.
func elide(s string, w int) string {
	n := ansi.StringWidth(s)
	if n <= w {
		return s
	}
	if w <= 1 {
		return "…"[:min(w, 1)*len("…")]
	}
	tail := (w - 1) / 2
	head := w - 1 - tail
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, n-tail, "")
}
