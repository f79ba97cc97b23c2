package replay

import (
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
)

// RankState is what a rank is doing.
type RankState uint8

// Rank states.
const (
	// StateReady: the rank can proceed at the current instant.
	StateReady RankState = iota
	// StateComputing: the rank runs a CPU burst (computation or a
	// communication overhead).
	StateComputing
	// StateBlocked: the rank waits for communication.
	StateBlocked
	// StateDone: the rank has finished its trace.
	StateDone
)

var rankStateNames = [...]string{"ready", "computing", "blocked", "done"}

// String returns the state's name.
func (s RankState) String() string {
	if int(s) < len(rankStateNames) {
		return rankStateNames[s]
	}
	return "unknown"
}

// Activity says which operation a rank is in.
type Activity uint8

// Activities.
const (
	ActNone Activity = iota
	ActCompute
	ActOverhead
	ActSend
	ActRecv
	ActWait
	ActCall
	ActCollective
	ActInject
	ActFinalize
)

var activityNames = [...]string{"none", "compute", "overhead", "send", "recv", "wait", "call", "collective", "inject", "finalize"}

// String returns the activity's name.
func (a Activity) String() string {
	if int(a) < len(activityNames) {
		return activityNames[a]
	}
	return "unknown"
}

// request is a non-blocking operation a rank has not yet waited for.
type request struct {
	id   int64 // 0 for an anonymous request (an MPE isend)
	recv bool
	idx  int32 // message (send) or receive op
}

// rank is the replay state of one rank.
//
// The fields a message's completion, a wake-up and a collective round
// touch come first, in the struct's first two lines (146 bytes from its
// start for a rank at an odd index, the array holding 288-byte ranks):
// in declaration order they were spread over all five of its lines,
// each cold at 65,536 ranks when the packet model delivers a message.
type rank struct {
	pos int32
	// actEv is the event of the current activity.
	actEv int32
	// block counts the completions the rank waits for.
	block int32
	// callPending counts the blocking sends of the current call not yet
	// complete; waitCall is set while block includes them.
	callPending int32
	wrap        int32
	state       RankState
	// stage is how far the event at pos has been executed: 0 not
	// started; later stages are the event's own.
	stage    uint8
	act      Activity
	ovhPaid  bool
	waitCall bool
	// keepWrap keeps the wrapper state open past the next event (the
	// send of a sendrecv).
	keepWrap bool
	// depth counts open MPI states (timed traces); callHadRecv is set
	// when the outermost one contained a receive.
	depth int16
	// burstWrap (not hot) fills the line's padding.
	burstWrap  int32
	pendingOvh des.Time
	coll       *collRun
	since      des.Time
	blocked    des.Time

	sent, recvd   uint64
	sentB, recvdB int64
	ops           []int32

	// ev holds the rank's events from index base on: all of them for a
	// trace in memory, a window of a streamed one (see feed.go; read
	// them through Sim.at).
	ev          []tracefmt.Event
	base        int32
	feed        *feed
	call        stateClass
	callHadRecv bool
	// callByP2P is set while the outermost call is a collective whose
	// own point-to-point messages the trace records (collP2PInside).
	callByP2P bool
	// preInit is set until the rank enters the MPI_Init its trace logs:
	// the time before it is the rank's launch (Paraver's "Not
	// created"), which the replay does not model
	// (RecordedParts.Startup), not computation.
	preInit bool
	// burstAct is what the current burst is (burstWork, burstStart).
	// The small fields sit together: padded apart, they took 16 bytes
	// more per rank.
	burstAct Activity
	group    int32
	lastT    float64
	reqs     []request
	collSeq  []uint32

	compute    des.Time
	overhead   des.Time
	cpuWait    des.Time
	finish     des.Time
	burstWork  des.Time
	burstStart des.Time

	// rec is the simulated run of the rank, nil unless recorded
	// (Options.RecordTrace): kept out of line, as a run that does not
	// record has no use for its 48 bytes per rank.
	rec *rankOut
}

// rankOut is the simulated run of one rank (Options.RecordTrace): its
// events, and open the output indices of the trace's own open states.
type rankOut struct {
	out  []tracefmt.Event
	open []int32
}

// advance runs rank r until it blocks, computes or ends.
func (s *Sim) advance(r int32) {
	rk := &s.ranks[r]
	for rk.state == StateReady {
		if rk.pendingOvh > 0 {
			d := rk.pendingOvh
			rk.pendingOvh = 0
			s.burst(r, rk, d, ActOverhead)
			return
		}
		if rk.coll != nil {
			if !s.collContinue(r, rk) {
				return
			}
			s.next(rk, 1)
			continue
		}
		// at's window check, written out: at is too large to inline.
		var e *tracefmt.Event
		if j := uint(rk.pos - rk.base); j < uint(len(rk.ev)) {
			e = &rk.ev[j]
		} else {
			e = s.atFeed(rk, rk.pos)
		}
		if e == nil {
			s.finalize(r, rk)
			return
		}
		// exec returns false when the rank blocked or started a burst;
		// a rank still ready (a collective just started, nothing left to
		// wait for) goes round again.
		s.exec(r, rk, e)
	}
}

// next moves rank rk past n events.
func (s *Sim) next(rk *rank, n int32) bool {
	if rk.keepWrap {
		rk.keepWrap = false
	} else if rk.wrap >= 0 {
		s.rec.leave(rk, rk.wrap, s.k.Now())
		rk.wrap = -1
	}
	rk.pos += n
	rk.stage = 0
	rk.ovhPaid = false
	rk.act = ActNone
	s.stats.traceEvents += uint64(n)
	return true
}

// blockOn puts rank r to sleep until its block count drops to zero. It
// returns false so that exec can return its result.
func (s *Sim) blockOn(r int32, rk *rank, a Activity) bool {
	rk.act = a
	rk.actEv = rk.pos
	if rk.block <= 0 {
		// Nothing to wait for after all: the rank stays ready and
		// advance carries on with it.
		rk.block = 0
		return false
	}
	rk.state = StateBlocked
	rk.since = s.k.Now()
	return false
}

// unblock records one completion rank r waited for.
func (s *Sim) unblock(r int32) {
	rk := &s.ranks[r]
	rk.block--
	if rk.block <= 0 && rk.state == StateBlocked {
		rk.block = 0
		rk.state = StateReady
		rk.blocked += s.k.Now() - rk.since
		s.pushReady(r)
	}
}

// exec executes e, the event at rk.pos; it returns true when the rank
// moved on and may continue at once.
func (s *Sim) exec(r int32, rk *rank, e *tracefmt.Event) bool {
	if s.gaps && rk.stage == 0 {
		pre := rk.preInit // up to MPI_Init's enter included
		if e.Kind == tracefmt.KindEnter && s.class[e.State()].init {
			rk.preInit = false
		}
		if rk.depth == 0 && !pre {
			if gap := e.Time - rk.lastT; gap > 0 {
				rk.lastT = e.Time
				if d := s.traceTime(gap); d > 0 {
					s.burst(r, rk, d, ActCompute)
					return false
				}
			}
		}
		rk.lastT = e.Time
	}
	switch e.Kind {
	case tracefmt.KindEnter:
		return s.execEnter(r, rk, e)
	case tracefmt.KindLeave:
		return s.execLeave(r, rk, e)
	case tracefmt.KindSend:
		return s.execSend(r, rk, e)
	case tracefmt.KindRecv:
		return s.execRecv(r, rk, e)
	case tracefmt.KindWait:
		return s.execWait(r, rk, e)
	case tracefmt.KindCollective:
		if rk.depth > 0 && rk.callByP2P {
			s.recCopy(rk, e)
			return s.next(rk, 1)
		}
		if rk.stage == 0 {
			rk.stage = 1
			s.wrapEnter(rk, collStateName(e.Op()))
			s.recCopy(rk, e)
			if !s.startColl(r, rk, e.Op(), e.Root(), e.Comm, e.Size, e.RecvBytes()) {
				return s.next(rk, 1)
			}
			return false // collContinue runs from advance
		}
		return s.next(rk, 1)
	case tracefmt.KindCompute:
		// Compute events are not copied into the simulated run: their
		// amounts are in the trace's units, and the "Compute" state of
		// the burst shows them.
		if !s.computeEvts {
			return s.next(rk, 1)
		}
		if rk.stage == 0 {
			if d := s.computeTime(r, e); d > 0 {
				rk.stage = 1
				s.burst(r, rk, d, ActCompute)
				return false
			}
		}
		return s.next(rk, 1)
	default:
		s.recCopy(rk, e)
		return s.next(rk, 1)
	}
}

func (s *Sim) execEnter(r int32, rk *rank, e *tracefmt.Event) bool {
	cl := s.class[e.State()]
	if !cl.mpi {
		s.recCopy(rk, e)
		return s.next(rk, 1)
	}
	rk.depth++
	s.recCopy(rk, e)
	if rk.depth == 1 {
		rk.call = cl
		rk.callHadRecv = false
		rk.callByP2P = cl.kind == callColl && e.Match >= 0 && s.p2pInside(rk, e.Match)
		if rk.callByP2P {
			s.stats.collByP2P++
		}
		if cl.kind == callColl && e.Match >= 0 && !s.commInside(rk, e.Match) {
			// A collective call the trace shows no messages or event for
			// (MPE logs only its state): replay it as the operation with
			// unknown sizes.
			if s.startColl(r, rk, cl.op, -1, 0, 0, 0) {
				return false
			}
		}
	}
	if s.early != nil && cl.kind == callIrecv && rk.depth == 1 {
		// Last: its scan may move a streamed rank's window, and e with it.
		s.postEarly(r, rk)
	}
	return s.next(rk, 1)
}

// p2pInside reports whether events between pos and the state's leave
// include point-to-point sends or receives. A collective call that holds
// them was realised by them (a library whose collectives call MPI_Send
// and MPI_Recv, traced with them, as MPITrace did on MPICH-1 and LAM):
// the replay replays those messages and does not expand the collective's
// records a second time.
func (s *Sim) p2pInside(rk *rank, leave int32) bool {
	for i := rk.pos + 1; i < leave; i++ {
		e := s.at(rk, i)
		if e == nil {
			break
		}
		if e.Kind == tracefmt.KindSend || e.Kind == tracefmt.KindRecv {
			return true
		}
	}
	return false
}

// commInside reports whether events between pos and the state's leave
// carry communication.
func (s *Sim) commInside(rk *rank, leave int32) bool {
	for i := rk.pos + 1; i < leave; i++ {
		e := s.at(rk, i)
		if e == nil {
			break
		}
		switch e.Kind {
		case tracefmt.KindSend, tracefmt.KindRecv, tracefmt.KindCollective, tracefmt.KindWait:
			return true
		}
	}
	return false
}

func (s *Sim) execLeave(r int32, rk *rank, e *tracefmt.Event) bool {
	cl := s.class[e.State()]
	if !cl.mpi || rk.depth == 0 {
		s.recCopy(rk, e)
		return s.next(rk, 1)
	}
	if rk.depth > 1 {
		rk.depth--
		s.recCopy(rk, e)
		return s.next(rk, 1)
	}
	anon := s.mode() != Inject && !rk.callHadRecv && (rk.call.kind == callWait || rk.call.kind == callWaitall)
	if rk.stage == 0 {
		rk.stage = 1
		if anon {
			s.forAnon(rk, rk.call.kind == callWaitall, func(q *request) { s.waitReq(rk, q) })
		}
		if rk.callPending > 0 {
			rk.block += rk.callPending
			rk.waitCall = true
		}
		if rk.block > 0 {
			return s.blockOn(r, rk, ActCall)
		}
	}
	rk.waitCall = false
	rk.callByP2P = false
	if anon {
		s.releaseAnon(rk, rk.call.kind == callWaitall)
	}
	rk.depth--
	s.recCopy(rk, e)
	return s.next(rk, 1)
}

// forAnon calls fn for the oldest anonymous request, or all of them.
func (s *Sim) forAnon(rk *rank, all bool, fn func(q *request)) {
	for i := range rk.reqs {
		if rk.reqs[i].id == 0 {
			fn(&rk.reqs[i])
			if !all {
				return
			}
		}
	}
}

func (s *Sim) releaseAnon(rk *rank, all bool) {
	kept := rk.reqs[:0]
	released := false
	for _, q := range rk.reqs {
		if q.id == 0 && (all || !released) {
			released = true
			s.releaseReq(rk, q)
			continue
		}
		kept = append(kept, q)
	}
	clear(rk.reqs[len(kept):])
	rk.reqs = kept
}

func (s *Sim) mode() Mode { return s.cfg.Mode }

// sendBinding says what waits for a send's completion.
type sendBinding uint8

const (
	bindCall   sendBinding = iota // the current call (a blocking send)
	bindReq                       // a request a wait will name
	bindInject                    // inject mode: the rank waits for the injection
)

func (s *Sim) execSend(r int32, rk *rank, e *tracefmt.Event) bool {
	if s.mode() == Inject {
		if rk.stage == 0 {
			rk.stage = 1
			s.wrapEnter(rk, sendStateName(e, rk))
			s.issue(r, rk, e.Peer, e.Tag, e.Comm, false, e.Size, false, rk.pos, bindInject, 0)
			return s.blockOn(r, rk, ActInject)
		}
		return s.next(rk, 1)
	}
	if rk.stage == 0 {
		s.wrapEnter(rk, sendStateName(e, rk))
		if s.ovh != nil && !rk.ovhPaid {
			rk.ovhPaid = true
			if d := s.ovh.SendOverhead(e.Size); d > 0 {
				s.burst(r, rk, d, ActOverhead)
				return false
			}
		}
		sync := e.Flags.Has(tracefmt.FlagSync) || (rk.depth > 0 && rk.call.kind == callSsend)
		nb := e.Flags.Has(tracefmt.FlagNonBlocking) || (rk.depth > 0 && rk.call.kind == callIsend)
		if nb && !e.Flags.Has(tracefmt.FlagSendrecv) {
			s.issue(r, rk, e.Peer, e.Tag, e.Comm, false, e.Size, sync, rk.pos, bindReq, e.Request())
			return s.next(rk, 1)
		}
		s.issue(r, rk, e.Peer, e.Tag, e.Comm, false, e.Size, sync, rk.pos, bindCall, 0)
		if rk.depth > 0 {
			return s.next(rk, 1) // the call's leave waits for it
		}
		if e.Flags.Has(tracefmt.FlagSendrecv) {
			if n := s.at(rk, rk.pos+1); n != nil && n.Kind == tracefmt.KindRecv && n.Flags.Has(tracefmt.FlagSendrecv) {
				rk.keepWrap = true
				return s.next(rk, 1) // the receive waits for both
			}
		}
		rk.stage = 1
		if rk.callPending > 0 {
			rk.block += rk.callPending
			rk.waitCall = true
			return s.blockOn(r, rk, ActSend)
		}
	}
	rk.waitCall = false
	return s.next(rk, 1)
}

func (s *Sim) execRecv(r int32, rk *rank, e *tracefmt.Event) bool {
	if s.mode() == Inject {
		s.stats.skipped++
		return s.next(rk, 1)
	}
	if e.Flags.Has(tracefmt.FlagNonBlocking) && e.Request() > 0 && !e.Flags.Has(tracefmt.FlagSendrecv) {
		if s.earlyOp(r, rk, rk.pos) >= 0 {
			return s.next(rk, 1) // posted, with its request, at its call
		}
		if rk.depth == 0 {
			s.wrapEnter(rk, "MPI_Irecv")
		}
		op := s.post(r, e.Peer, e.Tag, e.Comm, false, e.Flags, rk.pos)
		s.ops[op].flags |= opHeld
		s.addReq(rk, request{id: e.Request(), recv: true, idx: op})
		return s.next(rk, 1)
	}
	if rk.stage == 0 {
		rk.stage = 1
		if rk.wrap < 0 {
			s.wrapEnter(rk, "MPI_Recv")
		}
		n := int32(1)
		if rk.depth > 0 {
			// The receives of one call (a Waitall) are posted together.
			for {
				x := s.at(rk, rk.pos+n)
				if x == nil || x.Kind != tracefmt.KindRecv || (x.Flags.Has(tracefmt.FlagNonBlocking) && x.Request() > 0) {
					break
				}
				n++
			}
		}
		rk.group = n
		rk.callHadRecv = true
		rk.ops = rk.ops[:0]
		for i := range n {
			op := s.earlyOp(r, rk, rk.pos+i)
			if op >= 0 {
				s.ops[op].flags &^= opHeld // posted at its call, without a request
			} else {
				x := s.at(rk, rk.pos+i)
				op = s.post(r, x.Peer, x.Tag, x.Comm, false, x.Flags, rk.pos+i)
			}
			s.addOp(rk, op)
		}
		for _, op := range rk.ops {
			if o := &s.ops[op]; !o.done() {
				o.flags |= opWaiter
				rk.block++
			}
		}
		if rk.depth == 0 && rk.callPending > 0 {
			rk.block += rk.callPending
			rk.waitCall = true
		}
		if rk.block > 0 {
			return s.blockOn(r, rk, ActRecv)
		}
	}
	rk.waitCall = false
	n := rk.group
	for i, op := range rk.ops {
		s.recRecv(rk, op, rk.pos+int32(i))
		s.freeOpID(op)
	}
	rk.ops = rk.ops[:0]
	return s.next(rk, n)
}

func (s *Sim) execWait(r int32, rk *rank, e *tracefmt.Event) bool {
	if s.mode() == Inject {
		return s.next(rk, 1)
	}
	all := e.Flags.Has(tracefmt.FlagAll)
	id := e.Request()
	match := func(q *request) bool { return all || (q.id == id && id != 0) }
	if rk.stage == 0 {
		rk.stage = 1
		name := "MPI_Wait"
		switch {
		case all:
			name = "MPI_Waitall"
		case e.Flags.Has(tracefmt.FlagTest):
			name = "MPI_Test"
		}
		s.wrapEnter(rk, name)
		for i := range rk.reqs {
			if q := &rk.reqs[i]; match(q) {
				s.waitReq(rk, q)
				if !all {
					break
				}
			}
		}
		if rk.block > 0 {
			return s.blockOn(r, rk, ActWait)
		}
	}
	kept := rk.reqs[:0]
	found := false
	for _, q := range rk.reqs {
		if match(&q) && (all || !found) {
			found = true
			s.releaseReq(rk, q)
			continue
		}
		kept = append(kept, q)
	}
	clear(rk.reqs[len(kept):])
	rk.reqs = kept
	s.recCopy(rk, e)
	return s.next(rk, 1)
}

// waitReq makes rank rk wait for request q unless it is complete.
func (s *Sim) waitReq(rk *rank, q *request) {
	if q.recv {
		if o := &s.ops[q.idx]; !o.done() && !o.waiter() {
			o.flags |= opWaiter
			rk.block++
		}
		return
	}
	if m := &s.msgs[q.idx]; !m.sendDone && m.waits&waitSend == 0 {
		m.waits |= waitSend
		rk.block++
	}
}

// releaseReq forgets a completed request.
func (s *Sim) releaseReq(rk *rank, q request) {
	if q.recv {
		s.recRecv(rk, q.idx, s.ops[q.idx].ev)
		s.ops[q.idx].flags &^= opHeld
		s.freeOpID(q.idx)
		return
	}
	m := &s.msgs[q.idx]
	m.waits &^= waitHeld
	s.maybeFree(q.idx)
}

// finalize ends rank r once its outstanding requests are complete, as
// MPI_Finalize does.
func (s *Sim) finalize(r int32, rk *rank) {
	if rk.stage == 0 && s.mode() != Inject {
		rk.stage = 1
		for i := range rk.reqs {
			s.waitReq(rk, &rk.reqs[i])
		}
		if rk.callPending > 0 {
			rk.block += rk.callPending
			rk.waitCall = true
		}
		if rk.block > 0 {
			s.blockOn(r, rk, ActFinalize)
			return
		}
	}
	for _, q := range rk.reqs {
		s.releaseReq(rk, q)
	}
	rk.reqs = nil
	rk.waitCall = false
	if rk.wrap >= 0 {
		s.rec.leave(rk, rk.wrap, s.k.Now())
		rk.wrap = -1
	}
	rk.state = StateDone
	s.ranksDone++
	rk.act = ActNone
	rk.finish = s.k.Now()
}

// sendStateName names the MPI call of a send outside any MPI state.
func sendStateName(e *tracefmt.Event, rk *rank) string {
	switch {
	case e.Flags.Has(tracefmt.FlagSendrecv):
		return "MPI_Sendrecv"
	case e.Flags.Has(tracefmt.FlagNonBlocking | tracefmt.FlagSync):
		return "MPI_Issend"
	case e.Flags.Has(tracefmt.FlagNonBlocking):
		return "MPI_Isend"
	case e.Flags.Has(tracefmt.FlagSync):
		return "MPI_Ssend"
	}
	return "MPI_Send"
}
