package replay

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/tracesim/tracesim/tracefmt"
)

// A rank's events come from the trace in memory (rk.ev is the whole
// stream, base 0) or from a tracefmt.Source, pulled a window at a time:
// rk.ev then holds events base … base+len(ev)-1 of the stream. The
// engine reaches them through Sim.at only, which refills the window.

// feed is the streaming state of one rank.
type feed struct {
	rank int
	// spare is the other window buffer: a refill copies the events kept
	// into it, so that pointers into the current window stay valid until
	// the refill after next.
	spare []tracefmt.Event
	done  bool
}

// streamWindow returns the events a rank's window reads at a time: ranks
// share a budget (about 640 KiB of events per buffer), and each gets at
// least 8. A floor of 32 held two windows of 32 events a rank, on top of
// the source's queue, at 4,096 ranks and more: `sim --stream on --model
// puppet` on 10 M-event stencils peaked at 659 MB (65,536 ranks) and
// 104 MB (4,096) against 485 and 70 MB with 8, for the same or less CPU.
func streamWindow(ranks int) int {
	return min(max((1<<14)/max(ranks, 1), 8), 512)
}

// at returns event i of rank rk's stream, or nil past its end. A pointer
// it returns stays valid until at reads further than the window twice
// (the window keeps the event before pos, for the gap of a timed trace).
func (s *Sim) at(rk *rank, i int32) *tracefmt.Event {
	// A negative offset converts to a huge uint: one comparison.
	if j := uint(i - rk.base); j < uint(len(rk.ev)) {
		return &rk.ev[j]
	}
	return s.atFeed(rk, i)
}

// atFeed is at's path for an event outside the window, kept apart so
// that at inlines into the per-event loop.
func (s *Sim) atFeed(rk *rank, i int32) *tracefmt.Event {
	if rk.feed == nil || i < rk.base || rk.feed.done {
		return nil
	}
	return s.fill(rk, i)
}

// more reports whether rank rk's stream has an event i.
func (s *Sim) more(rk *rank, i int32) bool { return s.at(rk, i) != nil }

// fill moves rank rk's window forward so that it holds event i, and
// returns it (nil past the end of the stream or on a read error, which
// stops the run).
func (s *Sim) fill(rk *rank, i int32) *tracefmt.Event {
	f := rk.feed
	keep := max(rk.base, min(rk.pos, i)-1)
	kept := rk.ev[keep-rk.base:]
	need := int(i-keep) + 1
	next := f.spare[:0]
	if c := max(len(kept)+s.window, need); cap(next) < c {
		next = make([]tracefmt.Event, 0, c)
	}
	next = append(next, kept...)
	r := f.rank
	for len(next) < need || len(next) < cap(next) {
		n, err := s.src.ReadRank(r, next[len(next):cap(next)])
		next = next[:len(next)+n]
		if errors.Is(err, io.EOF) {
			f.done = true
			break
		}
		if err != nil {
			f.done = true
			if s.err == nil {
				s.err = fmt.Errorf("replay: reading rank %d's events: %w", r, err)
			}
			break
		}
		if n == 0 {
			break
		}
	}
	for j := len(kept); j < len(next); j++ {
		s.countFed(&next[j])
	}
	f.spare = rk.ev[:0]
	rk.ev = next
	rk.base = keep
	if j := i - rk.base; int(j) < len(rk.ev) {
		return &rk.ev[j]
	}
	return nil
}

// countFed notes what a streamed event tells about the whole trace, which
// a trace in memory says before the run: its collectives of unknown size
// and its wildcard receives.
func (s *Sim) countFed(e *tracefmt.Event) {
	switch e.Kind {
	case tracefmt.KindCollective:
		if e.Flags.Has(tracefmt.FlagSizeUnknown) {
			s.sizeUnknown++
		}
	case tracefmt.KindRecv:
		if e.Flags.Has(tracefmt.FlagAnySource) {
			s.wildcards++
		}
	}
}

// settleAnySource ends the choice any-source auto made for a streamed
// trace before it knew its wildcard receives: with none, free and
// recorded replay alike, and the run says recorded as New would; with
// some, the run says why it chose free.
func (s *Sim) settleAnySource() {
	if !s.countWild {
		return
	}
	s.countWild = false
	if s.wildcards == 0 {
		s.cfg.AnySource = AnyRecorded
		return
	}
	s.notes = append(s.notes, anyFreeNote(strconv.Itoa(s.wildcards)))
}
