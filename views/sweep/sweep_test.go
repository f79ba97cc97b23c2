package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/cellbuf"
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
			{"lines", []string{"b", "b", "b", "m", "m", "m", "m"}},
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
	if !wi.FullSpeed() {
		t.Errorf("the point is not to be run at full speed")
	}
	var msgs []string
	for _, mm := range sequence(cmd) {
		msgs = append(msgs, fmt.Sprintf("%T", mm))
		if s, ok := mm.(component.ShowTabMsg); ok && s.Name != "Simulate" {
			t.Errorf("shows tab %s", s.Name)
		}
		if c, ok := mm.(component.ConfigMsg); ok && !c.FullSpeed {
			t.Errorf("the point's configuration is not run at full speed")
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
				press(m, "right", "b", "x")
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
		press(m, "right", "b")
		return m
	})
}

// chartRows returns the frame's plot rows (below the title, above the
// legend), without colours.
func chartRows(t *testing.T, m *Model) []string {
	t.Helper()
	lines := strings.Split(ansi.Strip(m.View()), "\n")
	return lines[1:chartHeight(m.common.Height)]
}

// TestEveryLineShows: each line keeps a marker of its own at every point,
// even where the lines coincide (the old chart drew the fattree's ■ only
// at the first x, the others under the dragonfly's ▲), and in a colour
// theme each line has its own colour.
func TestEveryLineShows(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}, {60, 16}} {
		m, _ := newModel(t, themes.Dark(), sz[0], sz[1], nil)
		chart := strings.Join(chartRows(t, m), "\n")
		for _, g := range []string{"●", "■", "▲"} {
			if n := strings.Count(chart, g); n != 6 {
				t.Errorf("%dx%d: %d markers %s, want one per bandwidth (6)", sz[0], sz[1], n, g)
			}
		}
	}
	// Colours: the cells of each marker glyph have one foreground, and
	// the three differ.
	m, _ := newModel(t, themes.Dark(), 80, 24, nil)
	m.View()
	b := m.buf.b
	fg := map[rune]map[cellbuf.Color]bool{}
	for y := 1; y < chartHeight(24); y++ {
		for x := range 80 {
			c := b.At(x, y)
			if strings.ContainsRune("●■▲", c.Rune) && c.Attrs&cellbuf.Reverse == 0 {
				if fg[c.Rune] == nil {
					fg[c.Rune] = map[cellbuf.Color]bool{}
				}
				fg[c.Rune][c.Fg] = true
			}
		}
	}
	seen := map[cellbuf.Color]rune{}
	for r, cs := range fg {
		if len(cs) != 1 {
			t.Errorf("%c drawn in %d colours", r, len(cs))
		}
		for c := range cs {
			if o, dup := seen[c]; dup {
				t.Errorf("%c and %c share a colour", r, o)
			}
			seen[c] = r
		}
	}
}

// TestChartAxes: the value axis has round ticks with units and the x
// axis the sweep's values, each under its points.
func TestChartAxes(t *testing.T) {
	m, _ := newModel(t, themes.Mono(), 80, 24, nil)
	rows := chartRows(t, m)
	var ticks []string
	for _, r := range rows {
		if l, _, ok := strings.Cut(r, "│"); ok && strings.TrimSpace(l) != "" {
			ticks = append(ticks, strings.TrimSpace(l))
		}
	}
	if got := strings.Join(ticks, " | "); got != "3 ms | 2.5 ms | 2 ms" {
		t.Errorf("value ticks %q", got)
	}
	labels := strings.Fields(rows[len(rows)-1])
	if got := strings.Join(labels, " "); got != "1Gb/s 3.314Gb/s 10.99Gb/s 36.41Gb/s 120.7Gb/s 400Gb/s" {
		t.Errorf("x labels %q", got)
	}
	// Narrow, labels are left out but both ends of the axis keep theirs.
	for _, w := range []int{40, 50, 60} {
		m, _ := newModel(t, themes.Mono(), w, 24, nil)
		rows := chartRows(t, m)
		l := strings.Fields(rows[len(rows)-1])
		if len(l) < 2 || l[0] != "1Gb/s" || l[len(l)-1] != "400Gb/s" {
			t.Errorf("%d columns: x labels %q", w, l)
		}
	}
	axis := rows[len(rows)-2]
	if !strings.HasPrefix(strings.TrimLeft(axis, " "), "└") {
		t.Errorf("axis row %q", axis)
	}
}

// TestChartMemoised: moving along the line, scrolling the table and
// frames drawn for nothing redraw no chart; a new plotted column,
// another slice or size does.
func TestChartMemoised(t *testing.T) {
	m, _ := newModel(t, themes.Dark(), 160, 48, nil)
	m.View()
	draws, frames := m.chart.draws, m.memo.Renders()
	m.View()
	if m.memo.Renders() != frames {
		t.Errorf("a second View drew the frame again")
	}
	press(m, "right", "right", "left")
	v := m.View()
	if m.chart.draws != draws {
		t.Errorf("moving along the line drew the chart %d times", m.chart.draws-draws)
	}
	// The selected point is marked on the kept cells: point 2, reversed.
	if !strings.Contains(m.Selection(), "point 2:") || !strings.Contains(v, "\x1b[") {
		t.Fatalf("selection %q", m.Selection())
	}
	p := m.chart.marks[2]
	if c := m.buf.b.At(p.x, 1+p.y); c.Rune != '●' || c.Attrs&cellbuf.Reverse == 0 {
		t.Errorf("selected marker %q attrs %v at %d,%d", c.Rune, c.Attrs, p.x, p.y)
	}
	for _, c := range []struct {
		keys []string
		want int // new chart drawings
	}{
		{[]string{"m"}, 1},
		{[]string{"down"}, 1}, // point 3: random placement, another slice
		{[]string{"up"}, 1},
		{[]string{"s"}, 0}, // the table's order only
	} {
		before := m.chart.draws
		press(m, c.keys...)
		m.View()
		if got := m.chart.draws - before; got != c.want {
			t.Errorf("%v: %d chart drawings, want %d", c.keys, got, c.want)
		}
	}
	// The reused canvas keeps nothing of the charts drawn on it since:
	// back on the first column, the frame is the first one again.
	m2, _ := newModel(t, themes.Dark(), 160, 48, nil)
	first := m2.View()
	for range len(m2.st.metrics) {
		press(m2, "m")
		m2.View()
	}
	if got := m2.View(); got != first {
		t.Errorf("after every plotted column and back, the frame differs:\n%s\nwant\n%s", ascii(t, got), ascii(t, first))
	}
	m.SetSize(100, 30)
	before := m.chart.draws
	m.View()
	if m.chart.draws != before+1 {
		t.Errorf("a new size drew the chart %d times", m.chart.draws-before)
	}
}

// TestFilterPrompt: the filter is a text input: the cursor moves, ctrl+w
// deletes a word, a paste lands at the cursor, the table follows as it is
// typed, enter keeps it and esc clears it.
func TestFilterPrompt(t *testing.T) {
	for _, c := range []struct {
		name   string
		keys   []string
		paste  string
		want   string // the filter
		prompt string // the prompt row, trimmed
		shown  int
	}{
		{"typed", []string{"/", `"topology=torus random"`}, "", "topology=torus random", "filter: topology=torus random█  (enter keeps it, esc clears)", 12},
		{"ctrl+w", []string{"/", `"topology=torus random"`, "ctrl+w"}, "", "topology=torus ", "filter: topology=torus █  (enter keeps it, esc clears)", 24},
		{"insert", []string{"/", `"400gb"`, "home", `"alltoall "`}, "", "alltoall 400gb", "filter: alltoall 400gb  (enter keeps it, esc clears)", 6},
		{"left, paste", []string{"/", `"ring"`, "left", "left", "left", "left"}, "placement=block ", "placement=block ring", "filter: placement=block ring  (enter keeps it, esc clears)", 18},
		{"enter keeps", []string{"/", `"dragonfly"`, "enter"}, "", "dragonfly", "filter: dragonfly  (/ edits, esc clears)", 24},
		{"esc clears", []string{"/", `"dragonfly"`, "esc"}, "", "", "", 72},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newModel(t, themes.Mono(), 80, 24, nil)
			press(m, c.keys...)
			if c.paste != "" {
				m.Update(tea.PasteMsg{Content: c.paste})
			}
			if m.st.filter != c.want {
				t.Errorf("filter %q, want %q", m.st.filter, c.want)
			}
			if n := len(m.st.rows()); n != c.shown {
				t.Errorf("%d rows shown, want %d", n, c.shown)
			}
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			last := strings.TrimRight(lines[len(lines)-1], " ")
			if c.prompt != "" && last != c.prompt {
				t.Errorf("prompt row %q, want %q", last, c.prompt)
			}
			if c.prompt == "" && strings.Contains(last, "filter") {
				t.Errorf("prompt row %q after esc", last)
			}
		})
	}
	// The cursor inside the text is the character under it, reversed.
	m, _ := newModel(t, themes.Mono(), 80, 24, nil)
	press(m, "/", `"ring"`, "left")
	m.View()
	if c := m.buf.b.At(len("filter: rin"), 23); c.Rune != 'g' || c.Attrs&cellbuf.Reverse == 0 {
		t.Errorf("cursor cell %q attrs %v", c.Rune, c.Attrs)
	}
}

// TestListKeys: the table moves with the keys of every list: pgdown and
// ctrl+d a page, home/g and end/G to the ends, pgup and ctrl+u back.
func TestListKeys(t *testing.T) {
	m, _ := newModel(t, themes.Mono(), 80, 24, nil)
	page := m.tableRows() - 1
	for _, c := range []struct {
		key  string
		want int // selected point
	}{
		{"pgdown", page},
		{"ctrl+d", 2 * page},
		{"ctrl+u", page},
		{"pgup", 0},
		{"G", 71},
		{"g", 0},
		{"end", 71},
		{"home", 0},
		{"j", 1},
		{"k", 0},
	} {
		press(m, c.key)
		if m.st.sel != c.want {
			t.Errorf("after %s: point %d, want %d", c.key, m.st.sel, c.want)
		}
	}
	// The help lists them.
	var help []string
	for _, col := range m.FullHelp() {
		for _, b := range col {
			help = append(help, b.Help().Key)
		}
	}
	if got := strings.Join(help, " "); !strings.Contains(got, "pgdn") || !strings.Contains(got, "home/g") || !strings.Contains(got, "end/G") {
		t.Errorf("help keys %s", got)
	}
}

// TestCellsElided: a cut cell ends in an ellipsis in its middle, keeping
// both ends: "gen alltoall --ranks 8 --iters 4" is not shown as a prefix
// that names another trace.
func TestCellsElided(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"gen alltoall --ranks 8 --iters 200", 16, "gen allt…ers 200"},
		{"gen ring --ranks 8 --iters 20", 16, "gen ring…ters 20"},
		{"torus:2x4", 16, "torus:2x4"},
		{"fattree:k=4,levels=2", 12, "fattre…els=2"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	} {
		if got := elide(c.s, c.w); got != c.want || ansi.StringWidth(got) > c.w {
			t.Errorf("elide(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
	m, _ := newModel(t, themes.Mono(), 80, 24, nil)
	press(m, "G") // point 71: alltoall
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "gen allt…iters 4") || !strings.Contains(v, "dragonfl…a=4,h=2") {
		t.Errorf("table cells not elided:\n%s", v)
	}
	// The title row too.
	press(m, "/", `"random"`, "enter")
	if title := strings.Split(ansi.Strip(m.View()), "\n")[0]; !strings.HasSuffix(title, "a line per …") {
		t.Errorf("title %q not cut with …", title)
	}
}

// TestRunningProgress: a running sweep's title has a progress bar, the
// points done and the time left estimated from the time so far.
func TestRunningProgress(t *testing.T) {
	m, _ := newModel(t, themes.Mono(), 100, 24, nil)
	m.st.Progress(18, 72, 30*time.Second, true, "")
	title := strings.Split(ansi.Strip(m.View()), "\n")[0]
	if !strings.Contains(title, "18/72 points · about 1m30s left · esc stops") {
		t.Errorf("title %q", title)
	}
	if m.bar.w < 5 || m.bar.f != 0.25 {
		t.Fatalf("bar %+v", m.bar)
	}
	full := strings.Count(title, "█")
	if want := int(math.Round(0.25 * float64(m.bar.w))); full != want {
		t.Errorf("%d full cells of %d, want %d: %q", full, m.bar.w, want, title)
	}
	checkSize(t, m.View(), 100, 24)
	m.st.Progress(0, 72, 0, true, "")
	if title := strings.Split(ansi.Strip(m.View()), "\n")[0]; !strings.Contains(title, "0/72 points · estimating the time left") {
		t.Errorf("title %q", title)
	}
	// Before the first row the bar is drawn too.
	empty := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), NewState(&sw.Table{Columns: []string{"point", "trace", "makespan_s"}}, "run", nil))
	empty.SetSize(100, 10)
	empty.st.Progress(0, 10, 0, true, "")
	if title := strings.Split(ansi.Strip(empty.View()), "\n")[0]; !strings.Contains(title, "░░░░░ 0/10 points") {
		t.Errorf("title before the first row %q", title)
	}
	m.st.Progress(72, 72, time.Minute, false, "")
	if title := strings.Split(ansi.Strip(m.View()), "\n")[0]; strings.Contains(title, "█") || !strings.Contains(title, "72 points · makespan_s vs") {
		t.Errorf("title after the run %q", title)
	}
}
