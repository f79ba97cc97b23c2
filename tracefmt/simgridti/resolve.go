package simgridti

import "github.com/tracesim/tracesim/tracefmt"

// resolveWildcards gives every wildcard receive (MPI_ANY_SOURCE, and
// MPI_ANY_TAG) the source and tag of the send it receives, so that the
// trace's messages stay matched.
//
// A TI trace does not say which sender a wildcard receive got. The reader
// decides it deterministically with a zero-latency replay of the trace's
// order: sends are eager (posted at once, never blocking), a receive takes
// the earliest posted send it accepts, or waits posted until one arrives
// (receives posted earlier get a new message first), blocking receives and
// waits on receive requests block until their message arrived, tests never
// block, and collectives synchronise their ranks. The pairs chosen respect
// MPI's non-overtaking rule, so tracefmt.MatchMessages pairs the resolved
// receives with the same sends. When the replay cannot progress (a receive
// no send matches, ranks missing from a collective), the lowest blocked
// rank is let through; a wildcard receive that never matched keeps the
// receiving rank itself as its source and stays unmatched.
func resolveWildcards(ranks []*rankState, P int) {
	s := sweep{
		ev:        make([][]tracefmt.Event, P),
		pos:       make([]int, P),
		posted:    make([]int, P),
		reqRecv:   make([][]int32, P),
		waiting:   make([][]int32, P),
		arrivals:  make([]arrivalQueue, P),
		pending:   make([][]int32, P),
		colls:     make([]int, P),
		inColl:    make([]bool, P),
		collReg:   make([]bool, P),
		queued:    make([]bool, P),
		collWaits: map[int][]int{},
	}
	for r, rs := range ranks {
		if r < P && rs != nil {
			s.ev[r] = rs.events
			s.reqRecv[r] = make([]int32, rs.nextReq+1)
		}
	}
	for r := range P {
		s.posted[r] = -1
		for i := range s.ev[r] {
			e := &s.ev[r][i]
			if !e.IsP2P() {
				continue // an action state's enter and leave keep their pairing
			}
			e.Match = -1
			if e.Kind == tracefmt.KindRecv && e.Request() > 0 {
				s.reqRecv[r][e.Request()] = int32(i) + 1 // 0 means "a send request"
			}
		}
		s.wake(r)
	}
	s.run()
	for r := range P {
		for i := range s.ev[r] {
			e := &s.ev[r][i]
			if e.Kind == tracefmt.KindRecv && e.Flags&(tracefmt.FlagAnySource|tracefmt.FlagAnyTag) != 0 && e.Match < 0 {
				if e.Flags&tracefmt.FlagAnySource != 0 {
					e.Peer = int32(r)
				}
			}
			if e.IsP2P() {
				e.Match = -1
			}
		}
	}
}

// arrival is a send posted to a rank and not yet received.
type arrival struct {
	src, idx, tag int32
	taken         bool
}

type arrivalQueue struct {
	items []arrival
	head  int
}

type sweep struct {
	ev  [][]tracefmt.Event
	pos []int
	// posted is the index of a blocking receive already posted while its
	// rank waits for it.
	posted  []int
	reqRecv [][]int32 // request id → receive index + 1 (0: a send request)
	// waiting lists the non-blocking receives posted and not yet waited,
	// for waitall.
	waiting  [][]int32
	arrivals []arrivalQueue
	pending  [][]int32 // receives posted and not matched, in post order
	// colls counts the collectives each rank passed; inColl marks a rank
	// counted as arrived at its next one, collReg one registered in
	// collWaits to be woken when it completes.
	colls     []int
	inColl    []bool
	collReg   []bool
	arrived   []int
	released  []bool
	collWaits map[int][]int
	// queue holds the ranks to run, each at most once (queued).
	queue  []int
	queued []bool
}

func accepts(e *tracefmt.Event, src int32, tag int32) bool {
	return (e.Flags&tracefmt.FlagAnySource != 0 || e.Peer == src) && (e.Flags&tracefmt.FlagAnyTag != 0 || e.Tag == tag)
}

func (s *sweep) match(r int, ri int32, src int32, si int32) {
	e := &s.ev[r][ri]
	send := &s.ev[src][si]
	e.Match = si
	if e.Flags&tracefmt.FlagAnySource != 0 {
		e.Peer = src
	}
	if e.Flags&tracefmt.FlagAnyTag != 0 {
		e.Tag = send.Tag
	}
}

// postSend delivers send si of rank r to its destination.
func (s *sweep) postSend(r int, si int32) {
	e := &s.ev[r][si]
	d := int(e.Peer)
	for k, ri := range s.pending[d] {
		if accepts(&s.ev[d][ri], int32(r), e.Tag) {
			s.pending[d] = append(s.pending[d][:k], s.pending[d][k+1:]...)
			s.match(d, ri, int32(r), si)
			s.wake(d)
			return
		}
	}
	s.arrivals[d].items = append(s.arrivals[d].items, arrival{src: int32(r), idx: si, tag: e.Tag})
}

// postRecv posts receive ri of rank r: it takes the earliest arrived send
// it accepts, or waits among the pending receives.
func (s *sweep) postRecv(r int, ri int32) {
	q := &s.arrivals[r]
	e := &s.ev[r][ri]
	for k := q.head; k < len(q.items); k++ {
		a := &q.items[k]
		if !a.taken && accepts(e, a.src, a.tag) {
			a.taken = true
			s.match(r, ri, a.src, a.idx)
			for q.head < len(q.items) && q.items[q.head].taken {
				q.head++
			}
			return
		}
	}
	s.pending[r] = append(s.pending[r], ri)
}

// wake schedules rank r to run (again); running a rank that is still
// blocked only re-checks what it waits for.
func (s *sweep) wake(r int) {
	if !s.queued[r] {
		s.queued[r] = true
		s.queue = append(s.queue, r)
	}
}

func (s *sweep) run() {
	for {
		for len(s.queue) > 0 {
			r := s.queue[0]
			s.queue = s.queue[1:]
			s.queued[r] = false
			s.advance(r)
		}
		// Nothing can progress: let the lowest blocked rank through.
		forced := false
		for r := range s.ev {
			if s.pos[r] < len(s.ev[r]) {
				s.force(r)
				forced = true
				break
			}
		}
		if !forced {
			return
		}
	}
}

// force moves rank r past the operation it is blocked on.
func (s *sweep) force(r int) {
	e := &s.ev[r][s.pos[r]]
	switch e.Kind {
	case tracefmt.KindCollective:
		k := s.colls[r]
		s.released[k] = true
		s.wakeColl(k)
	case tracefmt.KindWait:
		s.completeWait(r, e)
		s.pos[r]++
	default:
		// A blocking receive stays posted: a later send may still
		// match it, in order.
		s.posted[r] = -1
		s.pos[r]++
	}
	s.wake(r)
}

func (s *sweep) wakeColl(k int) {
	for _, w := range s.collWaits[k] {
		s.collReg[w] = false
		s.wake(w)
	}
	delete(s.collWaits, k)
}

func (s *sweep) completeWait(r int, e *tracefmt.Event) {
	if e.Flags&tracefmt.FlagAll != 0 {
		s.waiting[r] = s.waiting[r][:0]
		return
	}
	if ri := s.recvOf(r, e.Request()); ri >= 0 {
		for k, x := range s.waiting[r] {
			if x == ri {
				s.waiting[r] = append(s.waiting[r][:k], s.waiting[r][k+1:]...)
				break
			}
		}
	}
}

func (s *sweep) recvOf(r int, req int64) int32 {
	if req <= 0 || req >= int64(len(s.reqRecv[r])) {
		return -1
	}
	return s.reqRecv[r][req] - 1
}

// advance runs rank r until it blocks or ends.
func (s *sweep) advance(r int) {
	ev := s.ev[r]
	for s.pos[r] < len(ev) {
		i := s.pos[r]
		e := &ev[i]
		switch e.Kind {
		case tracefmt.KindSend:
			s.postSend(r, int32(i))
		case tracefmt.KindRecv:
			if e.Flags&tracefmt.FlagNonBlocking != 0 {
				s.postRecv(r, int32(i))
				s.waiting[r] = append(s.waiting[r], int32(i))
				break
			}
			if s.posted[r] != i {
				s.posted[r] = i
				s.postRecv(r, int32(i))
			}
			if e.Match < 0 {
				return
			}
			s.posted[r] = -1
		case tracefmt.KindWait:
			if e.Flags&tracefmt.FlagTest == 0 && !s.waitDone(r, e) {
				return
			}
			s.completeWait(r, e)
		case tracefmt.KindCollective:
			if !s.collDone(r) {
				return
			}
			s.colls[r]++
			s.inColl[r] = false
		}
		s.pos[r]++
	}
}

func (s *sweep) waitDone(r int, e *tracefmt.Event) bool {
	if e.Flags&tracefmt.FlagAll != 0 {
		for _, ri := range s.waiting[r] {
			if s.ev[r][ri].Match < 0 {
				return false
			}
		}
		return true
	}
	ri := s.recvOf(r, e.Request())
	return ri < 0 || s.ev[r][ri].Match >= 0
}

// collDone counts rank r as arrived at its next collective and reports
// whether every rank has.
func (s *sweep) collDone(r int) bool {
	k := s.colls[r]
	for len(s.arrived) <= k {
		s.arrived = append(s.arrived, 0)
		s.released = append(s.released, false)
	}
	if !s.inColl[r] {
		s.inColl[r] = true
		s.arrived[k]++
		if s.arrived[k] == len(s.ev) {
			s.wakeColl(k)
		}
	}
	done := s.released[k] || s.arrived[k] == len(s.ev)
	if !done && !s.collReg[r] {
		s.collReg[r] = true
		s.collWaits[k] = append(s.collWaits[k], r)
	}
	return done
}
