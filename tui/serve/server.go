package serve

import (
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
	"charm.land/wish/v2/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/views/derived"
)

// Defaults for the zero values of Config.
const (
	DefaultMaxSessions = 40
	DefaultGrace       = 30 * time.Second
	// handshakeTimeout bounds the time a connection may take to
	// authenticate, so that silent connections cannot hold the slots
	// that maxConns leaves for real students.
	handshakeTimeout = 20 * time.Second
	// maxWidth and maxHeight clamp the terminal size a client may claim:
	// the renderer allocates a cell buffer of that size.
	maxWidth, maxHeight = 1000, 400
	// fps caps each session's frame rate; half Bubble Tea's default
	// halves the rendering cost of a classroom of animated views.
	fps = 30
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
	// SimBudget bounds each simulation of every session.
	SimBudget tui.SimBudget
	// Theme and NoColor are passed to every session (tui.Options).
	Theme   string
	NoColor bool
	// Logger receives the server's structured logs; nil discards them.
	Logger *slog.Logger
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
	ssh  *ssh.Server
	// derived is shared by every session: the library hands them one
	// trace, and this the views' summaries and indexes of it, built once
	// instead of once per student.
	derived *derived.Cache

	maxConns int

	mu       sync.Mutex
	conns    int                      // connections open, authenticated or not
	sessions map[uint64]*session      // open sessions by ID
	bySess   map[ssh.Session]*session // the same, for the program handler
	nextID   uint64
	closing  bool
	wg       sync.WaitGroup // open sessions
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
	if cfg.IdleTimeout < 0 {
		return nil, fmt.Errorf("serve: negative idle timeout %v", cfg.IdleTimeout)
	}
	if cfg.NewModel == nil {
		cfg.NewModel = func(o tui.Options) tea.Model { return tui.New(o) }
	}
	s := &Server{
		cfg:      cfg,
		lib:      cfg.Library,
		log:      cfg.Logger,
		sessions: make(map[uint64]*session),
		bySess:   make(map[ssh.Session]*session),
		derived:  derived.New(),
		// Room for every session plus as many connections again that
		// are authenticating or being refused.
		maxConns: 2*cfg.MaxSessions + 8,
	}
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
		HandshakeTimeout: handshakeTimeout,
		// No transport IdleTimeout: charm.land/ssh v0.4.2 then updates
		// a connection's deadlines from its read loop while handleConn
		// writes them (a data race -race reports). Idle sessions are
		// closed by watchIdle; dead peers by TCP keep-alive, which Go
		// enables on accepted connections.
		SessionRequestCallback:   s.allowRequest,
		ConnCallback:             s.openConn,
		ConnectionCloseCallback:  s.closeConn,
		ConnectionFailedCallback: s.failedConn,
		// Only session channels, one per connection; no forwarding, no
		// subsystems (sftp), no agent use: nil callbacks deny them.
		ChannelHandlers: map[string]ssh.ChannelHandler{"session": s.sessionChannel},
	}
	if s.keys != nil {
		srv.PublicKeyHandler = s.allowKey
	}
	if err := srv.SetOption(wish.WithMiddleware(
		bubbletea.MiddlewareWithProgramHandler(s.program),
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
		"idle_timeout", s.cfg.IdleTimeout,
		"sim_wall", s.cfg.SimBudget.WallTime,
		"sim_events", s.cfg.SimBudget.Events)
	if s.keys != nil {
		s.log.Info("authorized keys", "file", s.cfg.AuthorizedKeys, "keys", s.keys.count())
	}
	errc := make(chan error, 1)
	go func() { errc <- s.ssh.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.shutdown()
	if err := <-errc; err != nil && !errors.Is(err, ssh.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
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
		// Let the programs restore the terminals and say goodbye.
		select {
		case <-done:
		case <-time.After(5 * time.Second):
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

// openConn counts connections and refuses those over the limit before
// any cryptography is spent on them.
func (s *Server) openConn(_ ssh.Context, c net.Conn) net.Conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns >= s.maxConns || s.closing {
		s.log.Warn("connection refused", "remote", c.RemoteAddr().String(), "reason", "too many connections")
		return nil
	}
	s.conns++
	return c
}

func (s *Server) closeConn(net.Conn) {
	s.mu.Lock()
	s.conns--
	s.mu.Unlock()
}

func (s *Server) failedConn(c net.Conn, err error) {
	s.log.Info("connection failed", "remote", c.RemoteAddr().String(), "err", err)
}

// allowKey is the public-key authentication: the key must be in the
// authorized_keys file.
func (s *Server) allowKey(ctx ssh.Context, key ssh.PublicKey) bool {
	_, ok, err := s.keys.lookup(key)
	if err != nil {
		s.log.Error("authorized keys unreadable; using the last good copy", "err", err)
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
		pty, _, ok := sess.Pty()
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
		se, err := s.admit(sess)
		if err != nil {
			log.Warn("session refused", "reason", err.Error())
			wish.Fatalln(sess, "tracesim: "+err.Error())
			return
		}
		log = log.With("session", se.info.ID)
		defer s.leave(se)

		// The connection's context outlives the session when a client
		// keeps the connection open; the session's own ends with it.
		ctx, cancel := context.WithCancel(sess.Context())
		defer cancel()
		se.ctx = ctx
		opts := tui.Options{
			Theme:     s.cfg.Theme,
			NoColor:   s.cfg.NoColor,
			Environ:   append(sess.Environ(), "TERM="+pty.Term),
			Library:   s.lib.Dir(),
			Context:   ctx,
			SimBudget: s.cfg.SimBudget,
			Open:      s.opener(se, log),
			Derived:   s.derived,
			Files:     s.lib.Space(SaveDir(se.info.Key, se.info.KeyComment, se.info.User)),
		}
		if len(args) == 1 {
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
			wish.Printf(sess, "tracesim: closed after %s without input\n", s.cfg.IdleTimeout)
		case endShutdown:
			wish.Println(sess, "tracesim: the server shut down")
		}
		log.Info("session end", "trace", se.info.Trace, "reason", reason, "duration", time.Since(se.info.Started).Round(time.Millisecond))
	}
}

// admit registers a new session, or says why it cannot open.
func (s *Server) admit(sess ssh.Session) (*session, error) {
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
	s.nextID++
	se := &session{info: SessionInfo{
		ID:         s.nextID,
		User:       sess.User(),
		Key:        fingerprint(sess),
		Remote:     sess.RemoteAddr().String(),
		KeyComment: comment,
		Started:    time.Now(),
	}}
	se.touch()
	s.sessions[se.info.ID] = se
	s.bySess[sess] = se
	s.wg.Add(1)
	return se, nil
}

// leave unregisters a session.
func (s *Server) leave(se *session) {
	s.mu.Lock()
	delete(s.sessions, se.info.ID)
	for k, v := range s.bySess {
		if v == se {
			delete(s.bySess, k)
		}
	}
	s.mu.Unlock()
	s.wg.Done()
}

// program builds the session's Bubble Tea program (the wish middleware
// runs it).
func (s *Server) program(sess ssh.Session) *tea.Program {
	s.mu.Lock()
	se := s.bySess[sess]
	s.mu.Unlock()
	if se == nil {
		return nil
	}
	pty, _, _ := sess.Pty()
	// MakeOptions wires the session's input and output and, on the
	// emulated terminal, the colour profile from the client's TERM (and
	// NO_COLOR/COLORTERM when the client sends them), so colours match
	// the student's terminal. The options after it override its filter
	// and initial size.
	opts := append(bubbletea.MakeOptions(sess),
		tea.WithWindowSize(clampSize(pty.Window.Width, pty.Window.Height)),
		tea.WithFilter(filter),
		// A signal to the server process must not quit every session at
		// once: shutdown goes through the notice and the grace period.
		tea.WithoutSignalHandler(),
		tea.WithFPS(fps),
	)
	se.mu.Lock()
	p := tea.NewProgram(se.model, opts...)
	se.program = p
	se.mu.Unlock()
	if s.cfg.IdleTimeout > 0 {
		go s.watchIdle(se.ctx, se)
	}
	return p
}

// filter clamps window sizes (the renderer allocates what the client
// claims) and keeps a session from suspending, which would stop its
// program with no terminal to resume it (what MakeOptions' own filter,
// replaced here, does).
func filter(_ tea.Model, msg tea.Msg) tea.Msg {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		msg.Width, msg.Height = clampSize(msg.Width, msg.Height)
		return msg
	case tea.SuspendMsg:
		return tea.ResumeMsg{}
	}
	return msg
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
