package tui

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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
			x := &whatifTerm{t: t, socket: fmt.Sprintf("tracesim-predict-%d-%d", os.Getpid(), sz[0])}
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
