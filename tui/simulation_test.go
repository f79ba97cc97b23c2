package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/views/simulate"
)

// settle runs cmd and every command that follows from it, as a Bubble
// Tea program would, until nothing is left (ticks excluded).
func settle(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	deadline := time.Now().Add(60 * time.Second)
	for len(queue) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("the program did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case simulate.AdvanceMsg, simulate.SliceMsg:
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
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
				t.Errorf("the screen does not say %q:\n%s", tc.says, ascii(t, m.Frame()))
			}
			if tc.budget.Events > 0 && v.Snapshot().Events != uint64(tc.budget.Events) {
				t.Errorf("stepped to %d events under a budget of %d", v.Snapshot().Events, tc.budget.Events)
			}
		})
	}
}
