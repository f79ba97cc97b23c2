package simulate

import (
	"github.com/tracesim/tracesim/tracefmt/units"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
	"github.com/tracesim/tracesim/tracefmt/tsim"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

func stencil(t testing.TB, ranks int) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: ranks, Iters: 2, Seed: 1, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func packetConfig(t testing.TB, topo string) replay.Config {
	t.Helper()
	cfg := replay.Default()
	for k, v := range map[string]string{"model": "packet", "topology": topo, "packet-size": "256B"} {
		if err := cfg.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	return cfg
}

func newModel(t testing.TB, tr *tracefmt.Trace, cfg replay.Config, w, h int) *Model {
	t.Helper()
	c := component.New(&component.Session{Theme: themes.Mono()}, 0, 0)
	m := New(c, tr)
	m.plain = true
	m.speed = 0 // as fast as the engine goes: tests do not watch
	m.SetSize(w, h)
	m.Update(component.ConfigMsg{Config: cfg, Name: "test"})
	t.Cleanup(m.Close)
	return m
}

// drive runs cmd and every command its messages lead to, synchronously,
// as Bubble Tea's loop would, and returns the messages meant for others.
func drive(t testing.TB, m *Model, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	deadline := time.Now().Add(60 * time.Second)
	for len(queue) > 0 {
		if time.Now().After(deadline) {
			t.Fatal("simulation did not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		// Batches and sequences (an unexported type) are lists of commands.
		if v := reflect.ValueOf(msg); msg != nil && v.Kind() == reflect.Slice && v.Type().ConvertibleTo(reflect.TypeFor[[]tea.Cmd]()) {
			queue = append(queue, v.Convert(reflect.TypeFor[[]tea.Cmd]()).Interface().([]tea.Cmd)...)
			continue
		}
		switch msg := msg.(type) {
		case nil:
		case component.AdvanceMsg:
			_, next := m.Update(runSlice(msg))
			queue = append(queue, next)
		default:
			out = append(out, msg)
		}
	}
	return out
}

func press(m *Model, keys ...string) tea.Cmd { return viewtest.Press(m, keys...) }

func TestRunToEndRecordsHistory(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 120, 40)
	out := drive(t, m, press(m, "r"))
	if m.Status() != Finished {
		t.Fatalf("status %v, err %q", m.Status(), m.err)
	}
	if len(m.Runs()) != 1 {
		t.Fatalf("%d runs, want 1", len(m.Runs()))
	}
	var alt *component.AltTraceMsg
	for _, msg := range out {
		if a, ok := msg.(component.AltTraceMsg); ok {
			alt = &a
		}
	}
	if alt == nil || alt.Trace == nil || !alt.Predicted || alt.Label != "sim #1 on "+m.Runs()[0].Label {
		t.Fatalf("no AltTraceMsg for the run: %v", out)
	}
	res := m.Runs()[0].Results
	if res.Makespan <= 0 || !res.Complete {
		t.Fatalf("makespan %g complete %v", res.Makespan, res.Complete)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "predicted makespan "+units.FormatDurationSig(res.Makespan, 7)) {
		t.Fatalf("results pane lacks the makespan:\n%s", v)
	}
	// A second run with slower links is kept too, and compared.
	cfg := packetConfig(t, "torus:4x4")
	if err := cfg.Set("bandwidth", "1Gb/s"); err != nil {
		t.Fatal(err)
	}
	m.Update(component.ConfigMsg{Config: cfg, Name: "slow"})
	drive(t, m, press(m, "r"))
	if len(m.Runs()) != 2 {
		t.Fatalf("%d runs, want 2", len(m.Runs()))
	}
	if a, b := m.Runs()[0].Results.Makespan, m.Runs()[1].Results.Makespan; !(b > a) {
		t.Errorf("1 Gb/s makespan %g not above 10 Gb/s %g", b, a)
	}
	drive(t, m, press(m, "v"))
	if m.pane != PaneHistory {
		t.Fatalf("pane %v, want history", m.pane)
	}
	v := ansi.Strip(m.View())
	for _, want := range []string{"Compare #1 (A) with #2 (B)", "makespan  A", "1 Gb/s"} {
		if !strings.Contains(v, want) {
			t.Errorf("history lacks %q:\n%s", want, v)
		}
	}
	// Enter on the first run offers it to the Timeline again.
	press(m, "up")
	out = drive(t, m, press(m, "enter"))
	var label string
	for _, msg := range out {
		if a, ok := msg.(component.AltTraceMsg); ok && a.Predicted {
			label = a.Label
		}
	}
	if label != "sim #1 on "+m.Runs()[0].Label {
		t.Errorf("enter on run #1 sent %q", label)
	}
}

func TestPauseStepReset(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 100, 30)
	drive(t, m, press(m, "s"))
	if m.Status() != Paused || m.Snapshot() == nil || m.Snapshot().Events == 0 {
		t.Fatalf("after a step: status %v snap %v", m.Status(), m.Snapshot())
	}
	ev := m.Snapshot().Events
	drive(t, m, press(m, "m"))
	if m.Snapshot().Messages < 1 || m.Snapshot().Events <= ev {
		t.Fatalf("message step: %d messages, %d events", m.Snapshot().Messages, m.Snapshot().Events)
	}
	t0 := m.Snapshot().Time
	drive(t, m, press(m, "d"))
	if got := m.Snapshot().Time; got < t0 {
		t.Fatalf("Δt step went back: %v < %v", got, t0)
	}
	drive(t, m, press(m, "R"))
	if m.Status() != Idle || m.Snapshot() != nil {
		t.Fatalf("after reset: %v %v", m.Status(), m.Snapshot())
	}
	// Run to a time: the clock stops at or just past it, paused.
	drive(t, m, press(m, "t", "7", "0", "0", "u", "s", "enter"))
	if m.Status() != Paused {
		t.Fatalf("run to: status %v err %q", m.Status(), m.err)
	}
	if got := m.Snapshot().Time.Seconds(); got > 700e-6 || got < 500e-6 {
		t.Fatalf("run to 700us stopped at %v", got)
	}
	if m.clock != 700*des.Time(1e6) {
		t.Errorf("clock %v after running to 700us", m.clock)
	}
	// A paced run moves the clock through a computation with no events.
	drive(t, m, press(m, "R"))
	m.speed = 8 // 128 µs per second
	cmd := press(m, "space")
	var slices int
	for ; slices < 3; slices++ {
		_, cmd = m.Update(runSlice(cmd()))
	}
	press(m, "space")
	if m.clock < 3*des.Time(3.3e6) || m.Snapshot().Time != 0 {
		t.Errorf("paced: clock %v, engine %v after %d slices", m.clock, m.Snapshot().Time, slices)
	}
}

func TestSpaceTogglesRun(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "alltoall", Ranks: 64, Iters: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, tr, packetConfig(t, "torus:8x8"), 100, 30)
	m.speed = 1 // 1 µs of simulated time per second: the run cannot end in one slice
	cmd := press(m, "space")
	if m.Status() != Running || cmd == nil {
		t.Fatalf("space: status %v", m.Status())
	}
	press(m, "space") // pause before the slice returns
	drive(t, m, cmd)
	if m.Status() != Paused {
		t.Fatalf("status %v, want paused", m.Status())
	}
}

func TestBadConfigFails(t *testing.T) {
	tr := stencil(t, 16)
	cfg := packetConfig(t, "torus:2x2") // 16 ranks on 4 nodes
	m := newModel(t, tr, cfg, 100, 30)
	drive(t, m, press(m, "r"))
	if m.Status() != Failed || m.err == "" {
		t.Fatalf("status %v err %q", m.Status(), m.err)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "ERROR") {
		t.Fatalf("no error banner:\n%s", v)
	}
}

// Two ranks that both send first, with synchronous sends: the engine
// reports a wait-for cycle and the tab shows its explanation.
func TestDeadlockBanner(t *testing.T) {
	src := `tsim 1
ranks 2
unit us
0 0 enter MPI_Send
1 0 send to=1 tag=0 size=1KiB
2 0 leave MPI_Send
2 0 enter MPI_Recv
5 0 recv from=1 tag=0 size=1KiB
6 0 leave MPI_Recv
0 1 enter MPI_Send
1 1 send to=0 tag=0 size=1KiB
2 1 leave MPI_Send
2 1 enter MPI_Recv
5 1 recv from=0 tag=0 size=1KiB
6 1 leave MPI_Recv
`
	tr, err := tsim.Read(strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	cfg := replay.Default()
	if err := cfg.Set("send", "synchronous"); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, tr, cfg, 100, 20)
	drive(t, m, press(m, "r"))
	if m.Status() != Finished || m.Snapshot().Deadlock == nil {
		t.Fatalf("status %v, deadlock %v", m.Status(), m.Snapshot().Deadlock)
	}
	m.pane = PaneLive
	m.memo.Invalidate()
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "DEADLOCK: ") || !strings.Contains(v, "0 → 1 → 0") {
		t.Fatalf("no deadlock banner:\n%s", v)
	}
	if len(m.Runs()) != 1 || m.Runs()[0].Results.Deadlock == nil {
		t.Fatal("the deadlocked run is not in the history")
	}
}

// An all-to-all on a torus with slow router links saturates the network: the
// banner says so while the run is under way.
func TestSaturationBanner(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "alltoall", Ranks: 16, Iters: 4, Size: 65536, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Router links ten times slower than the nodes' links: the network,
	// not the interfaces, limits the traffic.
	cfg := packetConfig(t, "torus:4x4,bw=1Gb/s,nbw=10Gb/s")
	if err := cfg.Set("mode", "inject"); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, tr, cfg, 120, 30)
	seen := false
	for i := 0; i < 40 && m.Status() != Finished; i++ {
		drive(t, m, press(m, "d"))
		if v := ansi.Strip(m.View()); strings.Contains(v, "SATURATED") {
			t.Log(strings.SplitN(v, "\n", 6)[2:5])
			seen = true
			break
		}
	}
	if !seen {
		t.Fatalf("no saturation banner; last frame:\n%s", ansi.Strip(m.View()))
	}
}

func TestDeltaKeys(t *testing.T) {
	m := newModel(t, stencil(t, 4), replay.Default(), 80, 24)
	press(m, "]", "]")
	if m.dt != 40*des.Time(1e6) {
		t.Fatalf("Δt %v after ] ]", m.dt)
	}
	press(m, "[", "[", "[")
	if m.dt != 5*des.Time(1e6) {
		t.Fatalf("Δt %v after [ [ [", m.dt)
	}
	drive(t, m, press(m, "d"))
	if m.clock != 5*des.Time(1e6) {
		t.Fatalf("clock %v after one Δt of 5us", m.clock)
	}
}

// runSlice plays the application's part (package tui): it runs the slice
// an component.AdvanceMsg asks for and returns the result for the view. Other
// messages pass through.
func runSlice(msg tea.Msg) tea.Msg {
	if a, ok := msg.(component.AdvanceMsg); ok {
		return component.SliceMsg{Gen: a.Gen, Slice: a.Runner.Advance(a.Ctx, a.Request)}
	}
	return msg
}

// A TI trace whose wildcard receives record no sender replays with
// any-source free (the default auto), and the Results pane says so.
func TestResultsNoteUnrecordedSources(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"idx.txt": "r0.txt\nr1.txt\nr2.txt\n",
		"r0.txt":  "0 init\n0 recv -555 0 1000 6\n0 recv -555 0 1000 6\n0 finalize\n",
		"r1.txt":  "1 init\n1 compute 1000000\n1 send 0 0 1000 6\n1 finalize\n",
		"r2.txt":  "2 init\n2 send 0 0 1000 6\n2 finalize\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := simgridti.ReadFile(filepath.Join(dir, "idx.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, tr, replay.Default(), 120, 20)
	drive(t, m, press(m, "r"))
	m.pane = PaneResults
	m.memo.Invalidate()
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "note: any-source free: the trace's 2 wildcard receives record no sender (SimGrid -555)") {
		t.Fatalf("no note:\n%s", v)
	}
}

// TestSweepPointUnpaced: a sweep point's machine (WhatIf.SetPoint) runs
// at full speed, whether the Simulate tab exists when it arrives or is
// built after; an ordinary configuration keeps the pace chosen.
func TestSweepPointUnpaced(t *testing.T) {
	wi := component.NewWhatIf()
	c := component.New(&component.Session{Theme: themes.Mono(), WhatIf: wi}, 0, 0)
	m := New(c, nil)
	t.Cleanup(m.Close)
	if m.speed != defaultSpeed {
		t.Fatalf("speed %d at start, want %d", m.speed, defaultSpeed)
	}
	m.Update(wi.SetConfig(replay.Default(), "custom"))
	if m.speed != defaultSpeed {
		t.Errorf("a configuration changed the pace to %d", m.speed)
	}
	m.Update(wi.SetPoint(replay.Default(), "sweep point 3"))
	if m.speed != 0 || rate(m.speed) != 0 {
		t.Errorf("a sweep point runs at speed %d", m.speed)
	}
	// The application rebuilds the tab for the point's trace.
	m2 := New(c, nil)
	t.Cleanup(m2.Close)
	if m2.speed != 0 {
		t.Errorf("a tab built for a sweep point runs at speed %d", m2.speed)
	}
	wi.SetConfig(replay.Default(), "custom")
	m3 := New(c, nil)
	t.Cleanup(m3.Close)
	if m3.speed != defaultSpeed {
		t.Errorf("after another configuration a new tab runs at speed %d", m3.speed)
	}
}

// TestRunToPromptCursor: the run-to-time prompt draws its cursor where the
// text input has it; ← moves it (it was always drawn after the text).
func TestRunToPromptCursor(t *testing.T) {
	m := newModel(t, stencil(t, 16), packetConfig(t, "torus:4x4"), 120, 40)
	drive(t, m, press(m, "t", "5", "0", "u", "s"))
	m.memo.Invalidate()
	if v := ansi.Strip(m.View()); !strings.Contains(v, "50us▏  (enter runs") {
		t.Fatalf("prompt not drawn with its cursor after the text:\n%s", v)
	}
	drive(t, m, press(m, "left", "left"))
	m.memo.Invalidate()
	if v := ansi.Strip(m.View()); !strings.Contains(v, "50▏us  (enter runs") {
		t.Errorf("after ← ←, want the cursor before \"us\":\n%s", v)
	}
}
