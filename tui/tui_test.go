package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
	"github.com/tracesim/tracesim/views/sizes"
)

func testTrace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 12, Iters: 3, Seed: 1, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// newModel returns a monochrome application on the test trace at w×h.
func newModel(t testing.TB, w, h int, opts ...func(*Options)) *Model {
	t.Helper()
	o := Options{Trace: testTrace(t), Path: "stencil.tsim", NoColor: true}
	for _, f := range opts {
		f(&o)
	}
	m := New(o)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// press sends keys and returns the last command.
func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(viewtest.Key(k))
	}
	return cmd
}

func checkFrame(t *testing.T, what string, s string, w, h int) {
	t.Helper()
	lines := strings.Split(s, "\n")
	if len(lines) != h && h > 0 {
		t.Errorf("%s %dx%d: %d lines", what, w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got > w {
			t.Errorf("%s %dx%d: line %d is %d wide", what, w, h, i, got)
		}
	}
}

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for i, tab := range DefaultTabs() {
			// The shell with the views of this issue; the other views
			// have goldens of their own, and TestLayout checks them here.
			if i >= 4 {
				break
			}
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], strings.ToLower(tab.Name)), func(t *testing.T) {
				m := newModel(t, sz[0], sz[1])
				press(m, fmt.Sprint(i+1))
				viewtest.Golden(t, viewtest.ASCII(t, m.Frame()))
			})
		}
		t.Run(fmt.Sprintf("%dx%d/help", sz[0], sz[1]), func(t *testing.T) {
			m := newModel(t, sz[0], sz[1])
			press(m, "2", "?")
			viewtest.Golden(t, viewtest.ASCII(t, m.Frame()))
		})
	}
}

// TestLayout checks every tab and overlay over a range of terminal sizes:
// exactly the terminal's height, never wider than its width, no panic.
func TestLayout(t *testing.T) {
	lib := t.TempDir()
	for _, sz := range [][2]int{{40, 12}, {41, 13}, {80, 24}, {100, 30}, {132, 43}, {160, 48}, {200, 60}, {300, 100}, {57, 77}, {250, 14}} {
		w, h := sz[0], sz[1]
		m := newModel(t, w, h, func(o *Options) { o.Library = lib })
		for i := range m.tabs {
			press(m, fmt.Sprint(i+1))
			checkFrame(t, m.tabs[i].Name, m.Frame(), w, h)
			press(m, "right", "down", "m")
			checkFrame(t, m.tabs[i].Name+" after keys", m.Frame(), w, h)
		}
		press(m, "?")
		checkFrame(t, "help", m.Frame(), w, h)
		press(m, "esc", "o")
		checkFrame(t, "picker", m.Frame(), w, h)
		press(m, "esc")
		m.load = &loading{path: "x.clog2", done: 1 << 20, total: 3 << 20, cancel: func() {}}
		checkFrame(t, "loading", m.Frame(), w, h)
	}
	// Degenerate sizes must not panic.
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {10, 2}, {3, 3}} {
		m := newModel(t, sz[0], sz[1])
		for i := range m.tabs {
			press(m, fmt.Sprint(i+1))
			m.Frame()
		}
	}
	empty := New(Options{NoColor: true})
	empty.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	checkFrame(t, "empty", empty.Frame(), 80, 24)
}

// TestIdleKeyRendersNothing: a key nobody binds leaves the cached frame
// and the view's cache untouched.
func TestIdleKeyRendersNothing(t *testing.T) {
	for i := range DefaultTabs() {
		m := newModel(t, 120, 40)
		press(m, fmt.Sprint(i+1))
		first := m.Frame()
		frames := m.frames
		type renderer interface{ Renders() int }
		r, counted := m.views[i].(renderer)
		var before int
		if counted {
			before = r.Renders()
		}
		// Function keys: no view binds them (letters come and go).
		press(m, "f11", "f12", "f11")
		if got := m.Frame(); got != first || m.frames != frames {
			t.Errorf("tab %d: idle keys recomposed the frame (%d → %d)", i+1, frames, m.frames)
		}
		if counted && r.Renders() != before {
			t.Errorf("tab %d: idle keys re-rendered the view", i+1)
		}
	}
}

func TestTabs(t *testing.T) {
	m := newModel(t, 120, 40)
	if m.Active() != 0 || m.TabNames()[0] != "Timeline" {
		t.Fatalf("starts on %d %v", m.Active(), m.TabNames())
	}
	for _, c := range []struct {
		key  string
		want int
	}{{"3", 2}, {"4", 3}, {"tab", 4 % len(m.tabs)}, {"1", 0}, {"shift+tab", len(m.tabs) - 1}, {"tab", 0}, {"2", 1}, {string(rune('1' + len(m.tabs))), 1}} {
		press(m, c.key)
		if m.Active() != c.want {
			t.Errorf("after %s: tab %d, want %d", c.key, m.Active(), c.want)
		}
	}
	// Views are built when first shown, not before.
	m2 := newModel(t, 120, 40)
	if m2.views[3] != nil {
		t.Error("Stats built before it was shown")
	}
	// A click on a tab's label selects it.
	st := m.common.Theme.Styles
	x := ansi.StringWidth(st.Title.Render(" tracesim "))
	for i := 0; i < 3; i++ {
		x += ansi.StringWidth(st.TabInactive.Render(fmt.Sprintf("%d %s", i+1, m.tabs[i].Name)))
	}
	m.Update(tea.MouseClickMsg{X: x + 1, Y: 0, Button: tea.MouseLeft})
	if m.Active() != 3 {
		t.Errorf("click on Stats: tab %d", m.Active())
	}
	if !strings.Contains(ansi.Strip(m.Frame()), "stencil.tsim") || !strings.Contains(ansi.Strip(m.Frame()), "12 ranks") {
		t.Error("status bar lacks the file or the ranks")
	}
}

// TestTabBarKept switches tabs back and forth (each tab's bar is then
// kept, not drawn again) and checks the bar and the clickable tab columns
// against a model that draws every bar anew: the same first line, and a
// click on each tab's label selects that tab. A resize and a theme change
// draw the bars again.
func TestTabBarKept(t *testing.T) {
	m := newModel(t, 120, 40)
	for i, step := range []string{"tab", "tab", "shift+tab", "shift+tab", "3", "1", "resize", "3", "T", "1", "3"} {
		switch step {
		case "resize":
			m.Update(tea.WindowSizeMsg{Width: 70, Height: 30})
		default:
			press(m, step)
		}
		got := strings.SplitN(m.Frame(), "\n", 2)[0]
		gotX := slices.Clone(m.tabX)
		m.tabKey, m.tabBars = barKey{}, nil
		if want := m.tabBar(); got != want {
			t.Errorf("step %d (%s): tab bar %q, drawn anew %q", i, step, ansi.Strip(got), ansi.Strip(want))
		}
		if !slices.Equal(gotX, m.tabX) {
			t.Errorf("step %d (%s): tab columns %v, drawn anew %v", i, step, gotX, m.tabX)
		}
		// Each click from this bar (a click changes the bar).
		active := m.Active()
		for k, r := range gotX {
			m.Update(tea.MouseClickMsg{X: r[0] + 1, Y: 0, Button: tea.MouseLeft})
			if m.Active() != k {
				t.Errorf("step %d (%s): a click at column %d selects tab %d, want %d", i, step, r[0]+1, m.Active(), k)
			}
			press(m, fmt.Sprint(active+1))
		}
	}
}

func TestQuitAndHelp(t *testing.T) {
	m := newModel(t, 80, 24)
	isQuit := func(cmd tea.Cmd) bool {
		if cmd == nil {
			return false
		}
		_, ok := cmd().(tea.QuitMsg)
		return ok
	}
	press(m, "?")
	if !m.showHelp || !strings.Contains(ansi.Strip(m.Frame()), "next tab") {
		t.Fatal("help overlay missing")
	}
	press(m, "?")
	if m.showHelp {
		t.Fatal("? did not close help")
	}
	if !isQuit(press(m, "q")) || !isQuit(press(m, "ctrl+c")) {
		t.Error("q or ctrl+c does not quit")
	}
	// A view with a focused input gets "q" instead.
	in := &fakeView{capture: true}
	m2 := newModel(t, 80, 24, func(o *Options) { o.Tabs = []Tab{{"Fake", in.new}} })
	if isQuit(press(m2, "q")) || in.keys != 1 {
		t.Errorf("q with input focused: quit or lost (keys %d)", in.keys)
	}
	if !isQuit(press(m2, "ctrl+c")) {
		t.Error("ctrl+c must quit even with input focused")
	}
}

// fakeView is a minimal view for routing tests: a timeline-like window,
// a selection and a key counter.
type fakeView struct {
	capture    bool
	keys       int
	focused    *tracefmt.EventRef
	alt        string
	start, end float64
	w, h       int
	msgs       []tea.Msg
}

func (f *fakeView) new(c component.Common, tr *tracefmt.Trace) component.Model { return f }

func (f *fakeView) Init() tea.Cmd { return nil }
func (f *fakeView) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		f.keys++
		f.start++
	case component.FocusEventMsg:
		f.focused = &msg.Event
	case component.AltTraceMsg:
		f.alt = msg.Label
	default:
		f.msgs = append(f.msgs, msg)
	}
	return f, nil
}
func (f *fakeView) View() string {
	return fit([]string{fmt.Sprintf("fake %d", f.keys)}, f.w, f.h)
}
func (f *fakeView) SetSize(w, h int)                   { f.w, f.h = w, h }
func (f *fakeView) ShortHelp() []key.Binding           { return nil }
func (f *fakeView) FullHelp() [][]key.Binding          { return nil }
func (f *fakeView) Capturing() bool                    { return f.capture }
func (f *fakeView) Window() (float64, float64)         { return f.start, f.end }
func (f *fakeView) Selection() string                  { return "fake selection" }
func (f *fakeView) SetAlt(_ *tracefmt.Trace, l string) { f.alt = l }

func TestRouting(t *testing.T) {
	fv := &fakeView{end: 100}
	var sz *sizes.Model
	tabs := []Tab{
		{"Timeline", fv.new},
		{"Sizes", func(c component.Common, tr *tracefmt.Trace) component.Model {
			sz = sizes.New(c, tr)
			return sz
		}},
	}
	m := newModel(t, 120, 30, func(o *Options) { o.Tabs = tabs })
	press(m, "2")
	// The Timeline's window reaches the Sizes view.
	press(m, "w", "1", "x", "x")
	full := analysis.SizeHistogram(m.Trace(), analysis.Window{Start: 2, End: 100}, nil)
	if got, want := sz.Histogram(), full; got != want {
		t.Error("sizes view does not follow the timeline window")
	}
	if s := ansi.Strip(m.Frame()); !strings.Contains(s, "fake selection") || !strings.Contains(s, "window") {
		t.Errorf("status bar lacks selection or window:\n%s", s)
	}
	// FocusEventMsg switches to the Timeline and focuses.
	press(m, "2")
	m.Update(component.FocusEventMsg{Event: tracefmt.EventRef{Rank: 3, Index: 7}})
	if m.Active() != 0 || fv.focused == nil || fv.focused.Rank != 3 {
		t.Errorf("focus: tab %d, focused %v", m.Active(), fv.focused)
	}
	m.Update(component.AltTraceMsg{Trace: m.Trace(), Label: "corrected"})
	if fv.alt != "corrected" || !strings.Contains(ansi.Strip(m.Frame()), "corrected") {
		t.Error("alt trace not routed or not shown")
	}
	m.Update(component.StatusMsg("hello there"))
	if !strings.Contains(ansi.Strip(m.Frame()), "hello there") {
		t.Error("status message not shown")
	}
	// Pasted text goes to the view on screen only.
	n := len(fv.msgs)
	press(m, "2")
	m.Update(tea.PasteMsg{Content: "hello"})
	press(m, "1")
	if len(fv.msgs) != n {
		t.Error("a paste reached a hidden view")
	}
	m.Update(tea.PasteMsg{Content: "hello"})
	if len(fv.msgs) != n+1 {
		t.Error("a paste did not reach the view on screen")
	}
	// Unknown messages reach every view that exists.
	type ping struct{}
	m.Update(ping{})
	if len(fv.msgs) == 0 || fv.msgs[len(fv.msgs)-1] != (ping{}) {
		t.Error("unknown message not broadcast")
	}
	// OpenTraceMsg replaces the trace and rebuilds the views.
	tr2, _ := gen.Generate(gen.Options{Pattern: "ring", Ranks: 5, Iters: 2, Seed: 2})
	m.Update(component.OpenTraceMsg{Trace: tr2, Path: "ring.tsim"})
	if m.Trace() != tr2 || m.views[1] != nil || !strings.Contains(ansi.Strip(m.Frame()), "ring.tsim") {
		t.Error("OpenTraceMsg not applied")
	}
	// Mouse events reach the view in its own coordinates.
	m.Update(tea.MouseWheelMsg{X: 5, Y: 6, Button: tea.MouseWheelDown})
	if w, ok := fv.msgs[len(fv.msgs)-1].(tea.MouseWheelMsg); !ok || w.Y != 5 {
		t.Errorf("wheel not forwarded with Y−1: %#v", fv.msgs[len(fv.msgs)-1])
	}
}

func TestBackgroundAndThemes(t *testing.T) {
	m := New(Options{Trace: testTrace(t)})
	if m.common.Theme.Name != "dark" {
		t.Fatalf("default theme %s", m.common.Theme.Name)
	}
	m.Update(tea.BackgroundColorMsg{Color: colorWhite{}})
	if m.common.Theme.Name != "light" {
		t.Errorf("light background: theme %s", m.common.Theme.Name)
	}
	m = New(Options{Trace: testTrace(t), Environ: []string{"NO_COLOR=1"}})
	m.Update(tea.BackgroundColorMsg{Color: colorWhite{}})
	if !m.common.Theme.Mono {
		t.Error("NO_COLOR ignored")
	}
	m = New(Options{Trace: testTrace(t), Theme: "colorblind"})
	m.Update(tea.BackgroundColorMsg{Color: colorWhite{}})
	if m.common.Theme.Name != "colorblind" || m.common.Theme.Dark {
		t.Errorf("colorblind on light: %s dark=%v", m.common.Theme.Name, m.common.Theme.Dark)
	}
	press(m, "T")
	if m.common.Theme.Name != "mono" {
		t.Errorf("T after colorblind: %s", m.common.Theme.Name)
	}
}

type colorWhite struct{}

func (colorWhite) RGBA() (r, g, b, a uint32) { return 0xffff, 0xffff, 0xffff, 0xffff }

// writeTrace writes a generated trace to dir/name.
func writeTrace(t testing.TB, dir, name string, o gen.Options) string {
	t.Helper()
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := formats.Save(p, "", tr); err != nil {
		t.Fatal(err)
	}
	return p
}

// finishLoad pumps the load's messages into the model until it ends.
func finishLoad(t *testing.T, m *Model) {
	t.Helper()
	for m.load != nil {
		msg := m.load.next()
		if msg == nil {
			t.Fatal("load ended without a result")
		}
		m.Update(msg)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p := writeTrace(t, dir, "ring.clog2", gen.Options{Pattern: "ring", Ranks: 6, Iters: 4, Seed: 1})
	m := New(Options{Path: p, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Init()
	if m.load == nil {
		t.Fatal("Init did not start loading")
	}
	if !strings.Contains(ansi.Strip(m.Frame()), "Loading") {
		t.Error("no loading screen")
	}
	// The progress bar (bubbles' progress) is 60 cells at 80 columns:
	// filled to the fraction read, the rest ░.
	m.load.done, m.load.total = 1, 4
	bar := strings.TrimSpace(strings.Split(ansi.Strip(m.Frame()), "\n")[4])
	if want := strings.Repeat("█", 15) + strings.Repeat("░", 45); bar != want {
		t.Errorf("progress at 25%%: %q, want %q", bar, want)
	}
	finishLoad(t, m)
	if m.Trace() == nil || m.Trace().Size() != 6 {
		t.Fatalf("loaded %v, err %q", m.Trace(), m.err)
	}
	// A broken file gives an error, not a trace.
	bad := filepath.Join(dir, "bad.clog2")
	os.WriteFile(bad, []byte("CLOG-02.44 garbage"), 0o644)
	m.Update(component.StatusMsg("")) // no-op
	m.startLoad(bad)
	finishLoad(t, m)
	if m.err == "" || m.Trace().Size() != 6 {
		t.Errorf("bad file: err %q", m.err)
	}
	// esc cancels a load in progress.
	m.startLoad(p)
	press(m, "esc")
	if m.load != nil {
		t.Error("esc did not cancel")
	}
}

func TestCancelledContext(t *testing.T) {
	dir := t.TempDir()
	p := writeTrace(t, dir, "ring.tsim", gen.Options{Pattern: "ring", Ranks: 4, Iters: 2, Seed: 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := New(Options{Path: p, Context: ctx})
	m.Init()
	for m.load != nil {
		msg := m.load.next()
		if msg == nil {
			break
		}
		m.Update(msg)
	}
	if m.Trace() != nil {
		t.Error("loaded despite a cancelled session")
	}
}

func TestPickerLibrary(t *testing.T) {
	outside := t.TempDir()
	secret := writeTrace(t, outside, "secret.tsim", gen.Options{Pattern: "ring", Ranks: 3, Iters: 1, Seed: 1})
	lib := t.TempDir()
	os.Mkdir(filepath.Join(lib, "sub"), 0o755)
	inner := writeTrace(t, filepath.Join(lib, "sub"), "ok.tsim", gen.Options{Pattern: "ring", Ranks: 7, Iters: 1, Seed: 1})
	if err := os.Symlink(secret, filepath.Join(lib, "link.tsim")); err != nil {
		t.Skip("no symlinks:", err)
	}
	m := newModel(t, 100, 30, func(o *Options) { o.Library = lib })
	pick(m, "o")
	if m.picker == nil {
		t.Fatal("o did not open the picker")
	}
	names := func() []string {
		var out []string
		for _, e := range m.picker.entries {
			out = append(out, e.name)
		}
		return out
	}
	if got := strings.Join(names(), ","); got != "sub,link.tsim" {
		t.Fatalf("library root lists %s", got)
	}
	// No way up from the library root.
	pick(m, "left", "backspace")
	if m.picker.dir != mustEval(t, lib) && m.picker.dir != lib {
		t.Errorf("left the library: %s", m.picker.dir)
	}
	// The link to a file outside is refused by the load, which reads
	// through the library's os.Root, and the error does not say where
	// the link leads.
	pick(m, "down", "enter")
	finishLoad(t, m)
	if filepath.Base(m.path) == "link.tsim" || !strings.Contains(m.err, "link.tsim: outside the library") || strings.Contains(m.err, outside) {
		t.Errorf("symlink outside: opened %q, error %q", m.path, m.err)
	}
	// Paths outside are refused whatever the route.
	for _, p := range []string{secret, filepath.Join(lib, "..", filepath.Base(outside), "secret.tsim")} {
		m.err = ""
		m.startLoad(p)
		finishLoad(t, m)
		if filepath.Base(m.path) == "secret.tsim" || !strings.Contains(m.err, "outside the trace library") {
			t.Errorf("startLoad(%s): opened %q, error %q", p, m.path, m.err)
		}
	}
	if err := within(lib, filepath.Join(lib, "..", filepath.Base(outside), "secret.tsim")); err == nil {
		t.Error("dot-dot path accepted")
	}
	// Inside works: into sub, open ok.tsim.
	m.err = ""
	pick(m, "o")
	pick(m, "enter")
	if got := strings.Join(names(), ","); got != "..,ok.tsim" {
		t.Fatalf("sub lists %s", got)
	}
	pick(m, "down", "enter")
	if m.picker != nil || m.load == nil {
		t.Fatal("enter on a file did not start loading")
	}
	finishLoad(t, m)
	if m.Trace().Size() != 7 || filepath.Base(m.path) != filepath.Base(inner) {
		t.Errorf("opened %s with %d ranks", m.path, m.Trace().Size())
	}
}

func TestLibraryOnlyOpensPicker(t *testing.T) {
	lib := t.TempDir()
	writeTrace(t, lib, "a.tsim", gen.Options{Pattern: "ring", Ranks: 3, Iters: 1, Seed: 1})
	m := New(Options{Library: lib, NoColor: true})
	// Init's batch holds the listing of the library, read by a command.
	if b, ok := m.Init()().(tea.BatchMsg); ok {
		for _, c := range b {
			if l, ok := c().(pickerListMsg); ok {
				m.Update(l)
			}
		}
	}
	if m.picker == nil || !strings.Contains(ansi.Strip(m.Frame()), "a.tsim") {
		t.Errorf("no picker on the library at start:\n%s", ansi.Strip(m.Frame()))
	}
}

func mustEval(t *testing.T, p string) string {
	p, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelpHidesShadowedKeys(t *testing.T) {
	fv := &fakeHelpView{fakeView: fakeView{}}
	m := newModel(t, 100, 30, func(o *Options) { o.Tabs = []Tab{{"Fake", fv.new}} })
	press(m, "?")
	s := ansi.Strip(m.Frame())
	if strings.Contains(s, "shadowed") || !strings.Contains(s, "reachable") {
		t.Errorf("help shows a binding the global keys shadow, or hides a reachable one:\n%s", s)
	}
}

// fakeHelpView has one binding the global tab key shadows and one it
// does not.
type fakeHelpView struct{ fakeView }

func (f *fakeHelpView) new(c component.Common, tr *tracefmt.Trace) component.Model { return f }
func (f *fakeHelpView) FullHelp() [][]key.Binding {
	return [][]key.Binding{{
		key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "shadowed")),
		key.NewBinding(key.WithKeys("x", "tab"), key.WithHelp("x", "reachable")),
	}}
}

// At 80×24 the help of the Timeline, the tab with the most keys, is
// compacted rather than cut off, and names only the tab keys that work.
func TestHelpFits80x24(t *testing.T) {
	m := newModel(t, 80, 24)
	press(m, "?")
	f := ansi.Strip(m.Frame())
	for _, want := range []string{"next match", "prev match", "1–8"} {
		if !strings.Contains(f, want) {
			t.Errorf("help at 80×24 lacks %q:\n%s", want, f)
		}
	}
}

// TestTabKeysWhileLoading: a tab key pressed while the trace loads is
// not lost: the trace opens in the tab chosen. Other keys wait for a
// view and do nothing.
func TestTabKeysWhileLoading(t *testing.T) {
	tr := testTrace(t)
	names := make([]string, 0, 9)
	for _, tb := range DefaultTabs() {
		names = append(names, tb.Name)
	}
	machine := indexOf(names, "Machine")
	if machine < 0 {
		t.Fatalf("no Machine tab in %v", names)
	}
	cases := []struct {
		keys []string
		want string // the tab shown once loaded
		text string // what it shows
	}{
		{[]string{strconv.Itoa(machine + 1)}, "Machine", "The machine"},
		{[]string{"tab"}, "Matrix", "Traffic bytes"},
		{[]string{"tab", "tab", "shift+tab"}, "Matrix", "Traffic bytes"},
		{[]string{"2", "3"}, "Sizes", "Message sizes"},
		{[]string{"x", "enter"}, "Timeline", "States"},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.keys, ","), func(t *testing.T) {
			// The load is held until the keys were pressed.
			gate := make(chan struct{})
			m := New(Options{Path: "stencil.tsim", NoColor: true, Open: func(ctx context.Context, path string) (*tracefmt.Trace, error) {
				<-gate
				return tr, nil
			}})
			m.Update(tea.WindowSizeMsg{Width: 140, Height: 30})
			m.Init()
			if m.load == nil || !strings.Contains(ansi.Strip(m.Frame()), "Loading stencil.tsim") {
				t.Fatalf("no loading screen:\n%s", ansi.Strip(m.Frame()))
			}
			press(m, tc.keys...)
			close(gate)
			finishLoad(t, m)
			if m.Trace() != tr {
				t.Fatalf("not loaded: err %q", m.err)
			}
			if got := m.TabNames()[m.Active()]; got != tc.want {
				t.Errorf("opened in the %s tab, want %s", got, tc.want)
			}
			if f := ansi.Strip(m.Frame()); !strings.Contains(strings.SplitN(f, "\n", 2)[1], tc.text) {
				t.Errorf("the %s tab's view does not show %q:\n%s", tc.want, tc.text, f)
			}
		})
	}
}

// TestQuitWhileLoading presses q on the loading screen: the program
// quits and the load is cancelled (q was dropped there, and the session
// went on once the trace had loaded).
func TestQuitWhileLoading(t *testing.T) {
	cancelled := make(chan struct{})
	m := New(Options{Path: "stencil.tsim", NoColor: true, Open: func(ctx context.Context, path string) (*tracefmt.Trace, error) {
		<-ctx.Done()
		close(cancelled)
		return nil, ctx.Err()
	}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m.Init()
	if m.load == nil {
		t.Fatal("no load under way")
	}
	cmd := press(m, "q")
	if cmd == nil {
		t.Fatal("q on the loading screen did nothing")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q on the loading screen does not quit")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the load was not cancelled")
	}
}
