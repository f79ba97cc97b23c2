package simulate

import (
	"math"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/v2/linechart/timeserieslinechart"

	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// timeChart is one of the live pane's time series (link utilisation,
// bytes in flight, ranks blocked) drawn by ntcharts' timeserieslinechart:
// a value axis with units, a line, a simulated-time axis with labels. The
// drawn cells are kept and copied into the frame while the data, the box
// and the styles stay the same: the frame is drawn again for a key press
// or a router selection, the charts only when a slice brings points.
type timeChart struct {
	key   chartKey
	cells []cellbuf.Cell // w×h, row by row; Rune 0 is left as it is
	ch    *timeserieslinechart.Model
	// drawnAt is when ntcharts last drew (host time), for chartPeriod,
	// and slice the Model's slice count then.
	drawnAt time.Time
	slice   int
	// top is the value axis's top label (the series' peak), for tests.
	top string
	// ytop is the top label of the chart being drawn: every label is
	// padded to its width.
	ytop string
}

// chartKey is what a drawn chart depends on.
type chartKey struct {
	w, h     int
	n        int     // points
	lastT    float64 // time of the last point (points are only appended)
	lastV    float64
	t1, hi   float64
	line, ax cellbuf.Style
}

// simNanos is how a simulated time travels through timeserieslinechart,
// which keeps times as time.Time at millisecond resolution: simulated
// runs last microseconds to minutes, so one simulated nanosecond is
// carried as one second. Its label formatter gets the value back.
func simNanos(t float64) time.Time {
	ns := math.Round(t * 1e9)
	// UnixMilli overflows past 2^63 ms: about 106 days of simulated time.
	return time.Unix(int64(min(max(ns, 0), 9e15)), 0)
}

// draw draws the series (ts, vs) over simulated time [0, t1] into the
// w×h box at (x, y) of b, the value axis from 0 to the series' peak
// (floor when the peak is lower, so that an idle series has a scale)
// labelled by yfmt. Negative and NaN values are gaps in the data and are
// left out. With hold, cells drawn for the same box and styles are copied
// even if the data moved on (see chartPeriod). It reports whether
// ntcharts drew (false: the kept cells were copied).
func (c *timeChart) draw(b *cellbuf.Buffer, x, y, w, h int, ts, vs []float64, t1, floor float64, yfmt func(float64) string, line, axis cellbuf.Style, hold bool) bool {
	hi := floor
	for _, v := range vs {
		if v > hi {
			hi = v
		}
	}
	k := chartKey{w: w, h: h, n: len(ts), t1: t1, hi: hi, line: line, ax: axis}
	if len(ts) > 0 {
		k.lastT, k.lastV = ts[len(ts)-1], vs[len(vs)-1]
	}
	drew := false
	same := c.cells != nil && k.w == c.key.w && k.h == c.key.h && k.line == c.key.line && k.ax == c.key.ax
	if k != c.key && !(hold && same) || c.cells == nil {
		c.render(k, ts, vs, yfmt)
		drew = true
	}
	for r := 0; r < h; r++ {
		for col := 0; col < w; col++ {
			if cl := c.cells[r*w+col]; cl.Rune != 0 {
				b.Set(x+col, y+r, cl.Rune, cl.Style)
			}
		}
	}
	return drew
}

// render draws the chart with ntcharts and keeps its cells.
func (c *timeChart) render(k chartKey, ts, vs []float64, yfmt func(float64) string) {
	t0, t1 := simNanos(0), simNanos(k.t1)
	c.ytop = yfmt(k.hi)
	ch := c.ch
	if ch == nil || ch.Width() != k.w || ch.Height() != k.h {
		rows := k.h - 2 // the last two rows are the time axis and its labels
		nc := timeserieslinechart.New(k.w, k.h,
			timeserieslinechart.WithTimeRange(t0, t1),
			timeserieslinechart.WithYRange(0, k.hi),
			// Labels on the value axis at the bottom, the middle and the
			// top; on the time axis about every dozen columns (ntcharts
			// skips one that would touch its neighbour).
			timeserieslinechart.WithXYSteps(12, max((rows+1)/2, 1)),
			timeserieslinechart.WithXLabelFormatter(func(_ int, v float64) string {
				return units.FormatDurationSig(v*1e-9, 3)
			}),
			// Every label as wide as the top one: ntcharts sizes the
			// label column from the labels at its steps only, and a top
			// label wider than those ("100%" over "50%") lost its first
			// character.
			timeserieslinechart.WithYLabelFormatter(func(_ int, v float64) string {
				s := yfmt(v)
				if pad := len(c.ytop) - len(s); pad > 0 {
					s = strings.Repeat(" ", pad) + s
				}
				return s
			}),
			timeserieslinechart.WithLineStyle(runes.ThinLineStyle),
		)
		ch, c.ch = &nc, &nc
	} else {
		// The same box: the chart is kept (its canvas is the larger part
		// of a drawing's allocations) and given the new ranges and points.
		ch.ClearAllData()
		ch.SetTimeRange(t0, t1)
		ch.SetViewTimeRange(t0, t1)
		ch.SetYRange(0, k.hi)
		ch.SetViewYRange(0, k.hi)
	}
	for i, t := range ts {
		if i < len(vs) && vs[i] >= 0 {
			ch.Push(timeserieslinechart.TimePoint{Time: simNanos(t), Value: vs[i]})
		}
	}
	ch.Draw() // the axes and labels, then the line
	// ntcharts styles cells with lipgloss; the frame is a cellbuf, so the
	// cells take the view's styles by where they are: the plot area the
	// line's, the axes and labels the axis's.
	o := ch.Origin()
	if len(c.cells) != k.w*k.h {
		c.cells = make([]cellbuf.Cell, k.w*k.h)
	}
	for r := 0; r < k.h; r++ {
		for col := 0; col < k.w; col++ {
			cl := ch.Canvas.Cell(canvas.Point{X: col, Y: r})
			st := k.ax
			if col > o.X && r < o.Y {
				st = k.line
			}
			c.cells[r*k.w+col] = cellbuf.Cell{Rune: cl.Rune, Style: st}
		}
	}
	c.key, c.top = k, yfmt(k.hi)
}
