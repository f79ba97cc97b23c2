package serve

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// wait bounds every wait of the tests: generous for -race on a busy
// machine, yet a hung test still ends by itself.
const wait = 45 * time.Second

// newClientKey returns a fresh ed25519 signer.
func newClientKey(t testing.TB) gossh.Signer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// writeTrace generates a pattern into dir/name as tsim.
func writeTrace(t testing.TB, dir, name string, o gen.Options) {
	t.Helper()
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tsim.Write(&b, tr); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// newLibraryDir makes a library with a small ring trace, a subdirectory,
// and links that point inside and outside; it returns the library and a
// file outside it.
func newLibraryDir(t testing.TB) (lib, outside string) {
	t.Helper()
	base := t.TempDir()
	lib = filepath.Join(base, "lib")
	if err := os.MkdirAll(filepath.Join(lib, "week2"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTrace(t, lib, "ring.tsim", gen.Options{Pattern: "ring", Ranks: 4, Iters: 3, Compute: -1, Seed: 1})
	writeTrace(t, filepath.Join(lib, "week2"), "pingpong.tsim", gen.Options{Pattern: "pingpong", Ranks: 2, Iters: 3, Compute: -1, Seed: 1})
	outside = filepath.Join(base, "secret.tsim")
	writeTrace(t, base, "secret.tsim", gen.Options{Pattern: "ring", Ranks: 2, Iters: 1, Compute: -1, Seed: 2})
	if err := os.Symlink(outside, filepath.Join(lib, "escape.tsim")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(lib, "etc")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("ring.tsim", filepath.Join(lib, "alias.tsim")); err != nil {
		t.Fatal(err)
	}
	return lib, outside
}

// syncBuffer is a byte buffer safe for one writer and many readers. With
// max > 0 it keeps only the last max bytes (the load test's clients
// would otherwise hold every frame of every session), while Len still
// counts every byte received.
type syncBuffer struct {
	mu    sync.Mutex
	b     []byte
	total int
	max   int
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += len(p)
	s.b = append(s.b, p...)
	if s.max > 0 && len(s.b) > s.max {
		s.b = append(s.b[:0], s.b[len(s.b)-s.max:]...)
	}
	return len(p), nil
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return string(s.b)
}

// Len returns the number of bytes written so far.
func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total
}

// testServer is a server on a loopback port.
type testServer struct {
	srv     *Server
	lib     *Library
	libDir  string
	outside string
	addr    string
	key     gossh.Signer // authorised client key
	hostKey gossh.PublicKey
	logs    *syncBuffer
	keys    string // the authorized_keys file
	ln      *testListener
	cancel  context.CancelFunc
	done    chan error
}

// testListener accepts the TCP connections of a listener and in-memory
// ones (net.Pipe: no buffer at all, so a client that stops reading
// blocks the server's next write at once).
type testListener struct {
	net.Listener
	tcp   chan net.Conn
	pipes chan net.Conn
	once  sync.Once
	done  chan struct{}
}

func newTestListener(ln net.Listener) *testListener {
	l := &testListener{Listener: ln, tcp: make(chan net.Conn), pipes: make(chan net.Conn), done: make(chan struct{})}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				l.Close()
				return
			}
			select {
			case l.tcp <- c:
			case <-l.done:
				c.Close()
				return
			}
		}
	}()
	return l
}

func (l *testListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.tcp:
		return c, nil
	case c := <-l.pipes:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *testListener) Close() error {
	l.once.Do(func() {
		close(l.done)
		l.Listener.Close()
	})
	return nil
}

// pipe connects to the server in memory and returns the client's end.
func (l *testListener) pipe() (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.pipes <- server:
		return client, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// startServer starts a server with one authorised key; edit adjusts the
// configuration. The server is shut down at the end of the test.
func startServer(t testing.TB, edit func(*Config)) *testServer {
	t.Helper()
	ts := &testServer{logs: &syncBuffer{}, key: newClientKey(t)}
	ts.libDir, ts.outside = newLibraryDir(t)
	dir := t.TempDir()
	// Whatever the umask: the server refuses keys in a directory others
	// can write (StrictModes).
	if err := os.Chmod(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ts.keys = filepath.Join(dir, "authorized_keys")
	line := "# the class\n" + strings.TrimSpace(string(gossh.MarshalAuthorizedKey(ts.key.PublicKey()))) + " alice@laptop\n"
	if err := os.WriteFile(ts.keys, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	host, _, err := LoadHostKey(filepath.Join(dir, "host_ed25519"))
	if err != nil {
		t.Fatal(err)
	}
	ts.hostKey = host.PublicKey()
	lib, err := OpenLibrary(ts.libDir, "")
	if err != nil {
		t.Fatal(err)
	}
	ts.lib = lib
	cfg := Config{
		HostKey:        host,
		AuthorizedKeys: ts.keys,
		Library:        lib,
		Grace:          2 * time.Second,
		NoColor:        true,
		Logger:         slog.New(slog.NewTextHandler(ts.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
	}
	if edit != nil {
		edit(&cfg)
	}
	srv, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ts.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = ln.Addr().String()
	ts.ln = newTestListener(ln)
	ctx, cancel := context.WithCancel(context.Background())
	ts.cancel = cancel
	ts.done = make(chan error, 1)
	go func() { ts.done <- srv.Serve(ctx, ts.ln) }()
	t.Cleanup(func() {
		ts.stop(t)
		lib.Close()
	})
	return ts
}

// addKey appends key to the authorized_keys file, sets its mode when
// mode is not 0, and makes the change visible to the server's reload.
func (ts *testServer) addKey(t testing.TB, key gossh.Signer, mode os.FileMode) {
	t.Helper()
	f, err := os.OpenFile(ts.keys, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(gossh.MarshalAuthorizedKey(key.PublicKey())); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if mode != 0 {
		if err := os.Chmod(ts.keys, mode); err != nil {
			t.Fatal(err)
		}
	}
	// Some file systems keep coarse times: make the change visible.
	future := time.Now().Add(time.Minute)
	if err := os.Chtimes(ts.keys, future, future); err != nil {
		t.Fatal(err)
	}
}

// stop shuts the server down and waits for Serve to return.
func (ts *testServer) stop(t testing.TB) {
	t.Helper()
	if ts.cancel == nil {
		return
	}
	ts.cancel()
	ts.cancel = nil
	select {
	case err := <-ts.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(wait):
		// Seen once, under two CI runs at once: keep every goroutine's
		// stack so that the next occurrence shows where shutdown waits.
		var stacks strings.Builder
		_ = pprof.Lookup("goroutine").WriteTo(&stacks, 1)
		t.Errorf("Serve did not return after shutdown; goroutines:\n%s", stacks.String())
	}
}

// dial connects with the given auth methods (none for anonymous).
func (ts *testServer) dial(user string, auth ...gossh.AuthMethod) (*gossh.Client, error) {
	return gossh.Dial("tcp", ts.addr, &gossh.ClientConfig{
		User:            user,
		Auth:            auth,
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
		Timeout:         wait,
	})
}

// connect dials with the authorised key.
func (ts *testServer) connect(t testing.TB) *gossh.Client {
	t.Helper()
	c, err := ts.dial("alice", gossh.PublicKeys(ts.key))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// terminal is an interactive session seen from the client.
type terminal struct {
	sess  *gossh.Session
	in    io.WriteCloser
	out   *syncBuffer // stdout and stderr
	ended chan error
}

// openTerminal requests a w×h terminal and starts the UI, with cmd as the
// SSH command ("" for a shell request).
func openTerminal(t testing.TB, c *gossh.Client, cmd string, w, h int) *terminal {
	t.Helper()
	tm, err := tryTerminal(c, cmd, w, h, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tm.sess.Close() })
	return tm
}

// tryTerminal is openTerminal returning the error; keep > 0 bounds the
// output kept (see syncBuffer).
func tryTerminal(c *gossh.Client, cmd string, w, h, keep int) (*terminal, error) {
	sess, err := c.NewSession()
	if err != nil {
		return nil, err
	}
	tm := &terminal{sess: sess, out: &syncBuffer{max: keep}, ended: make(chan error, 1)}
	sess.Stdout, sess.Stderr = tm.out, tm.out
	if tm.in, err = sess.StdinPipe(); err != nil {
		return nil, err
	}
	if err := sess.RequestPty("xterm-256color", h, w, gossh.TerminalModes{gossh.ECHO: 0}); err != nil {
		return nil, err
	}
	if cmd == "" {
		err = sess.Shell()
	} else {
		err = sess.Start(cmd)
	}
	if err != nil {
		sess.Close()
		return nil, err
	}
	go func() { tm.ended <- sess.Wait() }()
	return tm, nil
}

// screen returns everything received so far, escape sequences removed.
func (tm *terminal) screen() string { return ansi.Strip(tm.out.String()) }

// waitFor waits until the output contains want.
func (tm *terminal) waitFor(t testing.TB, want string) {
	t.Helper()
	if err := tm.waitUntil(func() bool { return strings.Contains(tm.screen(), want) }); err != nil {
		t.Fatalf("waiting for %q: %v; got:\n%s", want, err, tail(tm.screen(), 2000))
	}
}

// waitUntil polls cond, failing after wait or when the session ends.
func (tm *terminal) waitUntil(cond func() bool) error {
	deadline := time.Now().Add(wait)
	return tm.poll(cond, func(now time.Time) error {
		if now.After(deadline) {
			return errors.New("timed out")
		}
		return nil
	})
}

// waitProgress polls cond like waitUntil, for work whose length depends
// on the host's load (fifty simulations under -race on a busy machine):
// it is bounded by progress rather than wall time, failing when the
// session sent nothing for wait (stuck), when it ends, or after overall
// (a session that keeps drawing without ever getting there).
func (tm *terminal) waitProgress(cond func() bool, overall time.Duration) error {
	end := time.Now().Add(overall)
	seen, since := tm.out.Len(), time.Now()
	return tm.poll(cond, func(now time.Time) error {
		if n := tm.out.Len(); n != seen {
			seen, since = n, now
		}
		switch {
		case now.Sub(since) > wait:
			return fmt.Errorf("nothing drawn for %v", wait)
		case now.After(end):
			return fmt.Errorf("not there after %v, still drawing", overall)
		}
		return nil
	})
}

// poll checks cond every 20 ms until it holds, the session ends, or
// give (called at each poll) returns an error.
func (tm *terminal) poll(cond func() bool, give func(now time.Time) error) error {
	for !cond() {
		if err := give(time.Now()); err != nil {
			return err
		}
		select {
		case err := <-tm.ended:
			tm.ended <- err
			if cond() {
				return nil
			}
			return errors.New("session ended: " + errString(err))
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// press sends keys (each a string of bytes as a terminal sends them).
func (tm *terminal) press(t testing.TB, keys ...string) {
	t.Helper()
	for _, k := range keys {
		if _, err := io.WriteString(tm.in, k); err != nil {
			t.Fatalf("sending %q: %v", k, err)
		}
	}
}

// exit waits for the session to end and returns its exit status (-1 when
// it ended without one).
func (tm *terminal) exit(t testing.TB) int {
	t.Helper()
	select {
	case err := <-tm.ended:
		tm.ended <- err
		return exitStatus(err)
	case <-time.After(wait):
		t.Fatalf("session did not end; got:\n%s", tail(tm.screen(), 2000))
	}
	return -1
}

func exitStatus(err error) int {
	var ee *gossh.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitStatus()
	}
	return -1
}

func errString(err error) string {
	if err == nil {
		return "exit 0"
	}
	return err.Error()
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// waitLoaded waits for the status bar of a loaded trace ("4 ranks ·
// 84 events"): the tab bar reads "Timeline" on the loading screen
// already, where keys other than tabs and quit have no view to act on.
func (tm *terminal) waitLoaded(t testing.TB) {
	t.Helper()
	tm.waitFor(t, " ranks · ")
}
