package serve

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"charm.land/ssh"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/tracefmt"
)

// SessionInfo describes one open session.
type SessionInfo struct {
	// ID numbers the sessions of a server from 1.
	ID uint64
	// User is the SSH user name the client gave (a label: any name is
	// accepted with an authorised key).
	User string
	// Key is the SHA256 fingerprint of the client's key, "" for an
	// anonymous session; KeyComment is the key's comment in the
	// authorized_keys file.
	Key, KeyComment string
	// Remote is the client's address.
	Remote string
	// Trace is the trace the session started with, relative to the
	// library ("" when it started in the file picker).
	Trace string
	// Started is when the session began.
	Started time.Time
}

// End reasons, logged and shown to the user after the UI closes.
const (
	endQuit     = "quit"
	endIdle     = "idle"
	endShutdown = "shutdown"
	// endStalled: the client stopped reading (or the session did not
	// quit when asked) and the server dropped its connection.
	endStalled = "stalled"
)

// session is the server's record of one SSH session.
type session struct {
	info SessionInfo
	ctx  context.Context // done when the session ends
	conn net.Conn        // the connection, closed to drop the session
	out  io.Writer       // the session's output, with a write deadline
	done chan struct{}   // closed when the server is done with the session
	// The terminal as the client asked for it, and its later sizes.
	term  string
	size  [2]int
	winch <-chan ssh.Window
	cost  int64 // the heap reserved for it (sessionCost); Server.mu

	teacher bool // a teacher key's session (Server.mu)

	lastInput atomic.Int64 // unix nanoseconds of the last key, click or resize

	mu      sync.Mutex
	trace   *tracefmt.Trace // the last trace handed to the UI
	program *tea.Program
	model   *sessionModel
	reason  string // why the server ended it; "" when the user quit
}

func (se *session) touch() { se.lastInput.Store(time.Now().UnixNano()) }

func (se *session) idleFor(now time.Time) time.Duration {
	return now.Sub(time.Unix(0, se.lastInput.Load()))
}

// end records why the server closes the session and asks its program to
// quit (the first reason wins). It does not wait: a program that has not
// quit after quitWait (busy, or blocked writing to a client that stopped
// reading) is dropped.
func (se *session) end(reason string) {
	if p := se.setReason(reason); p != nil {
		go p.Quit()
	}
	time.AfterFunc(quitWait, func() {
		select {
		case <-se.done:
		default:
			se.drop(endStalled)
		}
	})
}

// drop ends the session at once: its connection is closed, which fails
// any write blocked on the client, and its program killed.
func (se *session) drop(reason string) {
	p := se.setReason(reason)
	if se.conn != nil {
		se.conn.Close()
	}
	if p != nil {
		// Kill waits for the renderer, which the closed connection
		// lets go.
		go p.Kill()
	}
}

// setReason records reason unless the session has one, and returns its
// program.
func (se *session) setReason(reason string) *tea.Program {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.reason == "" {
		se.reason = reason
	}
	return se.program
}

func (se *session) endReason() string {
	se.mu.Lock()
	defer se.mu.Unlock()
	if se.reason == "" {
		return endQuit
	}
	return se.reason
}

// notify shows text on the session's screen until cleared (text "").
// It does not wait for the program, which may be busy or gone.
func (se *session) notify(kind noticeKind, text string) {
	se.mu.Lock()
	p := se.program
	se.mu.Unlock()
	if p != nil {
		go p.Send(noticeMsg{kind: kind, text: text})
	}
}

// noticeKind says what a notice is about, so that input clears an idle
// warning but not the shutdown notice.
type noticeKind uint8

const (
	noticeIdle noticeKind = iota + 1
	noticeShutdown
)

// noticeMsg puts a line from the server over the top of the screen.
type noticeMsg struct {
	kind noticeKind
	text string
}

// sessionModel wraps the application's model to add what the server
// needs and the application should not know about: input tracking for
// the idle timeout and the server's notices over the screen.
type sessionModel struct {
	inner tea.Model
	se    *session
	width int

	notice     string
	noticeKind noticeKind
	style      lipgloss.Style
}

func newSessionModel(inner tea.Model, se *session) *sessionModel {
	return &sessionModel{
		inner: inner,
		se:    se,
		width: 80,
		// Reverse video reads in every theme and in monochrome.
		style: lipgloss.NewStyle().Reverse(true).Bold(true),
	}
}

// release drops the application's model once the program has ended:
// the program may stay reachable a while (from a command still waiting),
// the views, traces and simulations it holds need not.
func (m *sessionModel) release() { m.inner = nil }

// Init implements tea.Model.
func (m *sessionModel) Init() tea.Cmd { return m.inner.Init() }

// Update implements tea.Model.
func (m *sessionModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case noticeMsg:
		m.notice, m.noticeKind = msg.text, msg.kind
		return m, nil
	case tea.WindowSizeMsg:
		// Not input for the idle timeout: a script can resize forever.
		m.width = msg.Width
	case tea.KeyPressMsg, tea.MouseClickMsg, tea.MouseWheelMsg, tea.PasteMsg:
		m.se.touch()
		if m.noticeKind == noticeIdle {
			m.notice, m.noticeKind = "", 0
		}
	}
	var cmd tea.Cmd
	m.inner, cmd = m.inner.Update(msg)
	return m, cmd
}

// View implements tea.Model.
func (m *sessionModel) View() tea.View {
	v := m.inner.View()
	if m.notice == "" {
		return v
	}
	line := " " + m.notice + " "
	if w := ansi.StringWidth(line); w < m.width {
		line += strings.Repeat(" ", m.width-w)
	}
	line = m.style.Render(ansi.Truncate(line, m.width, "…"))
	if i := strings.IndexByte(v.Content, '\n'); i >= 0 {
		v.Content = line + v.Content[i:]
	} else {
		v.Content = line
	}
	return v
}
