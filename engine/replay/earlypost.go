package replay

import (
	"slices"

	"github.com/tracesim/tracesim/tracefmt"
)

// Receives posted at their MPI_Irecv calls.
//
// MPE logs an MPI_Irecv's receive event when the wait that completes it
// returns (tracesim gen does the same): the MPI_Irecv call shows only as
// a state. Posted at its event, the receive would be posted late, after
// the sends and computation that followed the call: an exchange of
// MPI_Irecv, MPI_Send, MPI_Wait, safe in MPI whatever the protocol,
// deadlocked in the replay once its messages went by rendezvous, and a
// halo's transfers could not start before the ranks reached their waits.
// The replay posts such a receive when the rank enters the MPI_Irecv
// call that posted it.
//
// Which call posted which receive: a rank's MPI_Irecv calls that hold no
// receive event, in order, and its receive events that a wait completed
// (non-blocking ones, or any inside an MPI_Wait*, MPI_Test* call, where
// MPE logs them in an MPE_Irecv_waited state with neither flag nor
// request), in order, are paired first with first (a receive's
// event follows the call that posted it; of receives from one sender
// with one tag, MPI completes the first posted first). Formats that log
// the receive inside its MPI_Irecv (OTF2, SimGrid's TI, Paraver) have
// nothing to pair. A scanner walks each rank's events ahead of the rank,
// at most earlyLookahead events, the same in memory and streamed: a call
// whose receive lies further is posted at its event.

// earlyLookahead bounds how far ahead of a rank its MPI_Irecv calls are
// paired with their receives (a streamed rank's window holds what it
// scans).
const earlyLookahead = 1 << 14

// earlyRank is one rank's scanner and its pairs.
type earlyRank struct {
	scan int32 // the next event the scanner classifies
	open int32 // the enter of the MPI_Irecv call it is in, or -1
	// depth counts the MPI states the scanner is in; waiting tells that
	// the outermost is a wait or test call.
	depth int32
	// calls[callHead:] are the calls without a receive not yet paired,
	// pairs[pairHead:] the pairs whose receive the rank has not reached;
	// both queues restart at the front of their arrays once empty.
	callHead, pairHead int32
	held               bool // the open call holds a receive event
	waiting            bool
	calls              []int32
	pairs              []earlyPost
}

// earlyPost is a receive event and the MPI_Irecv call that posted it.
type earlyPost struct {
	call, recv int32
	op         int32 // the receive posted at the call, or -1
}

// hasIrecvCalls reports whether the trace defines an MPI_Irecv state.
func hasIrecvCalls(class []stateClass) bool {
	for _, c := range class {
		if c.kind == callIrecv {
			return true
		}
	}
	return false
}

// scanTo classifies rank rk's events up to to (exclusive), or further
// while call is an MPI_Irecv call not yet paired nor known to hold its
// receive, within earlyLookahead of the rank.
func (s *Sim) scanTo(rk *rank, er *earlyRank, to, call int32) {
	limit := rk.pos + earlyLookahead
	for er.scan < limit && (er.scan < to || call >= 0 && s.unresolved(er, call)) {
		e := s.at(rk, er.scan)
		if e == nil {
			return
		}
		i := er.scan
		er.scan++
		switch e.Kind {
		case tracefmt.KindEnter:
			st := e.State()
			if int(st) >= len(s.class) || !s.class[st].mpi {
				break
			}
			if er.depth == 0 {
				switch s.class[st].kind {
				case callIrecv:
					er.open, er.held = i, false
				case callWait, callWaitall, callTest:
					er.waiting = true
				}
			}
			er.depth++
		case tracefmt.KindLeave:
			if st := e.State(); int(st) >= len(s.class) || !s.class[st].mpi || er.depth == 0 {
				break
			}
			if er.depth--; er.depth > 0 {
				break
			}
			er.waiting = false
			if er.open >= 0 {
				if !er.held {
					er.calls = append(er.calls, er.open)
				}
				er.open = -1
			}
		case tracefmt.KindRecv:
			// A receive completed by a wait: flagged non-blocking, or
			// inside a wait or test call (MPE logs it there, in an
			// MPE_Irecv_waited state, with no flag and no request).
			completed := (e.Flags.Has(tracefmt.FlagNonBlocking) || er.waiting) && !e.Flags.Has(tracefmt.FlagSendrecv)
			switch {
			case er.open >= 0:
				er.held = true
			case completed && int(er.callHead) < len(er.calls):
				er.pairs = append(er.pairs, earlyPost{call: er.calls[er.callHead], recv: i, op: -1})
				if er.callHead++; int(er.callHead) == len(er.calls) {
					er.calls, er.callHead = er.calls[:0], 0
				}
			}
		}
	}
}

// resume starts the scanner at event pos if it is behind: the rank went
// past events the scanner had no need to see (every MPI_Irecv call and
// every receive a wait completed that the rank passed was scanned), which
// a streamed rank no longer holds. depth and call are the rank's MPI
// nesting before event pos and its outermost call. A call the rank is
// in whose receive the scanner has not seen was longer than the
// lookahead: its receive, if it has one, is posted at its event.
func (er *earlyRank) resume(pos, depth int32, call stateClass) {
	if er.scan >= pos {
		return
	}
	er.scan, er.depth, er.open, er.held, er.waiting = pos, depth, -1, false, false
	if depth > 0 {
		switch call.kind {
		case callWait, callWaitall, callTest:
			er.waiting = true
		case callIrecv:
			er.open, er.held = pos, true // not waiting for a receive
		}
	}
}

// unresolved reports whether the scanner has yet to pair call or to see
// it hold its receive.
func (s *Sim) unresolved(er *earlyRank, call int32) bool {
	if er.scan <= call || er.open == call {
		return true
	}
	return slices.Contains(er.calls[er.callHead:], call)
}

// postEarly posts the receive that rank r's MPI_Irecv call, entered at
// its current event as its outermost call, posted, if the trace logs it
// later.
func (s *Sim) postEarly(r int32, rk *rank) {
	er := &s.early[r]
	call := rk.pos
	er.resume(call, 0, stateClass{})
	s.scanTo(rk, er, call+1, call)
	for k := int(er.pairHead); k < len(er.pairs); k++ {
		p := &er.pairs[k]
		if p.call != call {
			continue
		}
		x := s.at(rk, p.recv)
		if x == nil {
			return
		}
		p.op = s.post(r, x.Peer, x.Tag, x.Comm, false, x.Flags, p.recv)
		s.ops[p.op].flags |= opHeld
		if id := x.Request(); id > 0 {
			s.addReq(rk, request{id: id, recv: true, idx: p.op})
		}
		return
	}
}

// earlyOp returns the receive posted at its call for event i of rank r,
// a non-blocking receive the rank has reached, or -1 when it is to be
// posted now.
func (s *Sim) earlyOp(r int32, rk *rank, i int32) int32 {
	if s.early == nil {
		return -1
	}
	er := &s.early[r]
	er.resume(i, int32(rk.depth), rk.call)
	s.scanTo(rk, er, i+1, -1)
	for int(er.pairHead) < len(er.pairs) && er.pairs[er.pairHead].recv < i {
		er.pairHead++ // passed by a path that does not ask (none today): it would block the queue
	}
	if int(er.pairHead) == len(er.pairs) || er.pairs[er.pairHead].recv != i {
		return -1
	}
	op := er.pairs[er.pairHead].op
	if er.pairHead++; int(er.pairHead) == len(er.pairs) {
		er.pairs, er.pairHead = er.pairs[:0], 0
	}
	return op
}
