package sweep

import (
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/themes"
)

// BenchmarkView draws the Sweep tab (chart and table) of the test result
// in colour at the sizes of the goldens and larger: the frame budget is
// 10 ms. docs/tui.md compares it with ntcharts' linechart.
func BenchmarkView(b *testing.B) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {300, 100}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m, _ := newModel(b, themes.Default(nil, true), sz[0], sz[1], nil)
			for b.Loop() {
				_ = m.View()
			}
		})
	}
}
