package serve

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
	"github.com/tracesim/tracesim/tui"
)

// heapAlloc returns the live heap after a full collection.
func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestLoad50Sessions opens 50 concurrent sessions on loopback, all on the
// same trace, each interacting (and running a simulation when the
// application has a Simulate tab). Every session must receive frames for
// every key; the server must hand all of them the library's one trace (no
// copies: pointer identity, and a heap growth per session well below the
// trace's size), must not change the trace, and must give the memory
// back when the sessions end. The figures are logged (go test -v).
func TestLoad50Sessions(t *testing.T) {
	// A trace big enough that one copy per session would dwarf the
	// sessions' own state, small enough to simulate 50 times under -race.
	loadSessions(t, gen.Options{Pattern: "cg", Ranks: 16, Iters: 8, Compute: -1, Seed: 3}, simulateTab())
}

// TestLoad50SessionsLarge is TestLoad50Sessions on a 64-rank trace of
// 57,600 events, where the views' derived data (the Timeline's summary,
// the sizes index, the traffic matrix) outweigh the rest of a session:
// the per-session figure shows whether they are shared. Without the
// simulations, which would take minutes under -race.
func TestLoad50SessionsLarge(t *testing.T) {
	if testing.Short() {
		t.Skip("50 sessions on a 57,600-event trace")
	}
	loadSessions(t, gen.Options{Pattern: "cg", Ranks: 64, Iters: 20, Compute: -1, Seed: 3}, "")
}

// loadWait bounds each step of a load test's session: fifty sessions
// share the host's CPUs, so how long a step takes is the load's business;
// waitProgress fails a session that stops drawing long before this.
const loadWait = 10 * wait

// loadSessions runs the load test on a trace generated from o, running
// a simulation in each session when simKey (the Simulate tab's key) is
// set.
func loadSessions(t *testing.T, o gen.Options, simKey string) {
	const n = 50
	const w, h = 60, 16 // small frames keep 50 sessions cheap under -race
	var models modelLog
	ts := startServer(t, func(c *Config) {
		models.capture(c)
		c.MaxSessions = n
		// Every client comes from 127.0.0.1, all at once.
		c.SourceStartups = StartupLimit{Start: n, Rate: 30, Full: 2 * n}
		c.Startups = c.SourceStartups
	})
	writeTrace(t, ts.libDir, "cg.tsim", o)

	h0 := heapAlloc()
	shared, _, err := ts.lib.Load(t.Context(), "cg")
	if err != nil {
		t.Fatal(err)
	}
	h1 := heapAlloc()
	traceBytes := int64(h1) - int64(h0)
	goroutines0 := runtime.NumGoroutine()

	start := time.Now()
	var (
		ready    sync.WaitGroup // every session connected and interacted
		release  = make(chan struct{})
		finished sync.WaitGroup
		mu       sync.Mutex
		failures []string
		received = make([]int, n)
	)
	fail := func(i int, format string, args ...any) {
		mu.Lock()
		failures = append(failures, fmt.Sprintf("session %d: ", i)+fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	ready.Add(n)
	finished.Add(n)
	for i := range n {
		go func() {
			defer finished.Done()
			readied := false
			defer func() {
				if !readied {
					ready.Done()
				}
			}()
			c, err := ts.dial(fmt.Sprintf("student%02d", i), gossh.PublicKeys(ts.key))
			if err != nil {
				fail(i, "dial: %v", err)
				return
			}
			defer c.Close()
			tm, err := tryTerminal(c, "cg", w, h, 16<<10)
			if err != nil {
				fail(i, "session: %v", err)
				return
			}
			defer tm.sess.Close()
			if err := tm.waitProgress(func() bool { return strings.Contains(tm.screen(), "Timeline") }, loadWait); err != nil {
				fail(i, "first frame: %v; got:\n%s", err, tail(tm.screen(), 600))
				return
			}
			// Every key must bring a frame.
			for _, k := range []string{"2", "3", "4", "1"} {
				before := tm.out.Len()
				if _, err := tm.in.Write([]byte(k)); err != nil {
					fail(i, "key %s: %v", k, err)
					return
				}
				if err := tm.waitProgress(func() bool { return tm.out.Len() > before }, loadWait); err != nil {
					fail(i, "no frame after key %s: %v", k, err)
					return
				}
			}
			if simKey != "" {
				// At the fastest speed ("+" past the last step): the
				// default pace is one a student can watch, seconds long.
				tm.in.Write([]byte(simKey + strings.Repeat("+", 24) + "r"))
				if err := tm.waitProgress(func() bool { return strings.Contains(tm.screen(), "finished") }, loadWait); err != nil {
					fail(i, "simulation: %v; got:\n%s", err, tail(tm.screen(), 600))
					return
				}
			}
			readied = true
			ready.Done()
			<-release
			tm.in.Write([]byte("q"))
			select {
			case err := <-tm.ended:
				if exitStatus(err) != 0 {
					fail(i, "exit: %v", err)
				}
			case <-time.After(loadWait):
				fail(i, "did not end after q")
			}
			mu.Lock()
			received[i] = tm.out.Len()
			mu.Unlock()
		}()
	}
	ready.Wait()
	connected := time.Since(start)
	mu.Lock()
	bad := len(failures)
	mu.Unlock()

	// With every session open: count them, check what they were given,
	// weigh them.
	open := ts.srv.Sessions()
	ts.srv.mu.Lock()
	var copies int
	for _, se := range ts.srv.sessions {
		se.mu.Lock()
		if se.trace != shared {
			copies++
		}
		se.mu.Unlock()
	}
	ts.srv.mu.Unlock()
	h2 := heapAlloc()
	goroutines1 := runtime.NumGoroutine()
	// The views' derived data of the trace, built once for the class.
	builds, entries := ts.srv.derived.Builds(), ts.srv.derived.Len()

	close(release)
	finished.Wait()
	waitGone(t, ts)
	modelsBuilt, foreign := foreignTraces(models.all(), shared)
	models.reset() // the log would keep every session's views alive
	// A program's last timer (the status line's, 4 s) keeps its
	// goroutine, and through it the program and its model, alive a little
	// after the session: wait for them to go before weighing the heap.
	deadline := time.Now().Add(wait)
	for runtime.NumGoroutine() > goroutines0+2 && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	h3 := heapAlloc()
	goroutines2 := runtime.NumGoroutine()
	// The derived data go with the last session that held them (their
	// cleanups run after a collection, in their own goroutine).
	for ts.srv.derived.Len() > 0 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	leftDerived := ts.srv.derived.Len()

	for _, f := range failures {
		t.Error(f)
	}
	if bad > 0 {
		t.Fatalf("%d of %d sessions failed", bad, n)
	}
	if len(open) != n {
		t.Errorf("%d sessions open at the peak, want %d", len(open), n)
	}
	if modelsBuilt != n {
		t.Errorf("%d models built, want %d", modelsBuilt, n)
	}
	if foreign != 0 {
		t.Errorf("%d models hold another trace than the library's", foreign)
	}
	if copies != 0 {
		t.Errorf("%d sessions were handed another trace than the library's", copies)
	}
	assertUnchanged(t, filepath.Join(ts.libDir, "cg.tsim"), shared)

	perSession := (int64(h2) - int64(h1)) / n
	var total int
	minRecv := -1
	for _, r := range received {
		total += r
		if minRecv < 0 || r < minRecv {
			minRecv = r
		}
	}
	t.Logf("%d sessions of %d×%d on %s: all connected and interacted in %v (simulation: %v)",
		n, w, h, traceDesc(shared), connected.Round(time.Millisecond), simKey != "")
	t.Logf("heap: %s before the trace, %s with it (trace %s), %s with %d sessions open, %s after they closed",
		mib(h0), mib(h1), kib(traceBytes), mib(h2), n, mib(h3))
	t.Logf("per session: %s of heap (server and client ends together), %.2f× the trace; %d goroutines before, %d with the sessions open",
		kib(perSession), float64(perSession)/float64(max(traceBytes, 1)), goroutines0, goroutines1)
	t.Logf("derived data: %d builds, %d values shared by the %d sessions", builds, entries, n)
	t.Logf("after: %d goroutines", goroutines2)
	t.Logf("frames: %s received by the clients in all, at least %s by each", kib(int64(total)), kib(int64(minRecv)))

	// Shared: each kind of derived data (the Timeline's summary, the
	// sizes index, the traffic matrix, the span, …) is built once, not
	// per session (a few more when a value no session holds is collected).
	if builds > 10 {
		t.Errorf("%d builds of derived data for %d sessions on one trace: not shared", builds, n)
	}
	// Bounded: a session's own state (its views' indexes, the renderer,
	// the SSH channel) stays within a few MiB whatever the class size.
	if perSession > 8<<20 {
		t.Errorf("each session costs %s of heap", kib(perSession))
	}
	// And the memory comes back: within a few MiB of the level before.
	if grow := int64(h3) - int64(h1); grow > 8<<20 {
		t.Errorf("heap %s above the start after every session closed", kib(grow))
	}
	if leftDerived != 0 {
		t.Errorf("%d derived values still cached after every session closed", leftDerived)
	}
	if goroutines2 > goroutines0+2 {
		t.Errorf("%d goroutines after the sessions closed, %d before", goroutines2, goroutines0)
	}
}

// assertUnchanged checks that the sessions left the shared trace read
// from the tsim file at path as they found it: equal to a fresh parse.
func assertUnchanged(t *testing.T, path string, shared *tracefmt.Trace) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := tsim.Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if fresh.Format == "" {
		fresh.Format = "tsim"
	}
	if !reflect.DeepEqual(fresh, shared) {
		t.Errorf("the sessions changed the shared trace %s", filepath.Base(path))
	}
}

// foreignTraces counts the models and those that hold another trace
// than shared.
func foreignTraces(ms []*tui.Model, shared *tracefmt.Trace) (built, foreign int) {
	for _, m := range ms {
		if m.Trace() != shared {
			foreign++
		}
	}
	return len(ms), foreign
}

func traceDesc(tr *tracefmt.Trace) string {
	events := 0
	for _, r := range tr.Ranks {
		events += len(r.Events)
	}
	return fmt.Sprintf("%d ranks, %d events", len(tr.Ranks), events)
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

func kib(b int64) string { return fmt.Sprintf("%.0f KiB", float64(b)/(1<<10)) }
