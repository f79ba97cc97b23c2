package cellbuf

import (
	"math"

	"github.com/tracesim/tracesim/themes"
)

// The chart primitives every view draws with: horizontal bars in eighths
// of a cell, stacked bars, sparklines with gaps, heat cells with their
// legend, and a time series with axes. They draw into a Buffer, so a chart
// costs what its cells cost (see BenchmarkCharts and docs/tui.md), and
// they are the one place these glyph ramps are defined.

// eighths are the left-aligned partial blocks from ⅛ to 8⁄8 of a cell.
var eighths = [8]rune{'▏', '▎', '▍', '▌', '▋', '▊', '▉', '█'}

// levels are the bottom-aligned blocks from ⅛ to 8⁄8 of a cell.
var levels = [8]rune{'▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'}

// HBar draws a horizontal bar of w cells filled to fraction f of its
// length, to an eighth of a cell (at least one eighth when f > 0, so a
// non-zero value never vanishes), in fill; the rest of the row is track
// glyphs in trackSt (track 0: left as it is). f is clamped to [0, 1].
func (b *Buffer) HBar(x, y, w int, f float64, fill Style, track rune, trackSt Style) {
	if w <= 0 {
		return
	}
	if !(f > 0) { // NaN too
		f = 0
	}
	e := int(math.Round(math.Min(f, 1) * float64(w*8)))
	if f > 0 && e == 0 {
		e = 1
	}
	full, part := e/8, e%8
	for i := 0; i < w; i++ {
		switch {
		case i < full:
			b.Set(x+i, y, '█', fill)
		case i == full && part > 0:
			b.Set(x+i, y, eighths[part-1], fill)
		case track != 0:
			b.Set(x+i, y, track, trackSt)
		}
	}
}

// Segment is one part of a stacked bar: its value, glyph and style.
type Segment struct {
	V     float64
	Glyph rune
	St    Style
}

// Stacked draws segs side by side in one row of w cells that stands for
// total: each segment ends where the running sum of the values falls, so
// rounding never makes the bar longer or shorter than the sum says.
func (b *Buffer) Stacked(x, y, w int, total float64, segs []Segment) {
	if w <= 0 || !(total > 0) {
		return
	}
	c, acc := 0, 0.0
	for _, s := range segs {
		acc += math.Max(s.V, 0)
		end := min(int(math.Round(acc/total*float64(w))), w)
		for ; c < end; c++ {
			b.Set(x+c, y, s.Glyph, s.St)
		}
	}
}

// Spark draws vals as a sparkline in w cells, the latest on the right,
// each a block from ▁ to █ of its share of hi (hi ≤ 0: the largest value
// shown). A negative or NaN value is a gap: no data for that period,
// which is not the same as a zero (drawn ▁ when hi > 0).
func (b *Buffer) Spark(x, y, w int, vals []float64, hi float64, st Style) {
	if w <= 0 {
		return
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	if !(hi > 0) {
		hi = 0
		for _, v := range vals {
			if v > hi {
				hi = v
			}
		}
	}
	x += w - len(vals)
	for i, v := range vals {
		if !(v >= 0) || hi <= 0 {
			continue
		}
		k := int(math.Round(math.Min(v/hi, 1) * 7))
		b.Set(x+i, y, levels[k], st)
	}
}

// Heat draws w cells of a heat map value v in [0, 1] with th's ramp: a
// full block in the ramp's colour from 15% up (the smallest value must
// stand out from the background), or in a monochrome buffer the shading
// glyph of themes.HeatGlyph. Zero and "no data" are the caller's to draw.
func (b *Buffer) Heat(x, y, w int, v float64, th *themes.Theme) {
	if b.Mode != ModeColor || th == nil || th.Mono {
		g := themes.HeatGlyph(v)
		for i := 0; i < w; i++ {
			b.Set(x+i, y, g, Style{})
		}
		return
	}
	st := Style{Fg: FromColor(th.HeatColor(0.15 + 0.85*v))}
	for i := 0; i < w; i++ {
		b.Set(x+i, y, '█', st)
	}
}

// HeatLegend draws the scale "lo ░▒▓█ hi" (steps heat cells between the
// two labels, in label style) from (x, y) in at most w cells and returns
// the cells used; nothing when it does not fit.
func (b *Buffer) HeatLegend(x, y, w int, lo, hi string, steps int, th *themes.Theme, label Style) int {
	need := len([]rune(lo)) + 1 + steps + 1 + len([]rune(hi))
	if steps < 2 || need > w {
		return 0
	}
	n := b.SetString(x, y, lo, label, -1) + 1
	for i := 0; i < steps; i++ {
		b.Heat(x+n+i, y, 1, float64(i+1)/float64(steps), th)
	}
	n += steps + 1
	return n + b.SetString(x+n, y, hi, label, -1)
}

// Series is a time series for TimeChart: values at times (seconds), a
// negative or NaN value meaning no data for that period.
type Series struct {
	T, V []float64
	// Hi is the top of the value axis (≤ 0: the largest value).
	Hi float64
	// Format writes a value for the axis label ("10 Gb/s", "75%").
	Format func(float64) string
	// St draws the columns.
	St Style
}

// TimeChart draws s in the w×h box at (x, y): a value axis on the left
// (Hi at the top, 0 at the bottom), one column per time step whose
// height, to an eighth of a row, is the value, and below them a time axis
// and, on the last row, tick labels formatted by timeLabel, from t0 to t1
// seconds. Times
// outside [t0, t1] are not drawn; a column with no point in its period is
// a gap. It returns false, drawing nothing, when the box is too small for
// axes (under 3 rows or 16 columns).
func (b *Buffer) TimeChart(x, y, w, h int, s Series, t0, t1 float64, timeLabel func(float64) string, axis Style) bool {
	if h < 3 || w < 16 || !(t1 > t0) {
		return false
	}
	hi := s.Hi
	if !(hi > 0) {
		for _, v := range s.V {
			hi = math.Max(hi, v)
		}
	}
	top, zero := "–", "0"
	if hi > 0 && s.Format != nil {
		top, zero = s.Format(hi), s.Format(0)
	}
	lw := max(len([]rune(top)), len([]rune(zero)))
	rows, cols := h-2, w-lw-1 // the last two rows are the time axis and its labels
	b.SetString(x+lw-len([]rune(top)), y, top, axis, -1)
	b.SetString(x+lw-len([]rune(zero)), y+rows-1, zero, axis, -1)
	for r := 0; r < rows; r++ {
		b.Set(x+lw, y+r, '│', axis)
	}
	b.Set(x+lw, y+rows, '└', axis)
	for c := 1; c <= cols; c++ {
		b.Set(x+lw+c, y+rows, '─', axis)
	}
	// Each column is the mean of its period's points.
	sum := make([]float64, cols)
	cnt := make([]int, cols)
	for i, t := range s.T {
		if i >= len(s.V) || t < t0 || t > t1 || !(s.V[i] >= 0) {
			continue
		}
		c := min(int((t-t0)/(t1-t0)*float64(cols)), cols-1)
		sum[c] += s.V[i]
		cnt[c]++
	}
	if hi > 0 {
		for c := 0; c < cols; c++ {
			if cnt[c] == 0 {
				continue
			}
			e := int(math.Round(math.Min(sum[c]/float64(cnt[c])/hi, 1) * float64(rows*8)))
			if e == 0 && sum[c] > 0 {
				e = 1 // any traffic shows
			}
			for r := 0; e > 0 && r < rows; r, e = r+1, e-8 {
				g := '█'
				if e < 8 {
					g = levels[e-1]
				}
				b.Set(x+lw+1+c, y+rows-1-r, g, s.St)
			}
		}
	}
	// Time ticks at round times (1, 2 or 5 × 10ⁿ apart), about one per
	// dozen columns, their labels never overlapping.
	if timeLabel == nil {
		return true
	}
	step := NiceStep((t1 - t0) / math.Max(float64(cols)/12, 1))
	next := 0
	for k := math.Ceil(t0 / step); k*step <= t1; k++ {
		t := k * step
		c := int(math.Round((t - t0) / (t1 - t0) * float64(cols)))
		lab := timeLabel(t)
		n := len([]rune(lab))
		if c < next || c >= cols {
			continue
		}
		b.Set(x+lw+1+c, y+rows, '┬', axis)
		if c+n <= cols {
			b.SetString(x+lw+1+c, y+rows+1, lab, axis, -1)
			next = c + n + 1
		}
	}
	return true
}

// NiceStep returns the smallest of 1, 2 or 5 × 10ⁿ that is at least d:
// the distance between an axis's ticks (the Timeline's ruler, TimeChart).
func NiceStep(d float64) float64 {
	if !(d > 0) || math.IsInf(d, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(d)))
	for _, f := range []float64{1, 2, 5, 10} {
		if f*p >= d*(1-1e-9) {
			return f * p
		}
	}
	return 10 * p
}
