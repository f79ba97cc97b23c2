package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt/formats"
)

// causalityTerm drives the real binary in a private tmux server for the
// causality flow (helpers of its own, like the what-if test's, so that
// the end-to-end tests do not depend on each other).
type causalityTerm struct {
	t      *testing.T
	socket string
}

func (x *causalityTerm) tmux(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *causalityTerm) keys(keys ...string) {
	x.t.Helper()
	x.tmux(append([]string{"send-keys", "-t", "caus"}, keys...)...)
}

// waitFor polls the screen until it contains every one of want and none
// of not.
func (x *causalityTerm) waitFor(what string, want []string, not ...string) string {
	x.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = x.tmux("capture-pane", "-p", "-t", "caus")
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(screen, w)
		}
		for _, n := range not {
			ok = ok && !strings.Contains(screen, n)
		}
		if ok {
			return screen
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.t.Fatalf("%s: screen never showed %q (without %q):\n%s", what, want, not, screen)
	return ""
}

// TestEndToEndCausality runs the real binary in a 160×48 tmux terminal on
// a ring whose clocks are skewed by up to 200 µs: the Causality tab finds
// the reversed messages; Enter on the worst one shows it in the Timeline,
// its details saying it was received before it was sent (negative
// latency); l (l_min 1 µs) and c in the Causality tab correct the
// timestamps, and the Timeline then shows the same message going forward
// (positive latency), a switching back to the original times and K
// showing its causal cone.
func TestEndToEndCausality(t *testing.T) {
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
	if tab["Causality"] == "" {
		t.Fatal("no Causality tab")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "tracesim")
	build := exec.Command("go", "build", "-o", bin, "github.com/tracesim/tracesim/cmd/tracesim")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	trace := filepath.Join(dir, "ring.tsim")
	if out, err := exec.Command(bin, "gen", "ring", "--ranks", "4", "--iters", "5", "--skew", "200us", "-o", trace).CombinedOutput(); err != nil {
		t.Fatalf("gen: %v\n%s", err, out)
	}
	// check exits 3 on violations: the trace must have some.
	var exit *exec.ExitError
	if out, err := exec.Command(bin, "check", trace).CombinedOutput(); !errors.As(err, &exit) || exit.ExitCode() != 3 {
		t.Fatalf("check: %v, want exit status 3\n%s", err, out)
	}
	// The worst violation, which the tab lists first.
	tr, _, err := formats.Open(context.Background(), trace, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := causality.Check(context.Background(), tr, causality.Options{})
	if err != nil {
		t.Fatal(err)
	}
	worst := rep.Top(1, nil)[0]
	if worst.Kind != causality.KindReversal {
		t.Fatalf("the worst violation is a %v, want a reversal", worst.Kind)
	}
	send, recv := worst.Events[0], worst.Events[1]
	msg := fmt.Sprintf("message %d→%d", send.Rank, recv.Rank)
	row := fmt.Sprintf("%d:%d → %d:%d", send.Rank, send.Index, recv.Rank, recv.Index)

	x := &causalityTerm{t: t, socket: fmt.Sprintf("tracesim-caus-%d", os.Getpid())}
	x.tmux("new-session", "-d", "-s", "caus", "-x", "160", "-y", "48", bin+" "+trace)
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
	x.waitFor("first frame", []string{"1 Timeline", "ring.tsim", "4 ranks"})

	x.keys(tab["Causality"])
	screen := x.waitFor("findings", []string{"Causality", fmt.Sprintf("%d violations", rep.Violations()), "AMOUNT ▼", "> reversal  " + row})
	t.Logf("causality tab:\n%s", screen)

	// Enter: the Timeline, the reversed message selected.
	x.keys("Enter")
	screen = x.waitFor("reversed message in the timeline", []string{msg, "REVERSED: received before sent"})
	lat := regexp.MustCompile(`recv \S+  \(([-+][^)]+)\)`)
	if m := lat.FindStringSubmatch(screen); m == nil || !strings.HasPrefix(m[1], "-") {
		t.Errorf("details do not show a negative latency: %q\n%s", m, screen)
	}
	if !strings.Contains(screen, "◀") {
		t.Errorf("no arrow going back in time:\n%s", screen)
	}
	t.Logf("timeline, original times:\n%s", screen)

	// Correct in the Causality tab, with l_min 1 µs so that every
	// corrected message takes some time; the Timeline gets the corrected
	// times.
	rep1, err := causality.Check(context.Background(), tr, causality.Options{LMin: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	x.keys(tab["Causality"])
	x.waitFor("causality tab again", []string{"press c to correct"})
	x.keys("l")
	x.waitFor("l_min 1 µs", []string{"l_min 1 µs", fmt.Sprintf("%d violations", rep1.Violations())})
	x.keys("c")
	screen = x.waitFor("corrected", []string{fmt.Sprintf("corrected (both): %d → 0 clock violations", rep1.ClockViolations())})
	t.Logf("causality tab after correction:\n%s", screen)
	x.keys(tab["Timeline"])
	screen = x.waitFor("corrected times", []string{msg, "times: corrected (a)"}, "REVERSED")
	// z: zoom to the message, which now goes forward (at this scale the
	// corrected message may fit in one column).
	window := regexp.MustCompile(`\S+ – \S+ \(\S+\)  cursor`).FindString(screen)
	if window == "" {
		t.Fatalf("no window in the status line:\n%s", screen)
	}
	x.keys("z")
	screen = x.waitFor("forward arrow", []string{msg, "●", "▶", "times: corrected (a)"}, "REVERSED", "◀", window)
	if m := lat.FindStringSubmatch(screen); m == nil || !strings.HasPrefix(m[1], "+") || strings.HasPrefix(m[1], "+0") {
		t.Errorf("details do not show a positive latency after correction: %q\n%s", m, screen)
	}
	t.Logf("timeline, corrected times:\n%s", screen)

	// a: back to the original times, the arrow back to front.
	x.keys("a")
	screen = x.waitFor("original times", []string{"times: original (a)", "REVERSED"})
	window = regexp.MustCompile(`\S+ – \S+ \(\S+\)  cursor`).FindString(screen)
	x.keys("z")
	screen = x.waitFor("backward arrow", []string{"times: original (a)", "REVERSED", "●", "◀"}, window)
	t.Logf("timeline, original times, zoomed to the message:\n%s", screen)
	// K: the causal cone of the selected message's send.
	x.keys("K")
	screen = x.waitFor("cone", []string{fmt.Sprintf("cone of %d:%d (K)", send.Rank, send.Index)})
	t.Logf("timeline with the causal cone:\n%s", screen)

	x.keys("q")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if exec.Command("tmux", "-L", x.socket, "has-session", "-t", "caus").Run() != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Error("q did not quit")
}
