package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// showTerm drives `tracesim sweep show` in a private tmux server.
type showTerm struct {
	t      *testing.T
	socket string
}

func (x *showTerm) tmux(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *showTerm) keys(keys ...string) {
	x.t.Helper()
	x.tmux(append([]string{"send-keys", "-t", "show"}, keys...)...)
}

func (x *showTerm) waitFor(what string, want ...string) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = x.tmux("capture-pane", "-p", "-t", "show")
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

// TestSweepShowEndToEnd opens a result in the Sweep tab of the real UI,
// moves along the torus line to the third bandwidth, opens that point in
// Simulate, runs it and finds the makespan the sweep recorded.
func TestSweepShowEndToEnd(t *testing.T) {
	bin, dir := showSetup(t)
	copyStudy(t, dir)
	recorded := recordedMakespan(t, filepath.Join(dir, "study.csv"), 4)
	x := startShow(t, "tracesim-sweep", "cd "+dir+" && "+bin+" sweep show study.csv")
	x.waitFor("sweep tab", "1 Sweep", "Sweep · study.csv · 72 points", "makespan_s vs bandwidth, a line per topology",
		"● torus:2x4", "1Gb/s", "400Gb/s")
	x.keys("Right", "Right")
	x.waitFor("moved along the line", "point 4: torus:2x4 10.99Gb/s block · trace 1/2")
	x.keys("Enter")
	x.waitFor("simulate tab", "sweep point 4: flow torus:2x4", "ready")
	got, shown, _ := x.runMakespan()
	if math.Abs(got-recorded) > 1e-6*recorded {
		t.Errorf("Simulate predicts %s, the sweep recorded %g s", shown, recorded)
	}
}

// copyStudy copies the Sweep view's study (spec and result) into dir.
func copyStudy(t *testing.T, dir string) {
	t.Helper()
	for _, f := range []string{"study.toml", "study.csv"} {
		data, err := os.ReadFile(filepath.Join("../../views/sweep/testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// showSetup skips an end-to-end test of sweep show in -short mode or
// without tmux, else builds the command and returns it and a directory.
func showSetup(t *testing.T) (bin, dir string) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (scripts/test installs it)")
	}
	bin = buildTracesim(t)
	dir = t.TempDir()
	return bin, dir
}

// recordedMakespan returns the makespan of row i of the result at path.
func recordedMakespan(t *testing.T, path string, i int) float64 {
	t.Helper()
	res := readResult(t, path)
	v, err := strconv.ParseFloat(res.Rows[i][res.Column("makespan_s")], 64)
	if err != nil {
		t.Fatalf("%s: row %d: makespan: %v", path, i, err)
	}
	return v
}

// startShow runs command in a tmux session of a private server named
// after prefix, 120×40, killed when the test ends.
func startShow(t *testing.T, prefix, command string) *showTerm {
	t.Helper()
	x := &showTerm{t: t, socket: fmt.Sprintf("%s-%d", prefix, os.Getpid())}
	x.tmux("new-session", "-d", "-s", "show", "-x", "120", "-y", "40", command)
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
	return x
}

// runMakespan runs the Simulate tab at full speed and returns the
// predicted makespan it shows (seconds, and as shown), and the screen.
func (x *showTerm) runMakespan() (float64, string, string) {
	x.t.Helper()
	for range 11 {
		x.keys("+")
	}
	x.waitFor("speed max", "speed max")
	x.keys("r")
	screen := x.waitFor("run", "predicted makespan")
	m := regexp.MustCompile(`predicted makespan ([0-9.]+ ?[a-zµ]+)`).FindStringSubmatch(screen)
	if m == nil {
		x.t.Fatalf("no makespan on the screen:\n%s", screen)
	}
	got, err := units.ParseDuration(m[1])
	if err != nil {
		x.t.Fatalf("makespan %q: %v", m[1], err)
	}
	return got, m[1], screen
}

// TestSweepShowHangupRemovesTraces: `sweep show --spec` makes the spec's
// gen traces in memory, so neither showing a result nor closing the
// terminal that runs it (a hangup) leaves anything in the temporary
// directory; the hangup used to end the process on the spot and leave
// the traces it had written there.
func TestSweepShowHangupRemovesTraces(t *testing.T) {
	bin, dir := showSetup(t)
	copyStudy(t, dir)
	tmp := t.TempDir()
	x := startShow(t, "tracesim-sweephup", "cd "+dir+" && TMPDIR="+tmp+" "+bin+" sweep show study.csv --spec study.toml")
	x.waitFor("sweep tab", "1 Sweep", "Sweep · study.csv · 72 points")
	if left, _ := filepath.Glob(filepath.Join(tmp, "*")); len(left) != 0 {
		t.Fatalf("written to %s while showing: %v", tmp, left)
	}
	exec.Command("tmux", "-L", x.socket, "kill-server").Run()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left, _ := filepath.Glob(filepath.Join(tmp, "*"))
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("5 s after the hangup, left in %s: %v", tmp, left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
