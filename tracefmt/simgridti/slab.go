package simgridti

import "github.com/tracesim/tracesim/tracefmt"

// A whole read keeps every event of the trace (tracefmt.Event, 40 B)
// and, on a machine whose page faults are dear (a virtual machine pays
// the guest's fault and the host's), touching that memory for the first
// time costs more than parsing the text that fills it: `tracesim info`
// on a 3 M-event index spent three fifths of its CPU faulting in the
// ranks' streams. The streams are therefore carved from large shared
// blocks, one rank after the other as index files and most single files
// list them, and a block is backed by huge pages where the system
// allows (adviseHuge): a fault then brings in 2 MiB, not 4 KiB.

// eventSlab hands out the ranks' event streams of a whole read. The
// stream at the tail of the current block grows in place, without a
// copy; another one moves to the tail, leaving its old room unused, or,
// once too much room lies unused, to a heap slice of its own.
type eventSlab struct {
	buf  []tracefmt.Event // the current block; buf[:len] is handed out
	next int              // the events of the next block
	dead int              // events of the blocks left behind by a move
	used int              // events of the blocks handed out
}

// Block sizes, in events: the first block is small, so that a small
// trace costs little, and each next one doubles, up to slabMax (40 MiB).
const (
	slabFirst = 32 << 10
	slabMax   = 1 << 20
)

// slabStep is the most a tail stream grows by in place: growing costs
// no copy there, so a small step leaves little room unused at its end.
const slabStep = 16 << 10

// grow returns ev, a stream, with room for n more events at least and
// want at most (n <= want), its events in place.
func (s *eventSlab) grow(ev []tracefmt.Event, n, want int) []tracefmt.Event {
	c := cap(ev)
	tail := c > 0 && len(s.buf) > 0 && &ev[:c][c-1] == &s.buf[len(s.buf)-1]
	if tail {
		// The stream at the tail: extend it over the block's free room.
		if room := cap(s.buf) - len(s.buf); room >= n {
			add := min(room, want, max(n, slabStep))
			start := len(s.buf) - c
			s.buf = s.buf[:len(s.buf)+add]
			s.used += add
			return s.buf[start : start+len(ev) : len(s.buf)]
		}
	} else if c > 0 && s.dead+c > s.used/8 {
		// Moving streams to the tail would leave too much room unused
		// (their ranks' lines alternate): this one goes to the heap.
		grown := make([]tracefmt.Event, len(ev), len(ev)+want)
		copy(grown, ev)
		return grown
	}
	size := len(ev) + want
	if cap(s.buf)-len(s.buf) < size {
		// A new block; the old one stays with the streams it holds.
		blk := max(s.next, slabFirst, size)
		s.next = min(2*blk, slabMax)
		s.buf = make([]tracefmt.Event, 0, blk)
		adviseHuge(s.buf[:blk])
	}
	if !tail {
		s.dead += c
	}
	start := len(s.buf)
	s.buf = s.buf[:start+size]
	s.used += size
	out := s.buf[start : start+len(ev) : start+size]
	copy(out, ev)
	return out
}
