package simgridti

import (
	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
)

// A whole read keeps every event of the trace (tracefmt.Event, 40 B)
// and, on a machine whose page faults are dear (a virtual machine pays
// the guest's fault and the host's), touching that memory for the first
// time costs more than parsing the text that fills it: `tracesim info`
// on a 3 M-event index spent three fifths of its CPU faulting in the
// ranks' streams. The streams are therefore carved from large shared
// blocks, one rank after the other as index files and most single files
// list them, and a block is backed by huge pages where the system
// allows (hugepage.Advise): a fault then brings in 2 MiB, not 4 KiB.

// eventSlab hands out the ranks' event streams of a whole read. The
// stream at the tail of the current block grows in place, without a
// copy; another one moves to the tail, leaving its old room unused, or,
// once too much room lies unused, to a heap slice of its own.
type eventSlab struct {
	buf  []tracefmt.Event // the current block; buf[:len] is handed out
	tail *rankState       // the stream ending buf[:len], if any
	dead int              // events of the blocks left behind by a move
	used int              // events of the blocks handed out
	held int              // events the blocks have room for
	// What sizes a new block, so that the blocks hold the trace with
	// little room to spare (their room counts in the Go heap even
	// where no page of it is touched): the number of ranks an index
	// lists (0 for a single file) and how many streams have begun; the
	// bytes of a single file (0: unknown) and how many were parsed.
	world, started  int
	input, consumed int64
}

// Block sizes, in events: at least slabMin, at most slabMax (40 MiB)
// unless one stream needs more.
const (
	slabMin = 4 << 10
	slabMax = 1 << 20
)

// slabStep is the most a tail stream grows by in place: growing costs
// no copy there, so a small step leaves little room unused at its end.
const slabStep = 16 << 10

// grow gives rs.events room for n more events at least and want at
// most (n <= want), its events in place.
func (s *eventSlab) grow(rs *rankState, n, want int) {
	ev := rs.events
	c := cap(ev)
	tail := rs == s.tail
	if tail {
		// The stream at the tail: extend it over the block's free room.
		if room := cap(s.buf) - len(s.buf); room >= n {
			add := min(room, want, max(n, slabStep))
			start := len(s.buf) - c
			s.buf = s.buf[:len(s.buf)+add]
			s.used += add
			rs.events = s.buf[start : start+len(ev) : len(s.buf)]
			return
		}
	} else if c > 0 && s.dead+c > s.used/8 {
		// Moving streams to the tail would leave too much room unused
		// (their ranks' lines alternate): this one goes to the heap.
		grown := make([]tracefmt.Event, len(ev), len(ev)+want)
		copy(grown, ev)
		rs.events = grown
		return
	}
	if !tail && len(ev) == 0 && s.tail != nil {
		// A rank's first events: the rank before is most likely done
		// (an index's files, a file listing the ranks one after the
		// other), so its stream gives back the room it has not used.
		t := s.tail
		spare := cap(t.events) - len(t.events)
		s.buf = s.buf[:len(s.buf)-spare]
		s.used -= spare
		t.events = t.events[:len(t.events):len(t.events)]
		s.tail = nil
	}
	size := len(ev) + want
	if cap(s.buf)-len(s.buf) < size {
		// A new block; the old one stays with the streams it holds.
		blk := max(size, min(slabMax, max(slabMin, s.estimate(size, c == 0))))
		s.buf = make([]tracefmt.Event, 0, blk)
		s.held += blk
		hugepage.Advise(s.buf[:blk])
	}
	if !tail {
		s.dead += c
	}
	if c == 0 {
		s.started++
	}
	start := len(s.buf)
	s.buf = s.buf[:start+size]
	s.used += size
	rs.events = s.buf[start : start+len(ev) : start+size]
	copy(rs.events, ev)
	s.tail = rs
}

// estimate returns the events still to come, for a new block asked for
// a stream wanting size events (a stream's first room when first).
func (s *eventSlab) estimate(size int, first bool) int {
	switch {
	case s.world > 0 && first:
		// This rank and those after it, alike.
		return size * max(s.world-s.started, 1)
	case s.input > 0 && s.consumed > 0 && s.consumed < s.input:
		// As many events per byte in the rest of the file as so far,
		// less a quarter: ranks differ, and a block too small costs a
		// move of the stream at its end, one too large its whole rest.
		return int(0.75*float64(s.used)*float64(s.input-s.consumed)/float64(s.consumed)) + size
	}
	return s.used / 8
}
