package stats

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

func testTrace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 12, Iters: 3, Seed: 1, Compute: -1, Jitter: 0.3})
	if err != nil {
		t.Fatal(err)
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
			{"default", nil},
			{"compute-desc", []string{"s"}},
			{"functions-by-max-ascending", []string{"f", "s", "s", "r"}},
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
				press(m, "s", "down")
				checkSize(t, m.View(), w, h)
			}
		}
	}
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {5, 3}, {40, 1}, {200, 2}} {
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

func TestWindow(t *testing.T) {
	tr := testTrace(t)
	start, end := tr.Span()
	mid := (start + end) / 2
	whole := analysis.ComputeProfile(tr, analysis.All(), nil)
	a := analysis.ComputeProfile(tr, analysis.Window{Start: start, End: mid}, nil)
	// The view follows the window only in window mode, and lazily.
	m := newModel(t, themes.Dark(), 100, 30)
	m.SetWindow(start, mid)
	m.View()
	if m.Profile().Ranks[0].Span != whole.Ranks[0].Span {
		t.Error("window applied outside window mode")
	}
	press(m, "w")
	m.View()
	if got := m.Profile().Ranks[0].Time; got != a.Ranks[0].Time {
		t.Errorf("window mode: %v, want %v", got, a.Ranks[0].Time)
	}
}

func TestUntimed(t *testing.T) {
	tr := &tracefmt.Trace{Comms: []tracefmt.Comm{{}}, Ranks: make([]tracefmt.Rank, 2)}
	tr.Ranks[0].Events = []tracefmt.Event{tracefmt.ComputeWork(0, 2e9), tracefmt.Send(0, 1, 0, 0, 100)}
	tr.Ranks[1].Events = []tracefmt.Event{tracefmt.Recv(0, 0, 0, 0, 100), tracefmt.ComputeWork(0, 1e9)}
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), tr)
	m.SetSize(80, 12)
	out := ansi.Strip(m.View())
	for _, want := range []string{"untimed", "2 Gf", "1 Gf", "100 B"} {
		if !strings.Contains(out, want) {
			t.Errorf("untimed view lacks %q:\n%s", want, out)
		}
	}
	press(m, "s", "s")
	if o := m.order[Ranks]; o[0] != 0 {
		t.Errorf("by work, descending: %v", o)
	}
}

func TestSort(t *testing.T) {
	m := newModel(t, themes.Dark(), 80, 24)
	if tb, col, desc := m.Sort(); tb != Ranks || col != 0 || desc {
		t.Errorf("initial sort %v %d %v", tb, col, desc)
	}
	press(m, "s")
	_, col, desc := m.Sort()
	if col != 1 || !desc {
		t.Errorf("after s: col %d desc %v", col, desc)
	}
	o := m.order[Ranks]
	for i := 1; i < len(o); i++ {
		if m.prof.Ranks[o[i-1]].Time[analysis.Compute] < m.prof.Ranks[o[i]].Time[analysis.Compute] {
			t.Fatal("ranks not sorted by compute time, descending")
		}
	}
	press(m, "r")
	o = m.order[Ranks]
	if m.prof.Ranks[o[0]].Time[analysis.Compute] > m.prof.Ranks[o[len(o)-1]].Time[analysis.Compute] {
		t.Error("r did not reverse")
	}
	press(m, "f", "s")
	if tb, col, _ := m.Sort(); tb != Functions || col != 3 {
		t.Errorf("f s: table %v col %d", tb, col)
	}
	m.View()
	n := m.Renders()
	press(m, "z")
	m.View()
	if m.Renders() != n {
		t.Error("unbound key re-rendered")
	}
}

// TestFocusMarked: `f` moves the focus between the tables, and the
// focused one's title carries the ▸ mark (bold alone did not show which
// table the sort and scroll keys act on).
func TestFocusMarked(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, c := range []struct {
			keys  []string
			focus string // the title that must carry the mark
			other string
		}{
			{nil, "Per-rank profile", "Functions"},
			{[]string{"f"}, "Functions", "Per-rank profile"},
			{[]string{"f", "f"}, "Per-rank profile", "Functions"},
		} {
			t.Run(fmt.Sprintf("%dx%d/%d×f", sz[0], sz[1], len(c.keys)), func(t *testing.T) {
				m := newModel(t, themes.Mono(), sz[0], sz[1])
				press(m, c.keys...)
				out := ansi.Strip(m.View())
				if !strings.Contains(out, "▸ "+c.focus) {
					t.Errorf("focused table %q not marked:\n%s", c.focus, out)
				}
				if strings.Contains(out, "▸ "+c.other) {
					t.Errorf("unfocused table %q marked too:\n%s", c.other, out)
				}
				if n := strings.Count(out, "▸ "); n != 1 {
					t.Errorf("%d focus marks, want 1", n)
				}
			})
		}
	}
}
