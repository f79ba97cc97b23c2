package simulate

import (
	"fmt"
	"math"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// BenchmarkSeriesChart measures one time series of the live pane drawn
// and rendered, for the cost table in docs/tui.md: with ntcharts
// (timeserieslinechart, what the tab draws when a slice brings points),
// the kept ntcharts cells copied (what a frame drawn for anything else
// costs), and cellbuf's TimeChart (what the tab drew before). The series
// has runner.MaxPoints points, the most the tab keeps; the sizes are one
// chart of the strip at 80×24, 160×48 and 200×60.
func BenchmarkSeriesChart(b *testing.B) {
	const n = 1024
	ts, vs := make([]float64, n), make([]float64, n)
	for i := range n {
		ts[i], vs[i] = float64(i)*1e-6, math.Abs(math.Sin(float64(i)/37))*(1<<20)
	}
	t1 := ts[n-1]
	for _, w := range []int{26, 52, 66} {
		h := seriesRows - 1
		for _, c := range []struct {
			name string
			draw func(buf *cellbuf.Buffer, c *timeChart)
		}{
			{"ntcharts", func(buf *cellbuf.Buffer, c *timeChart) {
				c.key = chartKey{} // drawn afresh every time
				c.draw(buf, 0, 0, w, h, ts, vs, t1, 1024, bytesLabel, cellbuf.Style{}, cellbuf.Style{}, false)
			}},
			{"ntcharts-kept", func(buf *cellbuf.Buffer, c *timeChart) {
				c.draw(buf, 0, 0, w, h, ts, vs, t1, 1024, bytesLabel, cellbuf.Style{}, cellbuf.Style{}, false)
			}},
			{"cellbuf", func(buf *cellbuf.Buffer, _ *timeChart) {
				buf.TimeChart(0, 0, w, h, cellbuf.Series{T: ts, V: vs, Format: bytesLabel}, 0, t1, units.FormatDuration, cellbuf.Style{})
			}},
		} {
			b.Run(fmt.Sprintf("%s-%dx%d", c.name, w, h), func(b *testing.B) {
				buf := cellbuf.New(w, h)
				var tc timeChart
				for b.Loop() {
					buf.Clear(cellbuf.Style{})
					c.draw(buf, &tc)
					_ = buf.Render()
				}
			})
		}
	}
}
