package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/views/cellbuf"
)

// pt is a plotted point: its cell and its row of the result.
type pt struct {
	x, y, row int
}

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

// View implements component.Model.
func (m *Model) View() string {
	w, h := m.common.Width, m.common.Height
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
	switch {
	case s.running:
		title = fmt.Sprintf("Sweep · %s · %d/%d points · esc stops", s.name, s.done, s.total)
	case s.note != "":
		title += " · " + s.note
	}
	if s.filter != "" || m.editing {
		title += fmt.Sprintf(" · %d shown", len(rows))
	}
	x := b.SetString(0, 0, title, st.title, w)
	if len(s.table.Rows) == 0 {
		msg := "The result has no points yet."
		if s.running {
			msg = "Running the first points…"
		}
		b.SetString(0, 2, msg, st.dim, w)
		return b.Render()
	}
	if len(s.metrics) > 0 {
		desc := fmt.Sprintf(" · %s vs %s", s.table.Columns[s.metrics[s.metric]], s.table.Columns[s.dims[s.x]])
		if s.by >= 0 {
			desc += ", a line per " + s.table.Columns[s.dims[s.by]]
		}
		b.SetString(x, 0, desc, st.dim, w-x)
	}
	ch := chartHeight(h)
	if ch >= 5 && len(s.metrics) > 0 {
		m.drawChart(b, st, rows, 1, ch)
	}
	m.drawTable(b, st, rows, 1+ch, h-1-ch)
	return b.Render()
}

// drawChart plots the selected column against x for the rows that share
// the selected point's values of every other dimension but the lines'.
func (m *Model) drawChart(b *cellbuf.Buffer, st styles, rows []int, top, ch int) {
	s := m.st
	w := b.Width()
	if s.sel < 0 || !slices.Contains(rows, s.sel) {
		b.SetString(0, top+1, "No point selected.", st.dim, w)
		return
	}
	metric := s.table.Columns[s.metrics[s.metric]]
	mc := s.metrics[s.metric]

	// The slice: the selected point's rows, varying in x and the lines'
	// dimension only.
	var slice []int
	for _, i := range rows {
		if s.sameExcept(i, s.sel, s.x, s.by) {
			slice = append(slice, i)
		}
	}
	xs, nums := s.xValues()
	xc := s.dims[s.x]
	// Lines, in their order of first appearance.
	var lineVals []string
	lineOf := func(i int) string {
		if s.by < 0 {
			return ""
		}
		return s.table.Rows[i][s.dims[s.by]]
	}
	for _, i := range slice {
		if v := lineOf(i); !slices.Contains(lineVals, v) {
			lineVals = append(lineVals, v)
		}
	}
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, i := range slice {
		if v, err := strconv.ParseFloat(s.table.Rows[i][mc], 64); err == nil {
			ylo, yhi = min(ylo, v), max(yhi, v)
		}
	}
	if math.IsInf(ylo, 0) {
		b.SetString(0, top+1, "No values of "+metric+" here.", st.dim, w)
		return
	}
	if ylo >= 0 && ylo < yhi/2 {
		ylo = 0
	}
	if ylo == yhi {
		ylo, yhi = ylo-math.Max(math.Abs(ylo)*0.1, 1e-12), yhi+math.Max(math.Abs(yhi)*0.1, 1e-12)
	}

	// Legend row, x labels row, axis row: the rest is the plot.
	ph := ch - 3
	labels := []float64{yhi, (ylo + yhi) / 2, ylo}
	lw := 0
	for _, v := range labels {
		lw = max(lw, len([]rune(formatValue(metric, strconv.FormatFloat(v, 'g', -1, 64)))))
	}
	px := lw + 1
	pw := w - px - 2
	if pw < 4 || ph < 2 {
		return
	}
	for i, v := range labels {
		y := top + int(math.Round(float64(i)*float64(ph-1)/2))
		lab := formatValue(metric, strconv.FormatFloat(v, 'g', -1, 64))
		b.SetString(lw-len([]rune(lab)), y, lab, st.dim, lw)
	}
	for y := top; y < top+ph; y++ {
		b.Set(px, y, '│', st.axis)
	}
	b.Set(px, top+ph, '└', st.axis)
	b.Fill(px+1, top+ph, pw+1, 1, '─', st.axis)

	// x positions: by value (log when the values span a factor ≥ 20)
	// when numeric, evenly spaced otherwise.
	col := make(map[string]int, len(xs))
	logX := nums != nil && nums[0] > 0 && nums[len(nums)-1]/nums[0] >= 20
	for i, v := range xs {
		f := 0.5
		switch {
		case len(xs) == 1:
		case nums != nil && logX:
			f = math.Log(nums[i]/nums[0]) / math.Log(nums[len(nums)-1]/nums[0])
		case nums != nil && nums[len(nums)-1] > nums[0]:
			f = (nums[i] - nums[0]) / (nums[len(nums)-1] - nums[0])
		case nums == nil:
			f = float64(i) / float64(len(xs)-1)
		}
		col[v] = px + 1 + int(math.Round(f*float64(pw-1)))
	}
	// x labels, left to right, skipping those that would overlap.
	next := 0
	for _, v := range xs {
		c := col[v]
		lab := []rune(v)
		at := min(max(c-len(lab)/2, px+1), w-len(lab))
		if at < next {
			continue
		}
		b.SetString(at, top+ph+1, v, st.dim, w-at)
		next = at + len(lab) + 1
	}
	rowOf := func(v float64) int {
		f := (v - ylo) / (yhi - ylo)
		return top + ph - 1 - int(math.Round(f*float64(ph-1)))
	}

	// Lines: dots between consecutive points, then the markers on top.
	markers := []rune(markerGlyphs)
	lines := make([][]pt, len(lineVals))
	for li, lv := range lineVals {
		for _, i := range slice {
			if lineOf(i) != lv {
				continue
			}
			v, err := strconv.ParseFloat(s.table.Rows[i][mc], 64)
			if err != nil {
				continue
			}
			lines[li] = append(lines[li], pt{col[s.table.Rows[i][xc]], rowOf(v), i})
		}
		slices.SortStableFunc(lines[li], func(a, b pt) int { return a.x - b.x })
	}
	// Every line's dots first, then the markers, the selected one last:
	// lines that coincide still show their points.
	for li, pts := range lines {
		sty := st.series[li%len(st.series)]
		for k := 1; k < len(pts); k++ {
			a, c := pts[k-1], pts[k]
			steps := max(abs(c.x-a.x), abs(c.y-a.y))
			for t := 1; t < steps; t++ {
				x := a.x + (c.x-a.x)*t/steps
				y := a.y + int(math.Round(float64((c.y-a.y)*t)/float64(steps)))
				if r := b.At(x, y).Rune; r == 0 || r == ' ' {
					b.Set(x, y, '·', sty)
				}
			}
		}
	}
	var sel *pt
	selMark := markers[0]
	for li, pts := range lines {
		for k, p := range pts {
			b.Set(p.x, p.y, markers[li%len(markers)], st.series[li%len(st.series)])
			if p.row == s.sel {
				sel, selMark = &pts[k], markers[li%len(markers)]
			}
		}
	}
	if sel != nil {
		b.Set(sel.x, sel.y, selMark, st.sel)
	}
	// Legend: each line's marker and value.
	legendX := 0
	for li, lv := range lineVals {
		name := lv
		if s.by < 0 {
			name = metric
		}
		item := string(markers[li%len(markers)]) + " " + name
		if legendX+len([]rune(item)) > w {
			break
		}
		b.SetString(legendX, top+ph+2, item, st.series[li%len(st.series)], w-legendX)
		legendX += len([]rune(item)) + 2
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
		b.SetString(legendX, top+ph+2, "· "+strings.Join(fixed, " "), st.dim, w-legendX)
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
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
			b.SetString(x, y, v, sty, min(widths[k], w-x))
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
		prompt := "filter: " + s.filter
		if m.editing {
			prompt += "▏ (enter keeps it, esc clears)"
		} else {
			prompt += "  (/ edits, esc clears)"
		}
		b.SetString(0, top+th-1, prompt, st.dim, w)
	}
}
