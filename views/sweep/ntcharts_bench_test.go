package sweep

import (
	"fmt"
	"math"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/runes"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"
)

// BenchmarkLinechart draws the chart of BenchmarkView's 160×48 frame (and
// its 80×24 and 300×100 ones) with ntcharts v2's linechart instead of
// cellbuf: three lines of ten points on a log x axis, a marker at every
// point, axes labelled with units. The chart alone, without the table,
// costs tens of times the whole cellbuf frame: docs/tui.md has the
// figures, which keep the Sweep tab on cellbuf.
func BenchmarkLinechart(b *testing.B) {
	for _, sz := range [][2]int{{80, 14}, {160, 28}, {300, 60}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			styles := []lipgloss.Style{
				lipgloss.NewStyle().Foreground(lipgloss.Color("4")),
				lipgloss.NewStyle().Foreground(lipgloss.Color("2")),
				lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
			}
			marks := []rune(markerGlyphs)
			y := func(line, i int) canvas.Float64Point {
				x := 2 * float64(i) / 9
				return canvas.Float64Point{X: x, Y: 2e-3 + 2.5e-3/(1+3*x) + float64(line)*2e-4}
			}
			for b.Loop() {
				lc := linechart.New(sz[0], sz[1], 0, 2, 0, 5e-3,
					linechart.WithXYSteps(2, 2),
					linechart.WithXLabelFormatter(func(_ int, v float64) string { return formatValue("bandwidth", fmt.Sprint(math.Pow(10, v))) + "Gb/s" }),
					linechart.WithYLabelFormatter(func(_ int, v float64) string { return formatValue("makespan_s", fmt.Sprint(v)) }))
				lc.DrawXYAxisAndLabel()
				for l := range 3 {
					for i := 1; i < 10; i++ {
						lc.DrawLineWithStyle(y(l, i-1), y(l, i), runes.ArcLineStyle, styles[l])
					}
					for i := range 10 {
						lc.DrawRuneWithStyle(y(l, i), marks[l], styles[l])
					}
				}
				_ = lc.View()
			}
		})
	}
}
