package tui

import (
	"context"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// bigTrace writes a stencil2d trace of about n events in format ext and
// returns its path.
func bigTrace(b *testing.B, n int, ext string) string {
	b.Helper()
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 1, Seed: 1, Compute: -1, Jitter: 0.1}
	for {
		c, err := gen.Expect(o)
		if err != nil {
			b.Fatal(err)
		}
		if c.Events >= n {
			break
		}
		o.Iters = max(o.Iters+1, o.Iters*n/max(c.Events, 1))
	}
	return writeTrace(b, b.TempDir(), "big."+ext, o)
}

// BenchmarkFirstFrame is what a user waits for after `tracesim FILE` on
// a 1 M-event trace: load, build the application, draw the first frame.
// The target is under a second.
func BenchmarkFirstFrame(b *testing.B) {
	for _, ext := range []string{"clog2", "tsim"} {
		b.Run(ext, func(b *testing.B) {
			// CLOG2 has no compute records: ask for more so that both files
			// hold about a million events.
			n := 1_000_000
			if ext == "clog2" {
				n = 1_080_000
			}
			path := bigTrace(b, n, ext)
			events := 0
			for b.Loop() {
				tr, _, err := formats.Open(context.Background(), path, "", nil)
				if err != nil {
					b.Fatal(err)
				}
				m := New(Options{Trace: tr, Path: path})
				m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
				m.View()
				events = tr.NumEvents()
			}
			b.ReportMetric(float64(events), "events")
		})
	}
}

// BenchmarkNewAndFrame leaves the file out: building the application and
// its first frame on a loaded 1 M-event trace.
func BenchmarkNewAndFrame(b *testing.B) {
	path := bigTrace(b, 1_000_000, "clog2")
	tr, _, err := formats.Open(context.Background(), path, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		m := New(Options{Trace: tr, Path: path})
		m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
		m.View()
	}
}

// BenchmarkTabs draws the first frame of each tab on a 1 M-event trace,
// view construction included.
func BenchmarkTabs(b *testing.B) {
	path := bigTrace(b, 1_000_000, "clog2")
	tr, _, err := formats.Open(context.Background(), path, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	for i, t := range DefaultTabs() {
		b.Run(t.Name, func(b *testing.B) {
			for b.Loop() {
				m := New(Options{Trace: tr, Path: path})
				m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
				press(m, string(rune('1'+i)))
				m.View()
			}
		})
	}
}

// BenchmarkIdleKey is a key press that changes nothing: it must cost
// next to nothing (the frame comes from the cache).
func BenchmarkIdleKey(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 100, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	for i, t := range DefaultTabs() {
		b.Run(t.Name, func(b *testing.B) {
			m := New(Options{Trace: tr, Path: filepath.Join("x", "y.tsim")})
			m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
			press(m, string(rune('1'+i)))
			m.View()
			for b.Loop() {
				press(m, "f12")
				m.View()
			}
		})
	}
}
