package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/machine"
	"github.com/tracesim/tracesim/views/simulate"
)

// whatifTerm drives the real binary in a private tmux server for the
// what-if flow (helpers of its own so that this test does not depend on
// the other end-to-end test's).
type whatifTerm struct {
	t      *testing.T
	socket string
	// deadline bounds the whole flow rather than each step, so that a
	// step that is slow on a loaded host (a run to the end) may use what
	// the quick ones left.
	deadline time.Time
}

// newWhatifTerm returns the driver of a tmux server named socket, whose
// waits share one deadline: five minutes for the whole flow, within the
// test binary's own deadline.
func newWhatifTerm(t *testing.T, socket string) *whatifTerm {
	return &whatifTerm{t: t, socket: socket, deadline: e2eDeadline(t, 5*time.Minute)}
}

func (x *whatifTerm) tmux(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *whatifTerm) keys(keys ...string) {
	x.t.Helper()
	x.tmux(append([]string{"send-keys", "-t", "whatif"}, keys...)...)
}

func (x *whatifTerm) text(s string) {
	x.t.Helper()
	x.tmux("send-keys", "-t", "whatif", "-l", s)
}

func (x *whatifTerm) waitFor(what string, want ...string) string {
	x.t.Helper()
	var screen string
	for time.Now().Before(x.deadline) {
		screen = x.tmux("capture-pane", "-p", "-t", "whatif")
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(screen, w)
		}
		if ok {
			return screen
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.t.Fatalf("%s: screen never showed %q:\n%s", what, want, screen)
	return ""
}

// TestEndToEndWhatIf opens the demo, switches the topology to torus:4x4
// in the Machine tab, runs the simulation to the end in the Simulate tab
// and reads the predicted makespan, then lowers the link bandwidth, runs
// again and finds both runs in the comparison.
func TestEndToEndWhatIf(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (scripts/test installs it)")
	}
	tab := map[string]string{}
	for i, tb := range DefaultTabs() {
		tab[tb.Name] = fmt.Sprint(i + 1)
	}
	if tab["Machine"] == "" || tab["Simulate"] == "" {
		t.Fatalf("no Machine or Simulate tab in %v", tab)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracesim")
	build := exec.Command("go", "build", "-o", bin, "github.com/tracesim/tracesim/cmd/tracesim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	x := newWhatifTerm(t, fmt.Sprintf("tracesim-whatif-%d", os.Getpid()))
	x.tmux("new-session", "-d", "-s", "whatif", "-x", "160", "-y", "48", "cd "+dir+" && "+bin)
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
	x.waitFor("demo", "1 Timeline", "Machine", "Simulate")

	// Machine: the topology is the first setting; its editor asks for a
	// kind (none, ring, mesh, torus, …) and then the parameters. The
	// keys go in one burst, as a slow SSH link delivers them, before the
	// form shows a field focused: the parameters typed after the kind's
	// enter must reach the parameters field, not the kind select.
	x.keys(tab["Machine"])
	x.waitFor("machine tab", "Machine · default", "topology")
	x.keys("Enter", "Down", "Down", "Down", "Enter", "4", "x", "4", "Enter")
	x.waitFor("torus set", "torus 4×4: 16 routers", "✓ valid")

	x.keys(tab["Simulate"])
	x.waitFor("simulate tab", "ready", "torus:4x4")
	// As fast as the engine goes: the default pace is for watching.
	for range 11 {
		x.keys("+")
	}
	x.waitFor("speed max", "speed max")
	x.keys("r")
	// The default model is the flow model.
	screen := x.waitFor("first run", "sim #1", "predicted makespan", "flow torus:4x4 10 Gb/s")
	first := makespan(t, screen)
	t.Logf("torus:4x4 at 10 Gb/s: %s\n%s", first, screen)

	// Back to the Machine tab: bandwidth is six settings below topology.
	x.keys(tab["Machine"])
	x.waitFor("machine tab again", "torus 4×4")
	x.keys("Down", "Down", "Down", "Down", "Down", "Down", "Enter")
	// (The list describes the setting too: "link bandwidth" shows
	// before the editor opens.)
	x.waitFor("bandwidth editor", "┃ link bandwidth", "┃ > 10Gb/s")
	for range 8 {
		x.keys("BSpace")
	}
	x.text("100Mb/s")
	x.keys("Enter")
	x.waitFor("bandwidth set", "100Mb/s", "✓ valid")

	x.keys(tab["Simulate"])
	x.waitFor("simulate tab again", "100 Mb/s")
	x.keys("r")
	screen = x.waitFor("second run", "sim #2", "predicted makespan")
	second := makespan(t, screen)
	if second == first {
		t.Errorf("100 Mb/s links predict the same makespan as 10 Gb/s: %s", first)
	}
	x.keys("v")
	screen = x.waitFor("comparison", "Compare #1 (A) with #2 (B)", "makespan  A "+first+"  B "+second)
	t.Logf("comparison:\n%s", screen)
	// The flow model measured the links of both runs: slower links are
	// busier.
	use := regexp.MustCompile(`link use  A mean ([0-9.]+) % peak [0-9.]+ %  B mean ([0-9.]+) % peak [0-9.]+ %`).FindStringSubmatch(screen)
	if use == nil {
		t.Errorf("the comparison shows no measured link use:\n%s", screen)
	} else if a, b := parseFloat(t, use[1]), parseFloat(t, use[2]); !(a > 0 && b > a) {
		t.Errorf("link use A %v %%, B %v %%: want both measured, B (100 Mb/s) busier", a, b)
	}
	x.keys("q")
	for time.Now().Before(x.deadline) {
		if exec.Command("tmux", "-L", x.socket, "has-session", "-t", "whatif").Run() != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Error("q did not quit")
}

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func makespan(t *testing.T, screen string) string {
	t.Helper()
	m := regexp.MustCompile(`predicted makespan (\S+ \S+)`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no makespan on screen:\n%s", screen)
	}
	return m[1]
}

// BenchmarkWhatIfKeyLatency measures, through the whole application
// (root Update, the Simulate tab, the composed frame), how long a key
// press takes to reach the screen while the packet-level simulator runs
// flat out on an 8×8 torus (INSEE's 3-VC adaptive router, 64 ranks of
// 8 KiB all-to-all). Commands run on their own goroutines and their
// messages queue on one channel, as in a Bubble Tea program. Each op is
// one key press; p50-ms, p99-ms and max-ms report the distribution. The
// bound asked for is 50 ms.
func BenchmarkWhatIfKeyLatency(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "alltoall", Ranks: 64, Iters: 50, Size: 8192, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var insee machine.Preset
	for _, p := range machine.Presets() {
		if strings.HasPrefix(p.Name, "INSEE") {
			insee = p
		}
	}
	cfg, err := insee.Config()
	if err != nil {
		b.Fatal(err)
	}
	// Both tabs start from the INSEE machine, whichever is built first.
	tabs := DefaultTabs()
	sim := -1
	for i := range tabs {
		switch tabs[i].Name {
		case "Machine":
			tabs[i].New = func(c component.Common, tr *tracefmt.Trace) component.Model {
				c.WhatIf.SetConfig(cfg, insee.Name)
				return machine.New(c, tr)
			}
		case "Simulate":
			tabs[i].New = func(c component.Common, tr *tracefmt.Trace) component.Model {
				c.WhatIf.SetConfig(cfg, insee.Name)
				return simulate.New(c, tr)
			}
			sim = i
		}
	}
	m := New(Options{Trace: tr, Path: "alltoall64", Tabs: tabs, NoColor: false})
	msgs := make(chan tea.Msg, 256)
	var exec func(tea.Cmd)
	exec = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			switch msg := cmd().(type) {
			case nil:
			case tea.BatchMsg:
				for _, c := range msg {
					exec(c)
				}
			default:
				msgs <- msg
			}
		}()
	}
	update := func(msg tea.Msg) {
		_, cmd := m.Update(msg)
		_ = m.View()
		exec(cmd)
	}
	update(tea.WindowSizeMsg{Width: 160, Height: 48})
	update(tea.KeyPressMsg{Code: rune('1' + sim), Text: fmt.Sprint(sim + 1)})
	update(tea.KeyPressMsg{Code: 'r', Text: "r"})
	type stamped struct {
		key  tea.KeyPressMsg
		sent time.Time
	}
	keys := []tea.KeyPressMsg{{Code: tea.KeyRight}, {Code: tea.KeyLeft}}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deadline := time.Now().Add(20 * time.Millisecond)
		for time.Now().Before(deadline) {
			select {
			case msg := <-msgs:
				update(msg)
			case <-time.After(time.Until(deadline)):
			}
		}
		if st := m.ViewOf(sim).(*simulate.Model).Status(); st != simulate.Running {
			b.Fatalf("the run is %v before the benchmark ended", st)
		}
		msgs <- stamped{keys[i%2], time.Now()}
		for {
			msg := <-msgs
			if k, ok := msg.(stamped); ok {
				update(k.key)
				lat = append(lat, time.Since(k.sent))
				break
			}
			update(msg)
		}
	}
	b.StopTimer()
	m.ViewOf(sim).(*simulate.Model).Close()
	slices.Sort(lat)
	if n := len(lat); n > 0 {
		b.ReportMetric(float64(lat[n/2].Microseconds())/1e3, "p50-ms")
		b.ReportMetric(float64(lat[n*99/100].Microseconds())/1e3, "p99-ms")
		b.ReportMetric(float64(lat[n-1].Microseconds())/1e3, "max-ms")
	}
}
