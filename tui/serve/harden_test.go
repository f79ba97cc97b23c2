package serve

import (
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tui"
)

// TestResizeFlood sends 1,000 window changes a second for 5 s from one
// client (alternating a small and a large terminal, so that each one
// asks for a full redraw). Another student must get in and see frames
// during the flood, the flood must go through unhindered, the flooding
// session must answer a key press afterwards, and the server must shut
// down within its grace. (Under -race the UI renders too slowly here to
// fill a client's 2 MiB SSH window during the flood, which is what froze
// the session for good before resizes were coalesced: this test passes
// on that code too. TestBusyUIKeepsConnection and
// TestStalledClientDropped are the ones that fail on it.)
func TestResizeFlood(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.MaxSessions = 3 })
	// 64 ranks: every switch between the sizes redraws screens of rows.
	writeTrace(t, ts.libDir, "wide.tsim", gen.Options{Pattern: "ring", Ranks: 64, Iters: 2, Compute: -1, Seed: 3})
	flooder := openTerminal(t, ts.connect(t), "wide", 80, 24)
	flooder.waitLoaded(t)

	const rate, span = 1000, 5 * time.Second
	var sent atomic.Int64
	stop := make(chan struct{})
	flooded := make(chan struct{})
	floodStart := time.Now()
	go func() {
		defer close(flooded)
		start := time.Now()
		for i := 0; time.Since(start) < span; i++ {
			select {
			case <-stop:
				return
			default:
			}
			w, h := 80, 24
			if i%2 == 1 {
				w, h = 300, 100
			}
			if err := flooder.sess.WindowChange(h, w); err != nil {
				return
			}
			sent.Add(1)
			// Pace to rate: sleep when ahead of schedule.
			if ahead := time.Duration(i+1)*time.Second/rate - time.Since(start); ahead > 0 {
				time.Sleep(ahead)
			}
		}
	}()

	// During the flood, a second student gets in and gets frames.
	time.Sleep(time.Second)
	other := openTerminal(t, ts.connect(t), "ring", 100, 30)
	other.waitLoaded(t)
	before := other.out.Len()
	other.press(t, "2")
	if err := other.waitUntil(func() bool { return other.out.Len() > before }); err != nil {
		t.Fatalf("the other student got no frame after a key during the flood: %v", err)
	}
	otherAt := time.Now()

	// The flood itself must not be held back: a request loop that waits
	// for the UI stops reading, and the client's writes block.
	select {
	case <-flooded:
	case <-time.After(span + wait):
		close(stop)
		t.Fatalf("the flood did not end: %d window changes sent, then the connection stopped taking them", sent.Load())
	}
	n := sent.Load()
	t.Logf("%d window changes sent in %v; the other student had frames %v into it", n, span, otherAt.Sub(floodStart).Round(time.Millisecond))
	if n < rate*int64(span/time.Second)/2 {
		t.Errorf("only %d window changes went through in %v: the server stopped reading them", n, span)
	}

	// The flooding session answers a key, at its last size.
	flooder.sess.WindowChange(40, 120)
	before = flooder.out.Len()
	flooder.press(t, "3")
	if err := flooder.waitUntil(func() bool { return flooder.out.Len() > before }); err != nil {
		t.Fatalf("the flooding session answers no key: %v", err)
	}
	if got := len(ts.srv.Sessions()); got != 2 {
		t.Errorf("%d sessions open after the flood, want 2", got)
	}

	// And the server shuts down within its grace (2 s) plus the quit wait.
	start := time.Now()
	ts.stop(t)
	if took := time.Since(start); took > 2*time.Second+quitWait+5*time.Second {
		t.Errorf("shutdown took %v", took)
	}
	waitLog(t, ts, "shut down")
}

// stallingConn is a client's connection that stops reading once stall
// is closed, as a client that stopped reading would. Until then a
// goroutine reads on its own (net.Pipe has no buffer: both ends send
// their SSH version first).
type stallingConn struct {
	net.Conn
	data          chan []byte
	rest          []byte
	stall, closed chan struct{}
	once          sync.Once
}

func newStallingConn(c net.Conn) *stallingConn {
	s := &stallingConn{Conn: c, data: make(chan []byte, 64), stall: make(chan struct{}), closed: make(chan struct{})}
	go func() {
		defer close(s.data)
		for {
			select {
			case <-s.stall:
				<-s.closed
				return
			default:
			}
			b := make([]byte, 32<<10)
			n, err := c.Read(b)
			if err != nil {
				return
			}
			select {
			case s.data <- b[:n]:
			case <-s.closed:
				return
			}
		}
	}()
	return s
}

func (s *stallingConn) Read(p []byte) (int, error) {
	if len(s.rest) == 0 {
		b, ok := <-s.data
		if !ok {
			return 0, io.EOF
		}
		s.rest = b
	}
	n := copy(p, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

func (s *stallingConn) Close() error {
	s.once.Do(func() { close(s.closed) })
	return s.Conn.Close()
}

// TestStalledClientDropped: a client that stops reading its output must
// not hold a session (and its slot) for ever: once a write has waited
// WriteTimeout, the server drops the connection. Before, the program
// blocked in the write for good, and neither the idle timeout nor the
// shutdown (which waited for that program) could free it. The client is
// connected in memory (net.Pipe), where no buffer hides the stall.
func TestStalledClientDropped(t *testing.T) {
	ts := startServer(t, func(c *Config) {
		c.WriteTimeout = 2 * time.Second
		c.MaxSessions = 1
	})
	start := stalledSession(t, ts)
	waitGone(t, ts)
	took := time.Since(start)
	t.Logf("stalled session dropped %v after the client stopped reading", took.Round(time.Millisecond))
	if took < 2*time.Second {
		t.Errorf("dropped after %v, before the write timeout (2s)", took)
	}
	waitLog(t, ts, "session end")
	logs := ts.logs.String()
	for _, want := range []string{"client stopped reading", "reason=stalled"} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %q:\n%s", want, tail(logs, 3000))
		}
	}
	// Its slot is free for the next student.
	next := openTerminal(t, ts.connect(t), "ring", 80, 24)
	next.waitLoaded(t)
}

// TestShutdownWithStalledClient: the graceful shutdown must not wait on
// a session whose client stopped reading (here before its write timeout):
// it is dropped quitWait after the grace. Before, the shutdown asked its
// program to quit and waited for good.
func TestShutdownWithStalledClient(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.WriteTimeout = time.Hour })
	stalledSession(t, ts)
	time.Sleep(time.Second) // a write is blocked by now
	start := time.Now()
	ts.stop(t)
	took := time.Since(start)
	t.Logf("shutdown took %v (grace 2s, quit wait %v)", took.Round(time.Millisecond), quitWait)
	if limit := 2*time.Second + quitWait + 5*time.Second; took > limit {
		t.Errorf("shutdown took %v, over %v", took, limit)
	}
	waitLog(t, ts, "reason=shutdown")
}

// stalledSession opens a session over an in-memory connection, waits for
// its first frame, stops reading, and keeps sending keys and window
// changes (which ask for frames the client no longer takes) while the
// server has sessions; it returns when the client stopped reading.
func stalledSession(t *testing.T, ts *testServer) time.Time {
	t.Helper()
	p, err := ts.ln.pipe()
	if err != nil {
		t.Fatal(err)
	}
	conn := newStallingConn(p)
	cc, chans, reqs, err := gossh.NewClientConn(conn, "pipe", &gossh.ClientConfig{
		User:            "alice",
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(ts.key)},
		HostKeyCallback: gossh.FixedHostKey(ts.hostKey),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := gossh.NewClient(cc, chans, reqs)
	t.Cleanup(func() { c.Close() })
	tm := openTerminal(t, c, "ring", 100, 30)
	tm.waitLoaded(t)
	close(conn.stall)
	start := time.Now()
	go func() {
		for i := 0; len(ts.srv.Sessions()) > 0 && i < 1000; i++ {
			if tm.sess.WindowChange(30-i%2*10, 100-i%2*20) != nil {
				return
			}
			if _, err := tm.in.Write([]byte{"1234"[i%4]}); err != nil {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	return start
}

// TestSilentSocketsDoNotLockOut holds 30 TCP connections that never send
// a byte from 127.0.0.2 (Linux routes all of 127/8 to loopback), then
// connects from 127.0.0.1: every student up to --max-sessions must get a
// session. Before the startup limits, the silent sockets filled the
// connection table until their login deadline.
func TestSilentSocketsDoNotLockOut(t *testing.T) {
	const maxSessions = 5
	ts := startServer(t, func(c *Config) {
		c.MaxSessions = maxSessions
		c.LoginGrace = time.Minute // the silent sockets outlive the test
	})
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}, Timeout: 5 * time.Second}
	var silent []net.Conn
	for range 30 {
		c, err := d.Dial("tcp", ts.addr)
		if err != nil {
			t.Skipf("cannot connect from 127.0.0.2: %v", err)
		}
		silent = append(silent, c)
	}
	defer func() {
		for _, c := range silent {
			c.Close()
		}
	}()
	// The server closes the refused ones: count those it holds.
	var held atomic.Int64
	var wg sync.WaitGroup
	for _, c := range silent {
		wg.Go(func() {
			c.SetReadDeadline(time.Now().Add(2 * time.Second))
			var b [256]byte
			for {
				if _, err := c.Read(b[:]); err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						held.Add(1)
					}
					return
				}
			}
		})
	}
	wg.Wait()
	_, perSource := DefaultStartupLimits()
	if h := held.Load(); h > int64(perSource.Full) || h < int64(perSource.Start) {
		t.Errorf("the server holds %d of 30 silent sockets from one address, want %d to %d", h, perSource.Start, perSource.Full)
	}

	for i := range maxSessions {
		c, err := ts.dial("student", gossh.PublicKeys(ts.key))
		if err != nil {
			t.Fatalf("student %d locked out by silent sockets from another address: %v", i+1, err)
		}
		defer c.Close()
		tm := openTerminal(t, c, "ring", 80, 24)
		tm.waitLoaded(t)
	}
	t.Logf("%d of 30 silent sockets held; %d students served", held.Load(), maxSessions)
	if !strings.Contains(ts.logs.String(), "too many unauthenticated connections from this address") {
		t.Errorf("no refusal logged:\n%s", tail(ts.logs.String(), 2000))
	}
}

func TestStartupLimitRefuse(t *testing.T) {
	l := StartupLimit{Start: 10, Rate: 30, Full: 60}
	for _, tc := range []struct {
		pending int
		roll    int
		want    bool
	}{
		{0, 0, false},
		{9, 0, false},
		{10, 29, true}, // 30 % at start
		{10, 30, false},
		{35, 64, true}, // halfway: 65 %
		{35, 65, false},
		{59, 97, true}, // 98 %
		{60, 99, true}, // full: always
		{1000, 99, true},
	} {
		if got := l.refuse(tc.pending, func() int { return tc.roll }); got != tc.want {
			t.Errorf("10:30:60 with %d pending, roll %d: refuse = %v, want %v", tc.pending, tc.roll, got, tc.want)
		}
	}
}

func TestParseStartupLimit(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{"10:30:100", "10:30:100", ""},
		{"5", "5:100:5", ""},
		{"10:30:5", "", "0 < start <= full"},
		{"0:30:10", "", "0 < start <= full"},
		{"10:130:20", "", "rate <= 100"},
		{"10:30", "", "expected start:rate:full"},
		{"a:b:c", "", "non-negative integers"},
		{"-1", "", "non-negative integers"},
	} {
		l, err := ParseStartupLimit(tc.in)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseStartupLimit(%q) error = %v, want one with %q", tc.in, err, tc.err)
		case tc.err == "" && (err != nil || l.String() != tc.want):
			t.Errorf("ParseStartupLimit(%q) = %v, %v; want %s", tc.in, l, err, tc.want)
		}
	}
}

// busyModel wraps the application with a UI that can be made busy: the
// key b blocks its Update until release is closed. It records the window
// sizes it is given.
type busyModel struct {
	tea.Model
	release <-chan struct{}
	busy    chan<- struct{} // told when the model starts blocking
	mu      *sync.Mutex
	sizes   *[]tea.WindowSizeMsg
}

func (m busyModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		if msg.String() == "b" {
			close(m.busy)
			<-m.release
		}
	case tea.WindowSizeMsg:
		m.mu.Lock()
		*m.sizes = append(*m.sizes, msg)
		m.mu.Unlock()
	}
	var cmd tea.Cmd
	m.Model, cmd = m.Model.Update(msg)
	return m, cmd
}

// TestBusyUIKeepsConnection: while a session's UI is busy, its client's
// window changes must not stop the server reading the connection. Before,
// the request loop waited for the UI to take each size: after a few
// dozen, the connection read nothing more (not a key, not a keep-alive)
// until the UI was free, and a UI waiting on its output never was. Now
// the keep-alive is answered at once, and the UI, once free, gets the
// latest size instead of every one.
func TestBusyUIKeepsConnection(t *testing.T) {
	release, busy := make(chan struct{}), make(chan struct{})
	var (
		mu    sync.Mutex
		sizes []tea.WindowSizeMsg
	)
	ts := startServer(t, func(c *Config) {
		c.NewModel = func(o tui.Options) tea.Model {
			return busyModel{Model: tui.New(o), release: release, busy: busy, mu: &mu, sizes: &sizes}
		}
	})
	c := ts.connect(t)
	tm := openTerminal(t, c, "ring", 80, 24)
	tm.waitLoaded(t)
	tm.press(t, "b")
	// Wait until the UI is busy (a fixed sleep was too short on a loaded
	// machine: sizes reached the UI before it blocked).
	select {
	case <-busy:
	case <-time.After(wait):
		t.Fatal("the UI never took the key that makes it busy")
	}
	mu.Lock()
	before := len(sizes)
	mu.Unlock()

	const changes = 200
	for i := range changes {
		if err := tm.sess.WindowChange(30+i%2*10, 100+i%2*20); err != nil {
			t.Fatal(err)
		}
	}
	if err := tm.sess.WindowChange(40, 120); err != nil {
		t.Fatal(err)
	}
	replied := make(chan error, 1)
	go func() {
		_, _, err := c.SendRequest("keepalive@openssh.com", true, nil)
		replied <- err
	}()
	select {
	case err := <-replied:
		if err != nil {
			t.Fatalf("keep-alive: %v", err)
		}
	case <-time.After(5 * time.Second):
		close(release)
		t.Fatalf("no answer to a keep-alive within 5 s after %d window changes to a busy UI: the server stopped reading the connection", changes)
	}

	close(release)
	after := tm.out.Len()
	tm.press(t, "2")
	if err := tm.waitUntil(func() bool { return tm.out.Len() > after }); err != nil {
		t.Fatalf("no frame after a key once the UI was free: %v", err)
	}
	deadline := time.Now().Add(wait)
	for {
		mu.Lock()
		got := sizes[before:]
		last := tea.WindowSizeMsg{}
		if len(got) > 0 {
			last = got[len(got)-1]
		}
		n := len(got)
		mu.Unlock()
		if last == (tea.WindowSizeMsg{Width: 120, Height: 40}) {
			t.Logf("the UI got %d window sizes for %d changes, the last %d×%d", n, changes+1, last.Width, last.Height)
			if n > 3 {
				t.Errorf("the UI got %d window sizes for %d changes made while it was busy, want the latest (at most 3)", n, changes+1)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the UI's last size is %v after %d sizes, want 120×40", last, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestIdleDespiteResizes: window changes are not input, so a client that
// only resizes (a script holding a seat) is still closed at the idle
// timeout. Before, every resize reset it.
func TestIdleDespiteResizes(t *testing.T) {
	ts := startServer(t, func(c *Config) { c.IdleTimeout = 1500 * time.Millisecond })
	tm := openTerminal(t, ts.connect(t), "ring", 80, 24)
	tm.waitLoaded(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if tm.sess.WindowChange(24+i%2, 80+i%2) != nil {
				return
			}
		}
	}()
	tm.waitFor(t, "closed after 1.5s without input")
	waitLog(t, ts, "reason=idle")
}
