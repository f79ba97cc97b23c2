package sizes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// BenchmarkHistogram measures the histogram's bars drawn and rendered,
// for the cost table in docs/tui.md: with ntcharts' barchart, as the view
// draws them, and with cellbuf's HBar rows (cellbufBars), for the 18 bins of the test trace at the bar widths
// of an 80×24 and a 200×60 terminal and for all 41 bins at 200×60 and
// 300×100; and the whole view drawn again at those sizes (a key that
// changes it). Compare within one run: the host's load moves the absolute
// times.
func BenchmarkHistogram(b *testing.B) {
	th := themes.Dark()
	for _, c := range []struct{ bins, barW int }{{18, 45}, {18, 165}, {41, 165}, {41, 265}} {
		vals := make([]int64, c.bins)
		top := int64(0)
		for i := range vals {
			vals[i] = int64(1+i%7) * 1000
			top = max(top, vals[i])
		}
		b.Run(fmt.Sprintf("ntcharts-%dx%d", c.barW, c.bins), func(b *testing.B) {
			for b.Loop() {
				_ = histBars(vals, top, c.barW, th)
			}
		})
		b.Run(fmt.Sprintf("cellbuf-%dx%d", c.barW, c.bins), func(b *testing.B) {
			for b.Loop() {
				_ = cellbufBars(vals, top, c.barW, th)
			}
		})
	}
	for _, sz := range [][2]int{{80, 24}, {200, 60}, {300, 100}} {
		b.Run(fmt.Sprintf("view-%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := newModel(b, th, sz[0], sz[1])
			for b.Loop() {
				m.memo.Invalidate()
				_ = m.View()
			}
		})
	}
}

// cellbufBars draws the histogram's bars as cellbuf's HBar rows in one
// buffer, one row per bin: what the view drew before it used ntcharts,
// kept as the benchmark's and TestBarsAgree's reference.
func cellbufBars(vals []int64, top int64, barW int, th *themes.Theme) []string {
	st := barStyle(th)
	buf := cellbuf.New(barW, len(vals))
	buf.Mode = cellbuf.ModeOf(th)
	for y, v := range vals {
		buf.HBar(0, y, barW, float64(v)/float64(top), st, 0, cellbuf.Style{})
	}
	return strings.Split(buf.Render(), "\n")
}

// TestBarsAgree checks that ntcharts draws the bars cellbuf drew, cell for
// cell, eighths and colours included, so that the benchmark compares like
// with like and the move to ntcharts changed no frame.
func TestBarsAgree(t *testing.T) {
	for _, c := range []struct {
		name string
		vals []int64
		barW int
	}{
		{"test trace's counts", []int64{8, 6, 6, 7, 7, 4, 6, 5, 6, 7, 6, 7, 4, 4, 6, 5, 5, 3}, 45},
		{"a tiny bin beside a huge one", []int64{1, 1 << 30, 3}, 60},
		{"eighths", []int64{1, 2, 3, 4, 5, 6, 7, 8}, 1},
		{"empty bins", []int64{0, 5, 0, 10}, 12},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := int64(0)
			for _, v := range c.vals {
				top = max(top, v)
			}
			for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
				got, want := histBars(c.vals, top, c.barW, th), cellbufBars(c.vals, top, c.barW, th)
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s: row %d (value %d of %d): ntcharts %q, cellbuf %q", th.Name, i, c.vals[i], top, got[i], want[i])
					}
				}
			}
		})
	}
}
