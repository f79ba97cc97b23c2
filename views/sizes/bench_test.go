package sizes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/NimbleMarkets/ntcharts/v2/barchart"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// BenchmarkHistogram measures the histogram's bars drawn and rendered,
// for the cost table in docs/tui.md: with ntcharts' barchart and with
// cellbuf's HBar rows (what the view draws), for the
// 18 bins of the test trace at the bar widths of an 80×24 and a 200×60
// terminal and for all 41 bins at 200×60; and the whole view drawn again
// at those sizes (a key that changes it).
func BenchmarkHistogram(b *testing.B) {
	th := themes.Dark()
	for _, c := range []struct{ bins, barW int }{{18, 45}, {18, 165}, {41, 165}} {
		vals := make([]int64, c.bins)
		top := int64(0)
		for i := range vals {
			vals[i] = int64(1+i%7) * 1000
			top = max(top, vals[i])
		}
		b.Run(fmt.Sprintf("ntcharts-%dx%d", c.barW, c.bins), func(b *testing.B) {
			for b.Loop() {
				_ = ntchartsBars(vals, top, c.barW, th)
			}
		})
		b.Run(fmt.Sprintf("cellbuf-%dx%d", c.barW, c.bins), func(b *testing.B) {
			for b.Loop() {
				_ = histBars(vals, top, c.barW, th)
			}
		})
	}
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		b.Run(fmt.Sprintf("view-%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := newModel(b, th, sz[0], sz[1])
			for b.Loop() {
				m.memo.Invalidate()
				_ = m.View()
			}
		})
	}
}

// ntchartsBars draws the histogram's bars as the view would with
// ntcharts' barchart: horizontal bars without its axis, one row per bin,
// copied into a cell buffer (ntcharts' own View writes an SGR sequence per
// cell). The view keeps cellbuf's HBar rows: this is what the benchmark
// compares them with (docs/tui.md).
func ntchartsBars(vals []int64, top int64, barW int, th *themes.Theme) []string {
	bc := barchart.New(barW, len(vals),
		barchart.WithHorizontalBars(), barchart.WithNoAxis(),
		barchart.WithNoAutoBarWidth(), barchart.WithBarWidth(1), barchart.WithBarGap(0),
		barchart.WithNoAutoMaxValue(), barchart.WithMaxValue(float64(max(top, 1))))
	for _, v := range vals {
		bc.Push(barchart.BarData{Values: []barchart.BarValue{{Value: float64(v)}}})
	}
	bc.Draw()
	st := barStyle(th)
	buf := cellbuf.New(barW, len(vals))
	buf.Mode = cellbuf.ModeOf(th)
	for y, v := range vals {
		for x := range barW {
			if r := bc.Canvas.Cell(canvas.Point{X: x, Y: y}).Rune; r != 0 {
				buf.Set(x, y, r, st)
			}
		}
		if v > 0 && bc.Canvas.Cell(canvas.Point{X: 0, Y: y}).Rune == 0 {
			// Under an eighth of a cell ntcharts draws nothing; a bin
			// with messages must not look empty.
			buf.Set(0, y, '▏', st)
		}
	}
	return strings.Split(buf.Render(), "\n")
}

// TestBarsAgree checks that the benchmark compares like with like: the
// ntcharts bars are the view's bars, cell for cell, eighths included.
func TestBarsAgree(t *testing.T) {
	for _, c := range []struct {
		name string
		vals []int64
		barW int
	}{
		{"test trace's counts", []int64{8, 6, 6, 7, 7, 4, 6, 5, 6, 7, 6, 7, 4, 4, 6, 5, 5, 3}, 45},
		{"a tiny bin beside a huge one", []int64{1, 1 << 30, 3}, 60},
		{"eighths", []int64{1, 2, 3, 4, 5, 6, 7, 8}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			top := int64(0)
			for _, v := range c.vals {
				top = max(top, v)
			}
			for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
				got, want := ntchartsBars(c.vals, top, c.barW, th), histBars(c.vals, top, c.barW, th)
				for i := range want {
					if got[i] != want[i] {
						t.Errorf("%s: row %d (value %d of %d): ntcharts %q, cellbuf %q", th.Name, i, c.vals[i], top, got[i], want[i])
					}
				}
			}
		})
	}
}
