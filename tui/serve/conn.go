package serve

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"time"
)

// StartupLimit is OpenSSH's MaxStartups "start:rate:full" for
// connections that have not finished logging in: below Start every one is
// accepted; from Start on, a new one is refused with a probability of Rate
// percent rising linearly to 100 % at Full. Random early drop keeps a
// flood of silent sockets from filling the table while a real login
// still has a chance to get through before the flood's sockets reach
// their deadline.
type StartupLimit struct{ Start, Rate, Full int }

// DefaultStartupLimits returns the limits of connections not logged in
// yet in all (20:30:60) and per source address (5:30:10), see
// docs/serve.md. One source is held below the global start, so that one
// noisy machine never makes the server drop a second one's logins.
func DefaultStartupLimits() (global, perSource StartupLimit) {
	return StartupLimit{Start: 20, Rate: 30, Full: 60}, StartupLimit{Start: 5, Rate: 30, Full: 10}
}

func (l StartupLimit) valid() bool {
	return l.Start > 0 && l.Rate >= 0 && l.Rate <= 100 && l.Full >= l.Start
}

// ParseStartupLimit parses "start:rate:full" or a single number (a hard
// limit, as OpenSSH's "full").
func ParseStartupLimit(s string) (StartupLimit, error) {
	parts := strings.Split(s, ":")
	var n []int
	for _, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return StartupLimit{}, fmt.Errorf("startup limit %q: expected start:rate:full or a number, non-negative integers", s)
		}
		n = append(n, v)
	}
	switch {
	case len(n) == 1 && n[0] > 0:
		return StartupLimit{Start: n[0], Rate: 100, Full: n[0]}, nil
	case len(n) == 3:
		if l := (StartupLimit{Start: n[0], Rate: n[1], Full: n[2]}); l.valid() {
			return l, nil
		}
	}
	return StartupLimit{}, fmt.Errorf("startup limit %q: expected start:rate:full with 0 < start <= full and rate <= 100, or a number > 0", s)
}

// String formats l as ParseStartupLimit reads it.
func (l StartupLimit) String() string { return fmt.Sprintf("%d:%d:%d", l.Start, l.Rate, l.Full) }

// refuse reports whether a new connection is dropped when pending
// connections are already starting; roll returns a number in [0, 100).
func (l StartupLimit) refuse(pending int, roll func() int) bool {
	switch {
	case pending < l.Start:
		return false
	case pending >= l.Full:
		return true
	}
	p := l.Rate + (100-l.Rate)*(pending-l.Start)/(l.Full-l.Start)
	return roll() < p
}

func roll100() int { return rand.IntN(100) }

// sourceOf returns the key a connection's startups are counted under:
// its IP address, or its /64 for IPv6, which one host usually owns
// whole.
func sourceOf(addr net.Addr) string {
	ap, err := netip.ParseAddrPort(addr.String())
	if err != nil {
		return addr.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		if p, err := ip.Prefix(64); err == nil {
			return p.String()
		}
	}
	return ip.String()
}

// trackedConn is an accepted connection as the server counts it: a
// startup until its SSH handshake (authentication included) is done,
// then an ordinary connection until it closes.
type trackedConn struct {
	net.Conn
	srv *Server
	src string

	loginOnce, closeOnce sync.Once
}

// SetDeadline is how the handshake's end shows: charm.land/ssh sets the
// login deadline before the handshake and clears it (a zero time) right
// after a successful one, and never otherwise without a transport idle
// timeout (which the server does not set).
func (c *trackedConn) SetDeadline(t time.Time) error {
	if t.IsZero() {
		c.loginOnce.Do(func() { c.srv.loggedIn(c.src) })
	}
	return c.Conn.SetDeadline(t)
}

// Close releases the connection's place (and its startup, for one that
// never finished logging in).
func (c *trackedConn) Close() error {
	err := c.Conn.Close()
	c.closeOnce.Do(func() {
		c.loginOnce.Do(func() { c.srv.loggedIn(c.src) })
		c.srv.mu.Lock()
		c.srv.conns--
		c.srv.mu.Unlock()
	})
	return err
}

// stallWriter is a session's output with a deadline: a write that takes
// longer than timeout (a client that stopped reading, whose SSH window or
// TCP buffer is full) calls stalled, which drops the connection and so
// makes the write fail. A channel write has no deadline of its own.
type stallWriter struct {
	w       io.Writer
	timeout time.Duration
	stalled func()
}

func (sw *stallWriter) Write(p []byte) (int, error) {
	t := time.AfterFunc(sw.timeout, sw.stalled)
	n, err := sw.w.Write(p)
	t.Stop()
	return n, err
}
