package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestEndToEndPredictedTimeline runs the demo in the Simulate tab and
// goes back to the Timeline, at 80×24 and 200×60: it must show the
// both-view, each rank's predicted row under its recorded one ending with
// the rank's finish shift (once the run was refused as "the events do not
// match the loaded trace").
func TestEndToEndPredictedTimeline(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (scripts/test installs it)")
	}
	sim := ""
	for i, tb := range DefaultTabs() {
		if tb.Name == "Simulate" {
			sim = fmt.Sprint(i + 1)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracesim")
	build := exec.Command("go", "build", "-o", bin, "github.com/tracesim/tracesim/cmd/tracesim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	row := regexp.MustCompile(`(?m)^ +p .*[+-][0-9.]+(s|ms|µs|ns|ps)│`)
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			x := newWhatifTerm(t, fmt.Sprintf("tracesim-predict-%d-%d", os.Getpid(), sz[0]))
			x.tmux("new-session", "-d", "-s", "whatif", "-x", fmt.Sprint(sz[0]), "-y", fmt.Sprint(sz[1]), "cd "+dir+" && "+bin)
			t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
			x.waitFor("demo", "Timeline")
			x.keys(sim)
			x.waitFor("simulate tab", "ready")
			x.keys("r")
			x.waitFor("the run", "sim #1", "predicted makespan")
			x.keys("1")
			screen := x.waitFor("both-view", "both · sim #1 on ")
			if n := len(row.FindAllString(screen, -1)); n < 4 {
				t.Fatalf("%d predicted rows with a finish shift:\n%s", n, screen)
			}
			t.Logf("both-view at %dx%d:\n%s", sz[0], sz[1], screen)
		})
	}
}

// TestEndToEndUntimedAndFinding opens a SimGrid TI trace at 80×24: the
// Timeline comes up on its prediction with coloured states; then a
// skewed trace's first finding, after correcting in the Causality tab,
// opens with a labelled ruler.
func TestEndToEndUntimedAndFinding(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (scripts/test installs it)")
	}
	caus := ""
	for i, tb := range DefaultTabs() {
		if tb.Name == "Causality" {
			caus = fmt.Sprint(i + 1)
		}
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracesim")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/tracesim/tracesim/cmd/tracesim").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	ti, err := filepath.Abs(filepath.Join("..", "testdata", "simgrid", "halo.txt"))
	if err != nil {
		t.Fatal(err)
	}
	t.Run("TI trace", func(t *testing.T) {
		x := newWhatifTerm(t, fmt.Sprintf("tracesim-ti-%d", os.Getpid()))
		x.tmux("new-session", "-d", "-s", "whatif", "-x", "80", "-y", "24", "env COLORTERM=truecolor TERM=xterm-256color "+bin+" "+ti)
		t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
		screen := x.waitFor("prediction", "States · predicted", "predicted on ")
		coloured := x.tmux("capture-pane", "-p", "-e", "-t", "whatif")
		// A state's colour: a background or foreground colour on the
		// rank rows (SGR 48;… or 38;…).
		if !regexp.MustCompile(`\x1b\[[0-9;]*[34]8;[25];`).MatchString(coloured) {
			t.Errorf("no coloured states:\n%s", screen)
		}
		t.Logf("TI trace at 80x24:\n%s", screen)
	})
	t.Run("finding", func(t *testing.T) {
		trace := filepath.Join(dir, "ring.tsim")
		if out, err := exec.Command(bin, "gen", "ring", "--ranks", "4", "--iters", "5", "--skew", "200us", "-o", trace).CombinedOutput(); err != nil {
			t.Fatalf("gen: %v\n%s", err, out)
		}
		x := newWhatifTerm(t, fmt.Sprintf("tracesim-finding-%d", os.Getpid()))
		x.tmux("new-session", "-d", "-s", "whatif", "-x", "80", "-y", "24", bin+" "+trace)
		t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
		x.waitFor("first frame", "Timeline", "ring.tsim")
		x.keys(caus)
		x.waitFor("causality", "violations")
		x.keys("c")
		x.waitFor("corrected", "corrected")
		x.keys("Enter")
		screen := x.waitFor("finding", "message ", "States")
		ruler := strings.Split(screen, "\n")[1]
		label := regexp.MustCompile(`\|-?[0-9.]+(s|ms|µs|ns|ps)|-?[0-9.]+(s|ms|µs|ns|ps)\|`)
		if n := len(label.FindAllString(ruler, -1)); n < 2 {
			t.Errorf("ruler %q has %d labels:\n%s", ruler, n, screen)
		}
		t.Logf("finding at 80x24:\n%s", screen)
	})
}
