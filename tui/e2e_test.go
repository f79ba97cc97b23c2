package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// tmux drives one private tmux server (its own socket, so tests never
// touch the user's sessions).
type tmux struct {
	t      *testing.T
	socket string
	// deadline, when set, bounds the whole flow rather than each wait,
	// so that a step that is slow on a loaded host (a run to the end,
	// the answers computed) may use what the quick ones left.
	deadline time.Time
}

// e2eDeadline returns the deadline of a flow that may take d: d from
// now, within the test binary's own deadline.
func e2eDeadline(t *testing.T, d time.Duration) time.Time {
	deadline := time.Now().Add(d)
	if td, ok := t.Deadline(); ok && td.Add(-10*time.Second).Before(deadline) {
		deadline = td.Add(-10 * time.Second)
	}
	return deadline
}

// until returns the end of a wait of d: the flow's deadline when it has
// one.
func (x *tmux) until(d time.Duration) time.Time {
	if !x.deadline.IsZero() {
		return x.deadline
	}
	return time.Now().Add(d)
}

func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *tmux) capture() string { return x.run("capture-pane", "-p", "-t", "e2e") }

// poll reports whether the screen comes to contain every one of want
// within d (or the flow's deadline, if sooner), and the last screen.
func (x *tmux) poll(d time.Duration, want ...string) (string, bool) {
	x.t.Helper()
	deadline := time.Now().Add(d)
	if !x.deadline.IsZero() && x.deadline.Before(deadline) {
		deadline = x.deadline
	}
	for {
		screen := x.capture()
		ok := true
		for _, w := range want {
			if !strings.Contains(screen, w) {
				ok = false
				break
			}
		}
		if ok || !time.Now().Before(deadline) {
			return screen, ok
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitFor polls the screen until it contains every one of want.
func (x *tmux) waitFor(what string, want ...string) string {
	x.t.Helper()
	screen, ok := x.poll(time.Until(x.until(20*time.Second)), want...)
	if !ok {
		x.t.Fatalf("%s: screen never showed %q:\n%s", what, want, screen)
	}
	return screen
}

// TestEndToEnd runs the real tracesim binary in a 160×48 tmux terminal on
// a generated CLOG2 trace: it zooms in, selects a message with the
// Timeline's search and finds the message's peer, tag and size in the
// details pane, then visits the other tabs and quits.
func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end test skipped in -short mode")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed (scripts/test installs it)")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracesim")
	build := exec.Command("go", "build", "-o", bin, "github.com/tracesim/tracesim/cmd/tracesim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	trace := filepath.Join(dir, "stencil.clog2")
	gen := exec.Command(bin, "gen", "stencil2d", "--ranks", "16", "--iters", "4", "--format", "clog2", "-o", trace)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	// What the details pane must say about a message from rank 5 to 6.
	tr, _, err := formats.Open(context.Background(), trace, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var want *tracefmt.Event
	for i := range tr.Ranks[5].Events {
		if e := &tr.Ranks[5].Events[i]; e.Kind == tracefmt.KindSend && e.Peer == 6 {
			want = e
			break
		}
	}
	if want == nil {
		t.Fatal("trace has no message from rank 5 to rank 6")
	}

	x := &tmux{t: t, socket: fmt.Sprintf("tracesim-e2e-%d", os.Getpid())}
	x.run("new-session", "-d", "-s", "e2e", "-x", "160", "-y", "48", bin+" "+trace)
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })

	x.waitFor("first frame", "1 Timeline", "stencil.clog2", "16 ranks")
	x.run("send-keys", "-t", "e2e", "+", "+")
	x.run("send-keys", "-t", "e2e", "/")
	x.run("send-keys", "-t", "e2e", "-l", "msg from=5 to=6")
	x.run("send-keys", "-t", "e2e", "Enter")
	details := fmt.Sprintf("tag %d  %s", want.Tag, units.FormatBytes(want.Size))
	screen := x.waitFor("message selected", "message 5→6", details)
	t.Logf("timeline with the message selected:\n%s", screen)

	x.run("send-keys", "-t", "e2e", "2")
	x.waitFor("matrix tab", "Traffic bytes", "rank 0 → rank 0")
	x.run("send-keys", "-t", "e2e", "3")
	x.waitFor("sizes tab", "Message sizes")
	x.run("send-keys", "-t", "e2e", "4")
	x.waitFor("stats tab", "Per-rank profile", "MPI_Waitall")
	x.run("send-keys", "-t", "e2e", "?")
	x.waitFor("help", "Everywhere", "sort by next column")
	// "?" again closes the help: an Escape followed at once by "q" would
	// arrive as alt+q.
	x.run("send-keys", "-t", "e2e", "?")
	x.waitFor("help closed", "Per-rank profile")
	x.run("send-keys", "-t", "e2e", "q")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("tmux", "-L", x.socket, "has-session", "-t", "e2e").Run() != nil {
			return // the program quit and its session ended
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("q did not quit:\n%s", x.capture())
}
