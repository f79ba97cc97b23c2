package timeline

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component"
)

// layout places the parts of the view in Width×Height cells.
type layout struct {
	w, h          int
	gutter        int // rank labels, left of the time area
	x0, cols      int // the time area's first column and width
	rulerY, overY int // -1 when there is no room
	areaY, areaH  int // rank rows
	per           int // lines per rank: more than bar×lanes leaves lines for arrows and marks
	bar           int // lines of a rank's state bar
	lanes         int // bars per rank: 2 in the both-view (recorded above predicted)
	nvis          int // ranks shown
	legX, legW    int // legend panel (legW 0: none)
	footY, footH  int // details and status lines
}

// legendHeader is the number of legend lines above the first state.
const legendHeader = 1

// layout computes the layout for the current size and ranks.
func (m *Model) layout() layout {
	w, h := max(m.Width, 0), max(m.Height, 0)
	l := layout{w: w, h: h, rulerY: -1, overY: -1, per: 1}
	y := 0
	if h >= 3 {
		l.rulerY, y = 0, 1
	}
	if h >= 8 {
		l.overY, y = y, y+1
	}
	switch {
	case h >= 20:
		l.footH = 3
	case h >= 12:
		l.footH = 2
	case h >= 5:
		l.footH = 1
	}
	l.footY = h - l.footH
	l.areaY, l.areaH = y, max(l.footY-y, 0)
	nr := 1
	if m.tr != nil {
		nr = len(m.tr.Ranks)
	}
	l.gutter = len(strconv.Itoa(max(nr-1, 0))) + 2
	if w >= 70 {
		l.legW = min(40, w/4)
	}
	l.cols = w - l.gutter - l.legW
	if l.cols < 8 {
		l.legW = 0
		l.cols = w - l.gutter
	}
	if l.cols < 8 {
		l.gutter, l.cols = 0, w
	}
	l.x0 = l.gutter
	l.legX = l.x0 + l.cols
	n := len(m.ranks)
	l.lanes = 1
	if m.mode == modeBoth && m.pred != nil {
		// Two bars a rank, and spare lines up to six in all.
		l.lanes, l.per = 2, 2
		if n > 0 {
			l.per = min(max(l.areaH/n, 2), 6)
		}
		l.bar = max((l.per-1)/2, 1)
		l.nvis = min(l.areaH/l.per, n)
		return l
	}
	if n > 0 {
		// Spare lines go to the ranks, up to four each: a second line for
		// arrows and marks, more to make bars thicker and arrows steeper.
		l.per = min(max(l.areaH/n, 1), 4)
	}
	l.bar = max(l.per/2, 1)
	l.nvis = min(l.areaH/l.per, n)
	return l
}

// palette holds the cell styles of a frame, derived from the theme.
type palette struct {
	mono                                 bool
	text, muted, accent, sel, warn, bord cellbuf.Style
	states                               []cellbuf.Color
	fills                                []rune
}

func (m *Model) palette() palette {
	th := m.Theme
	if th == nil {
		th = themes.Mono()
	}
	fg := func(c color.Color) cellbuf.Style { return cellbuf.Style{Fg: cellbuf.FromColor(c)} }
	p := palette{
		mono: th.Mono,
		text: fg(th.Foreground), muted: fg(th.Muted), accent: fg(th.Accent),
		sel: fg(th.Selection), warn: fg(th.Error), bord: fg(th.Border),
	}
	p.sel.Attrs |= cellbuf.Bold
	p.accent.Attrs |= cellbuf.Bold
	if th.Mono {
		p.muted.Attrs |= cellbuf.Faint
	}
	if m.tr != nil {
		// The longer state table: a prediction's extends the recorded
		// trace's, and the both-view draws both.
		states := m.tr.States
		if m.oth.tr != nil && len(m.oth.tr.States) > len(states) {
			states = m.oth.tr.States
		}
		p.states = make([]cellbuf.Color, len(states))
		p.fills = make([]rune, len(states))
		for i := range states {
			d := &states[i]
			p.states[i] = cellbuf.FromColor(th.StateColor(d))
			p.fills[i] = th.Fill(d.Category)
		}
	}
	return p
}

// View implements component.Model. It returns the cached frame unless
// something the frame shows has changed.
func (m *Model) View() string {
	m.poll()
	return m.memo.View(m.Common, func(int, int) string {
		m.lay = m.layout()
		return m.render()
	})
}

// render draws a frame.
func (m *Model) render() string {
	l := m.lay
	buf := m.buf
	buf.Resize(l.w, l.h)
	buf.Mode = cellbuf.ModeOf(m.Theme)
	if m.plain {
		buf.Mode = cellbuf.ModePlain
	}
	if l.w == 0 || l.h == 0 {
		return buf.Render()
	}
	p := m.palette()
	if m.job != nil {
		msg := fmt.Sprintf("building the timeline of %d events…", m.tr.NumEvents())
		buf.SetString(max((l.w-len([]rune(msg)))/2, 0), l.h/2, msg, p.muted, -1)
		return buf.Render()
	}
	if m.tr == nil || len(m.tr.Ranks) == 0 {
		msg := "no trace loaded"
		buf.SetString(max((l.w-len(msg))/2, 0), l.h/2, msg, p.muted, -1)
		return buf.Render()
	}
	m.scrollToRow()
	m.drawRuler(&p)
	m.drawOverview(&p)
	m.drawRanks(&p)
	m.drawLegend(&p)
	m.drawFooter(&p)
	m.drawCone(&p)
	return buf.Render()
}

// stateCell returns the cell showing samples left and right (state id + 1,
// 0 for none): a half block gives two samples per cell in colour, the
// theme's fill glyph one sample in monochrome.
func (p *palette) stateCell(left, right int32) cellbuf.Cell {
	if p.mono {
		s := left
		if s == 0 {
			s = right
		}
		if s == 0 {
			return cellbuf.Cell{Rune: ' '}
		}
		return cellbuf.Cell{Rune: p.fills[s-1]}
	}
	col := func(s int32) cellbuf.Color {
		if s == 0 {
			return cellbuf.NoColor
		}
		return p.states[s-1]
	}
	switch {
	case left == right && left == 0:
		return cellbuf.Cell{Rune: ' '}
	case left == right:
		return cellbuf.Cell{Rune: ' ', Style: cellbuf.Style{Bg: col(left)}}
	case right == 0:
		return cellbuf.Cell{Rune: '▌', Style: cellbuf.Style{Fg: col(left)}}
	case left == 0:
		return cellbuf.Cell{Rune: '▐', Style: cellbuf.Style{Fg: col(right)}}
	}
	return cellbuf.Cell{Rune: '▌', Style: cellbuf.Style{Fg: col(left), Bg: col(right)}}
}

// drawRuler draws the time axis: ticks about every 12 columns, labelled
// relative to the start of the run in the unit that suits the step.
func (m *Model) drawRuler(p *palette) {
	l := m.lay
	if l.rulerY < 0 || l.cols <= 0 {
		return
	}
	ix := m.ix()
	buf := m.buf
	w := m.b - m.a
	cw := w / float64(l.cols)
	unitSec := 1.0
	if ix.timed {
		unitSec = ix.tr.Unit.Seconds()
	}
	step := cellbuf.NiceStep(cw * 12 * unitSec) // seconds (or events)
	if !ix.timed {
		step = max(step, 1)
	}
	// The unit suits the largest label; the decimals suit the step.
	scale, suffix := 1.0, ""
	if ix.timed {
		far := max(math.Abs(m.a-ix.start), math.Abs(m.b-ix.start)) * unitSec
		scale, suffix = units.TimeUnit(max(far, step) * (1 + 1e-9))
	}
	dec := max(0, int(math.Ceil(-math.Log10(step/scale)-1e-9)))
	rel0 := (m.a - ix.start) * unitSec
	k := math.Ceil(rel0/step - 1e-9)
	lastEnd := -1
	cc := m.curCol()
	// A tick every 12 columns: the bound only guards against times so
	// large that k*step stops changing.
	for n := 0; n < l.cols+2; n, k = n+1, k+1 {
		rel := k * step
		t := ix.start + rel/unitSec
		fc := math.Floor((t - m.a) / cw)
		if fc >= float64(l.cols) || math.IsNaN(fc) {
			break
		}
		c := int(fc)
		if c < 0 {
			continue
		}
		var lab string
		if ix.timed {
			v := rel / scale
			if math.Abs(v) < step/scale/2 {
				v = 0 // no "-0"
			}
			lab = strconv.FormatFloat(v, 'f', dec, 64) + suffix
		} else {
			if math.Abs(rel) < 0.5 {
				rel = 0 // no "#-0"
			}
			lab = "#" + strconv.FormatFloat(rel, 'f', 0, 64)
		}
		if c <= lastEnd {
			continue
		}
		// The label goes right of its tick ("|150ms"), else left of it
		// ("150ms|") when the cursor's mark or the right edge would cut
		// it there ("|15" for 150ms), else nowhere.
		n := len([]rune(lab))
		x := c + 1
		switch {
		case !(cc >= c && cc <= c+n) && c+1+n <= l.cols:
		case c-n > lastEnd+2 && !(cc >= c-n && cc <= c):
			// Two spaces at least after the label before, so that
			// "|0.5ms 1.0ms|" does not read as one.
			x = c - n
		default:
			lab = ""
		}
		buf.Set(l.x0+c, l.rulerY, '|', p.muted)
		end := c
		if lab != "" {
			end = max(c, x+buf.SetString(l.x0+x, l.rulerY, lab, p.text, l.cols-x)-1)
		}
		lastEnd = end
	}
	buf.Set(l.x0+cc, l.rulerY, '▼', p.sel)
	if l.gutter > 0 && !ix.timed {
		buf.SetString(0, l.rulerY, "ev", p.muted, l.gutter-1)
	}
}

// overviewCache keeps the overview's samples, which depend only on the
// trace, the width, the shown ranks and the hidden states.
type overviewCache struct {
	valid     bool
	cols      int
	hiddenGen int
	filter    string
	cells     []int32
}

// drawOverview draws the whole run in one line, each cell the state most
// ranks are in, with the visible window bracketed.
func (m *Model) drawOverview(p *palette) {
	l := m.lay
	if l.overY < 0 || l.cols <= 0 {
		return
	}
	ix := m.ix()
	oc := &m.over
	if !oc.valid || oc.cols != l.cols || oc.hiddenGen != m.hiddenGen || oc.filter != m.filterText {
		*oc = overviewCache{valid: true, cols: l.cols, hiddenGen: m.hiddenGen, filter: m.filterText}
		oc.cells = make([]int32, l.cols)
		// Sample at most 256 ranks: the overview is a sketch, and its cost
		// must not grow with the world size.
		stride := max(1, len(m.ranks)/256)
		votes := make([]accum, l.cols)
		row := make([]int32, l.cols)
		w := (ix.end - ix.start) / float64(l.cols)
		for i := 0; i < len(m.ranks); i += stride {
			ix.sampleRow(m.ranks[i], ix.start, w, row, m.hidden, &m.acc)
			for c, s := range row {
				if s != 0 {
					votes[c].add(s, 1)
				}
			}
		}
		for c := range oc.cells {
			oc.cells[c], _ = votes[c].best(nil)
		}
	}
	buf := m.buf
	for c, s := range oc.cells {
		cell := p.stateCell(s, s)
		buf.Set(l.x0+c, l.overY, cell.Rune, cell.Style)
	}
	if l.gutter > 3 {
		buf.SetString(0, l.overY, "all", p.muted, l.gutter-1)
	}
	span := ix.end - ix.start
	ca := int(math.Floor((m.a - ix.start) / span * float64(l.cols)))
	cb := int(math.Ceil((m.b-ix.start)/span*float64(l.cols))) - 1
	ca, cb = min(max(ca, 0), l.cols-1), min(max(cb, 0), l.cols-1)
	for c := ca; c <= cb; c++ {
		if cl := buf.Ptr(l.x0+c, l.overY); cl != nil {
			cl.Attrs |= cellbuf.Underline
		}
	}
	if ca == cb {
		overlay(buf, l.x0+ca, l.overY, '|', p.accent)
	} else {
		overlay(buf, l.x0+ca, l.overY, '[', p.accent)
		overlay(buf, l.x0+cb, l.overY, ']', p.accent)
	}
}

// overlay draws glyph r over a cell, keeping its background so that a
// state stays visible under an arrow.
func overlay(buf *cellbuf.Buffer, x, y int, r rune, st cellbuf.Style) {
	c := buf.Ptr(x, y)
	if c == nil {
		return
	}
	c.Rune = r
	c.Fg = st.Fg
	c.Attrs |= st.Attrs
}

// rowY returns the screen line of the bar of the rank at position i of
// m.ranks (possibly outside the rank area).
func (m *Model) rowY(i int) int { return m.lay.areaY + (i-m.top)*m.lay.per + m.laneDY }

// drawRanks draws the rank labels, the state bars, the messages, the
// selection and the cursor.
func (m *Model) drawRanks(p *palette) {
	l := m.lay
	if l.nvis == 0 || l.cols <= 0 {
		return
	}
	m.drawBars(p, true)
	m.drawMarkers(p)
	m.drawMessages(p)
	m.drawSelection(p)
	if l.lanes == 2 {
		m.drawPredRows(p)
	}
	// The cursor: a guide in the empty cells of its column, and the cell
	// on the cursor rank underlined.
	buf := m.buf
	c := m.curCol()
	for y := l.areaY; y < l.areaY+l.nvis*l.per; y++ {
		if cl := buf.Ptr(l.x0+c, y); cl != nil && cl.Rune == ' ' && cl.Bg == cellbuf.NoColor {
			cl.Rune, cl.Style = '┆', p.muted
		}
	}
	curY := m.rowY(m.row)
	if m.lane == 1 && l.lanes == 2 {
		curY += l.bar
	}
	if cl := buf.Ptr(l.x0+c, curY); cl != nil && m.row >= m.top && m.row < m.top+l.nvis {
		cl.Attrs |= cellbuf.Underline | cellbuf.Bold
	}
}

// drawBars draws the state bars of the shown ranks (with labels: and
// their labels in the gutter).
func (m *Model) drawBars(p *palette, labels bool) {
	l := m.lay
	ix := m.ix()
	buf := m.buf
	samples := 2 * l.cols
	if p.mono {
		samples = l.cols
	}
	sw := (m.b - m.a) / float64(samples)
	if cap(m.row32) < samples {
		m.row32 = make([]int32, samples)
	}
	for v := 0; v < l.nvis; v++ {
		i := m.top + v
		r := m.ranks[i]
		y := m.rowY(i)
		if l.gutter > 0 && labels {
			lab := strconv.Itoa(r)
			st := p.muted
			mark := " "
			if i == m.row {
				mark = ">"
				if l.lanes == 1 || m.lane == 0 {
					st = p.accent
					st.Attrs |= cellbuf.Reverse
				}
			}
			switch {
			case v == 0 && m.top > 0 && i != m.row:
				mark = "↑"
			case v == l.nvis-1 && i < len(m.ranks)-1 && i != m.row:
				mark = "↓"
			}
			buf.SetString(0, y, mark, p.accent, 1)
			buf.SetString(l.gutter-1-len(lab), y, lab, st, -1)
		}
		row := m.row32[:samples]
		ix.sampleRow(r, m.a, sw, row, m.hidden, &m.acc)
		for c := range l.cols {
			var cell cellbuf.Cell
			if p.mono {
				cell = p.stateCell(row[c], 0)
			} else {
				cell = p.stateCell(row[2*c], row[2*c+1])
			}
			for j := range l.bar {
				buf.Set(l.x0+c, y+j, cell.Rune, cell.Style)
			}
		}
	}
}

// drawMarkers draws marker events (MPE user events) as ◇ on the bars,
// when the window holds few enough of them on a rank to tell apart.
func (m *Model) drawMarkers(p *palette) {
	l := m.lay
	ix := m.ix()
	cw := (m.b - m.a) / float64(l.cols)
	for v := 0; v < l.nvis; v++ {
		r := m.ranks[m.top+v]
		list := ix.ranks[r].marks
		lo, hi := ix.rangeIn(r, list, m.a, m.b)
		if hi-lo > l.cols/2 {
			continue
		}
		for _, i := range list[lo:hi] {
			c := int((ix.time(r, int(i)) - m.a) / cw)
			overlay(m.buf, l.x0+min(c, l.cols-1), m.rowY(m.top+v), '◇', p.accent)
		}
	}
}

// drawnArrow is an arrow of the last frame, kept to select it under the
// cursor.
type drawnArrow struct {
	sel    selection
	c1, c2 int // columns of the send and receive ends
}

// maxArrows bounds the arrows of one frame so that a dense window costs
// no more than marks would.
const maxArrows = 4000

// drawMessages draws the messages of the window on the shown ranks: as
// arrows from send to receive when they are few enough to tell apart (or
// when asked), else as send/receive marks.
func (m *Model) drawMessages(p *palette) {
	l := m.lay
	ix := m.ix()
	m.arrows = m.arrows[:0]
	m.resetArrows()
	defer m.flushArrows(p)
	if m.msgMode == msgOff {
		m.drawSelectedArrow(p)
		return
	}
	n := 0
	for v := 0; v < l.nvis; v++ {
		r := m.ranks[m.top+v]
		s, rc := m.msgs.get(ix, r, m.a, m.b)
		n += s + rc
	}
	// Braille arrows stay readable up to about one per four cells of the
	// rank area; beyond that marks say more.
	limit := max(16, l.cols*l.nvis/4)
	arrows := m.msgMode == msgArrows && n <= 2*maxArrows || m.msgMode == msgAuto && n <= limit
	if !arrows {
		m.drawMarks(p)
		m.drawSelectedArrow(p)
		return
	}
	pos := m.pos
	for v := 0; v < l.nvis; v++ {
		r := m.ranks[m.top+v]
		ri := &ix.ranks[r]
		lo, hi := ix.fencedRange(r, ri.sends, ri.sendFence, m.a, m.b)
		for _, i := range ri.sends[lo:hi] {
			m.drawMessage(p, pos, tracefmt.EventRef{Rank: int32(r), Index: i})
		}
		lo, hi = ix.fencedRange(r, ri.recvs, ri.recvFence, m.a, m.b)
		for _, i := range ri.recvs[lo:hi] {
			e := &m.tr.Ranks[r].Events[i]
			if e.Match >= 0 {
				// Drawn from its send when that is in the window on a
				// shown rank.
				sp := int(e.Peer)
				if k := pos[sp]; k >= m.top && k < m.top+l.nvis {
					if t := ix.time(sp, int(e.Match)); t >= m.a && t < m.b {
						continue
					}
				}
			}
			m.drawMessage(p, pos, tracefmt.EventRef{Rank: int32(r), Index: i})
		}
	}
	m.drawSelectedArrow(p)
}

// drawSelectedArrow draws the selected message on top of everything.
func (m *Model) drawSelectedArrow(p *palette) {
	if m.sel.kind == selMsg {
		m.drawMessage(p, m.pos, m.sel.ref)
	}
}

// drawMessage draws the message one of whose ends is ref.
func (m *Model) drawMessage(p *palette, pos []int, ref tracefmt.EventRef) {
	ix := m.ix()
	l := m.lay
	sel := m.selectionOf(ref)
	if len(m.arrows) >= maxArrows && sel != m.sel {
		return
	}
	cw := (m.b - m.a) / float64(l.cols)
	x := func(r tracefmt.EventRef) float64 { return (ix.arrowTime(r) - m.a) / cw }
	selected := sel == m.sel
	if sel.peer.Rank < 0 {
		// An unmatched end: a mark that says which end it is.
		k := pos[sel.ref.Rank]
		if k < 0 {
			return
		}
		e := m.tr.Event(sel.ref)
		g := '▸'
		if e.Kind == tracefmt.KindRecv {
			g = '◂'
		}
		c := int(math.Floor(x(sel.ref)))
		if c >= 0 && c < l.cols && m.inArea(m.rowY(k)) {
			overlay(m.buf, l.x0+c, m.rowY(k), g, p.warn)
		}
		return
	}
	k1, k2 := pos[sel.ref.Rank], pos[sel.peer.Rank]
	if k1 < 0 || k2 < 0 {
		return
	}
	x1, x2 := x(sel.ref), x(sel.peer)
	class := arrowNormal
	switch {
	case selected:
		class = arrowSelected
	case x2 < x1:
		class = arrowReversed
	}
	m.drawArrow(x1, x2, m.rowY(k1), m.rowY(k2), class, x2 < x1)
	m.arrows = append(m.arrows, drawnArrow{sel: sel, c1: int(math.Floor(x1)), c2: int(math.Floor(x2))})
}

// inArea reports whether line y shows ranks.
func (m *Model) inArea(y int) bool {
	return y >= m.lay.areaY && y < m.lay.areaY+m.lay.nvis*m.lay.per
}

// Arrow classes, in increasing priority where arrows cross.
const (
	arrowNormal uint8 = iota + 1
	arrowReversed
	arrowSelected
)

// arrowEnd is a glyph at an end of an arrow, drawn after the lines.
type arrowEnd struct {
	x, y  int
	r     rune
	class uint8
}

// resetArrows clears the braille layer of the rank area.
func (m *Model) resetArrows() {
	n := m.lay.cols * m.lay.nvis * m.lay.per
	if cap(m.dots) < n {
		m.dots = make([]uint8, n)
		m.dotClass = make([]uint8, n)
	}
	m.dots, m.dotClass = m.dots[:n], m.dotClass[:n]
	clear(m.dots)
	clear(m.dotClass)
	m.ends = m.ends[:0]
}

// brailleBit is the bit of the braille dot at (x, y) of a cell, x in 0..1,
// y in 0..3 (Unicode's dot numbering).
var brailleBit = [2][4]uint8{{0x01, 0x02, 0x04, 0x40}, {0x08, 0x10, 0x20, 0x80}}

// drawArrow draws a message from (x1, y1) to (x2, y2), x in fractional
// time columns, y in lines, as a braille line (2×4 dots a cell, so that
// crossing arrows stay apart) with a dot at the send end and a head at
// the receive end pointing the way the message went in time: a message
// received before it was sent points left, and its line is dashed so that
// it stands out without colour.
func (m *Model) drawArrow(x1, x2 float64, y1, y2 int, class uint8, reversed bool) {
	l := m.lay
	rows := l.nvis * l.per
	// Dot coordinates: two a column, four a line, ends mid-line.
	X1, X2 := x1*2, x2*2
	Y1 := float64(y1-l.areaY)*4 + 1.5
	Y2 := float64(y2-l.areaY)*4 + 1.5
	W, H := float64(2*l.cols), float64(4*rows)
	if t0, t1, ok := clipSegment(X1, Y1, X2, Y2, W, H); ok {
		dx, dy := X2-X1, Y2-Y1
		ax, ay := X1+t0*dx, Y1+t0*dy
		bx, by := X1+t1*dx, Y1+t1*dy
		n := int(math.Ceil(max(math.Abs(bx-ax), math.Abs(by-ay))))
		for k := 0; k <= n; k++ {
			f := 0.0
			if n > 0 {
				f = float64(k) / float64(n)
			}
			if reversed && (k/2)%2 == 1 {
				continue // dashes
			}
			px, py := int(ax+f*(bx-ax)), int(ay+f*(by-ay))
			if px < 0 || py < 0 || px >= 2*l.cols || py >= 4*rows {
				continue
			}
			i := (py/4)*l.cols + px/2
			m.dots[i] |= brailleBit[px%2][py%4]
			m.dotClass[i] = max(m.dotClass[i], class)
		}
	}
	fl := func(x float64) int { return int(math.Floor(min(max(x, -2), float64(l.cols+2)))) }
	c1, c2 := fl(x1), fl(x2)
	head := '▶'
	switch {
	case c1 == c2 && y2 > y1:
		head = '▼'
	case c1 == c2 && y2 < y1:
		head = '▲'
	case x2 < x1:
		head = '◀'
	}
	tail := '•'
	if class == arrowSelected {
		tail = '●'
	}
	m.ends = append(m.ends, arrowEnd{c1, y1, tail, class}, arrowEnd{c2, y2, head, class})
}

// contrast returns black or white, whichever is easier to read on bg.
func contrast(bg cellbuf.Color) cellbuf.Color {
	r, g, b, _ := bg.RGB()
	// Rec. 709 luma of the gamma-encoded components: rough, and enough
	// to choose between two extremes.
	if 0.2126*float64(r)+0.7152*float64(g)+0.0722*float64(b) > 140 {
		return cellbuf.RGB(0, 0, 0)
	}
	return cellbuf.RGB(255, 255, 255)
}

// clipSegment clips the segment from (x1, y1) to (x2, y2) to the box
// [0, w) × [0, h) (Liang–Barsky) and returns the parameters of the part
// inside.
func clipSegment(x1, y1, x2, y2, w, h float64) (t0, t1 float64, ok bool) {
	t0, t1 = 0, 1
	dx, dy := x2-x1, y2-y1
	for _, pq := range [4][2]float64{{-dx, x1}, {dx, w - 1e-9 - x1}, {-dy, y1}, {dy, h - 1e-9 - y1}} {
		p, q := pq[0], pq[1]
		if p == 0 {
			if q < 0 {
				return 0, 0, false
			}
			continue
		}
		r := q / p
		if p < 0 {
			t0 = max(t0, r)
		} else {
			t1 = min(t1, r)
		}
		if t0 > t1 {
			return 0, 0, false
		}
	}
	return t0, t1, true
}

// flushArrows draws the braille layer and then the arrow ends over the
// rank area, keeping the states' backgrounds.
func (m *Model) flushArrows(p *palette) {
	l := m.lay
	style := func(class uint8) cellbuf.Style {
		switch class {
		case arrowSelected:
			return p.sel
		case arrowReversed:
			return p.warn
		}
		return p.text
	}
	draw := func(x, y int, r rune, class uint8) {
		st := style(class)
		if c := m.buf.Ptr(x, y); c != nil && class == arrowNormal && c.Bg != cellbuf.NoColor {
			// Over a state's colour, the plain arrow colour may not
			// show: black or white, whichever stands out.
			st.Fg = contrast(c.Bg)
		}
		overlay(m.buf, x, y, r, st)
	}
	for i, d := range m.dots {
		if d != 0 {
			draw(l.x0+i%l.cols, l.areaY+i/l.cols, rune(0x2800+int(d)), m.dotClass[i])
		}
	}
	// Ends by increasing class, so that the selection's are on top.
	for _, class := range []uint8{arrowNormal, arrowReversed, arrowSelected} {
		for _, e := range m.ends {
			if e.class == class && e.x >= 0 && e.x < l.cols && m.inArea(e.y) {
				draw(l.x0+e.x, e.y, e.r, class)
			}
		}
	}
}

// drawMarks marks, in each column, the sends (▸), receives (◂) or both (◆)
// of each shown rank: on the first line under the bar when ranks have
// spare lines, over the bar otherwise (and then only where they are
// sparse).
func (m *Model) drawMarks(p *palette) {
	l := m.lay
	ix := m.ix()
	cw := (m.b - m.a) / float64(l.cols)
	if cap(m.markRow) < l.cols {
		m.markRow = make([]uint8, l.cols)
	}
	row := m.markRow[:l.cols]
	const send, recv = 1, 2
	for v := 0; v < l.nvis; v++ {
		r := m.ranks[m.top+v]
		ri := &ix.ranks[r]
		clear(row)
		if k := bits.Len(uint(cw/ri.w0)) - 1; k >= 0 && len(ri.levels) > 0 {
			// Columns wider than the finest bins: read the counts from
			// the summary level whose bins are at most a column wide,
			// each bin in the column where it starts.
			k = min(k, len(ri.levels)-1)
			lv := ri.levels[k]
			bw := ri.w0 * float64(int(1)<<k)
			for i := max(int(math.Ceil((m.a-ix.start)/bw)), 0); i < len(lv); i++ {
				c := int((ix.start + float64(i)*bw - m.a) / cw)
				if c >= l.cols {
					break
				}
				if lv[i].sends > 0 {
					row[c] |= send
				}
				if lv[i].recvs > 0 {
					row[c] |= recv
				}
			}
		} else {
			// Column edges are increasing, so each search starts where
			// the last one ended.
			s0 := ix.fencedSearch(r, ri.sends, ri.sendFence, m.a)
			r0 := ix.fencedSearch(r, ri.recvs, ri.recvFence, m.a)
			for c := range l.cols {
				b := m.a + float64(c+1)*cw
				if c == l.cols-1 {
					b = m.b
				}
				_, ns := ix.rangeIn(r, ri.sends[s0:], b, b)
				_, nr := ix.rangeIn(r, ri.recvs[r0:], b, b)
				s0 += ns
				r0 += nr
				if ns > 0 {
					row[c] |= send
				}
				if nr > 0 {
					row[c] |= recv
				}
			}
		}
		y := m.rowY(m.top + v)
		if l.per > l.bar*l.lanes && m.laneDY == 0 {
			// The spare line under the rank's bars; the predicted row
			// of the both-view has none of its own, so its marks go
			// over its bar.
			y += l.bar * l.lanes
		} else if n := l.cols - bytes.Count(row, []byte{0}); n > l.cols/3 {
			// Over the bar, marks in most cells would hide the states
			// and say only that messages are everywhere: leave them out.
			continue
		}
		for c, k := range row {
			if k != 0 {
				overlay(m.buf, l.x0+c, y, [4]rune{0, '▸', '◂', '◆'}[k], p.text)
			}
		}
	}
}

// drawSelection brackets the selected state or marks the selected event.
func (m *Model) drawSelection(p *palette) {
	l := m.lay
	if m.sel.kind != selState && m.sel.kind != selEvent {
		return
	}
	k := indexOf(m.ranks, int(m.sel.ref.Rank))
	if k < 0 || !m.inArea(m.rowY(k)) {
		return
	}
	y := m.rowY(k)
	t0, t1, _ := m.selRange()
	cw := (m.b - m.a) / float64(l.cols)
	c0 := int(math.Floor((t0 - m.a) / cw))
	c1 := int(math.Ceil((t1-m.a)/cw)) - 1
	c1 = max(c1, c0)
	set := func(c int, r rune) {
		if c >= 0 && c < l.cols {
			overlay(m.buf, l.x0+c, y, r, p.sel)
		}
	}
	if c0 == c1 {
		set(c0, '|')
		return
	}
	set(c0, '[')
	set(c1, ']')
}

// statsCache keeps the legend's numbers for one window.
type statsCache struct {
	valid  bool
	a, b   float64
	filter string
	count  []int
	total  []float64
	sends  int
	recvs  int
}

// msgCountCache keeps each rank's message counts in one window of one
// index: a frame asks for them twice (drawMessages, on the ranks in view,
// to choose arrows or marks; the legend, on every shown rank), and each
// count is two searches of the rank's lists.
type msgCountCache struct {
	ix           *index
	a, b         float64
	sends, recvs []int // per rank; -1: not counted yet
}

// get returns rank r's sends and receives in [a, b] of ix, counting them
// on the first ask.
func (c *msgCountCache) get(ix *index, r int, a, b float64) (sends, recvs int) {
	if c.ix != ix || c.a != a || c.b != b || len(c.sends) != len(ix.ranks) {
		c.ix, c.a, c.b = ix, a, b
		c.sends = slices.Grow(c.sends[:0], len(ix.ranks))[:len(ix.ranks)]
		c.recvs = slices.Grow(c.recvs[:0], len(ix.ranks))[:len(ix.ranks)]
		for i := range c.sends {
			c.sends[i] = -1
		}
	}
	if c.sends[r] < 0 {
		c.sends[r], c.recvs[r] = ix.msgCounts(r, a, b)
	}
	return c.sends[r], c.recvs[r]
}

// drawLegend draws the legend panel: per state, a swatch, the name, and
// the number of intervals and time in the visible window on the shown
// ranks. A hidden state's swatch is a dot.
func (m *Model) drawLegend(p *palette) {
	l := m.lay
	if l.legW <= 1 {
		return
	}
	ix := m.ix()
	buf := m.buf
	sc := &m.stats
	if !sc.valid || sc.a != m.a || sc.b != m.b || sc.filter != m.filterText {
		n := len(m.hidden) // covers both runs' states
		*sc = statsCache{valid: true, a: m.a, b: m.b, filter: m.filterText,
			count: make([]int, n), total: make([]float64, n)}
		for _, r := range m.ranks {
			ix.stateStats(r, m.a, m.b, sc.count, sc.total)
			s, rc := m.msgs.get(ix, r, m.a, m.b)
			sc.sends += s
			sc.recvs += rc
		}
		m.otherStateStats(sc.count, sc.total)
	}
	for y := 0; y < l.footY; y++ {
		buf.Set(l.legX, y, '│', p.bord)
	}
	x, w := l.legX+1, l.legW-1
	title := "States"
	if m.pred != nil && m.mode != modeRecorded {
		title += " · " + modeNames[m.mode]
	} else if m.alt != nil {
		if m.useAlt {
			title += " · " + m.altLabel
		} else {
			title += " · original"
		}
	}
	st := p.accent
	if !m.legend {
		st = p.text
	}
	buf.SetString(x, 0, title, st, w)
	states := m.legendStates()
	slots, per, compact := m.legendRows()
	top := m.legendTop()
	if l.footY-legendHeader > 2 {
		// The last line counts the messages; in the compact form, while
		// the legend has the focus, it gives the cursor state's numbers
		// instead (the rows have no room for them).
		counts := "sends " + strconv.Itoa(sc.sends) + " recvs " + strconv.Itoa(sc.recvs)
		if len(counts) > w {
			// Narrow legend: the timeline's own send and receive marks.
			counts = "msgs ▸" + strconv.Itoa(sc.sends) + " ◂" + strconv.Itoa(sc.recvs)
			if len([]rune(counts)) > w {
				counts = "▸" + strconv.Itoa(sc.sends) + " ◂" + strconv.Itoa(sc.recvs)
			}
		}
		if compact && m.legend && m.legendRow < len(states) {
			s := states[m.legendRow]
			counts = strconv.Itoa(sc.count[s]) + " × " + m.fmtDur(sc.total[s])
		}
		buf.SetString(x, l.footY-1, counts, p.muted, w)
	}
	for i := 0; i < slots && top+i < len(states); i++ {
		s := states[top+i]
		y := legendHeader + i*per
		line := cellbuf.Style{}
		if m.legend && top+i == m.legendRow {
			line.Attrs |= cellbuf.Reverse
			buf.Set(x, y, '>', p.accent)
		}
		sw := p.stateCell(s+1, s+1)
		if !p.mono {
			sw = cellbuf.Cell{Rune: '█', Style: cellbuf.Style{Fg: p.states[s]}}
		}
		name := p.text
		if m.hidden[s] {
			sw = cellbuf.Cell{Rune: '·', Style: p.muted}
			name = p.muted
		}
		buf.Set(x+1, y, sw.Rune, sw.Style)
		name.Attrs |= line.Attrs
		if compact {
			buf.SetString(x+3, y, clip(m.stateName(s), w-3), name, w-3)
			continue
		}
		// One line (name, count, time) when wide, else the numbers go on
		// a second line.
		nums := strconv.Itoa(sc.count[s]) + " " + m.fmtDur(sc.total[s])
		nameW := w - 3
		ny := y + 1
		if per == 1 {
			nameW = w - 3 - len([]rune(nums)) - 1
			ny = y
		}
		buf.SetString(x+3, y, clip(m.stateName(s), nameW), name, nameW)
		n := len([]rune(nums))
		buf.SetString(x+w-n, ny, nums, p.muted, n)
	}
	if more := m.legendMore(len(states), slots, per, top, w); more != "" {
		buf.SetString(x, legendHeader+slots*per, more, p.muted, w)
	}
}

// legendRows returns how many states the legend shows, the lines each
// takes, and whether it is in the compact form (one line per state, names
// only). A narrow legend gives each state two lines (name, then count and
// time) while they all fit; when they would not, it switches to the
// compact form, since seeing every state and its colour at once (as in
// Jumpshot's and Vampir's legends) matters more than the numbers. When
// even that leaves states out, the last line is kept for a "+N more"
// line and the legend scrolls with its cursor (L, ↑↓, the wheel).
func (m *Model) legendRows() (slots, per int, compact bool) {
	lines := m.lay.footY - legendHeader
	if lines > 2 {
		lines--
	}
	n := len(m.legendStates())
	per = 1
	if m.lay.legW-1 < 34 {
		per = 2
		if lines/2 < n {
			per, compact = 1, true
		}
	}
	slots = max(lines/per, 1)
	if n > slots && slots > 1 {
		slots--
	}
	return slots, per, compact
}

// legendMore returns the line under a legend that cannot show all n
// states, or "" when it can (or has no line to spare): how many are below
// the shown ones and the key that lists them, or, scrolled to the end,
// how many are above.
func (m *Model) legendMore(n, slots, per, top, w int) string {
	lines := m.lay.footY - legendHeader
	if lines > 2 {
		lines--
	}
	if n <= slots || slots*per >= lines {
		return ""
	}
	below := n - top - slots
	var forms []string
	switch {
	case below > 0 && m.legend:
		forms = []string{fmt.Sprintf("↓ %d more", below), fmt.Sprintf("↓%d", below)}
	case below > 0:
		forms = []string{fmt.Sprintf("+%d more (L lists all)", below), fmt.Sprintf("+%d more (L)", below), fmt.Sprintf("+%d (L)", below), fmt.Sprintf("+%d", below)}
	case top > 0:
		forms = []string{fmt.Sprintf("↑ %d more", top), fmt.Sprintf("↑%d", top)}
	}
	for _, f := range forms {
		if len([]rune(f)) <= w {
			return f
		}
	}
	return ""
}

// legendTop returns the first legend row shown, so that the legend
// cursor stays visible.
func (m *Model) legendTop() int {
	slots, _, _ := m.legendRows()
	return max(0, m.legendRow-slots+1)
}

// clip shortens s to w cells with an ellipsis.
func clip(s string, w int) string {
	r := []rune(s)
	if len(r) <= w {
		return s
	}
	if w <= 1 {
		return string(r[:max(w, 0)])
	}
	return string(r[:w-1]) + "…"
}

// drawFooter draws the details of the selection and the status line
// (prompt, messages, a summary of the window).
func (m *Model) drawFooter(p *palette) {
	l := m.lay
	if l.footH == 0 {
		return
	}
	buf := m.buf
	status, sst := m.statusLine()
	if m.prompt.kind != promptNone {
		// The cursor is a block at the end, or the character under it
		// reversed.
		status, sst = promptLabels[m.prompt.kind]+m.prompt.in.Value()+"█", p.accent
		if pos, n := m.prompt.in.Position(), len([]rune(m.prompt.in.Value())); pos < n {
			status = status[:len(status)-len("█")]
			defer func() {
				x := len([]rune(promptLabels[m.prompt.kind])) + pos
				if c := buf.Ptr(x, l.h-1); c != nil && x < l.w {
					c.Attrs |= cellbuf.Reverse
				}
			}()
		}
	}
	details := ""
	if m.sel.kind != selNone {
		details = m.describe(m.sel)
	}
	if l.lanes == 2 {
		if d := m.bothDetails(); len(d) > 0 && l.footH > 2 {
			for i, s := range d[:min(len(d), l.footH-1)] {
				buf.SetString(0, l.footY+i, s, p.sel, l.w)
			}
			buf.SetString(0, l.h-1, status, sst, l.w)
			return
		} else if len(d) > 0 {
			details = strings.Join(d, "  ")
		}
	}
	if l.footH == 1 {
		if m.prompt.kind == promptNone && details != "" {
			status, sst = details, p.sel
		}
		buf.SetString(0, l.footY, status, sst, l.w)
		return
	}
	lines := component.Wrap(details, l.w, l.footH-1)
	for i, s := range lines {
		buf.SetString(0, l.footY+i, s, p.sel, l.w)
	}
	buf.SetString(0, l.h-1, status, sst, l.w)
}

// statusLine returns the status text: a message, else the window, the
// times in use and a note for untimed traces.
func (m *Model) statusLine() (string, cellbuf.Style) {
	p := cellbuf.Style{}
	ix := m.ix()
	if states := m.legendStates(); m.legend && m.lay.legW == 0 && m.legendRow < len(states) {
		// No room for the legend panel: the status line stands in.
		s := states[m.legendRow]
		vis := "shown"
		if m.hidden[s] {
			vis = "hidden"
		}
		return fmt.Sprintf("legend %d/%d: %s (%s)  ↑↓ space", m.legendRow+1, len(states), m.stateName(s), vis), p
	}
	if m.status != "" {
		return m.status, p
	}
	var b strings.Builder
	res := (m.b - m.a) / float64(max(m.lay.cols, 1))
	b.WriteString(m.fmtTimeRes(m.a, res) + " – " + m.fmtTimeRes(m.b, res) + " (" + m.fmtDur(m.b-m.a) + ")  cursor " + m.fmtTimeRes(m.cur, res))
	if m.filterText != "" {
		b.WriteString("  ranks " + m.filterText)
	}
	if m.alt != nil && !m.swapped {
		lab := "original"
		if m.useAlt {
			lab = m.altLabel
		}
		b.WriteString("  times: " + lab + " (a)")
	}
	if m.pred != nil {
		b.WriteString("  " + m.modeShort() + " (p)")
	}
	if !ix.timed {
		b.WriteString("  untimed trace: positions are event order")
	}
	if m.msgMode != msgAuto {
		b.WriteString("  messages: " + msgModeNames[m.msgMode])
	}
	return b.String(), p
}

// fmtSeconds formats seconds with an adaptive unit.
// without the space, so that a duration never breaks across lines.
func fmtSeconds(s float64) string { return strings.Replace(units.FormatDuration(s), " ", "", 1) }

// fmtBytes formats a byte count.
func fmtBytes(n int64) string { return units.FormatBytes(n) }
