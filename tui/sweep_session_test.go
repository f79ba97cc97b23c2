package tui

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tracesim/tracesim/engine/replay"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/engine/sweep/parquetfile"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/tui/demo"
	"github.com/tracesim/tracesim/views/component"
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
	finishSweep(m)
}

// finishSweep delivers the sweep's reports until it ends, as Bubble Tea
// would: settle drops a report that a loaded host delays past its
// patience, which would leave the sweep running for the test.
func finishSweep(m *Model) {
	for r := m.sweepRun; r != nil; r = m.sweepRun {
		m.Update(r.wait())
	}
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
	// Unpaced, as the sweep ran it: r runs the point to the end at full
	// speed (the default pace is about 1 ms of simulated time a second).
	if frame := viewtest.ASCII(t, m.Frame()); !strings.Contains(frame, "speed max") {
		t.Errorf("the point opens paced:\n%s", frame)
	}
	last := runSimulate(t, m)
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

// The Sweep tab of a session: empty until a sweep runs, then the
// bandwidth sweep's chart and table, at the sizes of the other goldens.
func TestGoldenSweepSession(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d/empty", sz[0], sz[1]), func(t *testing.T) {
			m := demoModel(t, sz[0], sz[1])
			keys(t, m, strconv.Itoa(m.tabIndex(SweepTab)+1))
			viewtest.Golden(t, viewtest.ASCII(t, m.Frame()))
		})
		t.Run(fmt.Sprintf("%dx%d/bandwidth", sz[0], sz[1]), func(t *testing.T) {
			m := demoModel(t, sz[0], sz[1])
			startBandwidthSweep(t, m)
			viewtest.Golden(t, viewtest.ASCII(t, m.Frame()))
		})
	}
}

// A categorical setting's form lists all of its values, every one
// picked: enter sweeps them all.
func TestSweepChoices(t *testing.T) {
	m := demoModel(t, 120, 40)
	mi := m.tabIndex("Machine")
	keys(t, m, strconv.Itoa(mi+1))
	m.ViewOf(mi).(*machine.Model).Select("model")
	keys(t, m, "s", "enter")
	finishSweep(m)
	set, _ := replay.LookupSetting("model")
	if m.sweep == nil || m.sweepRun != nil {
		t.Fatalf("no finished sweep:\n%s", viewtest.ASCII(t, m.Frame()))
	}
	tab := m.sweep.Table()
	col := slices.Index(tab.Columns, "model")
	var got []string
	for _, r := range tab.Rows {
		got = append(got, r[col])
	}
	if !slices.Equal(got, set.Choices) {
		t.Errorf("swept models %q, want every choice %q", got, set.Choices)
	}
}

// esc on the Sweep tab stops a sweep: the finished points stay and the
// title says how many of all; the session's budget refuses a sweep of
// too many points and stops one that runs out of host time.
func TestSweepStopAndBudget(t *testing.T) {
	many, err := sw.Range("bandwidth", "1Gb/s", "100Gb/s", 400, true)
	if err != nil {
		t.Fatal(err)
	}
	ten := many[:10]
	tests := []struct {
		name   string
		budget SweepBudget
		values []string
		esc    bool
		starts string // the status as it starts ("": not checked)
		says   string // on screen once it ended
		rows   func(n int) bool
	}{
		{"esc", SweepBudget{}, many, true, "sweeping bandwidth: 400 points on ", "stopped: ", func(n int) bool { return n < len(many) }},
		{"points", SweepBudget{Points: 5}, ten, false, "", "this session sweeps at most 5 points (asked for 10)", nil},
		{"within", SweepBudget{Points: 10, Jobs: 1}, ten, false,
			"sweeping bandwidth: 10 points on 1 worker (this session: at most 10 points, 1 at a time)", "sweep done: 10 points", func(n int) bool { return n == len(ten) }},
		{"wall time", SweepBudget{WallTime: time.Nanosecond}, ten, false, "", "stopped at this session's sweep budget of 1ns: ", func(n int) bool { return n < len(ten) }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := demoModel(t, 160, 48, func(o *Options) { o.SweepBudget = tc.budget })
			_, cmd := m.Update(component.SweepMsg{Key: "bandwidth", Values: tc.values})
			if !strings.HasPrefix(m.status, tc.starts) {
				t.Errorf("status %q as it starts, want %q", m.status, tc.starts)
			}
			if tc.esc {
				if m.TabNames()[m.Active()] != SweepTab || m.sweepRun == nil {
					t.Fatalf("the sweep did not start on the Sweep tab:\n%s", viewtest.ASCII(t, m.Frame()))
				}
				// A progress bar (bubbles' empty cells ░) and the count.
				if frame := viewtest.ASCII(t, m.Frame()); !strings.Contains(frame, "░░░░░") || !strings.Contains(frame, "0/400 points · estimating the time left · esc stops") {
					t.Errorf("no progress bar in the title:\n%s", frame)
				}
				press(m, "esc")
			}
			settle(t, m, cmd)
			finishSweep(m)
			frame := viewtest.ASCII(t, m.Frame())
			if !strings.Contains(frame, tc.says) {
				t.Errorf("the screen does not say %q:\n%s", tc.says, frame)
			}
			if m.sweepRun != nil {
				t.Errorf("the sweep still runs")
			}
			if tc.rows == nil {
				if m.sweep != nil {
					t.Errorf("a refused sweep shows a result")
				}
				return
			}
			if n := len(m.sweep.Table().Rows); !tc.rows(n) {
				t.Errorf("%d rows kept", n)
			}
		})
	}
}

// The picker opens a sweep result of the library in the Sweep tab,
// beside the loaded trace; a CSV that is not one says so, naming the
// file and the line.
func TestPickerOpensSweepResult(t *testing.T) {
	lib := t.TempDir()
	for name, text := range map[string]string{
		"a-result.csv": sweepResult,
		"b-other.csv":  "name,value\nx,1\n",
	} {
		if err := os.WriteFile(filepath.Join(lib, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The same result as Parquet.
	res, err := sw.ReadCSV("a-result.csv", []byte(sweepResult))
	if err != nil {
		t.Fatal(err)
	}
	var pq bytes.Buffer
	if err := parquetfile.Write(&pq, res); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lib, "c-result.parquet"), pq.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		keys  []string
		trace string // the loaded trace afterwards
		says  string
		enter string // what enter on a point then says ("": not tried)
	}{
		{[]string{"enter"}, "stencil.tsim", "Sweep · a-result.csv · 4 points · makespan_s vs bandwidth, a line per topology",
			"sweep point 0 in Simulate: r runs it to the end at full speed (+/- pace it)"},
		{[]string{"down", "enter"}, "stencil.tsim", "could not open b-other.csv as a sweep result: line 1: not a sweep result", ""},
		{[]string{"down", "down", "enter"}, "stencil.tsim", "Sweep · c-result.parquet · 4 points · makespan_s vs bandwidth, a line per topology", ""},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.keys, "+"), func(t *testing.T) {
			m := newModel(t, 120, 30, func(o *Options) { o.Library = lib })
			pick(m, "o")
			cmd := press(m, tc.keys...)
			settle(t, m, cmd)
			frame := ansi.Strip(m.Frame())
			if !strings.Contains(frame, tc.says) {
				t.Errorf("the screen does not say %q:\n%s", tc.says, frame)
			}
			if m.path != tc.trace {
				t.Errorf("trace %s loaded, want %s kept", m.path, tc.trace)
			}
			if tc.enter != "" {
				settle(t, m, press(m, "enter"))
				if got := m.status; got != tc.enter {
					t.Errorf("enter on a point says %q, want %q", got, tc.enter)
				}
			}
		})
	}
}

// The same flow in a real Bubble Tea program (teatest): the demo, the
// Machine tab, j to bandwidth, s and the form's defaults; once the Sweep
// tab says the sweep is done, ↓↓↓ and enter open point 3 in Simulate and
// r runs it. The final model holds the rows, which are `tracesim sim`'s
// makespans, and Simulate's run, which is the row's.
func TestSweepProgram(t *testing.T) {
	tr, err := demo.Trace()
	if err != nil {
		t.Fatal(err)
	}
	tm := teatest.NewTestModel(t, New(Options{Trace: tr, Path: demo.Name, NoColor: true}),
		teatest.WithInitialTermSize(120, 40),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(60*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("16 ranks")
	tm.Type("6")
	wait("The machine")
	// From topology, the first setting, down to bandwidth.
	tm.Type("jjjjjj")
	tm.Type("s")
	wait("sweep bandwidth on the loaded trace")
	for range 4 {
		tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	}
	// (The renderer writes only what changed: "sweep" of the status
	// stays from "sweeping bandwidth: …".)
	wait("done: 10 points")
	tm.Type("jjj")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	wait("in Simulate: r runs it")
	tm.Type("r")
	wait("predicted makespan")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	m := tm.FinalModel(t).(*Model)

	tab := m.sweep.Table()
	bw, ms := slices.Index(tab.Columns, "bandwidth"), slices.Index(tab.Columns, "makespan_s")
	if len(tab.Rows) != 10 {
		t.Fatalf("%d rows, want 10", len(tab.Rows))
	}
	for i, r := range tab.Rows {
		if want := strconv.FormatFloat(simMakespan(t, m, r[bw]), 'g', -1, 64); r[ms] != want {
			t.Errorf("row %d (%s): makespan %s, tracesim sim says %s", i, r[bw], r[ms], want)
		}
	}
	runs := m.ViewOf(m.tabIndex("Simulate")).(*simulate.Model).Runs()
	if len(runs) == 0 {
		t.Fatal("Simulate ran nothing")
	}
	if got := strconv.FormatFloat(runs[len(runs)-1].Results.Makespan, 'g', -1, 64); got != tab.Rows[3][ms] {
		t.Errorf("Simulate's makespan %s, point 3's row %s", got, tab.Rows[3][ms])
	}
}

// A sweep the application refuses (here a topology file that does not
// exist) is explained on the Machine tab that asked for it, which stays
// shown, not left to the status bar; the Sweep tab stays empty. At 80×24
// as at 120×40 the whole reason shows, wrapped.
func TestSweepRefusedOnMachineTab(t *testing.T) {
	for _, size := range [][2]int{{120, 40}, {80, 24}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m := demoModel(t, size[0], size[1])
			mi := m.tabIndex("Machine")
			keys(t, m, strconv.Itoa(mi+1))
			_, cmd := m.Update(component.SweepMsg{Key: "topology", Values: []string{"torus:4x4", "file:net.txt"}})
			settle(t, m, cmd)
			if m.Active() != mi {
				t.Errorf("tab %s shown, want Machine", m.TabNames()[m.Active()])
			}
			// The refusal, wrapped above the status bar: its lines joined
			// say the whole reason at 80 columns too (cut after
			// "file:net.txt:" before).
			frame := viewtest.ASCII(t, m.Frame())
			rows := strings.Split(ansi.Strip(frame), "\n")
			var note []string
			for i, l := range rows {
				if strings.HasPrefix(l, "sweep of topology not started: ") {
					for _, r := range rows[i : len(rows)-1] {
						note = append(note, strings.TrimSpace(r))
					}
					break
				}
			}
			const want = "sweep of topology not started: axes.topology: point topology=file:net.txt: topology file net.txt: no such file or directory"
			if got := strings.Join(note, " "); got != want {
				t.Errorf("the Machine tab says\n%q\nwant\n%q\n%s", got, want, frame)
			}
			if m.sweep != nil || m.sweepRun != nil {
				t.Errorf("a refused sweep shows a result")
			}
		})
	}
}
