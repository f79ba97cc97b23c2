package serve

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"weak"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tui"
)

// TestEndedSessionReleasesItsUI: once a session's program has ended, its
// UI model (views, derived data, simulations) becomes garbage at once,
// though a command of the program (the status line's 4 s tea.Tick) still
// waits and keeps the program reachable. The test holds the model only
// through a weak pointer, quits right after a key that starts the status
// line's timer, and wants the model collected well before that timer
// fires.
func TestEndedSessionReleasesItsUI(t *testing.T) {
	var (
		mu sync.Mutex
		ui []weak.Pointer[tui.Model]
	)
	ts := startServer(t, func(c *Config) {
		c.NewModel = func(o tui.Options) tea.Model {
			m := tui.New(o)
			mu.Lock()
			ui = append(ui, weak.Make(m))
			mu.Unlock()
			return m
		}
	})
	c := ts.connect(t)
	tm := openTerminal(t, c, "ring", 100, 30)
	tm.waitLoaded(t)
	tm.waitFor(t, "ring.tsim")
	// A tab with a status message sets its timer; then quit at once.
	tm.press(t, "2", "q")
	if code := tm.exit(t); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
	waitGone(t, ts)
	ended := time.Now()

	mu.Lock()
	defer mu.Unlock()
	if len(ui) != 1 {
		t.Fatalf("%d UI models made, want 1", len(ui))
	}
	for time.Since(ended) < 2*time.Second {
		runtime.GC()
		if ui[0].Value() == nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the ended session's UI model is still reachable 2 s after the session ended")
}
