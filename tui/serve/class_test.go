package serve

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// openClass opens n sessions of w×h on the ring trace at once, each
// waiting for its first frame and for a frame after a key; it returns
// them with their connections.
func openClass(t *testing.T, ts *testServer, n, w, h int) ([]*terminal, []*gossh.Client) {
	t.Helper()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		failures []string
		out      = make([]*terminal, n)
		clients  = make([]*gossh.Client, n)
	)
	// The output kept must hold a whole first frame, tab bar included:
	// a 1000×400 one is about half a megabyte, and with only the last
	// 8 KiB kept the tab bar showed only when a poll came between two
	// writes of the frame, which on a loaded host it never did. A
	// 200×60 first frame is 6–8 KiB with Bubble Tea's renderer, and
	// about 10 KiB with the direct one (whole changed lines).
	keep := 32 << 10
	if w*h > 200*60 {
		keep = 4 << 20
	}
	for i := range n {
		wg.Go(func() {
			fail := func(format string, args ...any) {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%d×%d session %d: ", w, h, i)+fmt.Sprintf(format, args...))
				mu.Unlock()
			}
			c, err := ts.dial(fmt.Sprintf("student%02d", i), gossh.PublicKeys(ts.key))
			if err != nil {
				fail("dial: %v", err)
				return
			}
			t.Cleanup(func() { c.Close() })
			clients[i] = c
			tm, err := tryTerminal(c, "ring", w, h, keep)
			if err != nil {
				fail("session: %v", err)
				return
			}
			if err := tm.waitUntil(func() bool { return strings.Contains(tm.screen(), "Timeline") }); err != nil {
				fail("first frame: %v", err)
				return
			}
			before := tm.out.Len()
			tm.in.Write([]byte("2"))
			if err := tm.waitUntil(func() bool { return tm.out.Len() > before }); err != nil {
				fail("no frame after a key: %v", err)
				return
			}
			out[i] = tm
		})
	}
	wg.Wait()
	for _, f := range failures {
		t.Error(f)
	}
	if len(failures) > 0 {
		t.FailNow()
	}
	return out, clients
}

// classBudget is the memory budget a class of small sessions of 200×60
// and large ones of 1000×400 is admitted under: the sum of their
// estimates (1.35 GiB for 40 and 5).
func classBudget(small, large int) int64 {
	return int64(small)*sessionCost(200, 60) + int64(large)*sessionCost(maxWidth, maxHeight)
}

// TestLoadClassMemory is the served-class load test of docs/serve.md: 40
// sessions of 200×60 and 5 of 1000×400 (the size cap) at once, on a
// server whose memory budget is the class's estimate. Every session must
// get in, the heap they take must stay under that budget, and come back
// to within a few MiB of its level before once they leave. The figures
// are logged (go test -v -run LoadClass). Under -race on two cores the
// whole class takes minutes (a 1000×400 frame is slow to build there):
// by default 10 sessions of 200×60 and one of 1000×400 are opened (about
// 40 s), and TRACESIM_LOAD_CLASS=full opens the whole class.
func TestLoadClassMemory(t *testing.T) {
	small, large := 10, 1
	if os.Getenv("TRACESIM_LOAD_CLASS") == "full" {
		small, large = 40, 5
	}
	base := liveHeap()
	ts := startServer(t, func(c *Config) {
		c.MaxMemory = base + classBudget(small, large) + 64<<20
		c.MaxSessions = small + large + 1 // the budget refuses the last
		// Every client comes from 127.0.0.1, many at once.
		c.SourceStartups = StartupLimit{Start: small, Rate: 30, Full: 2 * small}
		c.Startups = c.SourceStartups
	})
	if _, _, err := ts.lib.Load(t.Context(), "ring"); err != nil {
		t.Fatal(err)
	}
	goroutines0 := runtime.NumGoroutine()
	h0 := heapAlloc()
	smalls, c1 := openClass(t, ts, small, 200, 60)
	h1 := heapAlloc()
	larges, c2 := openClass(t, ts, large, maxWidth, maxHeight)
	h2 := heapAlloc()
	if got := len(ts.srv.Sessions()); got != small+large {
		t.Fatalf("%d sessions open, want %d", got, small+large)
	}
	// The class fills the budget: one more large session is refused.
	ec := ts.connect(t)
	extra := openTerminal(t, ec, "ring", maxWidth, maxHeight)
	extra.waitFor(t, "the server has no memory left for another session")
	ec.Close()

	for _, tm := range append(smalls, larges...) {
		tm.in.Write([]byte("q"))
	}
	for _, tm := range append(smalls, larges...) {
		if code := tm.exit(t); code != 0 {
			t.Errorf("exit status %d after q", code)
		}
	}
	waitGone(t, ts)
	for _, c := range append(c1, c2...) {
		c.Close()
	}
	deadline := time.Now().Add(wait)
	for runtime.NumGoroutine() > goroutines0+2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	// What the sessions held is garbage once the server has let go of
	// their connections too (the SSH server drops a closed connection on
	// its own goroutine, after the session has left): on a loaded host
	// that comes a while after the last session left, so the heap is
	// measured until it is back near the start or the wait runs out; a
	// session still referenced keeps it up until then.
	h3 := heapAlloc()
	for end := time.Now().Add(wait); int64(h3)-int64(h0) > 8<<20 && time.Now().Before(end); {
		time.Sleep(100 * time.Millisecond)
		h3 = heapAlloc()
	}
	if g := runtime.NumGoroutine(); g > goroutines0+2 {
		t.Errorf("%d goroutines after the sessions left, %d before", g, goroutines0)
	}

	perSmall := (int64(h1) - int64(h0)) / int64(small)
	perLarge := (int64(h2) - int64(h1)) / int64(max(large, 1))
	t.Logf("heap: %s before, %s with %d sessions of 200×60, %s with %d more of %d×%d, %s after they left",
		mib(h0), mib(h1), small, mib(h2), large, maxWidth, maxHeight, mib(h3))
	t.Logf("per session (server and client ends): %s at 200×60, %s at %d×%d; estimate used for admission: %s and %s",
		kib(perSmall), kib(perLarge), maxWidth, maxHeight, kib(sessionCost(200, 60)), kib(sessionCost(maxWidth, maxHeight)))

	if grow, budget := int64(h2)-int64(h0), classBudget(small, large); grow > budget {
		t.Errorf("the class takes %s of heap, over its budget of %s", kib(grow), kib(budget))
	}
	if est := sessionCost(200, 60); perSmall > est {
		t.Errorf("a 200×60 session takes %s, more than its estimate %s", kib(perSmall), kib(est))
	}
	if est := sessionCost(maxWidth, maxHeight); large > 0 && perLarge > est {
		t.Errorf("a %d×%d session takes %s, more than its estimate %s", maxWidth, maxHeight, kib(perLarge), kib(est))
	}
	if grow := int64(h3) - int64(h0); grow > 8<<20 {
		t.Errorf("heap %s above the start after every session left", kib(grow))
	}
}

// TestMemoryBudget: a session whose estimate does not fit in what the
// budget leaves is refused with a message saying so; one that leaves
// frees its share for the next.
func TestMemoryBudget(t *testing.T) {
	est := sessionCost(200, 60)
	var base int64
	ts := startServer(t, func(c *Config) {
		base = liveHeap()
		c.MaxMemory = base + 2*est + est/2
	})
	first := openTerminal(t, ts.connect(t), "ring", 200, 60)
	first.waitLoaded(t)
	second := openTerminal(t, ts.connect(t), "ring", 200, 60)
	second.waitLoaded(t)
	third := openTerminal(t, ts.connect(t), "ring", 200, 60)
	third.waitFor(t, "the server has no memory left for another session")
	if code := third.exit(t); code != 1 {
		t.Errorf("exit status %d for the refused session, want 1", code)
	}
	// A smaller window still fits.
	tiny := openTerminal(t, ts.connect(t), "ring", 80, 24)
	tiny.waitLoaded(t)
	tiny.press(t, "q")
	tiny.exit(t)

	first.press(t, "q")
	first.exit(t)
	again := openTerminal(t, ts.connect(t), "ring", 200, 60)
	again.waitLoaded(t)
}
