package serve

import (
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tui"
)

// simulateTab returns the key that selects the Simulate tab, "" when the
// application has none.
func simulateTab() string {
	i := slices.IndexFunc(tui.DefaultTabs(), func(t tui.Tab) bool { return t.Name == "Simulate" })
	if i < 0 || i > 8 {
		return ""
	}
	return strconv.Itoa(i + 1)
}

// sharedTrace returns the library's cached trace for rel.
func sharedTrace(t *testing.T, lib *Library, rel string) *tracefmt.Trace {
	t.Helper()
	lib.mu.Lock()
	defer lib.mu.Unlock()
	e := lib.cache[rel]
	if e == nil || !isDone(e) || e.trace == nil {
		t.Fatalf("%s is not in the library cache", rel)
	}
	return e.trace
}

// TestSessionEndToEnd is the done-when of the issue: a real SSH client
// with an authorised key connects on loopback, sees the UI on the trace it
// named, switches tabs, runs a simulation (when the Simulate tab exists),
// quits, and the session ends cleanly; the UI got the library's shared
// trace.
func TestSessionEndToEnd(t *testing.T) {
	var models modelLog
	ts := startServer(t, models.capture)
	c := ts.connect(t)
	tm := openTerminal(t, c, "ring", 100, 30)
	tm.waitLoaded(t)
	tm.waitFor(t, "ring.tsim")

	sessions := ts.srv.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("Sessions() = %d sessions, want 1", len(sessions))
	}
	s := sessions[0]
	if s.User != "alice" || s.Trace != "ring.tsim" || s.KeyComment != "alice@laptop" ||
		s.Key != gossh.FingerprintSHA256(ts.key.PublicKey()) || !strings.HasPrefix(s.Remote, "127.0.0.1:") {
		t.Errorf("session info = %+v", s)
	}

	// Every tab, so that every view gets the shared trace (and none may
	// change it: checked below).
	for i := len(tui.DefaultTabs()); i >= 1; i-- {
		before := tm.out.Len()
		tm.press(t, strconv.Itoa(i))
		if err := tm.waitUntil(func() bool { return tm.out.Len() > before }); err != nil {
			t.Fatalf("no frame after key %d: %v", i, err)
		}
	}
	if k := simulateTab(); k != "" {
		tm.press(t, k, "r")
		tm.waitFor(t, "finished")
	} else {
		t.Log("the application has no Simulate tab yet: the session switched tabs but ran no simulation")
	}
	tm.press(t, "q")
	if code := tm.exit(t); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}

	// The UI kept the library's trace: same pointer, no copy.
	waitGone(t, ts)
	shared := sharedTrace(t, ts.lib, "ring.tsim")
	ms := models.all()
	if len(ms) != 1 || ms[0].Trace() != shared {
		t.Errorf("the UI does not hold the library's trace (%d models)", len(ms))
	}
	assertUnchanged(t, filepath.Join(ts.libDir, "ring.tsim"), shared)
	waitLog(t, ts, "session end")
	logs := ts.logs.String()
	for _, want := range []string{"session start", "trace opened", "reason=quit", "user=alice", "key=SHA256:", "remote=127.0.0.1:", "duration="} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, logs)
		}
	}
}

// modelLog records the application models a server builds.
type modelLog struct {
	mu     sync.Mutex
	models []*tui.Model
}

// capture is a startServer edit that makes the server record its models.
func (l *modelLog) capture(c *Config) {
	c.NewModel = func(o tui.Options) tea.Model {
		m := tui.New(o)
		l.mu.Lock()
		l.models = append(l.models, m)
		l.mu.Unlock()
		return m
	}
}

// all returns the models; read them only once their sessions are over
// (waitGone), when their programs no longer touch them.
func (l *modelLog) all() []*tui.Model {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.models)
}

// reset forgets the models.
func (l *modelLog) reset() {
	l.mu.Lock()
	l.models = nil
	l.mu.Unlock()
}

// waitGone waits until the server has no session left. Taking the
// server's lock after the sessions left also orders the test's reads of
// their models after the programs' writes, for the race detector.
func waitGone(t testing.TB, ts *testServer) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for {
		ts.srv.mu.Lock()
		n := len(ts.srv.sessions)
		ts.srv.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions still open", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// waitLog waits for a line of the server's log.
func waitLog(t *testing.T, ts *testServer, want string) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !strings.Contains(ts.logs.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the logs:\n%s", want, ts.logs.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestUnknownKeyRefused: a key that is not in authorized_keys does not get
// in, nor does a client without a key, nor a password.
func TestUnknownKeyRefused(t *testing.T) {
	ts := startServer(t, nil)
	for name, auth := range map[string][]gossh.AuthMethod{
		"unknown key": {gossh.PublicKeys(newClientKey(t))},
		"no key":      nil,
		"password":    {gossh.Password("alice")},
	} {
		t.Run(name, func(t *testing.T) {
			c, err := ts.dial("alice", auth...)
			if err == nil {
				c.Close()
				t.Fatal("connected")
			}
			if !strings.Contains(err.Error(), "unable to authenticate") {
				t.Errorf("error %q, want an authentication failure", err)
			}
		})
	}
	waitLog(t, ts, "key refused")
}

// TestAuthorizedKeysReload: a key added to the file while the server runs
// gets in without a restart.
func TestAuthorizedKeysReload(t *testing.T) {
	ts := startServer(t, nil)
	late := newClientKey(t)
	if c, err := ts.dial("bob", gossh.PublicKeys(late)); err == nil {
		c.Close()
		t.Fatal("a key not yet in the file got in")
	}
	ts.addKey(t, late, 0)
	c, err := ts.dial("bob", gossh.PublicKeys(late))
	if err != nil {
		t.Fatalf("the added key is refused: %v", err)
	}
	c.Close()
}

// TestAnonymous: with AllowAnonymous, a client without credentials gets
// the UI.
func TestAnonymous(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.AuthorizedKeys, c.AllowAnonymous = "", true })
	c, err := ts.dial("guest")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tm := openTerminal(t, c, "", 80, 24)
	tm.waitFor(t, "Timeline")
	tm.press(t, "\x03") // ctrl+c
	if code := tm.exit(t); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

// TestTraversalRefused: names that leave the library are refused before
// the UI starts, with the reason and exit status 1; the file is never
// read.
func TestTraversalRefused(t *testing.T) {
	ts := startServer(t, nil)
	for _, name := range []string{
		"../../etc/passwd",
		"/etc/passwd",
		"../secret.tsim",
		"week2/../../secret.tsim",
		"escape.tsim",   // a link to a file outside
		"etc/passwd",    // through a link to a directory outside
		ts.outside,      // the absolute path of a file outside
		"missing.tsim",  // inside, but absent
		"week2",         // a directory
		"ring.tsim\x1b", // control characters
	} {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			c := ts.connect(t)
			tm := openTerminal(t, c, strconv.Quote(name), 80, 24)
			if code := tm.exit(t); code != 1 {
				t.Errorf("exit status %d, want 1; output:\n%s", code, tm.screen())
			}
			out := tm.screen()
			if !strings.Contains(out, "outside the trace library") && !strings.Contains(out, "no trace") {
				t.Errorf("output does not say why:\n%s", out)
			}
			if strings.Contains(out, "root:") {
				t.Errorf("output shows the file:\n%s", out)
			}
		})
	}
	ts.lib.mu.Lock()
	loads := ts.lib.loads
	ts.lib.mu.Unlock()
	if loads != 0 {
		t.Errorf("%d loads, want 0", loads)
	}
}

// TestPickerLoadsStayInside: the loader the UI's file picker uses refuses
// paths outside the library too, and shares the library's traces.
func TestPickerLoadsStayInside(t *testing.T) {
	ts := startServer(t, nil)
	se := &session{}
	open := ts.srv.opener(se, ts.srv.log)
	ctx := t.Context()
	for _, p := range []string{"/etc/passwd", ts.outside, ts.libDir + "/../secret.tsim", ts.libDir + "/escape.tsim", "../../etc/passwd"} {
		if _, err := open(ctx, p); err == nil {
			t.Errorf("opened %s", p)
		}
	}
	a, err := open(ctx, ts.lib.Dir()+"/ring.tsim")
	if err != nil {
		t.Fatal(err)
	}
	b, err := open(ctx, "alias.tsim") // a link inside the library
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Error("a link to a trace gave another copy")
	}
}

// TestCommandsRefused: a command line, a subsystem (sftp) or a session
// without a terminal gets nothing but a refusal.
func TestCommandsRefused(t *testing.T) {
	ts := startServer(t, nil)
	t.Run("command line", func(t *testing.T) {
		c := ts.connect(t)
		if _, err := tryTerminal(c, "cat /etc/passwd", 80, 24, 0); err == nil {
			t.Fatal("a command line was accepted")
		}
	})
	t.Run("sftp", func(t *testing.T) {
		c := ts.connect(t)
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		if err := sess.RequestSubsystem("sftp"); err == nil {
			t.Fatal("the sftp subsystem was accepted")
		}
	})
	t.Run("no terminal", func(t *testing.T) {
		c := ts.connect(t)
		sess, err := c.NewSession()
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		out, err := sess.CombinedOutput("ring")
		if exitStatus(err) != 1 || !strings.Contains(string(out), "ssh -t") {
			t.Errorf("exit %v, output %q", err, out)
		}
	})
	t.Run("second session on a connection", func(t *testing.T) {
		c := ts.connect(t)
		tm := openTerminal(t, c, "ring", 80, 24)
		tm.waitLoaded(t)
		if _, err := c.NewSession(); err == nil {
			t.Error("a second session channel was accepted")
		}
		tm.press(t, "q")
		tm.exit(t)
	})
	t.Run("port forwarding", func(t *testing.T) {
		c := ts.connect(t)
		if conn, err := c.Dial("tcp", "127.0.0.1:22"); err == nil {
			conn.Close()
			t.Error("a direct-tcpip channel was accepted")
		}
	})
}

// TestMaxSessions: the session over the limit is told the server is full;
// once a session ends, a new one gets in.
func TestMaxSessions(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxSessions = 1 })
	first := openTerminal(t, ts.connect(t), "ring", 80, 24)
	first.waitLoaded(t)
	second := openTerminal(t, ts.connect(t), "ring", 80, 24)
	if code := second.exit(t); code != 1 || !strings.Contains(second.screen(), "full") {
		t.Errorf("exit %d, output %q", code, second.screen())
	}
	first.press(t, "q")
	first.exit(t)
	third := openTerminal(t, ts.connect(t), "ring", 80, 24)
	third.waitLoaded(t)
}

// TestIdleTimeout: a session without input is warned, then closed, and
// told why.
func TestIdleTimeout(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.IdleTimeout = 1500 * time.Millisecond })
	tm := openTerminal(t, ts.connect(t), "ring", 80, 24)
	tm.waitFor(t, "No input for")
	tm.waitFor(t, "closed after 1.5s without input")
	if code := tm.exit(t); code != 0 {
		t.Errorf("exit status %d", code)
	}
	waitLog(t, ts, "reason=idle")
}

// TestGracefulShutdown: on shutdown every session sees the notice, keeps
// working during the grace period, then is closed; Serve returns.
func TestGracefulShutdown(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.Grace = 1500 * time.Millisecond })
	tm := openTerminal(t, ts.connect(t), "ring", 80, 24)
	tm.waitLoaded(t)
	start := time.Now()
	ts.cancel()
	tm.waitFor(t, "shutting down")
	before := tm.out.Len()
	tm.press(t, "2")
	if err := tm.waitUntil(func() bool { return tm.out.Len() > before }); err != nil {
		t.Errorf("no frame during the grace period: %v", err)
	}
	tm.waitFor(t, "the server shut down")
	tm.exit(t)
	select {
	case err := <-ts.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("Serve did not return")
	}
	ts.cancel = nil
	if d := time.Since(start); d < 1500*time.Millisecond {
		t.Errorf("closed after %v, before the grace period", d)
	}
	if _, err := ts.dial("alice", gossh.PublicKeys(ts.key)); err == nil {
		t.Error("connected after shutdown")
	}
	waitLog(t, ts, "reason=shutdown")
}

// TestSimulationBudget: the server's budget reaches the application,
// which stops a run at the limit and says so. The runs are slowed down
// ("-" five times: 100 µs of simulated time per second, about 3 s for the
// ring trace) so that the budget, checked between slices of at most a
// frame, bites before the end.
func TestSimulationBudget(t *testing.T) {
	key := simulateTab()
	if key == "" {
		t.Skip("the application has no Simulate tab")
	}
	for _, tc := range []struct {
		budget tui.SimBudget
		want   string
	}{
		{tui.SimBudget{Events: 10}, "budget of 10 engine events is spent"},
		// Paced slices use little host time (the pause to keep the pace
		// does not count): the smallest budget is spent by the first.
		{tui.SimBudget{WallTime: time.Nanosecond}, "budget of 1ns of host time is spent"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			ts := startServer(t, func(c *Config) { c.SimBudget = tc.budget })
			tm := openTerminal(t, ts.connect(t), "ring", 160, 40)
			tm.waitLoaded(t)
			tm.press(t, key, "-", "-", "-", "-", "-", "r")
			tm.waitFor(t, tc.want)
			if strings.Contains(tm.screen(), "finished") {
				t.Error("the run finished despite the budget")
			}
			tm.press(t, "q")
			tm.exit(t)
		})
	}
}

// TestColourProfile: colours follow the client's terminal, from the TERM
// of its terminal request and the COLORTERM and NO_COLOR it sends.
func TestColourProfile(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.NoColor = false })
	for _, tc := range []struct {
		name, term string
		env        map[string]string
		want, not  []string
	}{
		{"256 colours", "xterm-256color", nil, []string{"38;5;"}, []string{"38;2;"}},
		{"true colour", "xterm-256color", map[string]string{"COLORTERM": "truecolor"}, []string{"38;2;"}, nil},
		{"NO_COLOR", "xterm-256color", map[string]string{"NO_COLOR": "1"}, nil, []string{"38;5;", "38;2;"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ts.connect(t)
			sess, err := c.NewSession()
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for k, v := range tc.env {
				if err := sess.Setenv(k, v); err != nil {
					t.Fatal(err)
				}
			}
			tm := &terminal{sess: sess, out: &syncBuffer{}, ended: make(chan error, 1)}
			sess.Stdout = tm.out
			if tm.in, err = sess.StdinPipe(); err != nil {
				t.Fatal(err)
			}
			if err := sess.RequestPty(tc.term, 24, 80, nil); err != nil {
				t.Fatal(err)
			}
			if err := sess.Start("ring"); err != nil {
				t.Fatal(err)
			}
			go func() { tm.ended <- sess.Wait() }()
			tm.waitLoaded(t)
			before := tm.out.Len()
			tm.press(t, "2") // the Matrix draws in colour
			if err := tm.waitUntil(func() bool { return tm.out.Len() > before }); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if err := tm.waitUntil(func() bool { return strings.Contains(tm.out.String(), w) }); err != nil {
					t.Errorf("no %q in the output: %v", w, err)
				}
			}
			raw := tm.out.String()
			for _, n := range tc.not {
				if strings.Contains(raw, n) {
					t.Errorf("%q in the output", n)
				}
			}
			tm.press(t, "q")
			tm.exit(t)
		})
	}
}

// TestServeStoppedAtOnce cancels Serve the moment it starts, many times:
// the ssh server registers its listener just before its first Accept,
// and a shutdown before that raced with the registration (the race
// detector caught it in CI) and could leave Serve running for good.
func TestServeStoppedAtOnce(t *testing.T) {
	for i := range 20 {
		ts := startServer(t, nil)
		ts.stop(t)
		if t.Failed() {
			t.Fatalf("start %d", i)
		}
	}
}
