package matrix

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// testTrace is the small fixed trace every test of the package draws.
func testTrace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 12, Iters: 3, Seed: 1, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func newModel(t testing.TB, th *themes.Theme, w, h int) *Model {
	c := component.New(&component.Session{Theme: th}, 0, 0)
	m := New(c, testTrace(t))
	m.SetSize(w, h)
	return m
}

func press(m *Model, keys ...string) { viewtest.Press(m, keys...) }

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, mode := range []string{"bytes", "count", "mean"} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], mode), func(t *testing.T) {
				m := newModel(t, themes.Mono(), sz[0], sz[1])
				switch mode {
				case "count":
					press(m, "m")
				case "mean":
					press(m, "m", "m")
				}
				press(m, "down", "down", "right", "right", "right")
				viewtest.Golden(t, viewtest.ASCII(t, m.View()))
			})
		}
	}
	t.Run("nodes", func(t *testing.T) {
		m := newModel(t, themes.Mono(), 80, 24)
		press(m, "n", "n")
		viewtest.Golden(t, viewtest.ASCII(t, m.View()))
	})
}

func TestLayout(t *testing.T) {
	for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
		for w := 40; w <= 300; w += 37 {
			for h := 12; h <= 100; h += 11 {
				m := newModel(t, th, w, h)
				press(m, "right", "down", "m", "n")
				checkSize(t, m.View(), w, h)
			}
		}
	}
	// Tiny and empty areas must not panic either.
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {5, 3}, {40, 1}} {
		m := newModel(t, themes.Dark(), sz[0], sz[1])
		checkSize(t, m.View(), sz[0], sz[1])
	}
}

func checkSize(t *testing.T, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if h > 0 && len(lines) != h {
		t.Errorf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got > w {
			t.Errorf("%dx%d: line %d is %d wide", w, h, i, got)
		}
	}
}

func TestKeys(t *testing.T) {
	m := newModel(t, themes.Dark(), 80, 24)
	press(m, "m")
	if m.Mode() != Count {
		t.Errorf("mode %v after m", m.Mode())
	}
	press(m, "m", "m")
	if m.Mode() != Bytes {
		t.Errorf("mode %v after m m m", m.Mode())
	}
	press(m, "right", "right", "down", "l", "j")
	if m.cx != 3 || m.cy != 2 {
		t.Errorf("cursor %d,%d", m.cx, m.cy)
	}
	press(m, "up", "up", "up", "up", "left", "left", "left", "left", "left")
	if m.cx != 0 || m.cy != 0 {
		t.Errorf("cursor %d,%d, want clamped to 0,0", m.cx, m.cy)
	}
	if !strings.Contains(ansi.Strip(m.View()), "rank 0 → rank 0") {
		t.Error("cursor line missing")
	}
	// An unbound key renders nothing new.
	n := m.Renders()
	press(m, "z")
	m.View()
	if m.Renders() != n {
		t.Error("unbound key re-rendered the view")
	}
	// Clicking a cell moves the cursor there.
	l := m.lay
	m.Update(tea.MouseClickMsg{X: l.labelW + 1 + 2*l.cellW, Y: gridTop + 4, Button: tea.MouseLeft})
	if m.cx != 2 || m.cy != 4 {
		t.Errorf("click moved cursor to %d,%d", m.cx, m.cy)
	}
}

func BenchmarkView(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "random-pairs", Ranks: 256, Iters: 20, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	m := New(component.New(&component.Session{Theme: themes.Dark()}, 0, 0), tr)
	m.SetSize(300, 100)
	for b.Loop() {
		m.memo.Invalidate()
		m.View()
	}
}

// n on a trace too small to group into nodes says so instead of doing
// nothing.
func TestNodesNeedFourRanks(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 3, Iters: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 80, 24), tr)
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'n', Text: "n"})
	if cmd == nil {
		t.Fatal("n on 3 ranks: no message")
	}
	if msg, ok := cmd().(component.StatusMsg); !ok || !strings.Contains(string(msg), "4 ranks") {
		t.Errorf("n on 3 ranks: %v", cmd())
	}
}
