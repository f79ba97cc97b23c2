package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/ssh"
	"charm.land/wish/v2"
	"github.com/charmbracelet/colorprofile"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/engine/lesson"
	"github.com/tracesim/tracesim/internal/classdb"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/tui/termwriter"
	"github.com/tracesim/tracesim/views/derived"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxSessions = 40
	DefaultGrace       = 30 * time.Second
	// DefaultLoginGrace bounds the time a connection may take to log in
	// (OpenSSH's LoginGraceTime, 120 s there): a real client needs well
	// under a second on a LAN and a few round trips over the world, so
	// 10 s only shortens how long a silent socket holds a startup.
	DefaultLoginGrace = 10 * time.Second
	// DefaultWriteTimeout is how long a write to a client may block
	// before the session is dropped: a client that has read nothing for
	// that long has stopped reading.
	DefaultWriteTimeout = 15 * time.Second
	// quitWait is how long a session asked to end (idle, shutdown) has
	// to quit before its connection is dropped.
	quitWait = 5 * time.Second
	// maxWidth and maxHeight clamp the terminal size a client may claim:
	// the renderer allocates a cell buffer of that size.
	maxWidth, maxHeight = 1000, 400
)

// Config configures a Server.
type Config struct {
	// HostKey is the server's host key (see LoadHostKey).
	HostKey gossh.Signer
	// AuthorizedKeys is an OpenSSH authorized_keys file: only its keys
	// get in. It is read again when it changes.
	AuthorizedKeys string
	// AllowAnonymous lets anyone in without a key, for a closed
	// classroom network. It excludes AuthorizedKeys.
	AllowAnonymous bool
	// Library holds the traces sessions may open.
	Library *Library
	// MaxSessions bounds the sessions open at once; 0 means
	// DefaultMaxSessions.
	MaxSessions int
	// IdleTimeout closes a session after this long without a key press,
	// click or resize (a warning shows first); 0 means never.
	IdleTimeout time.Duration
	// Grace is how long sessions have between the shutdown notice and
	// being closed; 0 means DefaultGrace.
	Grace time.Duration
	// LoginGrace bounds the SSH handshake and login of a connection; 0
	// means DefaultLoginGrace.
	LoginGrace time.Duration
	// WriteTimeout drops a session whose client has not taken a write
	// for this long; 0 means DefaultWriteTimeout.
	WriteTimeout time.Duration
	// MaxMemory is the server's memory budget in bytes: a session is
	// refused when the heap in use plus its estimate (from its terminal
	// size) would pass it, and a window grown past what is left is shown
	// smaller; 0 means DefaultMaxMemory.
	MaxMemory int64
	// Startups and SourceStartups limit the connections not logged in
	// yet, in all and per source address (a classroom behind one NAT
	// address starting at once may need a higher SourceStartups); zero
	// values mean DefaultStartupLimits.
	Startups, SourceStartups StartupLimit
	// SimBudget bounds each simulation of every session.
	SimBudget tui.SimBudget
	// SweepBudget bounds each sweep a session starts from the Machine
	// tab; zero fields take DefaultSweepBudget's, so that a served
	// sweep is always bounded (a worker count of 0 would mean every core).
	SweepBudget tui.SweepBudget
	// FPS caps each session's frame rate; 0 means tui.FPS. A key press
	// waits up to one frame to reach the screen; an idle session costs
	// next to nothing at any rate (docs/tui.md has the measurements).
	FPS int
	// Renderer is how sessions' frames reach their terminals: "" or
	// tui.RendererDirect (each frame at once, by changed lines, through a
	// writer per session), or tui.RendererBubbleTea.
	Renderer string
	// Theme and NoColor are passed to every session (tui.Options).
	Theme   string
	NoColor bool
	// Logger receives the server's structured logs; nil discards them.
	Logger *slog.Logger
	// Lessons, when set, make the server a class: a session opens the
	// lesson its command names (ssh -t HOST LESSON), else the student's
	// last one, else the first, at the step they reached.
	Lessons []*lesson.Lesson
	// Class records each student's progress and answers (by key) and
	// feeds the teachers' Class tab; it needs Lessons and authorized
	// keys. Nil records nothing.
	Class *classdb.DB
	// TeacherKeys is an authorized_keys file of the teachers: their
	// sessions open on the Class tab. Its keys get in besides
	// AuthorizedKeys'.
	TeacherKeys string
	// StuckAfter is how long a student may stay on a step before the
	// Class tab calls them stuck; 0 means class.DefaultStuckAfter.
	StuckAfter time.Duration
	// NewModel builds a session's application; nil means tui.New. Tests
	// and embedders may wrap or replace it.
	NewModel func(tui.Options) tea.Model
}

// Server serves the application over SSH. Create it with New and run it
// with Serve.
type Server struct {
	cfg  Config
	lib  *Library
	log  *slog.Logger
	keys *keyring // nil when anonymous
	// class holds the lessons served and the teachers; nil when the
	// server serves traces only.
	class *classroom
	ssh   *ssh.Server
	// derived is shared by every session: the library hands them one
	// trace, and this the views' summaries and indexes of it, built once
	// instead of once per student.
	derived *derived.Cache

	maxConns int
	// Startup limits of connections not logged in yet, per source
	// address and in all (OpenSSH's MaxStartups); roll draws the random
	// early drop.
	perSource, global StartupLimit
	roll              func() int

	mu        sync.Mutex
	conns     int                      // connections open, authenticated or not
	pending   int                      // connections not logged in yet
	baseHeap  int64                    // live heap when the server was made
	reserved  int64                    // estimated heap of the open sessions
	pendingBy map[string]int           // the same by source (sourceOf)
	sessions  map[uint64]*session      // open sessions by ID
	bySess    map[ssh.Session]*session // the same, for the program handler
	nextID    uint64
	closing   bool
	wg        sync.WaitGroup // open sessions
}

// New checks cfg and returns a server ready to Serve.
func New(cfg Config) (*Server, error) {
	if cfg.HostKey == nil {
		return nil, errors.New("serve: no host key")
	}
	if cfg.Library == nil {
		return nil, errors.New("serve: no trace library")
	}
	switch {
	case cfg.AllowAnonymous && cfg.AuthorizedKeys != "":
		return nil, errors.New("serve: give either an authorized keys file or anonymous access, not both")
	case !cfg.AllowAnonymous && cfg.AuthorizedKeys == "":
		return nil, errors.New("serve: no authorized keys file (anonymous access must be asked for explicitly)")
	}
	if cfg.MaxSessions <= 0 {
		cfg.MaxSessions = DefaultMaxSessions
	}
	if cfg.Grace <= 0 {
		cfg.Grace = DefaultGrace
	}
	if cfg.MaxMemory <= 0 {
		cfg.MaxMemory = DefaultMaxMemory()
	}
	if cfg.LoginGrace <= 0 {
		cfg.LoginGrace = DefaultLoginGrace
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.IdleTimeout < 0 {
		return nil, fmt.Errorf("serve: negative idle timeout %v", cfg.IdleTimeout)
	}
	if cfg.NewModel == nil {
		cfg.NewModel = func(o tui.Options) tea.Model { return tui.New(o) }
	}
	switch {
	case cfg.Class != nil && len(cfg.Lessons) == 0:
		return nil, errors.New("serve: a class database needs lessons to record")
	case cfg.Class != nil && cfg.AllowAnonymous:
		return nil, errors.New("serve: a class database records students by key: it needs authorized keys, not anonymous access")
	case cfg.TeacherKeys != "" && len(cfg.Lessons) == 0:
		return nil, errors.New("serve: teacher keys need lessons to follow")
	}
	s := &Server{
		cfg:       cfg,
		lib:       cfg.Library,
		log:       cfg.Logger,
		sessions:  make(map[uint64]*session),
		bySess:    make(map[ssh.Session]*session),
		derived:   derived.New(),
		pendingBy: make(map[string]int),
		roll:      roll100,
		baseHeap:  liveHeap(),
	}
	if len(cfg.Lessons) > 0 {
		c, err := newClassroom(cfg)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		s.class = c
	}
	s.global, s.perSource = DefaultStartupLimits()
	for _, l := range []struct {
		cfg StartupLimit
		to  *StartupLimit
	}{{cfg.Startups, &s.global}, {cfg.SourceStartups, &s.perSource}} {
		switch {
		case l.cfg == StartupLimit{}:
		case !l.cfg.valid():
			return nil, fmt.Errorf("serve: startup limit %v: expected 0 < start <= full and rate <= 100", l.cfg)
		default:
			*l.to = l.cfg
		}
	}
	// Room for every session, every startup the limits let in, and a
	// few connections being refused or kept open after their session.
	s.maxConns = cfg.MaxSessions + s.global.Full + 8
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if !cfg.AllowAnonymous {
		k, err := newKeyring(cfg.AuthorizedKeys)
		if err != nil {
			return nil, fmt.Errorf("serve: %w", err)
		}
		s.keys = k
	}
	srv := &ssh.Server{
		Version:          "tracesim",
		HostSigners:      []ssh.Signer{cfg.HostKey},
		HandshakeTimeout: cfg.LoginGrace,
		// No transport IdleTimeout: charm.land/ssh v0.4.2 then updates
		// a connection's deadlines from its read loop while handleConn
		// writes them (a data race -race reports). Idle sessions are
		// closed by watchIdle; dead peers by TCP keep-alive, which Go
		// enables on accepted connections.
		SessionRequestCallback:   s.allowRequest,
		ConnCallback:             s.openConn,
		ConnectionFailedCallback: s.failedConn,
		// Only session channels, one per connection; no forwarding, no
		// subsystems (sftp), no agent use: nil callbacks deny them.
		ChannelHandlers: map[string]ssh.ChannelHandler{"session": s.sessionChannel},
	}
	if s.keys != nil {
		srv.PublicKeyHandler = s.allowKey
	}
	if err := srv.SetOption(wish.WithMiddleware(
		s.run,
		s.handle,
	)); err != nil {
		return nil, fmt.Errorf("serve: %w", err)
	}
	s.ssh = srv
	return s, nil
}

// ListenAndServe listens on the TCP address addr and serves until ctx is
// done; see Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Serve accepts connections on ln until ctx is done, then shuts down
// gracefully: it stops accepting, shows every session a notice, waits up
// to Config.Grace for them to end, closes the rest, and returns nil.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	auth := "authorized keys"
	if s.keys == nil {
		auth = "anonymous"
	}
	s.log.Info("serving",
		"addr", ln.Addr().String(),
		"library", s.lib.Dir(),
		"auth", auth,
		"host_key", gossh.FingerprintSHA256(s.cfg.HostKey.PublicKey()),
		"max_sessions", s.cfg.MaxSessions,
		"max_memory_mib", s.cfg.MaxMemory>>20,
		"idle_timeout", s.cfg.IdleTimeout,
		"sim_wall", s.cfg.SimBudget.WallTime,
		"sim_events", s.cfg.SimBudget.Events,
		"sweep_points", servedSweepBudget(s.cfg.SweepBudget).Points,
		"sweep_jobs", servedSweepBudget(s.cfg.SweepBudget).Jobs)
	if s.keys != nil {
		s.log.Info("authorized keys", "file", s.cfg.AuthorizedKeys, "keys", s.keys.count())
	}
	// A walk of the library, beside the start rather than before it: a
	// large library must not delay the first session.
	go func() {
		if names, err := s.lib.Compressed(); err == nil && len(names) > 0 {
			shown := names[:min(len(names), 10)]
			s.log.Warn("compressed traces are not served: decompress them in the library (gunzip -k, bunzip2 -k)",
				"count", len(names), "files", strings.Join(shown, ", "))
		}
	}()
	errc := make(chan error, 1)
	accepting := &acceptingListener{Listener: ln, ready: make(chan struct{})}
	go func() { errc <- s.ssh.Serve(accepting) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	// The ssh server registers its listener (a WaitGroup Add) before
	// its first Accept; a Shutdown before that races with the Add and
	// can even leave Serve running. So wait for the first Accept.
	select {
	case <-accepting.ready:
	case err := <-errc:
		if errors.Is(err, ssh.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve: %w", err)
	}
	s.shutdown()
	if err := <-errc; err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// acceptingListener closes ready when Accept is first called: by then
// the ssh server has registered the listener and may be shut down.
type acceptingListener struct {
	net.Listener
	once  sync.Once
	ready chan struct{}
}

// Accept signals ready once, then accepts.
func (l *acceptingListener) Accept() (net.Conn, error) {
	l.once.Do(func() { close(l.ready) })
	return l.Listener.Accept()
}

// shutdown runs the graceful shutdown.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	open := s.openSessions()
	s.mu.Unlock()
	grace := s.cfg.Grace
	s.log.Info("shutting down", "sessions", len(open), "grace", grace)
	msg := fmt.Sprintf("tracesim is shutting down: this session closes in %s.", grace.Round(time.Second))
	for _, se := range open {
		se.notify(noticeShutdown, msg)
	}
	// Stop accepting now; connections drain in the background.
	drained := make(chan struct{})
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		defer cancel()
		_ = s.ssh.Shutdown(ctx)
		close(drained)
	}()
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		s.mu.Lock()
		open = s.openSessions()
		s.mu.Unlock()
		for _, se := range open {
			se.end(endShutdown)
		}
		// Let the programs restore the terminals and say goodbye; end
		// drops those that cannot within quitWait.
		select {
		case <-done:
		case <-time.After(quitWait + 5*time.Second):
		}
	}
	// Every session is over: drop the connections that clients keep
	// open after it (x/crypto clients, multiplexed OpenSSH masters).
	_ = s.ssh.Close()
	<-drained
	s.log.Info("shut down")
}

// Sessions returns the open sessions, oldest first.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	open := s.openSessions()
	out := make([]SessionInfo, len(open))
	for i, se := range open {
		out[i] = se.info
	}
	return out
}

// openSessions returns the open sessions by ID; s.mu must be held.
func (s *Server) openSessions() []*session {
	out := make([]*session, 0, len(s.sessions))
	for id := uint64(1); id <= s.nextID && len(out) < len(s.sessions); id++ {
		if se, ok := s.sessions[id]; ok {
			out = append(out, se)
		}
	}
	return out
}

// connKey holds a connection's trackedConn in its context, for
// dropping it.
type connKey struct{}

// openConn counts connections and refuses those over the limits before
// any cryptography is spent on them: the total, and the startups (not
// logged in yet) of the source and of all, with random early drop.
func (s *Server) openConn(ctx ssh.Context, c net.Conn) net.Conn {
	src := sourceOf(c.RemoteAddr())
	s.mu.Lock()
	defer s.mu.Unlock()
	reason := ""
	switch {
	case s.closing:
		reason = "shutting down"
	case s.conns >= s.maxConns:
		reason = "too many connections"
	case s.perSource.refuse(s.pendingBy[src], s.roll):
		reason = "too many unauthenticated connections from this address"
	case s.global.refuse(s.pending, s.roll):
		reason = "too many unauthenticated connections"
	}
	if reason != "" {
		s.log.Warn("connection refused", "remote", c.RemoteAddr().String(), "reason", reason,
			"startups", s.pending, "source_startups", s.pendingBy[src])
		return nil
	}
	s.conns++
	s.pending++
	s.pendingBy[src]++
	tc := &trackedConn{Conn: c, srv: s, src: src}
	ctx.SetValue(connKey{}, tc)
	return tc
}

// loggedIn releases a connection's startup: it logged in, or closed
// before.
func (s *Server) loggedIn(src string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pending--
	if s.pendingBy[src]--; s.pendingBy[src] <= 0 {
		delete(s.pendingBy, src)
	}
}

func (s *Server) failedConn(c net.Conn, err error) {
	s.log.Info("connection failed", "remote", c.RemoteAddr().String(), "err", err)
}

// allowKey is the public-key authentication: the key must be in the
// authorized_keys file.
func (s *Server) allowKey(ctx ssh.Context, key ssh.PublicKey) bool {
	_, ok, err := s.keys.lookup(key)
	if err != nil {
		s.log.Error("authorized keys not reloaded; using the last good copy", "err", err)
	}
	if !ok {
		_, ok = s.class.teacher(key, s.log)
	}
	if !ok {
		s.log.Info("key refused", "user", ctx.User(), "key", gossh.FingerprintSHA256(key), "remote", ctx.RemoteAddr().String())
		return false
	}
	return true
}

// allowRequest accepts a shell request, or an exec request whose command
// is one word: the name of a trace. Anything else (a command line, a
// subsystem such as sftp) is refused at the protocol level.
func (s *Server) allowRequest(sess ssh.Session, kind string) bool {
	switch kind {
	case "shell":
		return true
	case "exec":
		if len(sess.Command()) == 1 {
			return true
		}
	}
	s.log.Info("request refused", "user", sess.User(), "key", fingerprint(sess), "remote", sess.RemoteAddr().String(),
		"request", kind, "command", sess.RawCommand(), "subsystem", sess.Subsystem())
	return false
}

// busyKey marks a connection that has its session.
type busyKey struct{}

// sessionChannel accepts one session channel per connection: a
// connection's context (and so the UI's) is shared by its channels, and
// one connection opening many would dodge the connection limit.
func (s *Server) sessionChannel(srv *ssh.Server, conn *gossh.ServerConn, ch gossh.NewChannel, ctx ssh.Context) {
	ctx.Lock()
	busy := ctx.Value(busyKey{}) != nil
	if !busy {
		ctx.SetValue(busyKey{}, true)
	}
	ctx.Unlock()
	if busy {
		_ = ch.Reject(gossh.ResourceShortage, "tracesim: one session per connection")
		return
	}
	ssh.DefaultSessionHandler(srv, conn, ch, ctx)
}

// handle is the outer middleware: it checks the session, admits it,
// resolves its trace and then runs the UI (next).
func (s *Server) handle(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		log := s.log.With("user", sess.User(), "key", fingerprint(sess), "remote", sess.RemoteAddr().String())
		// The terminal is read once: charm.land/ssh updates it without a
		// lock on every window change, which the session learns through
		// winch instead.
		pty, winch, ok := sess.Pty()
		if !ok {
			log.Info("session refused", "reason", "no terminal", "command", sess.RawCommand())
			wish.Fatalln(sess, "tracesim serves an interactive terminal UI: connect with ssh -t (ssh -t -p PORT HOST [TRACE])")
			return
		}
		args := sess.Command()
		if len(args) > 1 {
			log.Info("session refused", "reason", "command", "command", sess.RawCommand())
			wish.Fatalln(sess, "tracesim runs no commands: give at most one argument, the name of a trace in the library")
			return
		}
		se, err := s.admit(sess, pty.Window.Width, pty.Window.Height)
		if err != nil {
			log.Warn("session refused", "reason", err.Error())
			wish.Fatalln(sess, "tracesim: "+err.Error())
			return
		}
		log = log.With("session", se.info.ID)
		defer s.leave(se)
		se.term, se.winch = pty.Term, winch
		se.size = [2]int{pty.Window.Width, pty.Window.Height}
		if c, ok := sess.Context().Value(connKey{}).(net.Conn); ok {
			se.conn = c
		}
		se.out = &stallWriter{w: sess, timeout: s.cfg.WriteTimeout, stalled: func() {
			log.Warn("client stopped reading", "timeout", s.cfg.WriteTimeout)
			se.drop(endStalled)
		}}

		// The connection's context outlives the session when a client
		// keeps the connection open; the session's own ends with it.
		ctx, cancel := context.WithCancel(sess.Context())
		defer cancel()
		se.ctx = ctx
		opts := tui.Options{
			Theme:       s.cfg.Theme,
			NoColor:     s.cfg.NoColor,
			Environ:     append(sess.Environ(), "TERM="+pty.Term),
			Library:     s.lib.Dir(),
			Context:     ctx,
			SimBudget:   s.cfg.SimBudget,
			SweepBudget: servedSweepBudget(s.cfg.SweepBudget),
			Open:        s.opener(se, log),
			Derived:     s.derived,
			Files:       s.lib.Space(SaveDir(se.info.Key, se.info.KeyComment, se.info.User)),
		}
		switch {
		case s.class != nil:
			setup := func() error {
				if comment, ok := s.class.teacher(sess.PublicKey(), log); ok {
					s.mu.Lock()
					se.info.KeyComment, se.teacher = comment, true
					s.mu.Unlock()
					return s.setupTeacher(ctx, se, &opts, log)
				}
				arg := ""
				if len(args) == 1 {
					arg = args[0]
				}
				return s.setupStudent(ctx, se, arg, &opts, log)
			}
			if err := setup(); err != nil {
				log.Info("session refused", "reason", "lesson", "err", err)
				wish.Fatalln(sess, "tracesim: "+err.Error())
				return
			}
		case len(args) == 1:
			// Check the name now, to refuse it with a message before the
			// UI starts; the UI then loads it through opener, showing
			// its loading screen while the library reads the file.
			rel, err := s.lib.Resolve(args[0])
			if err != nil {
				log.Info("session refused", "reason", "trace", "trace", args[0], "err", err)
				wish.Fatalln(sess, s.traceError(args[0], err))
				return
			}
			opts.Path = filepath.Join(s.lib.Dir(), rel)
			s.mu.Lock()
			se.info.Trace = filepath.ToSlash(rel)
			s.mu.Unlock()
		}
		log.Info("session start", "trace", se.info.Trace, "term", pty.Term, "width", pty.Window.Width, "height", pty.Window.Height)
		se.mu.Lock()
		se.model = newSessionModel(s.cfg.NewModel(opts), se)
		se.mu.Unlock()
		next(sess)
		reason := se.endReason()
		switch reason {
		case endIdle:
			fmt.Fprintf(se.out, "tracesim: closed after %s without input\n", s.cfg.IdleTimeout)
		case endShutdown:
			fmt.Fprintln(se.out, "tracesim: the server shut down")
		}
		log.Info("session end", "trace", se.info.Trace, "reason", reason, "duration", time.Since(se.info.Started).Round(time.Millisecond))
	}
}

// admit registers a new session with a w×h terminal, or says why it
// cannot open.
func (s *Server) admit(sess ssh.Session, w, h int) (*session, error) {
	comment := ""
	if s.keys != nil && sess.PublicKey() != nil {
		comment, _, _ = s.keys.lookup(sess.PublicKey()) // file I/O: not under s.mu
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return nil, errors.New("the server is shutting down")
	}
	if len(s.sessions) >= s.cfg.MaxSessions {
		return nil, fmt.Errorf("the server is full (%d sessions); try again later", s.cfg.MaxSessions)
	}
	cost := sessionCost(clampSize(w, h))
	if use := s.memoryUse(); use+cost > s.cfg.MaxMemory {
		return nil, fmt.Errorf("the server has no memory left for another session (%d MiB in use, %d MiB for a %d×%d terminal, budget %d MiB); try again later, or with a smaller window",
			use>>20, (cost+1<<20-1)>>20, w, h, s.cfg.MaxMemory>>20)
	}
	s.reserved += cost
	s.nextID++
	se := &session{info: SessionInfo{
		ID:         s.nextID,
		User:       sess.User(),
		Key:        fingerprint(sess),
		Remote:     sess.RemoteAddr().String(),
		KeyComment: comment,
		Started:    time.Now(),
	}, done: make(chan struct{}), cost: cost}
	se.touch()
	s.sessions[se.info.ID] = se
	s.bySess[sess] = se
	s.wg.Add(1)
	return se, nil
}

// leave unregisters a session.
func (s *Server) leave(se *session) {
	s.mu.Lock()
	s.reserved -= se.cost
	delete(s.sessions, se.info.ID)
	for k, v := range s.bySess {
		if v == se {
			delete(s.bySess, k)
		}
	}
	s.mu.Unlock()
	close(se.done)
	s.wg.Done()
}

// run is the inner middleware: it runs the session's program. It does
// what wish's bubbletea middleware does, except that the client's window
// changes are coalesced: the SSH request loop hands them over without
// ever waiting for the UI (which would stall the connection's reading,
// keys included, behind a busy or blocked program), and the program
// gets only the latest size when it is ready for one.
func (s *Server) run(next ssh.Handler) ssh.Handler {
	return func(sess ssh.Session) {
		s.mu.Lock()
		se := s.bySess[sess]
		s.mu.Unlock()
		if se == nil {
			next(sess)
			return
		}
		p, screen := s.program(sess, se)
		ctx, cancel := context.WithCancel(se.ctx)
		go resizes(ctx, se.winch, p)
		if s.cfg.IdleTimeout > 0 {
			go s.watchIdle(ctx, se)
		}
		if _, err := p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			s.log.Error("session program failed", "session", se.info.ID, "err", err)
		}
		cancel()
		// Restores the terminal after a crash; nothing after a normal end.
		p.Kill()
		if screen != nil {
			// The main screen back, before what the session says last.
			_ = screen.Close()
		}
		// The program's commands may outlive it (a tea.Tick waits out
		// its timer, the status line's for 4 s), and through the
		// program its model: the session's UI goes now.
		se.model.release()
		next(sess)
	}
}

// resizes passes the client's window sizes from winch to p, keeping
// only the latest while p is busy. Reading winch goes on until the SSH
// request loop closes it, after the session too: that loop must never
// block on it.
func resizes(ctx context.Context, winch <-chan ssh.Window, p *tea.Program) {
	latest := make(chan ssh.Window, 1)
	go func() {
		for w := range winch {
			select {
			case <-latest: // stale: replaced by w
			default:
			}
			latest <- w // room: this goroutine is the only sender
		}
	}()
	for {
		select {
		case <-ctx.Done():
			// The connection closed (or the session ended): a program
			// left running would write to nobody.
			p.Quit()
			return
		case w := <-latest:
			p.Send(tea.WindowSizeMsg{Width: w.Width, Height: w.Height})
		}
	}
}

// program builds the session's Bubble Tea program, and the writer that
// draws its frames (nil with Bubble Tea's renderer), which the caller
// closes once the program has ended.
func (s *Server) program(sess ssh.Session, se *session) (*tea.Program, *termwriter.Writer) {
	// What wish's MakeOptions gives on the emulated terminal (without
	// reading the terminal again): the session's input, the colour
	// profile from the client's TERM (and NO_COLOR/COLORTERM when the
	// client sends them), so colours match the student's terminal.
	envs := append(sess.Environ(), "TERM="+se.term)
	opts := []tea.ProgramOption{
		tea.WithInput(sess),
		// Every frame goes through the write deadline.
		tea.WithOutput(se.out),
		tea.WithColorProfile(colorprofile.Env(envs)),
		tea.WithEnvironment(envs),
		tea.WithWindowSize(clampSize(se.size[0], se.size[1])),
		tea.WithFilter(s.filter(se)),
		// A signal to the server process must not quit every session at
		// once: shutdown goes through the notice and the grace period.
		tea.WithoutSignalHandler(),
		tea.WithFPS(cmp.Or(s.cfg.FPS, tui.FPS)),
	}
	var screen *termwriter.Writer
	se.mu.Lock()
	m := tea.Model(se.model)
	if s.cfg.Renderer != tui.RendererBubbleTea {
		// Each session its own writer: frames written as soon as made,
		// the latest only while the client is slow to take them.
		w, h := clampSize(se.size[0], se.size[1])
		screen = termwriter.New(se.out, envs, w, h)
		// The first frame is drawn before Bubble Tea's ColorProfileMsg.
		screen.SetProfile(colorprofile.Env(envs))
		m = screen.Model(m)
		// The writer writes what Bubble Tea would have flushed on its
		// ticker (queries, clipboard), which then has nothing to do: at
		// the frame-rate cap every idle session woke the server.
		filter := s.filter(se)
		opts = append(opts, tea.WithoutRenderer(), tea.WithFPS(tui.DirectTickFPS),
			tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg {
				if msg = filter(m, msg); msg == nil {
					return nil
				}
				return screen.Filter(m, msg)
			}))
	}
	p := tea.NewProgram(m, opts...)
	se.program = p
	se.mu.Unlock()
	return p, screen
}

// filter returns the session's message filter: it clamps window sizes
// (the renderer allocates what the client claims) to the cap and to what
// the memory budget leaves, and keeps a session from suspending, which
// would stop its program with no terminal to resume it (what
// MakeOptions' own filter does).
func (s *Server) filter(se *session) func(tea.Model, tea.Msg) tea.Msg {
	return func(_ tea.Model, msg tea.Msg) tea.Msg {
		switch msg := msg.(type) {
		case tea.WindowSizeMsg:
			w, h := clampSize(msg.Width, msg.Height)
			msg.Width, msg.Height = s.fitSize(se, w, h)
			return msg
		case tea.SuspendMsg:
			return tea.ResumeMsg{}
		}
		return msg
	}
}

// clampSize bounds a terminal size the client claims; an unknown size
// (0×0: ssh -tt from a pipe) is taken as 80×24.
func clampSize(w, h int) (int, int) {
	if w <= 0 || h <= 0 {
		return 80, 24
	}
	return min(w, maxWidth), min(h, maxHeight)
}

// watchIdle warns a session that has had no input for most of the idle
// timeout, and closes it at the timeout.
func (s *Server) watchIdle(ctx context.Context, se *session) {
	idle := s.cfg.IdleTimeout
	warn := min(idle/5, time.Minute)
	warned := int64(0) // the lastInput value the warning was for
	t := time.NewTimer(idle - warn)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		last := se.lastInput.Load()
		since := se.idleFor(time.Now())
		switch {
		case since >= idle:
			s.log.Info("session idle", "session", se.info.ID, "idle", since.Round(time.Second))
			se.end(endIdle)
			return
		case since >= idle-warn:
			if warned != last {
				warned = last
				se.notify(noticeIdle, fmt.Sprintf("No input for %s: this session closes in %s unless you press a key.",
					since.Round(time.Second), (idle-since).Round(time.Second)))
			}
			t.Reset(idle - since)
		default:
			t.Reset(idle - warn - since)
		}
	}
}

// opener is the session's loader for tui.Options.Open: traces picked in
// the application come from the shared library too.
func (s *Server) opener(se *session, log *slog.Logger) func(context.Context, string) (*tracefmt.Trace, error) {
	return func(ctx context.Context, path string) (*tracefmt.Trace, error) {
		rel := path
		if filepath.IsAbs(path) {
			r, err := filepath.Rel(s.lib.Dir(), path)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", filepath.Base(path), ErrOutsideLibrary)
			}
			rel = r
		}
		start := time.Now()
		tr, clean, err := s.lib.Load(ctx, rel)
		if err != nil {
			log.Info("trace refused", "trace", path, "err", err)
			return nil, err
		}
		log.Info("trace opened", "trace", clean, "ranks", len(tr.Ranks), "took", time.Since(start).Round(time.Microsecond))
		se.mu.Lock()
		se.trace = tr
		se.mu.Unlock()
		return tr, nil
	}
}

// traceError explains a trace name that cannot be opened and lists some
// of the library's traces.
func (s *Server) traceError(name string, err error) string {
	var b strings.Builder
	switch {
	case errors.Is(err, ErrOutsideLibrary):
		fmt.Fprintf(&b, "tracesim: %q is outside the trace library: give a name inside it", name)
	case errors.Is(err, ErrNotInLibrary):
		fmt.Fprintf(&b, "tracesim: no trace %q in the library", name)
	default:
		fmt.Fprintf(&b, "tracesim: %q: %v", name, err)
		return b.String()
	}
	if names, lerr := s.lib.List(); lerr == nil && len(names) > 0 {
		const show = 20
		b.WriteString("\ntraces: ")
		b.WriteString(strings.Join(names[:min(len(names), show)], ", "))
		if len(names) > show {
			fmt.Fprintf(&b, ", … (%d in all)", len(names))
		}
	}
	return b.String()
}

// fingerprint returns the SHA256 fingerprint of the session's key, ""
// without one.
func fingerprint(sess ssh.Session) string {
	if k := sess.PublicKey(); k != nil {
		return gossh.FingerprintSHA256(k)
	}
	return ""
}
