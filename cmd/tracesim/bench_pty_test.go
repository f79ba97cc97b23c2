package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestBenchUI runs a short `tracesim bench --ui` with the real binary in
// a pseudo-terminal and checks what it reports: every press with either
// renderer reached the screen, in ordered percentiles, per key, and
// the idle CPU use. The times themselves are not asserted: they measure
// the machine.
func TestBenchUI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the UI in a pseudo-terminal")
	}
	if runtime.GOOS == "windows" {
		t.Skip("no pseudo-terminals")
	}
	bin := buildTracesim(t)
	for _, c := range []struct {
		name     string
		sessions int  // 0: the UI itself
		realtime bool // --realtime
	}{{"pty", 0, false}, {"ssh", 2, false}, {"pty-realtime", 0, true}} {
		t.Run(c.name, func(t *testing.T) {
			if c.realtime && (runtime.GOOS != "linux" || os.Geteuid() != 0) {
				t.Skip("SCHED_FIFO needs Linux and root")
			}
			checkBenchUI(t, bin, c.sessions, c.realtime)
		})
	}
}

// checkBenchUI runs the benchmark on sessions SSH sessions (0: the UI in
// a pseudo-terminal), the harness under SCHED_FIFO when realtime, and
// checks its report.
func checkBenchUI(t *testing.T, bin string, sessions int, realtime bool) {
	t.Helper()
	out, err := exec.Command(bin, "bench", "--ui", "--events", "5000", "--presses", "12",
		"--fps", "120", "--renderer", "direct,bubbletea", "--idle", "500ms", "--ssh", strconv.Itoa(sessions),
		"--realtime="+strconv.FormatBool(realtime), "--json").Output()
	if err != nil {
		t.Fatalf("tracesim bench --ui: %v\n%s", err, out)
	}
	var r struct {
		Width, Height int
		Events        int
		Keys          string
		SSHSessions   int  `json:"ssh_sessions"`
		Realtime      bool `json:"realtime_harness"`
		Results       []uiBenchResult
	}
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if r.Width != 200 || r.Height != 60 || r.Events < 2500 || r.Events > 7500 || r.Keys != "+ l h - tab shift+tab" {
		t.Errorf("input %d×%d, %d events, keys %q; want 200×60, about 5000, + l h - tab shift+tab", r.Width, r.Height, r.Events, r.Keys)
	}
	if len(r.Results) != 2 || r.Results[0].Renderer != "direct" || r.Results[1].Renderer != "bubbletea" ||
		r.Results[0].FPS != 120 || r.Results[1].FPS != 120 {
		t.Fatalf("results %+v, want one for the direct renderer and one for Bubble Tea's, both at 120 fps", r.Results)
	}
	if r.Realtime != realtime {
		t.Errorf("realtime_harness %v, want %v", r.Realtime, realtime)
	}
	if r.SSHSessions != sessions {
		t.Errorf("%d SSH sessions, want %d", r.SSHSessions, sessions)
	}
	for _, res := range r.Results {
		if res.Presses != 12 || res.Frames != 12 || res.Missed != 0 || res.Sessions != max(1, sessions) {
			t.Errorf("%d fps: %d presses, %d frames, %d missed, %d sessions; want 12, 12, 0, %d",
				res.FPS, res.Presses, res.Frames, res.Missed, res.Sessions, max(1, sessions))
		}
		if !(0 < res.P50ms && res.P50ms <= res.P90ms && res.P90ms <= res.P99ms && res.P99ms <= res.MaxMs) {
			t.Errorf("%d fps: p50 %g, p90 %g, p99 %g, max %g ms: not positive and ordered", res.FPS, res.P50ms, res.P90ms, res.P99ms, res.MaxMs)
		}
		for _, k := range strings.Fields(r.Keys) {
			if res.KeyP50ms[k] <= 0 || res.KeyP50ms[k] > res.MaxMs {
				t.Errorf("%d fps: median of key %s %g ms, want in (0, %g]", res.FPS, k, res.KeyP50ms[k], res.MaxMs)
			}
		}
		if res.WarmupMaxMs <= 0 || res.WarmupMaxMs > 1000 {
			t.Errorf("%d fps: slowest warm-up press %g ms, want in (0, 1000]", res.FPS, res.WarmupMaxMs)
		}
		if res.FramesPerPress < 1 {
			t.Errorf("%d fps: %g frames per press, want at least 1", res.FPS, res.FramesPerPress)
		}
		if res.FrameSize < 100 {
			t.Errorf("%d fps: frames of %d bytes: not the changed screens", res.FPS, res.FrameSize)
		}
		if runtime.GOOS == "linux" && (res.IdleCPU < 0 || res.CPUPerPress <= 0) {
			t.Errorf("%d fps: idle CPU %g%%, CPU per press %g ms: not measured", res.FPS, res.IdleCPU, res.CPUPerPress)
		}
		// A press wakes the UI at least once: the thread that reads it.
		if runtime.GOOS == "linux" && res.SwitchesPerPress < 1 {
			t.Errorf("%d fps: %g context switches per press: not measured", res.FPS, res.SwitchesPerPress)
		}
	}
}

// TestStripEscapes checks the text the benchmark looks for its trace's
// name in.
func TestStripEscapes(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;31mred\x1b[m text", " red  text"},
		{"a\x1b]11;?\x07b", "a b"},
		{"a\x1b]0;title\x1b\\b", "a b"},
		{"a\x1b=b", "a b"},
		{"cut\x1b[", "cut "},
	} {
		if got := stripEscapes([]byte(c.in)); got != c.want {
			t.Errorf("stripEscapes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestFPSFlags checks the refusals of frame-rate caps Bubble Tea would
// not honour, before anything runs.
func TestFPSFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--fps", "0", "x.tsim"}, "tracesim: --fps 0: want 1 to 120 frames per second"},
		{[]string{"--fps", "121", "x.tsim"}, "tracesim: --fps 121: want 1 to 120 frames per second"},
		{[]string{"bench", "--ui", "--fps", "60,200"}, `tracesim bench: --fps: "200" is not a frame rate from 1 to 120`},
		{[]string{"bench", "--ui", "--fps", "fast"}, `tracesim bench: --fps: "fast" is not a frame rate from 1 to 120`},
		{[]string{"--renderer", "fancy", "x.tsim"}, `tracesim: --renderer "fancy": want direct or bubbletea`},
		{[]string{"bench", "--ui", "--renderer", "direct,fancy"}, `tracesim bench: --renderer "fancy": want direct or bubbletea`},
		{[]string{"serve", "--library", ".", "--renderer", "fancy"}, "tracesim serve: --renderer \"fancy\": want direct or bubbletea"},
		{[]string{"bench", "--ui", "--presses", "0"}, "tracesim bench: --ui needs --events of at least 1000 and --presses of at least 1"},
	} {
		code, _, errs := tracesim(t, c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("tracesim %s: exit %d, %q; want %d, %q", strings.Join(c.args, " "), code, errs, exitUsage, c.want)
		}
	}
}
