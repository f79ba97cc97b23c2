package simulate

import (
	"math"
	"strings"
	"time"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// ranksPoint is one snapshot's payload in flight (bytes of the messages
// sent and not yet delivered) and count of ranks blocked in a call, at
// simulated time T (seconds).
type ranksPoint struct {
	T              float64
	Bytes, Blocked float64
}

// appendRanks records sn at simulated time t in pts (the clock shown,
// which runs on through a computation without events), keeping at most
// runner.MaxPoints: the oldest go first, as the runner's chart points do.
func appendRanks(pts []ranksPoint, sn *replay.Snapshot, t float64) []ranksPoint {
	if len(pts) > 0 && t <= pts[len(pts)-1].T {
		return pts
	}
	blocked := 0
	for _, r := range sn.Ranks {
		if r.State == replay.StateBlocked {
			blocked++
		}
	}
	pts = append(pts, ranksPoint{T: t, Bytes: float64(sn.Net.BytesInFlight), Blocked: float64(blocked)})
	if over := len(pts) - runner.MaxPoints; over > 0 {
		pts = append(pts[:0], pts[over:]...)
	}
	return pts
}

// chartPeriod is how often, in host time, a running simulation's charts
// are drawn again: snapshots come 30 times a second, and three ntcharts
// drawings for each (about 1 ms of CPU, more on a loaded host) delay the
// keys queued behind them (BenchmarkKeyLatencyWhileRunning); a frame drawn
// for a key never draws them. A paused or finished run's charts are
// always current.
const chartPeriod = 100 * time.Millisecond

// seriesRows is the least height of the time-series strip: a title row
// and a chart of four rows, its time axis and the axis's labels.
const seriesRows = 7

// Titles of the time series, left to right.
const (
	titleUtil    = "link utilisation"
	titleBytes   = "bytes in flight"
	titleBlocked = "ranks blocked"
)

// seriesData returns the three time series: times and values of link
// utilisation (a fraction), bytes in flight and ranks blocked.
func (m *Model) seriesData() (ut, uv, bt, bv, kv []float64) {
	ut, uv = make([]float64, len(m.pts)), make([]float64, len(m.pts))
	for i, q := range m.pts {
		ut[i], uv[i] = q.T, q.Util
	}
	bt, bv, kv = make([]float64, len(m.ranksAt)), make([]float64, len(m.ranksAt)), make([]float64, len(m.ranksAt))
	for i, q := range m.ranksAt {
		bt[i], bv[i], kv[i] = q.T, q.Bytes, q.Blocked
	}
	return ut, uv, bt, bv, kv
}

// wholeCount labels a count axis: whole numbers only; a tick between
// two ("1.2 ranks") gets blanks as wide as widest, the top label, so
// that the axis keeps its width.
func wholeCount(widest string) func(float64) string {
	return func(v float64) string {
		r := math.Round(v)
		if math.Abs(v-r) > 1e-6*max(1, math.Abs(v)) {
			return strings.Repeat(" ", len(widest))
		}
		return units.FormatCount(r)
	}
}

// percent labels a utilisation axis.
func percent(v float64) string { return units.FormatPercent(v, 0) }

// bytesLabel labels a bytes axis.
func bytesLabel(v float64) string { return units.FormatBytes(int64(v + 0.5)) }

// drawSeries draws link utilisation, bytes in flight and ranks blocked
// over the simulated time so far, side by side, each with a value axis
// (0 to the peak; 0 to the number of ranks for ranks blocked) and a time
// axis (ntcharts, see timeChart). It returns false when w is
// too narrow for three charts with axes.
func (m *Model) drawSeries(p *painter, x, y, w, h int) bool {
	cw := (w - 2) / 3
	if h < seriesRows || cw < 16 {
		return false
	}
	t1 := m.clock.Seconds()
	ut, uv, bt, bv, kv := m.seriesData()
	// Blocked ranks are counted against all the ranks: the axis goes to
	// the trace's size, so that "all blocked" reads as a full chart.
	ranks := 1.0
	if m.tr != nil {
		ranks = max(float64(m.tr.Size()), 1)
	}
	charts := []struct {
		title string
		t, v  []float64
		floor float64
		yfmt  func(float64) string
		st    cellbuf.Style
	}{
		{titleUtil, ut, uv, 0.01, percent, p.series()},
		{titleBytes, bt, bv, 1024, bytesLabel, p.series()},
		{titleBlocked, bt, kv, ranks, wholeCount(units.FormatCount(ranks)), cellbuf.Style{Fg: p.warnSt.Fg}},
	}
	for i, c := range charts {
		cx := x + i*(cw+1)
		p.text(cx, y, cw, c.title, p.dim)
		if !(t1 > 0) {
			p.text(cx, y+1, cw, "no time yet", p.dim)
			continue
		}
		// While running, a frame drawn for a key keeps the charts (the
		// next slice brings them up to date), and so does a slice within
		// chartPeriod of the last drawing.
		ch := &m.charts[i]
		hold := m.status == Running && (ch.slice == m.slices || time.Since(ch.drawnAt) < chartPeriod)
		if ch.draw(p.b, cx, y+1, cw, h-1, c.t, c.v, t1, c.floor, c.yfmt, c.st, p.dim, hold) {
			ch.drawnAt, ch.slice = time.Now(), m.slices
			m.chartDraws++
		}
	}
	return true
}
