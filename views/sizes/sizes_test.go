package sizes

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// testTrace is a small fixed trace whose sends have sizes spread over many
// log2 bins (the generator sends one size per pattern).
func testTrace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 12, Iters: 3, Seed: 1, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := range tr.Ranks {
		ev := tr.Ranks[r].Events
		for i := range ev {
			if ev[i].Kind == tracefmt.KindSend {
				ev[i].Size = int64(1) << ((r + n) % 17)
				if n%13 == 0 {
					ev[i].Size = 0
				}
				n++
			}
		}
	}
	return tr
}

func newModel(t testing.TB, th *themes.Theme, w, h int) *Model {
	m := New(component.New(&component.Session{Theme: th}, 0, 0), testTrace(t))
	m.SetSize(w, h)
	return m
}

func press(m *Model, keys ...string) { viewtest.Press(m, keys...) }

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, c := range []struct {
			name string
			keys []string
		}{
			{"all", nil},
			{"bytes", []string{"m"}},
			{"rank3", []string{"right", "right", "right", "right"}},
			{"window", []string{"w"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], c.name), func(t *testing.T) {
				m := newModel(t, themes.Mono(), sz[0], sz[1])
				start, end := testTrace(t).Span()
				m.SetWindow(start, (start+end)/2)
				press(m, c.keys...)
				viewtest.Golden(t, viewtest.ASCII(t, m.View()))
			})
		}
	}
}

func TestLayout(t *testing.T) {
	for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
		for w := 40; w <= 300; w += 37 {
			for h := 12; h <= 100; h += 11 {
				m := newModel(t, th, w, h)
				press(m, "right", "m")
				checkSize(t, m.View(), w, h)
			}
		}
	}
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
	press(m, "left")
	if m.Rank() != 11 {
		t.Errorf("left from all: rank %d", m.Rank())
	}
	press(m, "right", "right")
	if m.Rank() != 0 {
		t.Errorf("rank %d", m.Rank())
	}
	press(m, "a")
	if m.Rank() != -1 {
		t.Errorf("a: rank %d", m.Rank())
	}
	whole, _ := m.Histogram().Total()
	m.SetWindow(0, 10)
	if c, _ := m.Histogram().Total(); c != whole {
		t.Error("window applied outside window mode")
	}
	press(m, "w")
	if c, _ := m.Histogram().Total(); c >= whole {
		t.Errorf("window mode: %d of %d messages", c, whole)
	}
	m.View()
	n := m.Renders()
	press(m, "z")
	m.SetWindow(0, 10)
	m.View()
	if m.Renders() != n {
		t.Error("idle key or unchanged window re-rendered")
	}
}
