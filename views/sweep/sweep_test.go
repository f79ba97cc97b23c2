package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/replay"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// testTable is the 72-point result of testdata/study.toml.
func testTable(t testing.TB) *sw.Table {
	t.Helper()
	data, err := os.ReadFile("testdata/study.csv")
	if err != nil {
		t.Fatal(err)
	}
	tb, err := sw.ReadCSV("study.csv", data)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// newModel returns the Sweep view of the test result at w×h in a session
// of theme th, and the session's what-if state that enter sets.
func newModel(t testing.TB, th *themes.Theme, w, h int, open func(context.Context, []string) (Run, error)) (*Model, *component.WhatIf) {
	wi := component.NewWhatIf()
	m := New(component.New(&component.Session{Theme: th, WhatIf: wi}, 0, 0), NewState(testTable(t), "study.csv", open))
	m.SetSize(w, h)
	return m, wi
}

// ascii is the frame without colours, as goldens keep it.
func ascii(t testing.TB, s string) string { return viewtest.ASCII(t, s) }

// press sends the keys to m (viewtest's key names) and returns their
// commands, batched.
func press(m *Model, keys ...string) tea.Cmd { return viewtest.Press(m, keys...) }

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, c := range []struct {
			name string
			keys []string
		}{
			// makespan vs bandwidth (log x), a line per topology, at
			// trace ring, placement block.
			{"default", nil},
			// Along the torus line to 120.7Gb/s.
			{"moved", []string{"right", "right", "right", "right"}},
			// A line per placement, then the mean blocked time.
			{"lines", []string{"g", "g", "g", "m", "m", "m", "m"}},
			// Categorical x: the topology (after placement and trace),
			// a line per trace.
			{"xtopology", []string{"x", "x", "x"}},
			// Filtered to the random placement, sorted by makespan.
			{"filter", []string{"/", "r", "a", "n", "d", "o", "m", "enter", "s", "s", "s", "s", "s", "s"}},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], c.name), func(t *testing.T) {
				m, _ := newModel(t, themes.Mono(), sz[0], sz[1], nil)
				press(m, c.keys...)
				viewtest.Golden(t, ascii(t, m.View()))
			})
		}
	}
}

// TestMoveAlongLine: → and ← step through the selected line's points in
// x order, staying on the same topology, trace and placement.
func TestMoveAlongLine(t *testing.T) {
	m, _ := newModel(t, themes.Dark(), 80, 24, nil)
	var got []string
	for range 7 {
		got = append(got, m.Selection())
		press(m, "right")
	}
	want := []string{
		"point 0: torus:2x4 1Gb/s block · trace 1/2",
		"point 2: torus:2x4 3.314Gb/s block · trace 1/2",
		"point 4: torus:2x4 10.99Gb/s block · trace 1/2",
		"point 6: torus:2x4 36.41Gb/s block · trace 1/2",
		"point 8: torus:2x4 120.7Gb/s block · trace 1/2",
		"point 10: torus:2x4 400Gb/s block · trace 1/2",
		"point 10: torus:2x4 400Gb/s block · trace 1/2",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("moving right:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	press(m, "left", "left")
	if s := m.Selection(); !strings.HasPrefix(s, "point 6: ") {
		t.Errorf("after ← ←: %s", s)
	}
	press(m, "down")
	if s := m.Selection(); !strings.HasPrefix(s, "point 7: ") {
		t.Errorf("after ↓: %s", s)
	}
}

// TestSortFilter: the table's rows after sorting and filtering.
func TestSortFilter(t *testing.T) {
	for _, c := range []struct {
		name, filter string
		sort         int // presses of s
		reverse      bool
		want         string // first points shown
		count        int
	}{
		{"all", "", 0, false, "0 1 2 3", 72},
		{"column filter", "topology=dragon placement=block", 0, false, "24 26 28 30", 12},
		{"text filter", "alltoall 400gb", 0, false, "46 47 58 59", 6},
		{"by topology", "", 3, false, "24 25 26 27", 72},
		{"by makespan descending", "", 6, true, "", 72},
		{"nothing", "nosuchthing", 0, false, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newModel(t, themes.Dark(), 80, 24, nil)
			m.st.filter = c.filter
			for range c.sort {
				press(m, "s")
			}
			if c.reverse {
				press(m, "r")
			}
			rows := m.st.rows()
			if len(rows) != c.count {
				t.Fatalf("%d rows, want %d", len(rows), c.count)
			}
			var first []string
			for _, i := range rows[:min(4, len(rows))] {
				first = append(first, m.st.table.Rows[i][0])
			}
			if c.want != "" && strings.Join(first, " ") != c.want {
				t.Errorf("first points %v, want %s", first, c.want)
			}
			if c.sort == 6 {
				mk := m.st.table.Column("makespan_s")
				for k := 1; k < len(rows); k++ {
					a, b := m.st.table.Rows[rows[k-1]][mk], m.st.table.Rows[rows[k]][mk]
					if parse(a) < parse(b) {
						t.Fatalf("row %d: makespan %s before %s in descending order", k, a, b)
					}
				}
			}
		})
	}
}

func parse(s string) float64 {
	var f float64
	fmt.Sscan(s, &f)
	return f
}

// TestOpen: enter loads the selected point's run, makes its machine the
// session's, opens its trace and shows the Simulate tab; an error says so
// in the status bar.
func TestOpen(t *testing.T) {
	var asked []string
	open := func(_ context.Context, row []string) (Run, error) {
		asked = row
		cfg := replay.Default()
		if err := cfg.Set("bandwidth", row[3]); err != nil {
			return Run{}, err
		}
		if row[0] == "1" {
			return Run{}, errors.New("no such file")
		}
		return Run{Path: row[1], Config: cfg}, nil
	}
	m, wi := newModel(t, themes.Dark(), 80, 24, open)
	press(m, "right")
	cmd := press(m, "enter")
	if cmd == nil {
		t.Fatal("enter: no command")
	}
	msg := cmd()
	if asked[0] != "2" {
		t.Fatalf("opened point %s, want 2", asked[0])
	}
	_, cmd = m.Update(msg)
	if cfg, name := wi.Config(); name != "sweep point 2" || cfg.PerByte != mustCfg(t, "3.314Gb/s").PerByte {
		t.Errorf("session machine %q, per-byte %v", name, cfg.PerByte)
	}
	var msgs []string
	for _, mm := range sequence(cmd) {
		msgs = append(msgs, fmt.Sprintf("%T", mm))
		if s, ok := mm.(component.ShowTabMsg); ok && s.Name != "Simulate" {
			t.Errorf("shows tab %s", s.Name)
		}
	}
	if got := strings.Join(msgs, " "); got != "component.OpenTraceMsg component.ConfigMsg component.ShowTabMsg component.StatusMsg" {
		t.Errorf("messages %s", got)
	}

	press(m, "left", "down")
	_, cmd = m.Update(press(m, "enter")())
	if msg := cmd(); msg != component.StatusMsg("sweep point 1: no such file") {
		t.Errorf("status %v", msg)
	}

	// Without a spec, enter explains.
	m, _ = newModel(t, themes.Dark(), 80, 24, nil)
	if msg := press(m, "enter")(); !strings.Contains(fmt.Sprint(msg), "give tracesim sweep show --spec SPEC") {
		t.Errorf("without open: %v", msg)
	}
}

func mustCfg(t *testing.T, bw string) replay.Config {
	c := replay.Default()
	if err := c.Set("bandwidth", bw); err != nil {
		t.Fatal(err)
	}
	return c
}

// sequence runs a tea.Sequence's commands and returns their messages.
func sequence(cmd tea.Cmd) []tea.Msg {
	msg := cmd()
	// tea.Sequence's message type is unexported: a slice of commands.
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice {
		return []tea.Msg{msg}
	}
	var out []tea.Msg
	for i := range v.Len() {
		if c, ok := v.Index(i).Interface().(tea.Cmd); ok {
			out = append(out, c())
		}
	}
	return out
}

func TestLayout(t *testing.T) {
	for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
		for w := 20; w <= 300; w += 37 {
			for h := 3; h <= 100; h += 11 {
				m, _ := newModel(t, th, w, h, nil)
				press(m, "right", "g", "x")
				checkSize(t, m.View(), w, h)
			}
		}
	}
	// An empty result.
	m := New(component.New(&component.Session{Theme: themes.Dark()}, 0, 0), NewState(&sw.Table{Columns: []string{"point", "trace", "makespan_s"}}, "empty.csv", nil))
	m.SetSize(40, 10)
	if v := ascii(t, m.View()); !strings.Contains(v, "The result has no points yet.") {
		t.Errorf("empty result:\n%s", v)
	}
}

func checkSize(t *testing.T, s string, w, h int) {
	t.Helper()
	if err := viewtest.CheckFrame(s, w, h); err != "" {
		t.Errorf("%dx%d: %s", w, h, err)
	}
}

// TestSweepSizes: the view draws exactly its size at every size the
// application supports, in a colour and the monochrome theme.
func TestSweepSizes(t *testing.T) {
	tb := testTable(t)
	viewtest.SweepThemes(t, func(c component.Common) component.Model {
		m := New(c, NewState(tb, "study.csv", nil))
		press(m, "right", "g")
		return m
	})
}
