package tui

import (
	"context"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/learn"
	"github.com/tracesim/tracesim/views/machine"
)

const wiringLesson = `---
title: Wiring
trace: tracesim gen stencil2d --ranks 12 --iters 3
set: topology=ring:12
---
## Look at the matrix
<!-- step
keys: 2
-->
The matrix.

## Faster links
<!-- step
set: bandwidth=40Gb/s
keys: 7
question: How long does it take, in ms?
answer: makespan
unit: ms
hint: Run it.
-->
Run it.
`

type recorder struct{ calls []string }

func (r *recorder) Reached(l string, s int) {
	r.calls = append(r.calls, "reached "+l+" "+string(rune('0'+s)))
}
func (r *recorder) Answered(l string, s int, a string, ok bool) {
	r.calls = append(r.calls, "answered "+a)
}
func (r *recorder) Resume(string) (int, bool) { return 0, false }

// wiring parses the test lesson and loads its trace.
func wiring(t *testing.T) (*lesson.Lesson, *tracefmt.Trace) {
	t.Helper()
	l, err := lesson.Parse("wiring.md", strings.NewReader(wiringLesson))
	if err != nil {
		t.Fatal(err)
	}
	tr, err := l.LoadTrace(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l, tr
}

func TestLearnTabWiring(t *testing.T) {
	l, tr := wiring(t)
	rec := &recorder{}
	m := New(Options{Trace: tr, Path: "wiring", NoColor: true, Lesson: l, Progress: rec})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	settle(t, m, m.Init())
	names := m.TabNames()
	if names[len(names)-1] != LearnTab || m.Active() != len(names)-1 {
		t.Fatalf("tabs %v, active %d: want the Learn tab last and shown", names, m.Active())
	}
	f := ansi.Strip(m.Frame())
	for _, w := range []string{"8 Sweep  0 Learn", "Wiring", "1. Look at the matrix", "To do: press 2"} {
		if !strings.Contains(f, w) {
			t.Errorf("first frame lacks %q:\n%s", w, f)
		}
	}
	lv := m.ViewOf(len(names) - 1).(*learn.Model)
	// The lesson's machine is the Machine tab's.
	mi := indexOf(names, "Machine")
	if cfg, _ := m.ViewOf(mi).(*machine.Model).Config(); cfg.Topology != "ring:12" {
		t.Errorf("Machine tab topology %q, want the lesson's ring:12", cfg.Topology)
	}
	// 2 shows the Matrix and is the step's key.
	settle(t, m, press(m, "2"))
	if m.Active() != 1 || lv.Step() != 1 {
		t.Fatalf("after 2: tab %d, step %d; want 1, 1", m.Active(), lv.Step())
	}
	// Reaching step 1 set its machine for the Machine and Simulate tabs.
	cfg, _ := m.ViewOf(mi).(*machine.Model).Config()
	if bw, _ := cfg.Get("bandwidth"); bw != "40Gb/s" || cfg.Topology != "ring:12" {
		t.Errorf("Machine tab after step 1: bandwidth %s, topology %q; want 40Gb/s and ring:12", bw, cfg.Topology)
	}
	// 0 comes back to the lesson; the digit of the Learn tab's place
	// does not.
	press(m, strconv.Itoa(len(names)))
	if m.Active() != 1 {
		t.Errorf("%d switched to tab %d", len(names), m.Active())
	}
	press(m, "0")
	if m.Active() != len(names)-1 {
		t.Fatalf("0 shows tab %d, want the Learn tab", m.Active())
	}
	// Keys typed in the answer box are the answer: 7 does not switch
	// tabs nor count as the step's key.
	press(m, "enter", "7")
	if m.Active() != len(names)-1 || !strings.Contains(ansi.Strip(m.Frame()), "answer: 7") {
		t.Fatalf("typing 7 in the answer box: tab %d\n%s", m.Active(), ansi.Strip(m.Frame()))
	}
	press(m, "esc", "7")
	if m.Active() != indexOf(names, "Simulate") || !strings.Contains(ansi.Strip(lv.View()), "✓7") {
		t.Errorf("7 outside the box: tab %d, lesson:\n%s", m.Active(), ansi.Strip(lv.View()))
	}
	if got := strings.Join(rec.calls, ","); got != "reached wiring 0,reached wiring 1" {
		t.Errorf("progress %s", got)
	}
}

// TestPinnedLesson: p in the Learn tab shows the lesson beside the other
// tabs when the terminal is wide enough.
func TestPinnedLesson(t *testing.T) {
	l, tr := wiring(t)
	m := New(Options{Trace: tr, Path: "wiring", NoColor: true, Lesson: l})
	m.Update(tea.WindowSizeMsg{Width: 130, Height: 30})
	settle(t, m, press(m, "p"))
	press(m, "2")
	f := ansi.Strip(m.Frame())
	lines := strings.Split(f, "\n")
	checkFrame(t, "pinned", m.Frame(), 130, 30)
	// The pane is 2/5 of the width, 52 columns from its separator at
	// column 78.
	if r := []rune(lines[1]); len(r) < 79 || r[78] != '│' || !strings.Contains(lines[1], "Wiring") {
		t.Errorf("no lesson pane at column 78:\n%s", f)
	}
	// 2 did step 1; step 2 wants 7.
	if !strings.Contains(f, "Traffic") || !strings.Contains(f, "To do: press 7") {
		t.Errorf("the Matrix and the lesson's tasks are not both shown:\n%s", f)
	}
	// The Learn tab itself takes the whole width.
	press(m, "0")
	if l := strings.Split(ansi.Strip(m.Frame()), "\n")[1]; strings.ContainsRune(l, '│') {
		t.Errorf("the Learn tab shows a pane: %q", l)
	}
	// Too narrow: no pane.
	m.Update(tea.WindowSizeMsg{Width: 90, Height: 30})
	press(m, "2")
	if f := ansi.Strip(m.Frame()); strings.Contains(f, "Wiring") {
		t.Errorf("a pane on a 90-column terminal:\n%s", f)
	}
	// p again unpins.
	press(m, "0")
	settle(t, m, press(m, "p"))
	m.Update(tea.WindowSizeMsg{Width: 130, Height: 30})
	press(m, "2")
	if f := ansi.Strip(m.Frame()); strings.Contains(f, "Wiring") {
		t.Errorf("unpinned, the lesson still shows:\n%s", f)
	}
}

// TestGivenAnswers: answers a server computed once are used as given.
func TestGivenAnswers(t *testing.T) {
	l, tr := wiring(t)
	given := []*lesson.Expected{nil, {Kind: lesson.Makespan, Value: 42e-3}}
	m := New(Options{Trace: tr, Path: "wiring", NoColor: true, Lesson: l, LessonAnswers: given})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	settle(t, m, m.Init())
	press(m, "2", "7", "0", "enter", "4", "2", "enter")
	if f := ansi.Strip(m.Frame()); !strings.Contains(f, "Right: 42 ms (step 2)") {
		t.Errorf("the given answer was not the one checked:\n%s", f)
	}
}

// TestNoLessonKeepsZero: without a lesson there is no Learn tab and 0
// stays the views' key.
func TestNoLessonKeepsZero(t *testing.T) {
	m := newModel(t, 100, 30)
	if names := m.TabNames(); indexOf(names, LearnTab) >= 0 {
		t.Fatalf("tabs %v have a Learn tab", names)
	}
	press(m, "0")
	if m.Active() != 0 {
		t.Errorf("0 switched to tab %d", m.Active())
	}
	if strings.Contains(ansi.Strip(m.Frame()), "0 Learn") {
		t.Error("tab bar shows 0 Learn")
	}
}

func indexOf(names []string, n string) int {
	for i, x := range names {
		if x == n {
			return i
		}
	}
	return -1
}
