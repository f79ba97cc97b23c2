package serve

import (
	"math"
	"runtime/debug"
	"runtime/metrics"

	"github.com/tracesim/tracesim/internal/hostmem"
)

// A session's heap grows with its terminal: the renderer keeps two cell
// buffers of the screen (a cell, with its colours, link and text, is
// about 112 bytes; 90 % of a 1000×400 session's heap in a profile) and
// the application builds each frame as styled strings. The load test (TestLoadClassMemory) measures about 3.5 MiB
// at 200×60 and 210 MiB at 1000×400, server and client ends together;
// the estimate is above both.
const (
	sessionBase    = 512 << 10
	sessionPerCell = 560
)

// sessionCost estimates the heap of a session with a w×h terminal.
func sessionCost(w, h int) int64 {
	return sessionBase + sessionPerCell*int64(w)*int64(h)
}

// DefaultMaxMemory returns the default memory budget of a server: 90 %
// of the Go memory limit (GOMEMLIMIT) when one is set, else half of the
// memory of the machine (or of its cgroup, when that is smaller), else
// 2 GiB where neither is known.
func DefaultMaxMemory() int64 {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return l / 10 * 9
	}
	if m := hostmem.Total(); m > 0 {
		return m / 2
	}
	return 2 << 30
}

// liveHeap returns the heap found live by the last garbage collection.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// memoryUse returns the server's memory in use as the budget counts it:
// the live heap, or, when more, the heap at start plus the estimates of
// the open sessions (which a burst of logins reaches before the next
// collection shows it). s.mu must be held.
func (s *Server) memoryUse() int64 {
	return max(liveHeap(), s.baseHeap+s.reserved)
}

// fitSize shrinks a terminal size the session's client asks for until
// its estimate fits in what the budget leaves, down to 80×24, and
// reserves it. s.mu must not be held.
func (s *Server) fitSize(se *session, w, h int) (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	left := s.cfg.MaxMemory - (s.memoryUse() - se.cost)
	for sessionCost(w, h) > left && (w > 80 || h > 24) {
		// Shrink the longer side relative to 80×24 by a tenth.
		if w*24 >= h*80 {
			w = max(80, w*9/10)
		} else {
			h = max(24, h*9/10)
		}
	}
	cost := sessionCost(w, h)
	s.reserved += cost - se.cost
	se.cost = cost
	return w, h
}
