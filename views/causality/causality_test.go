package causality

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// skewed is a small generated trace whose clocks are skewed enough to
// reverse messages and collectives.
func skewed(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 4, Iters: 3, Seed: 1, Skew: 80e-6})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// exec executes cmd and feeds the message it returns back to m, as the
// program would; it returns that message.
func exec(m *Model, cmd tea.Cmd) tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	m.Update(msg)
	return msg
}

// checked returns a view of tr whose check has finished.
func checked(t testing.TB, th *themes.Theme, tr *tracefmt.Trace, w, h int) *Model {
	t.Helper()
	m := New(component.New(&component.Session{Theme: th}, 0, 0), tr)
	m.SetSize(w, h)
	exec(m, m.Init())
	if m.Report() == nil {
		t.Fatal("no report after the check")
	}
	// A fixed duration, so that golden files do not depend on the
	// machine's load.
	m.elapsed = 0
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

func TestGolden(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		for _, c := range []struct {
			name    string
			keys    []string
			correct bool
		}{
			{"amount", nil, false},
			{"kind", []string{"s", "down", "down"}, false},
			{"rank-reversed", []string{"s", "s", "r"}, false},
			{"corrected", nil, true},
		} {
			t.Run(fmt.Sprintf("%dx%d/%s", sz[0], sz[1], c.name), func(t *testing.T) {
				m := checked(t, themes.Mono(), skewed(t), sz[0], sz[1])
				press(m, c.keys...)
				if c.correct {
					exec(m, press(m, "c"))
				}
				viewtest.Golden(t, viewtest.ASCII(t, m.View()))
			})
		}
	}
}

func TestGoldenChecking(t *testing.T) {
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), skewed(t))
	m.SetSize(80, 24)
	m.Init() // the check's command is not run: the view says it is checking
	viewtest.Golden(t, viewtest.ASCII(t, m.View()))
}

func TestLayout(t *testing.T) {
	tr := skewed(t)
	for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
		for w := 40; w <= 300; w += 37 {
			for h := 12; h <= 100; h += 11 {
				m := checked(t, th, tr, w, h)
				press(m, "down", "s")
				checkSize(t, m.View(), w, h)
				exec(m, press(m, "c"))
				checkSize(t, m.View(), w, h)
			}
		}
	}
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {5, 3}, {40, 1}, {300, 100}} {
		m := checked(t, themes.Dark(), tr, sz[0], sz[1])
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

func TestSort(t *testing.T) {
	m := checked(t, themes.Dark(), skewed(t), 120, 40)
	if m.Len() == 0 || m.Len() != m.Report().Total() {
		t.Fatalf("%d findings listed, report has %d", m.Len(), m.Report().Total())
	}
	// By amount: clock findings first, largest first.
	fs := m.Findings()
	for i := 1; i < len(fs); i++ {
		a, b := fs[i-1], fs[i]
		if a.Kind.Class() > b.Kind.Class() ||
			a.Kind.Class() == causality.ClassClock && b.Kind.Class() == causality.ClassClock && a.Amount < b.Amount {
			t.Fatalf("by amount: %v (%g) before %v (%g)", a.Kind, a.Amount, b.Kind, b.Amount)
		}
	}
	worst := fs[0]
	press(m, "r")
	if k, rev := m.Sort(); k != ByAmount || !rev {
		t.Fatalf("r: sort %v reversed %v", k, rev)
	}
	if got := m.Findings(); got[len(got)-1] != worst {
		t.Errorf("reversed: the last finding is not the worst")
	}
	press(m, "r", "s")
	if k, _ := m.Sort(); k != ByKind {
		t.Fatalf("s: sort %v", k)
	}
	fs = m.Findings()
	for i := 1; i < len(fs); i++ {
		if fs[i-1].Kind > fs[i].Kind {
			t.Fatalf("by kind: %v before %v", fs[i-1].Kind, fs[i].Kind)
		}
	}
	press(m, "s")
	if k, _ := m.Sort(); k != ByRank {
		t.Fatalf("s s: sort %v", k)
	}
	fs = m.Findings()
	for i := 1; i < len(fs); i++ {
		a, b := fs[i-1].Events[0], fs[i].Events[0]
		if a.Rank > b.Rank || a.Rank == b.Rank && a.Index > b.Index {
			t.Fatalf("by rank: %v before %v", a, b)
		}
	}
	press(m, "s")
	if k, _ := m.Sort(); k != ByAmount {
		t.Fatalf("s cycles back to amount: %v", k)
	}
}

func TestFocus(t *testing.T) {
	m := checked(t, themes.Dark(), skewed(t), 120, 40)
	// The first reversal in the amount order.
	var want tracefmt.EventRef
	for i, f := range m.Findings() {
		if f.Kind == causality.KindReversal {
			want = f.Events[1]
			for range i {
				press(m, "down")
			}
			break
		}
	}
	if f, _ := m.Selected(); f.Kind != causality.KindReversal {
		t.Fatalf("selected %v, want a reversal", f.Kind)
	}
	cmd := press(m, "enter")
	if cmd == nil {
		t.Fatal("enter: no command")
	}
	msg, ok := cmd().(component.FocusEventMsg)
	if !ok || msg.Event != want {
		t.Fatalf("enter sent %#v, want FocusEventMsg{%v}", msg, want)
	}
	// The event is the receive of a message received before it was sent.
	e := m.tr.Event(msg.Event)
	if e.Kind != tracefmt.KindRecv || e.Match < 0 {
		t.Fatalf("focused event %v is %v", msg.Event, e.Kind)
	}
	send := m.tr.Event(tracefmt.EventRef{Rank: e.Peer, Index: e.Match})
	if !(e.Time < send.Time) {
		t.Errorf("focused message not reversed: send %g recv %g", send.Time, e.Time)
	}
	if !strings.Contains(viewtest.ASCII(t, m.View()), "before the send (latency -") {
		t.Errorf("details do not say the receive came first:\n%s", viewtest.ASCII(t, m.View()))
	}
}

func TestCorrect(t *testing.T) {
	tr := skewed(t)
	m := checked(t, themes.Dark(), tr, 120, 40)
	if m.Report().ClockViolations() == 0 {
		t.Fatal("the skewed trace has no clock violations")
	}
	cmd := press(m, "c")
	if cmd == nil || !m.Correcting() {
		t.Fatal("c started no correction")
	}
	if !strings.Contains(viewtest.ASCII(t, m.View()), "correcting") {
		t.Error("the view does not say it is correcting")
	}
	_, next := m.Update(cmd())
	if m.Correcting() || m.Correction() == nil {
		t.Fatal("the correction did not finish")
	}
	if next == nil {
		t.Fatal("no AltTraceMsg after the correction")
	}
	alt, ok := next().(component.AltTraceMsg)
	if !ok || alt.Trace == nil || alt.Label != "corrected" {
		t.Fatalf("sent %#v", alt)
	}
	if alt.Trace == tr {
		t.Fatal("the corrected trace is the original")
	}
	rep, err := causality.Check(t.Context(), alt.Trace, causality.Options{Replay: causality.ReplayOff})
	if err != nil {
		t.Fatal(err)
	}
	if n := rep.ClockViolations(); n != 0 {
		t.Errorf("corrected trace has %d clock violations", n)
	}
	if c := m.Correction(); c.ViolationsBefore() != m.Report().ClockViolations() || c.ViolationsAfter() != 0 {
		t.Errorf("correction before %d after %d", c.ViolationsBefore(), c.ViolationsAfter())
	}
	v := viewtest.ASCII(t, m.View())
	if !strings.Contains(v, fmt.Sprintf("%d → 0 clock violations", m.Report().ClockViolations())) {
		t.Errorf("the view does not report the correction:\n%s", v)
	}
}

func TestStale(t *testing.T) {
	tr := skewed(t)
	m := New(component.New(&component.Session{Theme: themes.Dark()}, 0, 0), tr)
	m.SetSize(80, 24)
	old := m.Init()
	// The trace changes while the first check runs: its result must not
	// be shown, and its context is cancelled.
	first := m.check
	cmd := m.SetTrace(tr)
	if first.done {
		t.Fatal("first check marked done")
	}
	m.Update(old())
	if m.Report() != nil {
		t.Fatal("a stale check's report was taken")
	}
	exec(m, cmd)
	if m.Report() == nil {
		t.Fatal("the new check's report was not taken")
	}
	// A cancelled check says so.
	m.SetTrace(tr)
	press(m, "esc")
	if m.Checking() || !strings.Contains(m.View(), "check stopped") {
		t.Errorf("esc did not cancel the check:\n%s", m.View())
	}
}

func TestIdleKey(t *testing.T) {
	m := checked(t, themes.Dark(), skewed(t), 80, 24)
	m.View()
	n := m.Renders()
	press(m, "z")
	m.View()
	if m.Renders() != n {
		t.Error("an unbound key re-rendered")
	}
	press(m, "down")
	m.View()
	if m.Renders() != n+1 {
		t.Error("down did not re-render")
	}
}

func TestLMin(t *testing.T) {
	tr := skewed(t)
	m := checked(t, themes.Dark(), tr, 120, 40)
	cmd := press(m, "l")
	if !m.Checking() || cmd == nil {
		t.Fatal("l did not check again")
	}
	exec(m, cmd)
	if r := m.Report(); r == nil || r.LMin != 1e-6 {
		t.Fatalf("l_min after l: %+v", r)
	}
	if !strings.Contains(m.View(), "l_min 1 µs") {
		t.Errorf("l_min not shown:\n%s", m.View())
	}
	// The correction keeps every message at least l_min long.
	exec(m, press(m, "c"))
	c := m.Correction()
	if c == nil || c.LMin != 1e-6 {
		t.Fatalf("correction %+v", c)
	}
	for r := range c.Trace.Ranks {
		for _, e := range c.Trace.Ranks[r].Events {
			if e.Kind != tracefmt.KindRecv || e.Match < 0 {
				continue
			}
			s := c.Trace.Event(tracefmt.EventRef{Rank: e.Peer, Index: e.Match})
			if lat := c.Trace.Seconds(e.Time - s.Time); lat < 1e-6*(1-1e-6) {
				t.Fatalf("corrected message %d→%d takes %g s", e.Peer, r, lat)
			}
		}
	}
	// 0 → 1 → 10 → 100 µs → 0.
	for _, want := range []float64{10e-6, 100e-6, 0} {
		exec(m, press(m, "l"))
		if got := m.Report().LMin; got != want {
			t.Fatalf("l_min %g, want %g", got, want)
		}
	}
}

// TestDroppedViewCancels: the application drops a view without telling
// it (another trace, the session's end); the view's work is cancelled
// once it is collected.
func TestDroppedViewCancels(t *testing.T) {
	ctx := func() context.Context {
		m := New(component.New(&component.Session{Theme: themes.Dark()}, 0, 0), skewed(t))
		m.Init()
		return m.base
	}()
	for i := 0; i < 100 && ctx.Err() == nil; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if ctx.Err() == nil {
		t.Fatal("the dropped view's context was not cancelled")
	}
}

func TestMouse(t *testing.T) {
	m := checked(t, themes.Dark(), skewed(t), 120, 40)
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if f, _ := m.Selected(); f != m.Findings()[3] {
		t.Errorf("wheel down: selected %v", f)
	}
	// The list's header is under the head lines; its first row under it.
	v := strings.Split(viewtest.ASCII(t, m.View()), "\n")
	y := -1
	for i, l := range v {
		if strings.Contains(l, "KIND") {
			y = i
			break
		}
	}
	m.Update(tea.MouseClickMsg{X: 5, Y: y + 2, Button: tea.MouseLeft})
	if f, _ := m.Selected(); f != m.Findings()[1] {
		t.Errorf("click on the second row: selected %v", f)
	}
}
