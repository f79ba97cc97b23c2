package learn

import (
	"context"
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

const testLesson = `---
title: Ring test
level: beginner
trace: tracesim gen ring --ranks 4 --iters 5
set: topology=ring:4
---
The intro paragraph.

## Read this
Nothing to do but read.

## Run it
<!-- step
keys: 7 r
question: How long does it take, in microseconds?
answer: makespan
unit: us
hint: Press 7 then r and read the makespan.
-->
Run the **simulation**.

## Faster links
<!-- step
set: bandwidth=40Gb/s
tab: Machine
question: How many times faster?
answer: ratio bandwidth=10Gb/s / bandwidth=40Gb/s
tolerance: 5%
hint: Divide the two run times.
-->
The links are faster now.
`

var tabs = []string{"Timeline", "Matrix", "Sizes", "Stats", "Causality", "Machine", "Simulate", "Learn"}

// recorder is a Progress that remembers every call.
type recorder struct {
	calls  []string
	resume int
}

func (r *recorder) Reached(l string, step int) {
	r.calls = append(r.calls, fmt.Sprintf("reached %s %d", l, step))
}
func (r *recorder) Answered(l string, step int, answer string, correct bool) {
	r.calls = append(r.calls, fmt.Sprintf("answered %s %d %q %v", l, step, answer, correct))
}
func (r *recorder) Resume(string) (int, bool) { return r.resume, r.resume > 0 }

// solved parses a lesson and computes its trace and answers.
func solved(t *testing.T, name, src string) (*lesson.Lesson, *tracefmt.Trace, []*lesson.Expected) {
	t.Helper()
	l, err := lesson.Parse(name, strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	tr, want, errs := lesson.Check(context.Background(), l, lesson.CheckOptions{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	return l, tr, want
}

func setup(t *testing.T, p Progress) (*Model, []*lesson.Expected) {
	t.Helper()
	l, _, want := solved(t, "ring-test.md", testLesson)
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{Lesson: l, Progress: p, Tabs: tabs})
	m.SetSize(80, 30)
	m.Init()
	return m, want
}

// press sends the keys to m as the application would (viewtest's key
// names).
func press(m *Model, keys ...string) tea.Cmd { return viewtest.Press(m, keys...) }

// typeText types s into m a character at a time.
func typeText(m *Model, s string) { viewtest.Press(m, `"`+s+`"`) }

func screen(m *Model) string { return ansi.Strip(m.View()) }

func TestLessonEndToEnd(t *testing.T) {
	rec := &recorder{}
	m, want := setup(t, rec)
	s := screen(m)
	for _, w := range []string{"Ring test", "step 1/3", "The intro paragraph.", "1. Read this", "▶ Read this", "· Run it", "enter to go on"} {
		if !strings.Contains(s, w) {
			t.Errorf("first screen lacks %q:\n%s", w, s)
		}
	}
	// A step with nothing to do goes on with enter.
	press(m, "enter")
	if m.Step() != 1 {
		t.Fatalf("step %d after enter, want 1", m.Step())
	}
	// Answering before the answers are computed says so.
	press(m, "enter")
	typeText(m, "12")
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "still being computed") {
		t.Errorf("no word that the answers are being computed:\n%s", s)
	}
	m.Update(SolvedMsg{Lesson: "ring-test", Answers: want})
	// The keys, seen in other tabs.
	m.Update(ObservedMsg{Key: "7", Tab: "Simulate"})
	if s := screen(m); !strings.Contains(s, "✓7") {
		t.Errorf("key 7 not marked done:\n%s", s)
	}
	m.Update(ObservedMsg{Key: "r", Tab: "Simulate"})
	q := m.l.Steps[1].Question
	// A wrong answer shows the hint and stays on the step.
	press(m, "esc", "enter")
	typeText(m, "0.001")
	press(m, "enter")
	s = screen(m)
	if m.Step() != 1 || !strings.Contains(s, "0.001 is not right. Hint: Press 7 then r and read the makespan.") {
		t.Fatalf("wrong answer: step %d, screen:\n%s", m.Step(), s)
	}
	// Enter twice after a wrong answer (the box opens, then is sent
	// empty) keeps the hint on screen: an empty box is no answer.
	press(m, "enter", "enter")
	if s := screen(m); !strings.Contains(s, "Hint: Press 7 then r and read the makespan.") {
		t.Errorf("an empty answer after a wrong one hid the hint:\n%s", s)
	}
	// Not a number: said, not counted.
	press(m, "enter")
	typeText(m, "fast")
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, `"fast" is not a time`) {
		t.Errorf("no error for a non-number:\n%s", s)
	}
	press(m, "esc", "enter")
	answer := want[1].Format(q)
	typeText(m, answer)
	cmd := press(m, "enter")
	if m.Step() != 2 {
		t.Fatalf("step %d after the right answer %q, want 2:\n%s", m.Step(), answer, screen(m))
	}
	// Reaching step 2 changes the machine.
	msg := findMachine(cmd)
	if msg == nil {
		t.Fatal("no MachineMsg on reaching a step with settings")
	}
	if v, _ := msg.Config.Get("bandwidth"); v != "40Gb/s" {
		t.Errorf("machine bandwidth %s, want 40Gb/s", v)
	}
	if !strings.Contains(msg.Name, "bandwidth=40Gb/s") {
		t.Errorf("machine name %q", msg.Name)
	}
	// The right answer alone is not enough: the tab too.
	press(m, "enter")
	typeText(m, want[2].Format(m.l.Steps[2].Question))
	press(m, "enter")
	if m.Step() != 2 || !strings.Contains(screen(m), "Now the Machine tab") {
		t.Fatalf("step %d, want 2 until the Machine tab is reached:\n%s", m.Step(), screen(m))
	}
	m.Update(ObservedMsg{Key: "6", Tab: "Machine"})
	if !m.Finished() || !strings.Contains(screen(m), "3 answers of which 1") || !strings.Contains(screen(m), "· done") {
		t.Fatalf("not finished:\n%s", screen(m))
	}
	wantCalls := []string{
		"reached ring-test 0", "reached ring-test 1",
		`answered ring-test 1 "0.001" false`,
		fmt.Sprintf("answered ring-test 1 %q true", answer), "reached ring-test 2",
		fmt.Sprintf("answered ring-test 2 %q true", want[2].Format(m.l.Steps[2].Question)), "reached ring-test 3",
	}
	if got := strings.Join(rec.calls, "\n"); got != strings.Join(wantCalls, "\n") {
		t.Errorf("progress calls\n%s\nwant\n%s", got, strings.Join(wantCalls, "\n"))
	}
}

func findMachine(cmd tea.Cmd) *MachineMsg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case MachineMsg:
		return &msg
	case tea.BatchMsg:
		for _, c := range msg {
			if m := findMachine(c); m != nil {
				return m
			}
		}
	}
	return nil
}

func TestResume(t *testing.T) {
	rec := &recorder{resume: 2}
	m, _ := setup(t, rec)
	if m.Step() != 2 {
		t.Fatalf("resumed at %d, want 2", m.Step())
	}
	if s := screen(m); !strings.Contains(s, "3. Faster links") || !strings.Contains(s, "✓ Run it") {
		t.Errorf("resumed screen:\n%s", s)
	}
	if rec.calls[0] != "reached ring-test 2" {
		t.Errorf("first call %q", rec.calls[0])
	}
}

// TestShownTabKey: a student already in the Simulate tab need not press
// 7 again.
func TestShownTabKey(t *testing.T) {
	m, want := setup(t, nil)
	m.Update(ObservedMsg{Key: "7", Tab: "Simulate"}) // step 0 has no keys
	press(m, "enter")
	m.Update(SolvedMsg{Lesson: "ring-test", Answers: want})
	m.Update(ObservedMsg{Key: "r", Tab: "Simulate"})
	if m.keyPos != 2 {
		t.Fatalf("keys pressed %d, want 2 (7 counts: the Simulate tab is shown)", m.keyPos)
	}
}

// TestViewFits: the Learn tab draws exactly its size at every size the
// application supports, in a colour and the monochrome theme, also as the
// narrow pane beside another tab (20×4).
func TestViewFits(t *testing.T) {
	l, _, _ := solved(t, "ring-test.md", testLesson)
	viewtest.SweepThemes(t, func(c component.Common) component.Model {
		return New(c, Options{Lesson: l, Tabs: tabs})
	})
	m, _ := setup(t, nil)
	m.SetSize(20, 4)
	if err := viewtest.CheckFrame(m.View(), 20, 4); err != "" {
		t.Error("20×4:", err)
	}
}

func TestColourThemeRenders(t *testing.T) {
	for _, dark := range []bool{true, false} {
		l, _ := lesson.Parse("x.md", strings.NewReader(testLesson))
		m := New(component.New(&component.Session{Theme: themes.Default(nil, dark)}, 0, 0), Options{Lesson: l})
		m.SetSize(70, 20)
		if s := ansi.Strip(m.View()); !strings.Contains(s, "Read this") {
			t.Errorf("dark=%v:\n%s", dark, s)
		}
	}
}

// TestGolden pins the Learn tab's drawing in the monochrome theme: the
// first step with the intro, and a question after a wrong answer.
func TestGolden(t *testing.T) {
	m, want := setup(t, nil)
	m.SetSize(72, 22)
	t.Run("intro", func(t *testing.T) { viewtest.Golden(t, m.View()) })
	press(m, "enter")
	m.Update(SolvedMsg{Lesson: "ring-test", Answers: want})
	m.Update(ObservedMsg{Key: "7", Tab: "Simulate"})
	press(m, "enter")
	typeText(m, "1")
	press(m, "enter", "enter")
	typeText(m, "2")
	t.Run("hint", func(t *testing.T) { viewtest.Golden(t, m.View()) })
}

const findingLesson = `---
title: Skew
trace: tracesim gen ring --ranks 4 --iters 5 --skew 50us
---
## Select the worst
<!-- step
question: Select the largest reversal.
answer: largest-reversal
hint: The largest is at the top.
-->
Select it.
`

// TestFindingAnswer: a question of a finding is answered with the one
// selected in the Causality tab.
func TestFindingAnswer(t *testing.T) {
	l, tr, want := solved(t, "skew.md", findingLesson)
	rep, err := causality.Check(context.Background(), tr, causality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rev := rep.ByKind[causality.KindReversal]
	best, other := rev[0], rev[0]
	for _, f := range rev {
		if f.Amount > best.Amount {
			best = f
		}
		if f.Amount < other.Amount {
			other = f
		}
	}
	rec := &recorder{}
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{Lesson: l, Progress: rec, Tabs: tabs})
	m.SetSize(100, 20)
	m.Update(SolvedMsg{Lesson: "skew", Answers: want})
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "Select a finding in the Causality tab (5) first") || !strings.Contains(s, "nothing selected yet") {
		t.Fatalf("no selection:\n%s", s)
	}
	m.Update(ObservedMsg{Key: "j", Tab: "Causality", Finding: &other})
	press(m, "enter")
	if s := screen(m); m.Finished() || !strings.Contains(s, lesson.DescribeFinding(other)+" is not right. Hint: The largest is at the top.") {
		t.Fatalf("a smaller reversal:\n%s", s)
	}
	m.Update(ObservedMsg{Key: "g", Tab: "Causality", Finding: &best})
	if s := screen(m); !strings.Contains(s, "Selected: "+lesson.DescribeFinding(best)) {
		t.Errorf("selection not shown:\n%s", s)
	}
	press(m, "enter")
	if !m.Finished() {
		t.Fatalf("the largest reversal was refused:\n%s", screen(m))
	}
	if got := rec.calls[1]; got != fmt.Sprintf("answered skew 0 %q true", lesson.DescribeFinding(best)) {
		t.Errorf("progress %v", rec.calls)
	}
}

// TestNoticeClearedOnAdvance: a notice about a step does not follow the
// student to the next one.
func TestNoticeClearedOnAdvance(t *testing.T) {
	l, err := lesson.Parse("keys.md", strings.NewReader("---\ntitle: K\ntrace: tracesim gen pingpong --iters 2\n---\n## Press\n<!-- step\nkeys: 7\n-->\n## Read\nDone.\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{Lesson: l, Tabs: tabs})
	m.SetSize(80, 20)
	press(m, "enter")
	if s := screen(m); !strings.Contains(s, "This step asks for the keys 7 first.") {
		t.Fatalf("no notice:\n%s", s)
	}
	m.Update(ObservedMsg{Key: "7", Tab: "Simulate"})
	if s := screen(m); m.Step() != 1 || strings.Contains(s, "asks for") {
		t.Errorf("step %d, screen:\n%s", m.Step(), s)
	}
}

// TestScrollKeys: the lesson scrolls with the keys of every list (↓/j,
// pgdown/ctrl+d, pgup/ctrl+u, home/g, end/G), and space pages down as in
// a pager; the help shows them.
func TestScrollKeys(t *testing.T) {
	var long strings.Builder
	for i := range 40 {
		fmt.Fprintf(&long, "Line %d of a long step.\n\n", i)
	}
	l, err := lesson.Parse("long.md", strings.NewReader(strings.Replace(testLesson, "The intro paragraph.", long.String(), 1)))
	if err != nil {
		t.Fatal(err)
	}
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{Lesson: l, Tabs: tabs})
	m.SetSize(60, 16)
	page := 16 - 6
	top := func() int { m.View(); return m.top }
	press(m, "G")
	end := top()
	if end < 2*page {
		t.Fatalf("the lesson scrolls to %d only: too short for the test", end)
	}
	for _, c := range []struct {
		key  string
		want int
	}{
		{"g", 0},
		{"ctrl+d", page},
		{"pgdown", 2 * page},
		{"ctrl+u", page},
		{"pgup", 0},
		{"space", page},
		{"j", page + 1},
		{"k", page},
		{"end", end},
		{"home", 0},
	} {
		press(m, c.key)
		if got := top(); got != c.want {
			t.Errorf("after %s: top %d, want %d", c.key, got, c.want)
		}
	}
	var keys []string
	for _, col := range m.FullHelp() {
		for _, b := range col {
			keys = append(keys, b.Help().Key)
		}
	}
	if got := strings.Join(keys, " "); !strings.Contains(got, "↑/k ↓/j pgup pgdn/space home/g end/G") {
		t.Errorf("help keys %q", got)
	}
}
