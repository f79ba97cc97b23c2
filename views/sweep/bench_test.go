package sweep

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/themes"
)

// BenchmarkView draws the Sweep tab (chart and table) of the test result
// in colour at the sizes of the goldens and larger; the frame budget is
// 10 ms. "unchanged" is a frame after a message that changed nothing
// (the memo's); "move" one after a key that moves the selection along
// the line (the table and the selected marker redrawn, the chart's cells
// copied); "chart" one whose chart ntcharts draws again (another plotted
// column, slice or size). docs/tui.md has the figures.
func BenchmarkView(b *testing.B) {
	right, left := tea.KeyPressMsg{Code: tea.KeyRight}, tea.KeyPressMsg{Code: tea.KeyLeft}
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {300, 100}} {
		name := fmt.Sprintf("%dx%d", sz[0], sz[1])
		m, _ := newModel(b, themes.Default(nil, true), sz[0], sz[1], nil)
		m.View()
		b.Run(name+"/unchanged", func(b *testing.B) {
			for b.Loop() {
				_ = m.View()
			}
		})
		b.Run(name+"/move", func(b *testing.B) {
			i := 0
			for b.Loop() {
				k := right
				if i%2 == 1 {
					k = left
				}
				i++
				m.Update(k)
				_ = m.View()
			}
		})
		b.Run(name+"/chart", func(b *testing.B) {
			for b.Loop() {
				m.chart.key = chartKey{} // as if the plotted data changed
				m.memo.Invalidate()
				_ = m.View()
			}
		})
	}
}
