package tui

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/tui/demo"
	"github.com/tracesim/tracesim/views/component/viewtest"
	"github.com/tracesim/tracesim/views/machine"
	"github.com/tracesim/tracesim/views/simulate"
)

// simMakespan is what `tracesim sim --bandwidth BW` predicts for tr on
// the default machine: the same replay with the same options.
func simMakespan(t *testing.T, m *Model, bw string) float64 {
	t.Helper()
	cfg := replay.Default()
	if err := cfg.Set("bandwidth", bw); err != nil {
		t.Fatal(err)
	}
	s, err := replay.New(m.Trace(), cfg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.Results().Makespan
}

// demoModel is a session on the demo trace, as `tracesim` starts.
func demoModel(t *testing.T, w, h int, opts ...func(*Options)) *Model {
	t.Helper()
	tr, err := demo.Trace()
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Trace: tr, Path: demo.Name, NoColor: true}
	for _, f := range opts {
		f(&o)
	}
	m := New(o)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// startBandwidthSweep selects bandwidth on the Machine tab, presses s and
// takes the form's defaults (×0.1 to ×10 in ten log steps), then lets
// the sweep run to its end.
func startBandwidthSweep(t *testing.T, m *Model) {
	t.Helper()
	mi := m.tabIndex("Machine")
	keys(t, m, strconv.Itoa(mi+1))
	if !m.ViewOf(mi).(*machine.Model).Select("bandwidth") {
		t.Fatal("the Machine tab has no bandwidth row")
	}
	keys(t, m, "s")
	if !strings.Contains(m.Frame(), "sweep bandwidth on the loaded trace") {
		t.Fatalf("s opened no sweep form:\n%s", viewtest.ASCII(t, m.Frame()))
	}
	// from, to, steps, scale: enter takes each default.
	keys(t, m, "enter", "enter", "enter", "enter")
}

// The Machine tab starts a sweep of bandwidth from its row; the Sweep tab
// shows the points as they finish, and at the end one row per bandwidth
// whose makespan is `tracesim sim`'s at that bandwidth; enter on a point
// opens it in Simulate, whose run finds the row's makespan.
func TestSweepFromMachineRow(t *testing.T) {
	m := demoModel(t, 160, 48)
	startBandwidthSweep(t, m)
	if got := m.TabNames()[m.Active()]; got != SweepTab {
		t.Fatalf("tab %s shown after the sweep started, want %s", got, SweepTab)
	}
	if m.sweepRun != nil {
		t.Fatalf("the sweep has not ended:\n%s", viewtest.ASCII(t, m.Frame()))
	}
	tab := m.sweep.Table()
	bwCol, msCol := -1, -1
	for i, c := range tab.Columns {
		switch c {
		case "bandwidth":
			bwCol = i
		case "makespan_s":
			msCol = i
		}
	}
	// The default bandwidth is 10Gb/s: ×0.1 to ×10.
	wantBW := []string{"1Gb/s", "1.668Gb/s", "2.783Gb/s", "4.642Gb/s", "7.743Gb/s", "12.92Gb/s", "21.54Gb/s", "35.94Gb/s", "59.95Gb/s", "100Gb/s"}
	if len(tab.Rows) != len(wantBW) {
		t.Fatalf("%d rows, want %d:\n%s", len(tab.Rows), len(wantBW), viewtest.ASCII(t, m.Frame()))
	}
	frame := viewtest.ASCII(t, m.Frame())
	for i, r := range tab.Rows {
		if r[0] != strconv.Itoa(i) || r[bwCol] != wantBW[i] {
			t.Errorf("row %d: point %s at %s, want point %d at %s", i, r[0], r[bwCol], i, wantBW[i])
		}
		want := simMakespan(t, m, r[bwCol])
		if got, err := strconv.ParseFloat(r[msCol], 64); err != nil || got != want {
			t.Errorf("row %d (%s): makespan %q, tracesim sim says %v", i, r[bwCol], r[msCol], want)
		}
		// The table on screen shows it too (16 rows fit at 160×48).
		if line := fmt.Sprintf("%-6d", i); !strings.Contains(frame, line) || !strings.Contains(frame, units.FormatDuration(want)) {
			t.Errorf("row %d: the table does not show %s:\n%s", i, units.FormatDuration(want), frame)
		}
	}
	if !strings.Contains(frame, "Sweep · bandwidth on demo (cg, 16 ranks) · 10 points") {
		t.Errorf("title missing:\n%s", frame)
	}

	// enter on point 3 opens it in Simulate with its machine.
	keys(t, m, "down", "down", "down", "enter")
	si := m.tabIndex("Simulate")
	if m.Active() != si {
		t.Fatalf("tab %s shown after enter, want Simulate:\n%s", m.TabNames()[m.Active()], viewtest.ASCII(t, m.Frame()))
	}
	keys(t, m, "r")
	v := m.ViewOf(si).(*simulate.Model)
	runs := v.Runs()
	if v.Status() != simulate.Finished || len(runs) == 0 {
		t.Fatalf("Simulate did not finish the run (status %v):\n%s", v.Status(), viewtest.ASCII(t, m.Frame()))
	}
	last := runs[len(runs)-1]
	if got, want := last.Results.Makespan, tab.Rows[3][msCol]; strconv.FormatFloat(got, 'g', -1, 64) != want {
		t.Errorf("Simulate's makespan %v, the sweep's row %s", got, want)
	}
	// The machine is the point's: the default with the row's bandwidth,
	// as the engine reads it.
	want := replay.Default()
	if err := want.Set("bandwidth", wantBW[3]); err != nil {
		t.Fatal(err)
	}
	bw, _ := replay.LookupSetting("bandwidth")
	if got, want := bw.Get(&last.Config), bw.Get(&want); got != want {
		t.Errorf("Simulate ran bandwidth %s, want %s (%s)", got, want, wantBW[3])
	}
	// The Sweep tab still shows the result (its state outlives the views
	// the point's trace rebuilt).
	keys(t, m, strconv.Itoa(m.tabIndex(SweepTab)+1))
	if got := viewtest.ASCII(t, m.Frame()); !strings.Contains(got, "10 points") {
		t.Errorf("the Sweep tab lost its result:\n%s", got)
	}
}
