package replay

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
)

// scanCall is how far from a send or receive event the replay looks for
// the MPI call that holds it; a real trace has a handful of events
// between them (MPE's, Paraver's "Waiting a message").
const scanCall = 64

// bufferedSend is a blocking send that the recorded run completed before
// its receive was posted: the run's MPI buffered it, whatever its size.
type bufferedSend struct {
	rank, ev int32
	dst      int32
	size     int64
}

// scanTrace makes the one pass over a trace in memory that the run needs
// before it starts: the trace's Span (spanLo, spanHi), its
// UnknownSizeCollectives (sizeUnknown), whether it has compute events
// (the result) and, when findBuffered is set, the sends its recorded run
// buffered (recBuffered): the blocking sends of a timed trace of at
// least the eager threshold (smaller ones are eager anyway) that the
// recorded run completed before their receive was posted (sentEarly), in
// rank and event order, and for a timed trace its RecordedParts (parts).
// Each was a pass of its own, and Results scanned the trace twice more
// for its span: seven passes over every event, 9 % of the replay of a
// 5 M-event trace at 64 ranks.
func (s *Sim) scanTrace(findBuffered bool) (hasCompute bool) {
	t := s.tr
	findBuffered = findBuffered && t.Timed
	lo, hi := math.Inf(1), math.Inf(-1)
	var parts *partsScan
	if t.Timed {
		parts = newPartsScan(t)
	}
	// The messages and receives the run will hold at once, estimated
	// from each rank's sends and receives (see flightPerRank).
	var inFlight, posted int
	// senders is one more than the last rank that sends a message or
	// calls a collective (whose expansion sends).
	senders := 0
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		if len(ev) == 0 {
			continue
		}
		if parts != nil {
			parts.rank(ev)
		}
		var sends, recvs, colls int
		for i := range ev {
			e := &ev[i]
			// Every event, as Span: per-rank clocks can run backwards
			// in broken traces.
			if x := e.Time; x < lo {
				lo = x
			}
			if x := e.Time; x > hi {
				hi = x
			}
			switch e.Kind {
			case tracefmt.KindEnter:
				if parts != nil {
					parts.enter(ev, e)
				}
			case tracefmt.KindCompute:
				hasCompute = true
			case tracefmt.KindCollective:
				colls++
				if e.Flags.Has(tracefmt.FlagSizeUnknown) {
					s.sizeUnknown++
				}
			case tracefmt.KindRecv:
				recvs++
			case tracefmt.KindSend:
				sends++
				if findBuffered && e.Size >= s.threshold && sentEarly(t, s.class, int32(r), int32(i)) {
					s.recBuffered = append(s.recBuffered, bufferedSend{rank: int32(r), ev: int32(i), dst: e.Peer, size: e.Size})
				}
			}
		}
		if parts != nil {
			parts.rankDone()
		}
		if sends > 0 || colls > 0 {
			senders = r + 1
		}
		inFlight += min(sends, flightPerRank)
		posted += min(recvs, flightPerRank)
	}
	// Filled in as the run starts, message by message: as huge pages
	// (23 MiB of messages and 21 MiB of receives at 65,536 ranks of a
	// stencil, 11 k faults of 4 KiB).
	s.msgs = hugepage.Make[message](0, inFlight)
	s.ops = hugepage.Make[recvOp](0, posted)
	if s.densePairs == nil {
		s.pairs.reserve(senders)
	}
	if t.Timed && lo <= hi {
		s.spanLo, s.spanHi = lo, hi
	} else {
		s.spanLo, s.spanHi = 0, 0
	}
	if parts != nil {
		s.parts = parts.parts(t, s.spanLo, s.spanHi)
	}
	return hasCompute
}

// sentEarly reports whether the send at event i of rank r is a blocking
// send whose MPI_Send (or Bsend, Rsend) returned before the MPI_Recv that
// received it was entered. Sends outside a call state, synchronous ones
// and those received by a wait (the post time of an MPI_Irecv is not in
// the trace) are not.
func sentEarly(t *tracefmt.Trace, class []stateClass, r, i int32) bool {
	ev := t.Ranks[r].Events
	e := &ev[i]
	if e.Kind != tracefmt.KindSend || e.Match < 0 || e.Peer < 0 || int(e.Peer) >= len(t.Ranks) ||
		e.Flags.Has(tracefmt.FlagNonBlocking|tracefmt.FlagSync|tracefmt.FlagSendrecv) {
		return false
	}
	sc := enclosingCall(ev, i, class)
	if sc < 0 || class[ev[sc].State()].kind != callSend || ev[sc].Match < 0 || int(ev[sc].Match) >= len(ev) {
		return false
	}
	rev := t.Ranks[e.Peer].Events
	if int(e.Match) >= len(rev) {
		return false
	}
	rc := enclosingCall(rev, e.Match, class)
	if rc < 0 || class[rev[rc].State()].kind != callRecv {
		return false
	}
	return ev[ev[sc].Match].Time < rev[rc].Time
}

// enclosingCall returns the index of the innermost MPI state open at
// event i of a rank's events, or -1 when none is within scanCall events.
func enclosingCall(ev []tracefmt.Event, i int32, class []stateClass) int32 {
	depth := 0
	for j := i - 1; j >= 0 && j >= i-scanCall; j-- {
		switch ev[j].Kind {
		case tracefmt.KindLeave:
			depth++
		case tracefmt.KindEnter:
			if depth > 0 {
				depth--
				continue
			}
			if s := ev[j].State(); int(s) < len(class) && class[s].mpi {
				return j
			}
		}
	}
	return -1
}

// isRecordedBuffered reports whether the send at event ev of rank r is one
// scanTrace found its recorded run buffered.
func (s *Sim) isRecordedBuffered(r, ev int32) bool {
	_, ok := slices.BinarySearchFunc(s.recBuffered, bufferedSend{rank: r, ev: ev}, func(a, b bufferedSend) int {
		if a.rank != b.rank {
			return int(a.rank - b.rank)
		}
		return int(a.ev - b.ev)
	})
	return ok
}

// recordedNote says what --send recorded did to the trace's sends.
func recordedNote(n int, threshold int64) string {
	return fmt.Sprintf("%d sends of %s or more (the eager threshold) completed before their receive was posted in the recorded run; replayed as buffered (--send recorded, the default; --send auto replays them with the rendezvous protocol)",
		n, FormatSize(threshold))
}

// explainSends adds to a deadlock the cause and the correction when
// blocked sends wait for their receive because of the send semantics:
// which sends exceed the eager threshold (or are synchronous), whether
// the recorded run completed them, and the setting that replays them
// buffered.
func (s *Sim) explainSends(d *Deadlock) {
	var big []string
	largest := int64(0)
	recorded, sync := 0, 0
	n := 0
	for i := range s.msgs {
		m := &s.msgs[i]
		if !m.live || m.sendDone || m.coll || !(m.waits&waitSend != 0 || (m.waits&waitCall != 0 && s.ranks[m.src].waitCall)) {
			continue
		}
		if m.complete != doneAtDelivery && m.complete != doneAtRecv {
			continue
		}
		if m.recvOp >= 0 {
			continue // matched: it waits for the network, not for a receive
		}
		n++
		largest = max(largest, m.size)
		if m.complete == doneAtRecv {
			sync++
		}
		if m.sendEv >= 0 && s.recordedEarly(m.src, m.sendEv) {
			recorded++
		}
		if len(big) < ListedItems {
			big = append(big, fmt.Sprintf("rank %d's %d B to rank %d", m.src, m.size, m.dst))
		}
	}
	if n == 0 {
		return
	}
	if n > len(big) {
		big = append(big, fmt.Sprintf("%d more", n-len(big)))
	}
	var b strings.Builder
	switch {
	case s.cfg.Send == SendSynchronous:
		fmt.Fprintf(&b, "cause: --send synchronous makes every send wait for its receive: %s", strings.Join(big, ", "))
	case s.cfg.Send == SendNoSpace:
		fmt.Fprintf(&b, "cause: --send nospace makes every send wait for its data to arrive, which needs its receive posted: %s", strings.Join(big, ", "))
	case sync == n:
		fmt.Fprintf(&b, "cause: synchronous sends (MPI_Ssend) wait for their receive: %s", strings.Join(big, ", "))
	default:
		fmt.Fprintf(&b, "cause: sends of %s or more (the eager threshold) wait for their receive (rendezvous): %s", FormatSize(s.threshold), strings.Join(big, ", "))
	}
	d.Explanation = append(d.Explanation, b.String())
	if recorded > 0 {
		d.Explanation = append(d.Explanation, fmt.Sprintf("the recorded run completed %d of them before their receive was posted: its MPI buffered them", recorded))
	}
	threshold := FormatSize((largest/1024 + 1) * 1024) // a round number above the largest
	var fix string
	switch {
	case s.cfg.Send == SendSynchronous || s.cfg.Send == SendNoSpace:
		fix = fmt.Sprintf("correction: --send auto --eager-threshold %s replays them buffered (eager), --send buffered replays every send buffered", threshold)
		if recorded > 0 {
			fix += ", --send recorded (the default) those the recorded run buffered"
		}
	case sync == n:
		fix = "correction: none in the MPI: an MPI_Ssend waits for its receive whatever the MPI, so the program is unsafe as written; --send buffered replays them as if buffered"
	default:
		fix = fmt.Sprintf("correction: --eager-threshold %s replays them buffered (eager), --send buffered replays every send buffered", threshold)
		if s.cfg.Send != SendRecorded && recorded > 0 {
			fix += ", --send recorded (the default) those the recorded run buffered"
		}
	}
	d.Explanation = append(d.Explanation, fix)
}

// recordedEarly reports whether the recorded run completed the blocking
// send at event ev of rank r before its receive was posted, whatever
// its size.
func (s *Sim) recordedEarly(r, ev int32) bool {
	if s.src != nil || !s.tr.Timed || int(r) >= len(s.tr.Ranks) || int(ev) >= len(s.tr.Ranks[r].Events) {
		return false
	}
	return sentEarly(s.tr, s.class, r, ev)
}

// RecordedParts splits a recorded run's span (seconds). The replay
// starts every rank at its first event, computes nothing in MPI_Init and
// ends MPI_Finalize once the rank's requests are complete, so what it
// predicts compares with App: the recorded run from the moment every
// rank was past MPI_Init (its first event when the trace does not log
// MPI_Init: MPE, ALOG) to the moment every rank had entered
// MPI_Finalize (its last event without one). Startup holds the launch
// skew and MPI_Init (193.6 ms of the 199.5 ms of the OTF2 ping-pong
// sample), Teardown MPI_Finalize.
type RecordedParts struct {
	Startup  float64 `json:"startup_s"`
	App      float64 `json:"app_s"`
	Teardown float64 `json:"teardown_s"`
}

// The kinds of state partsScan looks for.
const (
	partOther uint8 = iota
	partInit
	partFinalize
)

// partsScan computes the RecordedParts of a timed trace in the pass of
// scanTrace: the start of each rank (past its MPI_Init, else its first
// event) and its end (its MPI_Finalize's enter, else its last event).
type partsScan struct {
	// kind says what each state is, once: a trace has few states and
	// many events.
	kind      []uint8
	init, fin float64
	first     bool
	// start and end are the current rank's.
	start, end float64
}

func newPartsScan(t *tracefmt.Trace) *partsScan {
	p := &partsScan{kind: make([]uint8, len(t.States)), first: true}
	for i, d := range t.States {
		switch strings.ToLower(d.Name) {
		case "mpi_init", "mpi_init_thread":
			p.kind[i] = partInit
		case "mpi_finalize":
			p.kind[i] = partFinalize
		}
	}
	return p
}

// rank starts a rank's stream ev, which is not empty.
func (p *partsScan) rank(ev []tracefmt.Event) {
	p.start, p.end = ev[0].Time, ev[len(ev)-1].Time
}

// enter looks at the enter event e of the rank's stream ev.
func (p *partsScan) enter(ev []tracefmt.Event, e *tracefmt.Event) {
	if int(e.State()) >= len(p.kind) {
		return
	}
	switch p.kind[e.State()] {
	case partInit:
		if e.Match >= 0 && int(e.Match) < len(ev) {
			p.start = ev[e.Match].Time
		}
	case partFinalize:
		p.end = min(p.end, e.Time)
	}
}

// rankDone ends the rank started last.
func (p *partsScan) rankDone() {
	if p.first {
		p.init, p.fin, p.first = p.start, p.end, false
		return
	}
	p.init, p.fin = max(p.init, p.start), max(p.fin, p.end)
}

// parts returns the parts of trace t, whose Span is a, b.
func (p *partsScan) parts(t *tracefmt.Trace, a, b float64) *RecordedParts {
	init, fin := a, b
	if !p.first {
		init, fin = p.init, p.fin
	}
	rp := &RecordedParts{Startup: t.Seconds(init - a), Teardown: t.Seconds(b - fin)}
	rp.App = max(0, float64(t.Seconds(b-a))-rp.Startup-rp.Teardown)
	return rp
}
