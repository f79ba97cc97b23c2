package cellbuf

import (
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// plain returns a fresh w×h buffer that renders its text only.
func plain(w, h int) *Buffer {
	b := New(w, h)
	b.Mode = ModePlain
	return b
}

func TestHBar(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "....."},
		{1, "█████"},
		{2, "█████"},
		{math.NaN(), "....."},
		{0.5, "██▌.."},
		{0.1, "▌...."},
		{1.0 / 40, "▏...."}, // one eighth of one cell
		{0.001, "▏...."},    // never invisible
		{0.97, "████▉"},
		{0.99, "█████"}, // 39.6 eighths round to the whole bar
	} {
		b := plain(5, 1)
		b.HBar(0, 0, 5, c.f, Style{}, '.', Style{})
		if got := b.Render(); got != c.want {
			t.Errorf("HBar(%g) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestStacked(t *testing.T) {
	segs := func(a, b, c float64) []Segment {
		return []Segment{{a, '█', Style{}}, {b, '▒', Style{}}, {c, '░', Style{}}}
	}
	for _, c := range []struct {
		total   float64
		a, b, c float64
		want    string
	}{
		{10, 5, 3, 2, "█████▒▒▒░░"},
		{10, 3.3, 3.3, 3.4, "███▒▒▒▒░░░"}, // ends at 3, 7 (6.6), 10
		{20, 5, 5, 0, "███▒▒     "},       // ends at 3 (2.5), 5
		{10, 0, 0, 0, "          "},
		{0, 5, 5, 5, "          "},
		{10, 8, 8, 8, "████████▒▒"},
	} {
		b := plain(10, 1)
		b.Stacked(0, 0, 10, c.total, segs(c.a, c.b, c.c))
		if got := b.Render(); got != c.want {
			t.Errorf("Stacked(%g; %g %g %g) = %q, want %q", c.total, c.a, c.b, c.c, got, c.want)
		}
	}
}

func TestSpark(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		vals []float64
		hi   float64
		want string
	}{
		{[]float64{0, 1, 2, 3, 4, 5, 6, 7}, 0, "▁▂▃▄▅▆▇█"},
		{[]float64{1, -1, nan, 1}, 0, "    █  █"},
		{[]float64{1, 1}, 4, "      ▃▃"},
		{[]float64{0, 0}, 0, "        "},
		{[]float64{9, 1, 2, 3, 4, 5, 6, 7, 8}, 8, "▂▃▄▅▅▆▇█"}, // the latest w
	} {
		b := plain(8, 1)
		b.Spark(0, 0, 8, c.vals, c.hi, Style{})
		if got := b.Render(); got != c.want {
			t.Errorf("Spark(%v, %g) = %q, want %q", c.vals, c.hi, got, c.want)
		}
	}
}

func TestHeatLegend(t *testing.T) {
	b := plain(20, 1)
	if n := b.HeatLegend(0, 0, 20, "0%", "100%", 4, themes.Mono(), Style{}); n != 12 {
		t.Errorf("legend took %d cells, want 12", n)
	}
	if got := b.Render(); got != "0% ░▒▓█ 100%        " {
		t.Errorf("legend %q", got)
	}
	if n := plain(8, 1).HeatLegend(0, 0, 8, "0%", "100%", 4, themes.Mono(), Style{}); n != 0 {
		t.Errorf("a legend that does not fit took %d cells", n)
	}
	// In colour, heat cells are full blocks in the ramp's colours.
	c := New(3, 1)
	th := themes.Dark()
	c.Heat(0, 0, 3, 1, th)
	if got := c.At(2, 0); got.Rune != '█' || got.Fg != FromColor(th.HeatColor(1)) {
		t.Errorf("colour heat cell %+v", got)
	}
}

func TestTimeChart(t *testing.T) {
	s := Series{Hi: 1, Format: func(v float64) string { return strings.TrimSuffix(units.FormatCount(v*100), " ") + "%" }}
	// Utilisation ramps up over 100 µs, with no data from 60 to 70 µs.
	for i := 0; i <= 100; i++ {
		v := float64(i) / 100
		if i >= 60 && i < 70 {
			v = -1
		}
		s.T = append(s.T, float64(i)*1e-6)
		s.V = append(s.V, v)
	}
	b := plain(40, 6)
	if !b.TimeChart(0, 0, 40, 6, s, 0, 100e-6, units.FormatDuration, Style{}) {
		t.Fatal("TimeChart drew nothing")
	}
	want := strings.Join([]string{
		"100%│                           ▁▂▃▄▅▆▇█",
		"    │                  ▁▂▃   ▇▇█████████",
		"    │         ▁▂▃▄▄▅▆▇████   ███████████",
		"  0%│▁▁▂▃▄▅▆▇█████████████   ███████████",
		"    └┬─────────────────┬────────────────",
		"     0 s               50 µs            ",
	}, "\n")
	if got := b.Render(); got != want {
		t.Errorf("TimeChart:\n%s\nwant:\n%s", got, want)
	}
	if plain(15, 6).TimeChart(0, 0, 15, 6, s, 0, 1, nil, Style{}) || plain(40, 2).TimeChart(0, 0, 40, 2, s, 0, 1, nil, Style{}) {
		t.Error("TimeChart drew in a box too small for its axes")
	}
}

func TestNiceStep(t *testing.T) {
	for _, c := range []struct{ d, want float64 }{
		{1, 1}, {1.1, 2}, {3e-6, 5e-6}, {7, 10}, {0.02, 0.02}, {0, 1}, {math.Inf(1), 1},
	} {
		if got := NiceStep(c.d); math.Abs(got-c.want) > c.want*1e-12 {
			t.Errorf("NiceStep(%g) = %g, want %g", c.d, got, c.want)
		}
	}
}

// BenchmarkCharts measures each chart primitive drawing and rendering a
// chart of the size the views use, for the cost table in docs/tui.md.
func BenchmarkCharts(b *testing.B) {
	th := themes.Dark()
	vals := make([]float64, 300)
	s := Series{Hi: 1, Format: func(v float64) string { return units.FormatCount(v) }}
	for i := range vals {
		vals[i] = math.Abs(math.Sin(float64(i) / 9))
		s.T, s.V = append(s.T, float64(i)*1e-6), append(s.V, vals[i])
	}
	for _, c := range []struct {
		name string
		w, h int
		draw func(buf *Buffer)
	}{
		{"hbar-60x40", 60, 40, func(buf *Buffer) {
			for y := range 40 {
				buf.HBar(0, y, 60, vals[y], Style{}, '░', Style{})
			}
		}},
		{"stacked-60x40", 60, 40, func(buf *Buffer) {
			for y := range 40 {
				buf.Stacked(0, y, 60, 3, []Segment{{vals[y], '█', Style{}}, {vals[y+1], '▒', Style{}}, {vals[y+2], '░', Style{}}})
			}
		}},
		{"spark-100x3", 100, 3, func(buf *Buffer) {
			for y := range 3 {
				buf.Spark(0, y, 100, vals, 0, Style{})
			}
		}},
		{"heat-64x32", 64, 32, func(buf *Buffer) {
			for y := range 32 {
				for x := range 64 {
					buf.Heat(x, y, 1, vals[(x+y)%len(vals)], th)
				}
			}
		}},
		{"timechart-60x7", 60, 7, func(buf *Buffer) {
			buf.TimeChart(0, 0, 60, 7, s, 0, 300e-6, units.FormatDuration, Style{})
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			buf := New(c.w, c.h)
			for b.Loop() {
				buf.Clear(Style{})
				c.draw(buf)
				_ = buf.Render()
			}
		})
	}
}
