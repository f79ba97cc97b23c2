package component

import (
	"image/color"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestProgressBar: the bar is width cells, filled to frac; without colour
// it is its glyphs alone, with colour the same glyphs styled.
func TestProgressBar(t *testing.T) {
	fill, empty := color.RGBA{R: 255, A: 255}, color.RGBA{B: 255, A: 255}
	for _, tc := range []struct {
		w    int
		f    float64
		want string
	}{{10, 0.5, "█████░░░░░"}, {4, 0, "░░░░"}, {4, 1, "████"}, {0, 0.5, "█"}} {
		if got := ProgressBar(tc.w, tc.f, fill, empty, false); got != tc.want {
			t.Errorf("ProgressBar(%d, %v) = %q, want %q", tc.w, tc.f, got, tc.want)
		}
		coloured := ProgressBar(tc.w, tc.f, fill, empty, true)
		if ansi.Strip(coloured) != tc.want || coloured == tc.want && tc.w > 0 {
			t.Errorf("coloured ProgressBar(%d, %v) = %q: want %q styled", tc.w, tc.f, coloured, tc.want)
		}
	}
}
