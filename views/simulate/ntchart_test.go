package simulate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// chartRows returns the rows of the time-series strip in frame: the
// titles' row, the rows of plot, the time axis and its labels (the last
// rows of the frame), or fails.
func chartRows(t *testing.T, frame string) []string {
	t.Helper()
	lines := strings.Split(frame, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, titleUtil) && strings.Contains(l, titleBytes) && strings.Contains(l, titleBlocked) {
			if len(lines)-i < seriesRows {
				t.Fatalf("the charts' titles are on row %d of %d: no room for the charts", i, len(lines))
			}
			return lines[i:]
		}
	}
	t.Fatalf("no time-series titles in the frame:\n%s", frame)
	return nil
}

// TestGoldenSeriesSizes draws the live pane of the stencil on torus:4x4
// (packet model) after 60 steps of Δt = 10 µs at 80×24 and 160×48: the
// three time series (ntcharts) with their value axes in units and their
// simulated-time axes. Each value axis's top label is the series' peak as
// the engine reported it; the time axis starts at 0 s.
func TestGoldenSeriesSizes(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			tr := stencil(t, 16)
			m := newModel(t, tr, packetConfig(t, "torus:4x4"), sz[0], sz[1])
			for range 60 {
				drive(t, m, press(m, "d"))
			}
			if m.Status() != Paused || len(m.ranksAt) != 60 {
				t.Fatalf("status %v err %q, %d points", m.Status(), m.err, len(m.ranksAt))
			}
			frame := m.View()
			viewtest.Golden(t, frame)
			rows := chartRows(t, frame)
			// The peaks the engine reported: link utilisation in the
			// runner's points, bytes in flight and blocked ranks in the
			// snapshots.
			var util, bytes, blocked float64
			for _, q := range m.pts {
				util = max(util, q.Util)
			}
			for _, q := range m.ranksAt {
				bytes, blocked = max(bytes, q.Bytes), max(blocked, q.Blocked)
			}
			if bytes == 0 || util == 0 || blocked == 0 {
				t.Fatalf("peaks: utilisation %v, bytes %v, blocked %v; want all > 0", util, bytes, blocked)
			}
			if last := m.ranksAt[len(m.ranksAt)-1].Bytes; last != float64(m.snap.Net.BytesInFlight) {
				t.Errorf("last bytes in flight %v, the snapshot says %d", last, m.snap.Net.BytesInFlight)
			}
			cw := (sz[0] - 2) / 3
			axis, labels := rows[len(rows)-2], rows[len(rows)-1]
			// Ranks blocked are counted against every rank.
			for i, want := range []string{percent(util), bytesLabel(bytes), units.FormatCount(max(blocked, float64(tr.Size())))} {
				top := []rune(rows[1])[i*(cw+1) : i*(cw+1)+cw]
				label, _, ok := strings.Cut(string(top), "│")
				if !ok || strings.TrimSpace(label) != want {
					t.Errorf("chart %d: top row %q; want the value axis labelled %q", i, string(top), want)
				}
				if got := m.charts[i].top; got != want {
					t.Errorf("chart %d: top label %q, want %q", i, got, want)
				}
				bottom := []rune(axis)[i*(cw+1) : i*(cw+1)+cw]
				if !strings.Contains(string(bottom), "└") {
					t.Errorf("chart %d: axis row %q has no corner", i, string(bottom))
				}
				times := strings.Fields(string([]rune(labels)[i*(cw+1) : i*(cw+1)+cw]))
				if len(times) < 4 || times[0] != "0" || times[1] != "s" || times[3] != "µs" {
					t.Errorf("chart %d: time labels %q; want 0 s then times in µs", i, times)
				}
			}
		})
	}
}

// TestChartsMemoised checks that a frame drawn again for something else
// (a router selected) copies the charts instead of drawing them, and that
// a new slice draws them again.
func TestChartsMemoised(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 120, 40)
	for range 5 {
		drive(t, m, press(m, "d"))
	}
	m.View()
	steps := []struct {
		name      string
		do        func()
		wantDraws int // charts drawn by ntcharts
	}{
		{"same frame", func() {}, 0},
		{"router selected", func() { drive(t, m, press(m, "right")) }, 0},
		{"resized", func() { m.SetSize(130, 40) }, 3},
		{"one more step", func() { drive(t, m, press(m, "d")) }, 3},
	}
	for _, s := range steps {
		before, frames := m.chartDraws, m.Renders()
		s.do()
		m.View()
		if got := m.chartDraws - before; got != s.wantDraws {
			t.Errorf("%s: %d charts drawn, want %d", s.name, got, s.wantDraws)
		}
		if s.name == "router selected" && m.Renders() == frames {
			t.Errorf("%s: the frame was not drawn again, so the test shows nothing", s.name)
		}
	}
}

// TestChartHold checks when a chart is drawn again: for new data unless
// held, and for a new box or style even when held (a held chart never
// shows a stale layout).
func TestChartHold(t *testing.T) {
	ts, vs := []float64{1e-6, 2e-6}, []float64{0.5, 1}
	more, moreV := []float64{1e-6, 2e-6, 3e-6}, []float64{0.5, 1, 0.25}
	steps := []struct {
		name     string
		w        int
		ts, vs   []float64
		t1       float64
		st       cellbuf.Style
		hold     bool
		wantDraw bool
	}{
		{"first drawing, even held", 30, ts, vs, 2e-6, cellbuf.Style{}, true, true},
		{"same data", 30, ts, vs, 2e-6, cellbuf.Style{}, false, false},
		{"new data, held", 30, more, moreV, 3e-6, cellbuf.Style{}, true, false},
		{"new data", 30, more, moreV, 3e-6, cellbuf.Style{}, false, true},
		{"new box, held", 40, more, moreV, 3e-6, cellbuf.Style{}, true, true},
		{"new style, held", 40, more, moreV, 3e-6, cellbuf.Style{Attrs: cellbuf.Bold}, true, true},
	}
	var c timeChart
	for _, s := range steps {
		b := cellbuf.New(s.w, 6)
		b.Mode = cellbuf.ModePlain
		drew := c.draw(b, 0, 0, s.w, 6, s.ts, s.vs, s.t1, 0.01, percent, s.st, cellbuf.Style{}, s.hold)
		if drew != s.wantDraw {
			t.Errorf("%s: drawn %v, want %v", s.name, drew, s.wantDraw)
		}
		if top := strings.Split(b.Render(), "\n")[0]; !strings.HasPrefix(top, "100 %│") {
			t.Errorf("%s: top row %q, want the axis labelled 100%%", s.name, top)
		}
	}
}

// TestWholeCountLabels: the ranks-blocked axis labels whole ranks only;
// a tick between two is blank, as wide as the top label.
func TestWholeCountLabels(t *testing.T) {
	label := wholeCount("16")
	for _, tt := range []struct {
		v    float64
		want string
	}{{16, "16"}, {8, "8"}, {0, "0"}, {9.6, "  "}, {1.2, "  "}, {12.0000000001, "12"}} {
		if got := label(tt.v); got != tt.want {
			t.Errorf("label(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}

// TestTopLabelWhole: the value axis's top label is drawn whole at every
// chart height. ntcharts sized the label column from the labels at its
// steps only, so where the top row fell between two steps a peak of
// 100 % over labels of 50 % was drawn "00%".
func TestTopLabelWhole(t *testing.T) {
	ts, vs := []float64{1e-6, 2e-6, 3e-6}, []float64{0.2, 1, 0.5}
	for h := 4; h <= 40; h++ {
		var c timeChart
		b := cellbuf.New(40, h)
		b.Mode = cellbuf.ModePlain
		c.draw(b, 0, 0, 40, h, ts, vs, 3e-6, 0.01, percent, cellbuf.Style{}, cellbuf.Style{}, false)
		if top := strings.Split(b.Render(), "\n")[0]; !strings.HasPrefix(top, "100 %│") {
			t.Errorf("height %d: top row %q, want the axis labelled 100%%", h, top)
		}
	}
}
