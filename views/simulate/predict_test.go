package simulate

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/component"
)

// A run in progress has a timeline too: enter while paused offers the
// run so far to the Timeline, a trace that ends at the current simulated
// time.
func TestRunSoFarToTimeline(t *testing.T) {
	m := newModel(t, stencil(t, 16), replay.Default(), 100, 30)
	for range 40 {
		drive(t, m, press(m, "s"))
	}
	if m.Status() != Paused {
		t.Fatalf("status %v after steps", m.Status())
	}
	out := drive(t, m, press(m, "enter"))
	var got *component.AltTraceMsg
	for _, msg := range out {
		if a, ok := msg.(component.AltTraceMsg); ok {
			got = &a
		}
	}
	if got == nil || !got.Predicted || !strings.HasPrefix(got.Label, "run so far (") {
		t.Fatalf("enter while paused sent %+v", out)
	}
	_, end := got.Trace.Span()
	if n := got.Trace.NumEvents(); n == 0 || end > float64(m.snap.Time) {
		t.Fatalf("run so far: %d events up to %g, clock %d", n, end, m.snap.Time)
	}
	if m.Status() != Paused {
		t.Errorf("status %v after enter, want still paused", m.Status())
	}
}

// After a finished run, s and r start a new run on the machine as it is
// now: once s did nothing ("the run has ended").
func TestNewRunAfterFinish(t *testing.T) {
	for _, k := range []string{"s", "r"} {
		t.Run(k, func(t *testing.T) {
			m := newModel(t, stencil(t, 16), replay.Default(), 100, 30)
			drive(t, m, press(m, "r"))
			if m.Status() != Finished {
				t.Fatalf("status %v", m.Status())
			}
			// The machine changes after the run.
			cfg := replay.Default()
			if err := cfg.Set("bandwidth", "100Mb/s"); err != nil {
				t.Fatal(err)
			}
			m.SetConfig(cfg, "slow")
			drive(t, m, press(m, k))
			if k == "s" && (m.Status() != Paused || m.snap == nil || m.snap.Events == 0) {
				t.Fatalf("s after the end: status %v", m.Status())
			}
			if got, _ := m.eng.cfg.Get("bandwidth"); got != "100Mb/s" {
				t.Fatalf("the new run simulates bandwidth %v, want 100Mb/s", got)
			}
			if k == "r" && len(m.runs) != 2 {
				t.Fatalf("r after the end: %d runs, want 2", len(m.runs))
			}
		})
	}
}

// Speeds step by ×2, and a session starts at a pace at which the 16-rank
// demo (about 2 ms simulated) lasts a few seconds; + past the fastest
// pace is "as fast as the engine goes" (once, + and - jumped ×10 and
// the demo was over in half a second).
func TestSpeedSteps(t *testing.T) {
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), stencil(t, 16))
	m.plain = true
	m.SetSize(100, 30)
	t.Cleanup(m.Close)
	if secs := 2e-3 / rate(m.speed); secs < 1 || secs > 5 {
		t.Errorf("at the default speed %g s/s a 2 ms run lasts %.2f s, want a few seconds", rate(m.speed), secs)
	}
	prev := rate(m.speed)
	press(m, "+")
	if got := rate(m.speed); got != 2*prev {
		t.Errorf("+ from %g gives %g, want ×2", prev, got)
	}
	press(m, "-", "-")
	if got := rate(m.speed); got != prev/2 {
		t.Errorf("- - from %g gives %g, want ÷2", 2*prev, got)
	}
	for range numRates {
		press(m, "+")
	}
	if rate(m.speed) != 0 || !strings.Contains(ansi.Strip(m.View()), "speed max") {
		t.Errorf("+ past the fastest pace: rate %g", rate(m.speed))
	}
}

// R (reset) shows the live view, where the new run will be watched (once
// the pane stayed on the old results).
func TestResetShowsLiveView(t *testing.T) {
	m := newModel(t, stencil(t, 16), replay.Default(), 100, 30)
	drive(t, m, press(m, "r"))
	if m.pane != PaneResults {
		t.Fatalf("pane %d after a run, want the results", m.pane)
	}
	drive(t, m, press(m, "R"))
	if m.pane != PaneLive {
		t.Fatalf("pane %d after R, want the live view", m.pane)
	}
}

// A run's label lists every setting that differs from the defaults, one
// the model ignores marked, so that two different runs never read alike
// (once routing "adaptive" under the puppet model vanished from it).
func TestDescribeListsChanges(t *testing.T) {
	tests := []struct {
		set  [][2]string
		want string
	}{
		{nil, "flow 10 Gb/s predict"},
		{[][2]string{{"model", "puppet"}, {"routing", "adaptive"}}, "puppet 10 Gb/s predict routing=adaptive(unused)"},
		{[][2]string{{"eager-threshold", "1KiB"}, {"cpu-scale", "0.5"}}, "flow 10 Gb/s predict cpu-scale=0.5 eager-threshold=1KiB"},
		{[][2]string{{"model", "packet"}, {"topology", "ring:16"}, {"routing", "dor"}}, "packet ring:16 dor 10 Gb/s predict"},
		// A bandwidth a range or a sweep chose, not a round number of
		// bits per second, reads in bits per second through units.
		{[][2]string{{"bandwidth", "1.3737499998042407e+09B/s"}}, "flow 10.99 Gb/s predict"},
	}
	for _, tc := range tests {
		c := replay.Default()
		for _, kv := range tc.set {
			if err := c.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		if got := Describe(&c); got != tc.want {
			t.Errorf("%v: Describe = %q, want %q", tc.set, got, tc.want)
		}
	}
}

// The topology map scales to its pane: a 4×4 torus in a 110×50 view
// spreads its routers over most of the links pane instead of a 12×8
// corner, and the grid stays regular.
func TestTopologyMapScales(t *testing.T) {
	for _, sz := range [][2]int{{110, 50}, {200, 60}} {
		m := newModel(t, stencil(t, 16), packetConfig(t, "torus:4x4"), sz[0], sz[1])
		drive(t, m, press(m, "t", "6", "2", "0", "u", "s", "enter"))
		lines := strings.Split(ansi.Strip(m.View()), "\n")
		var xs, ys []int
		for y, l := range lines {
			if strings.HasPrefix(l, "0 % ") {
				break // the map's legend: the map is above
			}
			for x, r := range []rune(l) {
				// Routers are 'o' in monochrome, and the map is the
				// left half of the live pane.
				if r == 'o' && x < sz[0]/2 && y > 2 {
					xs, ys = append(xs, x), append(ys, y)
				}
			}
		}
		if len(xs) != 16 {
			t.Fatalf("%dx%d: %d routers drawn, want 16", sz[0], sz[1], len(xs))
		}
		spanX := slices.Max(xs) - slices.Min(xs)
		spanY := slices.Max(ys) - slices.Min(ys)
		if spanX < sz[0]/4 || spanY < sz[1]/4 {
			t.Errorf("%dx%d: routers span %d×%d cells, want at least a quarter of the pane", sz[0], sz[1], spanX, spanY)
		}
	}
}

// A comparison says n/a for what a run's model does not measure: link use
// under an analytic model (once "mean 0.0 % peak 0.0 %").
func TestCompareSaysNA(t *testing.T) {
	m := newModel(t, stencil(t, 16), packetConfig(t, "torus:4x4"), 120, 40)
	drive(t, m, press(m, "r"))
	analytic := replay.Default()
	if err := analytic.Set("model", "puppet"); err != nil {
		t.Fatal(err)
	}
	m.SetConfig(analytic, "analytic")
	drive(t, m, press(m, "r"))
	if len(m.runs) != 2 {
		t.Fatalf("%d runs", len(m.runs))
	}
	drive(t, m, press(m, "v")) // results → history: the comparison
	m.memo.Invalidate()
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "B n/a (no links measured)") || strings.Contains(v, "B mean 0.0 %") {
		t.Errorf("the comparison does not say n/a for the analytic run:\n%s", v)
	}
}
