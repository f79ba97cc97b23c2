package simulate

import (
	"fmt"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// ranksPoint is one snapshot's count of network trips under way and of
// ranks blocked in a call, at simulated time T (seconds).
type ranksPoint struct {
	T                 float64
	InFlight, Blocked float64
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
	pts = append(pts, ranksPoint{T: t, InFlight: float64(sn.InFlight), Blocked: float64(blocked)})
	if over := len(pts) - runner.MaxPoints; over > 0 {
		pts = append(pts[:0], pts[over:]...)
	}
	return pts
}

// seriesRows is the height of the time-series strip: a title row and a
// chart of four rows of columns, its time axis and the axis's labels.
const seriesRows = 7

// drawSeries draws link utilisation, messages in flight and ranks
// blocked over the simulated time so far, side by side, each with a value
// axis and a time axis. It returns false when w is too narrow for three
// charts with axes.
func (m *Model) drawSeries(p *painter, x, y, w, h int) bool {
	cw := (w - 2) / 3
	if h < seriesRows || cw < 16 {
		return false
	}
	t1 := m.clock.Seconds()
	util := cellbuf.Series{Hi: 1, St: p.series(),
		Format: func(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }}
	for _, q := range m.pts {
		util.T, util.V = append(util.T, q.T), append(util.V, q.Util)
	}
	inflight := cellbuf.Series{St: p.series(), Format: units.FormatCount}
	blocked := cellbuf.Series{St: cellbuf.Style{Fg: p.warnSt.Fg}, Format: units.FormatCount}
	if m.tr != nil {
		blocked.Hi = float64(m.tr.Size())
	}
	for _, q := range m.ranksAt {
		inflight.T, inflight.V = append(inflight.T, q.T), append(inflight.V, q.InFlight)
		blocked.T, blocked.V = append(blocked.T, q.T), append(blocked.V, q.Blocked)
	}
	for i, c := range []struct {
		title string
		s     cellbuf.Series
	}{
		{"link utilisation", util},
		{"messages in flight", inflight},
		{"ranks blocked", blocked},
	} {
		cx := x + i*(cw+1)
		p.text(cx, y, cw, c.title, p.dim)
		if !p.b.TimeChart(cx, y+1, cw, h-1, c.s, 0, t1, units.FormatDuration, p.dim) {
			p.text(cx, y+1, cw, "no time yet", p.dim)
		}
	}
	return true
}
