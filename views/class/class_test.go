package class

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/internal/classdb"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

var now = time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC)

// classOf returns n students: every fifth has finished, every seventh is
// on their step for 9 minutes (stuck), student 3 has not started, and
// the odd ones are online.
func classOf(n int) ([]classdb.Student, map[string]bool) {
	var out []classdb.Student
	online := map[string]bool{}
	for i := range n {
		s := classdb.Student{
			Key:       fmt.Sprintf("SHA256:key%02d", i),
			Name:      fmt.Sprintf("student %02d", i),
			Lesson:    "eager-rendezvous",
			Steps:     6,
			Step:      i % 6,
			StepSince: now.Add(-time.Duration(i*13) * time.Second),
			Right:     i % 6,
			Wrong:     i % 3,
		}
		switch {
		case i == 3:
			s.Lesson, s.Step, s.Steps, s.StepSince, s.Right, s.Wrong = "", 0, 0, time.Time{}, 0, 0
		case i%5 == 0:
			s.Step = 6
		case i%7 == 0:
			s.StepSince = now.Add(-9 * time.Minute)
		}
		if i == 29 {
			s.Name = "" // no comment on the key: its start is shown
		}
		out = append(out, s)
		if i%2 == 1 || i%7 == 0 {
			online[s.Key] = true
		}
	}
	return out, online
}

// newView returns a Class tab on st that has had one read.
func newView(t *testing.T, st []classdb.Student, online map[string]bool, w, h int) *Model {
	t.Helper()
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{
		Source: func(context.Context) ([]classdb.Student, error) { return append([]classdb.Student(nil), st...), nil },
		Online: func() map[string]bool { return online },
		Now:    func() time.Time { return now },
	})
	m.SetSize(w, h)
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("Init started no read")
	}
	m.Update(cmd())
	return m
}

func screen(m *Model) string { return ansi.Strip(m.View()) }

func TestGolden(t *testing.T) {
	st, online := classOf(30)
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := newView(t, st, online, size[0], size[1])
			viewtest.Golden(t, m.View())
		})
	}
}

// TestRows checks what each kind of student shows: their step, answers,
// time on step and status.
func TestRows(t *testing.T) {
	st, online := classOf(30)
	m := newView(t, st, online, 120, 40)
	s := screen(m)
	// Rows compared field by field: the column widths are the goldens'.
	rows := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		f := strings.Fields(l)
		if len(f) > 1 {
			rows[strings.Join(f[:2], " ")] = strings.Join(f, " ")
		}
	}
	for _, tt := range []struct{ name, want string }{
		{"student 01", "student 01 eager-rendezvous 2/6 ███▍░░░░░░░░░░░░░░░░ 1 1 13s working"},
		{"student 02", "student 02 eager-rendezvous 3/6 ██████▋░░░░░░░░░░░░░ 2 2 26s away"},
		{"student 03", "student 03 – 0 0 not started"},
		{"student 05", "student 05 eager-rendezvous 6/6 ████████████████████ 5 2 done"},
		{"student 07", "student 07 eager-rendezvous 2/6 ███▍░░░░░░░░░░░░░░░░ 1 1 9m00s stuck"},
		{"student 23", "student 23 eager-rendezvous 6/6 ████████████████▋░░░ 5 2 4m59s working"},
		{"key29 eager-rendezvous", "key29 eager-rendezvous 6/6 ████████████████▋░░░ 5 2 6m17s stuck"},
	} {
		if got := rows[tt.name]; got != tt.want {
			t.Errorf("%s: row\n%q, want\n%q", tt.name, got, tt.want)
		}
	}
	if want := "30 students · 18 online · 6 stuck · 6 finished · updated 10:30:00"; !strings.Contains(s, want) {
		t.Errorf("summary: want %q in\n%s", want, s)
	}
}

func TestSortAndCursor(t *testing.T) {
	st, online := classOf(30)
	m := newView(t, st, online, 100, 12)
	first := func() string { return m.students[0].Label() }
	viewtest.Press(m, "down", "down")
	if got := m.students[m.cursor].Name; got != "student 02" {
		t.Fatalf("cursor on %q after two downs, want student 02", got)
	}
	viewtest.Press(m, "s") // time on step, the stuck first
	if got := first(); got != "student 07" {
		t.Errorf("stuck first: top row is student %s, want student 07 (9m on step, first by name)", got)
	}
	if got := m.students[m.cursor].Name; got != "student 02" {
		t.Errorf("sorting moved the cursor to %q", got)
	}
	viewtest.Press(m, "s") // progress: the least first
	if got := first(); got != "student 03" {
		t.Errorf("by progress: top row is student %s, want student 03 (not started)", got)
	}
	viewtest.Press(m, "G")
	if s, last := screen(m), m.students[len(m.students)-1].Label(); !strings.Contains(s, last+" ") {
		t.Errorf("G: the last student is not shown:\n%s", s)
	}
	// A new read keeps the cursor on the same student.
	key := m.students[m.cursor].Key
	cmd := m.read()
	m.Update(cmd())
	if m.students[m.cursor].Key != key {
		t.Errorf("after a read the cursor moved from %s to %s", key, m.students[m.cursor].Key)
	}
}

// TestRefreshLoop runs the read → tick → read loop and checks that it
// belongs to one view, shows new progress, and reports a failed read.
func TestRefreshLoop(t *testing.T) {
	step := 0
	var fail error
	src := func(context.Context) ([]classdb.Student, error) {
		return []classdb.Student{{Key: "SHA256:a", Name: "Ada", Lesson: "ring", Step: step, Steps: 4, StepSince: now}}, fail
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{Source: src, Now: func() time.Time { return now }, Refresh: time.Millisecond, Context: ctx})
	other := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), Options{Source: src})
	m.SetSize(80, 10)
	dropped := m.Init() // the application may drop an Init's command
	read := m.Init()
	if _, cmd := m.Update(dropped()); cmd != nil {
		t.Error("the first loop went on after a second Init")
	}
	_, tick := m.Update(read())
	if tick == nil {
		t.Fatal("no tick after a read")
	}
	if !strings.Contains(screen(m), "1/4") {
		t.Errorf("step 0 not shown as 1/4:\n%s", screen(m))
	}
	step = 2
	tm := tick()
	if _, cmd := other.Update(tm); cmd != nil {
		t.Error("another view answered this view's tick")
	}
	_, read = m.Update(tm)
	if read == nil {
		t.Fatal("no read after a tick")
	}
	m.Update(read())
	if !strings.Contains(screen(m), "3/4") {
		t.Errorf("step 2 not shown as 3/4:\n%s", screen(m))
	}
	fail = errors.New("class db /tmp/c.db: read the class: disk I/O error")
	_, tick = m.Update(m.read()())
	if s := screen(m); !strings.Contains(s, "disk I/O error") || !strings.Contains(s, "3/4") {
		t.Errorf("a failed read should show the error over the last class:\n%s", s)
	}
	cancel()
	if _, cmd := m.Update(tick()); cmd != nil {
		t.Error("the loop went on after the session ended")
	}
}

// TestViewFits sweeps the tab over every terminal size the application
// supports (viewtest.Sizes: 40×12 to 300×100), in colour and in
// monochrome, full, empty and after a failed read: every frame is
// exactly the terminal's size. At 300×100 all 30 students are listed.
func TestViewFits(t *testing.T) {
	st, online := classOf(30)
	for _, tc := range []struct {
		name string
		st   []classdb.Student
		err  error
	}{
		{"30 students", st, nil},
		{"empty", nil, nil},
		{"failed read", st, errors.New("class db /tmp/c.db: read the class: disk I/O error")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			viewtest.SweepThemes(t, func(c component.Common) component.Model {
				reads := 0
				m := New(c, Options{
					Source: func(context.Context) ([]classdb.Student, error) {
						reads++
						if reads > 1 && tc.err != nil {
							return nil, tc.err
						}
						return append([]classdb.Student(nil), tc.st...), nil
					},
					Online: func() map[string]bool { return online },
					Now:    func() time.Time { return now },
				})
				m.Update(m.Init()())
				if tc.err != nil {
					m.Update(m.read()())
				}
				return m
			})
		})
	}
	m := newView(t, st, online, 300, 100)
	s := screen(m)
	for _, x := range st {
		if !strings.Contains(s, x.Label()+" ") {
			t.Errorf("300×100: %s not listed:\n%s", x.Label(), s)
		}
	}
	// Below the smallest size the application draws, the tab still
	// fills what it is given.
	for _, sz := range [][2]int{{40, 8}, {200, 5}} {
		if err := viewtest.CheckFrame(newView(t, st, online, sz[0], sz[1]).View(), sz[0], sz[1]); err != "" {
			t.Errorf("%d×%d: %s", sz[0], sz[1], err)
		}
	}
	m = newView(t, nil, nil, 80, 24)
	if !strings.Contains(screen(m), "No student has connected yet") {
		t.Errorf("empty class:\n%s", screen(m))
	}
}

// TestListKeys: the class list moves with the keys of every list: a page
// with pgdown or ctrl+d, back with pgup or ctrl+u, the ends with
// home/g and end/G; the help shows them.
func TestListKeys(t *testing.T) {
	st, online := classOf(30)
	m := newView(t, st, online, 100, 12)
	page := m.rowsShown()
	for _, c := range []struct {
		key  string
		want int
	}{
		{"ctrl+d", page},
		{"pgdown", 2 * page},
		{"ctrl+u", page},
		{"pgup", 0},
		{"end", 29},
		{"home", 0},
		{"G", 29},
		{"g", 0},
		{"space", 0}, // not a list key: the Class tab pages with pgdown/ctrl+d
	} {
		viewtest.Press(m, c.key)
		if m.cursor != c.want {
			t.Errorf("after %s: cursor %d, want %d", c.key, m.cursor, c.want)
		}
	}
	var keys []string
	for _, col := range m.FullHelp() {
		for _, b := range col {
			keys = append(keys, b.Help().Key)
		}
	}
	if got := strings.Join(keys, " "); got != "↑/k ↓/j pgup pgdn home/g end/G s" {
		t.Errorf("help keys %q", got)
	}
}
