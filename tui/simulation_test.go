package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/views/component/viewtest"
	"github.com/tracesim/tracesim/views/simulate"
)

// settle runs cmd and every command that follows from it, as a Bubble
// Tea program would, until nothing is left. Every command runs to
// completion, however long it takes on a loaded host; only timers
// (viewtest.Timer: a cursor's blink, the status line's clearing) are
// left out, their messages being a matter of wall time, and so is what
// is left after a thousand commands. A command still running after a
// generous minute fails the test rather than hanging it.
func settle(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 1000; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil || viewtest.Timer(c) {
			continue
		}
		ch := make(chan tea.Msg, 1)
		go func() { ch <- c() }()
		var msg tea.Msg
		select {
		case msg = <-ch:
		case <-time.After(time.Minute):
			t.Fatal("a command did not return within a minute")
		}
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().ConvertibleTo(reflect.TypeFor[[]tea.Cmd]()) {
			queue = append(queue, v.Convert(reflect.TypeFor[[]tea.Cmd]()).Interface().([]tea.Cmd)...)
			continue
		}
		switch msg.(type) {
		case nil, clearStatusMsg:
			continue
		}
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
}

// keys presses keys, each one settled.
func keys(t *testing.T, m *Model, ks ...string) {
	t.Helper()
	for _, k := range ks {
		settle(t, m, press(m, k))
	}
}

// The Simulate tab asks, the application runs: a run goes to its end
// through the application's Update, and with a budget it stops at the
// limit and says which one. The limits are checked between slices, so the
// budgeted runs step event by event (a slice of a run may overshoot by
// one frame of work, about 33 ms).
func TestSimulationRunsInTheApplication(t *testing.T) {
	tests := []struct {
		name   string
		budget SimBudget
		keys   []string
		want   simulate.Status
		says   string
	}{
		{"no budget", SimBudget{}, []string{"r"}, simulate.Finished, ""},
		{"events", SimBudget{Events: 50}, strings.Split(strings.Repeat("s", 60), ""), simulate.Failed, "budget of 50 engine events"},
		{"wall time", SimBudget{WallTime: time.Nanosecond}, []string{"s", "s"}, simulate.Failed, "budget of 1ns of host time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, 120, 40, func(o *Options) { o.SimBudget = tc.budget })
			sim := m.tabIndex("Simulate")
			press(m, string(rune('1'+sim)))
			if m.active != sim {
				t.Fatalf("tab %d active, want Simulate (%d)", m.active, sim)
			}
			for _, k := range tc.keys {
				settle(t, m, press(m, k))
			}
			v := m.ViewOf(sim).(*simulate.Model)
			if v.Status() != tc.want {
				t.Fatalf("status %v, want %v", v.Status(), tc.want)
			}
			if tc.says != "" && !strings.Contains(m.Frame(), tc.says) {
				t.Errorf("the screen does not say %q:\n%s", tc.says, viewtest.ASCII(t, m.Frame()))
			}
			if tc.budget.Events > 0 && v.Snapshot().Events != uint64(tc.budget.Events) {
				t.Errorf("stepped to %d events under a budget of %d", v.Snapshot().Events, tc.budget.Events)
			}
		})
	}
}

// With a library, views that keep files of their own are confined to it.
func TestLibraryConfinesViews(t *testing.T) {
	lib := t.TempDir()
	m := newModel(t, 120, 40, func(o *Options) { o.Library = lib })
	i := m.tabIndex("Machine")
	keys(t, m, string(rune('1'+i)), "w")
	for range 30 {
		settle(t, m, func() tea.Msg { return tea.KeyPressMsg{Code: tea.KeyBackspace} })
	}
	keys(t, m, strings.Split("cfg.toml", "")...)
	keys(t, m, "enter")
	if _, err := os.Stat(filepath.Join(lib, "cfg.toml")); err != nil {
		t.Fatalf("the Machine tab did not save into the library: %v\n%s", err, viewtest.ASCII(t, m.Frame()))
	}
}

// Enter on a run in the Simulate tab's history shows it in the Timeline:
// the run becomes the alternative times and the Timeline comes forward.
func TestHistoryRunOpensInTimeline(t *testing.T) {
	m := newModel(t, 120, 40)
	sim := m.tabIndex("Simulate")
	keys(t, m, string(rune('1'+sim)), "r")
	if v := m.ViewOf(sim).(*simulate.Model); v.Status() != simulate.Finished {
		t.Fatalf("run: %v", v.Status())
	}
	keys(t, m, "v", "enter") // results → history; show run #1
	if m.Active() != m.tabIndex(TimelineTab) || !strings.HasPrefix(m.predLabel, "sim #1 on ") {
		t.Fatalf("after enter: tab %d, prediction %q", m.Active(), m.predLabel)
	}
	// The Timeline draws both runs: a predicted row under each rank,
	// ending with its finish shift.
	frame := ansi.Strip(m.Frame())
	rows := predictedRow.FindAllString(frame, -1)
	if len(rows) < 8 || !strings.Contains(frame, "both · sim #1 on ") {
		t.Fatalf("%d predicted rows with a finish shift:\n%s", len(rows), frame)
	}
}

// predictedRow matches a predicted row of the Timeline's both-view: the
// gutter's "p" and a finish shift at the end of the time area.
var predictedRow = regexp.MustCompile(`(?m)^ +p .*[+-][0-9.]+(s|ms|µs|ns|ps)│`)
