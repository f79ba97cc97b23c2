package timeline

import (
	"math"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
)

// trace10M generates a stencil2d trace of about 10 M events, the size the
// done-when benchmarks name.
func trace10M(b *testing.B) *tracefmt.Trace {
	b.Helper()
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Compute: -1, Skew: 10e-6, Jitter: 0.1}
	c, err := gen.Expect(gen.Options{Pattern: o.Pattern, Ranks: o.Ranks, Iters: 1, Compute: -1})
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = 10_000_000 / c.Events
	tr, err := gen.Generate(o)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkIndex10M measures building the summary of a 10 M-event trace
// and reports the bytes it holds.
func BenchmarkIndex10M(b *testing.B) {
	tr := trace10M(b)
	b.ReportAllocs()
	b.ResetTimer()
	var ix *index
	for b.Loop() {
		ix = newIndex(tr)
	}
	b.ReportMetric(float64(ix.memory()), "index-bytes")
	b.ReportMetric(float64(tr.NumEvents()), "events")
}

// BenchmarkFrame10M renders full 200×60 frames of a 10 M-event trace: the
// whole run, and zoomed in far enough to draw arrows.
func BenchmarkFrame10M(b *testing.B) {
	tr := trace10M(b)
	for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
		c := component.New(&component.Session{Theme: th}, 200, 60)
		m := newWithAsync(c, tr, math.MaxInt) // build now: frames are measured
		m.View()
		if th.Name == "dark" {
			b.Run("fit-300x100-dark", func(b *testing.B) {
				m.SetSize(300, 100)
				b.ReportAllocs()
				for b.Loop() {
					m.memo.Invalidate()
					m.View()
				}
				m.SetSize(200, 60)
			})
		}
		b.Run("fit-"+th.Name, func(b *testing.B) {
			m.fit()
			b.ReportAllocs()
			for b.Loop() {
				m.memo.Invalidate()
				m.View()
			}
		})
		b.Run("zoomed-"+th.Name, func(b *testing.B) {
			m.fit()
			for range 14 {
				m.zoom(0.5)
			}
			m.memo.Invalidate()
			m.View()
			b.ReportAllocs()
			for b.Loop() {
				m.memo.Invalidate()
				m.View()
			}
			b.ReportMetric(float64(len(m.arrows)), "arrows")
		})
	}
}

// BenchmarkNoopKey presses a key that changes nothing: the frame must come
// from the cache.
func BenchmarkNoopKey(b *testing.B) {
	tr := trace10M(b)
	c := component.New(&component.Session{Theme: themes.Dark()}, 200, 60)
	m := newWithAsync(c, tr, math.MaxInt)
	m.View()
	n := m.Renders()
	k := tea.KeyPressMsg{Code: 'x', Text: "x"} // unbound
	b.ReportAllocs()
	for b.Loop() {
		m.Update(k)
		m.View()
	}
	if m.Renders() != n {
		b.Fatalf("a key that changes nothing rendered %d frames", m.Renders()-n)
	}
}

// BenchmarkSearch10M steps through hits of a message search and of a
// state search in a 10 M-event trace: each n costs the events between
// the cursor and the next hit.
func BenchmarkSearch10M(b *testing.B) {
	tr := trace10M(b)
	for _, q := range []string{"size>1000", "allreduce"} {
		b.Run(q, func(b *testing.B) {
			m := newWithAsync(component.New(&component.Session{Theme: themes.Dark()}, 200, 60), tr, math.MaxInt)
			q, err := parseQuery(q)
			if err != nil {
				b.Fatal(err)
			}
			m.query = q
			for b.Loop() {
				m.searchNext(1)
			}
			if m.sel.kind == selNone {
				b.Fatal("nothing found")
			}
		})
	}
}

// BenchmarkNew10M measures New on a 10 M-event trace: it must return at
// once and leave the summary to the background.
func BenchmarkNew10M(b *testing.B) {
	tr := trace10M(b)
	for b.Loop() {
		m := New(component.New(&component.Session{Theme: themes.Dark()}, 200, 60), tr)
		if m.job == nil {
			b.Fatal("a 10 M-event summary was built in New")
		}
		b.StopTimer()
		<-m.job.done // do not pile up builds
		b.StartTimer()
	}
}

// BenchmarkKeys10M presses the Timeline keys of `tracesim bench --ui` in
// turn (zoom in, pan right, pan left, zoom out) on a 10 M-event trace at
// 200×60, a frame after each: every frame is of a new window, so the
// legend's statistics and the message counts search every rank's lists
// again (BenchmarkFrame10M redraws one window).
func BenchmarkKeys10M(b *testing.B) {
	tr := trace10M(b)
	c := component.New(&component.Session{Theme: themes.Dark()}, 200, 60)
	m := newWithAsync(c, tr, math.MaxInt)
	m.View()
	keys := []string{"+", "l", "h", "-"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		press(m, keys[i%len(keys)])
		m.View()
		i++
	}
}
