package replay

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt"
)

// When a send completes.
const (
	doneAtIssue    uint8 = iota // buffered: at once
	doneAtDelivery              // no space: when the data has arrived
	doneAtRecv                  // synchronous: when the receive completes
)

// What a message's current trip through the network carries.
const (
	phNone uint8 = iota
	phData
	phRTS
	phCTS
)

// message is a message between two ranks, from its send until both of
// its ends have completed.
//
// It takes 64 bytes, one cache line of the message table (whose array
// starts on a page): at 65,536 ranks of a stencil, 261,120 messages are
// in flight at once, 23 MiB at 88 bytes, and every message touched two
// lines at each of its steps (issue, arrival, match, completion). What
// only records need is in msgRecord, kept only while recording; the
// reasons a message stays allocated are bits of waits.
type message struct {
	size     int64
	tSend    des.Time
	visSeq   uint64
	src, dst int32
	tag      int32
	recvOp   int32
	sendEv   int32
	next     int32
	seq      uint32
	comm     uint16
	coll     bool
	netPhase uint8
	complete uint8
	// waits holds the waitHeld, waitCall, waitSend and waitInject bits:
	// what still refers to the message besides its two ends.
	waits      uint8
	dataAtSend bool
	dataSent   bool
	delivered  bool
	sendDone   bool
	recvDone   bool
	live       bool
}

// Bits of message.waits.
const (
	// waitHeld: a request names the message (a non-blocking send).
	waitHeld uint8 = 1 << iota
	// waitCall: the current call of its sender waits for it (a blocking
	// send); the sender's callPending counts it.
	waitCall
	// waitSend: its sender waits for its completion (a wait).
	waitSend
	// waitInject: its sender waits for its injection (inject mode).
	waitInject
)

// msgRecord is what the records of a message need (Options.RecordTrace,
// Options.RecordMessages), by message id in Sim.msgRecs.
type msgRecord struct {
	tMatch, tDeliver des.Time
	// outSend is the index of the send in the simulated run (-1: none).
	outSend int32
}

// opRecord is what the simulated run's record of a receive needs of its
// message, kept for the records after the message is freed
// (Options.RecordTrace), by receive id in Sim.opRecs.
type opRecord struct {
	mSize int64
	mSrc  int32
	mTag  int32
	mOut  int32
}

// opRec returns the record of receive op id, while recording the run.
func (s *Sim) opRec(id int32) *opRecord {
	if int(id) >= len(s.opRecs) {
		s.opRecs = append(s.opRecs, make([]opRecord, int(id)+1-len(s.opRecs))...)
	}
	return &s.opRecs[id]
}

// recording reports whether messages keep a msgRecord.
func (s *Sim) recording() bool { return s.rec != nil || s.opts.RecordMessages }

// msgRec returns the record of message id, while recording.
func (s *Sim) msgRec(id int32) *msgRecord {
	if int(id) >= len(s.msgRecs) {
		s.msgRecs = append(s.msgRecs, make([]msgRecord, int(id)+1-len(s.msgRecs))...)
	}
	return &s.msgRecs[id]
}

// recvOp is a posted receive.
//
// It takes 40 bytes, not 80: what the records need of its message is in
// opRecord, kept only while recording the simulated run, the time it
// was posted, which nothing read, is gone, and its seven bools are bits
// of flags. At 65,536 ranks of a stencil 261,120 receives are posted at
// once (20 MiB -> 10 MiB), each touched at its post, match and
// completion.
type recvOp struct {
	postSeq  uint64
	rank     int32
	src      int32
	recorded int32
	tag      int32
	ev       int32
	msg      int32
	next     int32
	comm     uint16
	// flags holds the opColl, opAnySrc, opAnyTag, opDone, opWaiter,
	// opHeld and opLive bits (seven bools took 40 bytes to 48).
	flags opFlags
}

// opFlags are a receive's bits.
type opFlags uint8

// Bits of recvOp.flags.
const (
	// opColl: the receive belongs to an expanded collective.
	opColl opFlags = 1 << iota
	// opAnySrc, opAnyTag: a wildcard receive (AnyFree).
	opAnySrc
	opAnyTag
	// opDone: its message has arrived.
	opDone
	// opWaiter: its rank waits for it.
	opWaiter
	// opHeld: a request names it.
	opHeld
	// opLive: allocated.
	opLive
)

func (o *recvOp) coll() bool   { return o.flags&opColl != 0 }
func (o *recvOp) anySrc() bool { return o.flags&opAnySrc != 0 }
func (o *recvOp) anyTag() bool { return o.flags&opAnyTag != 0 }
func (o *recvOp) done() bool   { return o.flags&opDone != 0 }
func (o *recvOp) waiter() bool { return o.flags&opWaiter != 0 }
func (o *recvOp) held() bool   { return o.flags&opHeld != 0 }
func (o *recvOp) live() bool   { return o.flags&opLive != 0 }

// set sets or clears bit f.
func (o *recvOp) set(f opFlags, on bool) {
	if on {
		o.flags |= f
	} else {
		o.flags &^= f
	}
}

// A receive matches on a context (the communicator, and whether the
// message belongs to an expanded collective) and, within it, on a key
// packing the source and the tag.
func matchKey(src, tag int32) uint64 { return uint64(uint32(src))<<32 | uint64(uint32(tag)) }

func ctxOf(comm uint16, coll bool) int {
	c := int(comm) * 2
	if coll {
		c++
	}
	return c
}

// fifo is a queue of message or operation ids.
type fifo struct {
	items []int32
	head  int
}

func (f *fifo) len() int     { return len(f.items) - f.head }
func (f *fifo) push(x int32) { f.items = append(f.items, x) }
func (f *fifo) pop() int32 {
	x := f.items[f.head]
	f.head++
	if f.head == len(f.items) {
		f.items, f.head = f.items[:0], 0
	}
	return x
}

// rankQueues are a rank's posted receives and unexpected messages, by
// context.
type rankQueues struct {
	ctx []ctxQueues
}

// ctxQueues are the posted receives (exact ones by key, wildcard ones in
// post order) and the unexpected messages of one context.
type ctxQueues struct {
	// nkeys is how many keys the context has used; the first
	// smallKeys of them sit in keys and kqs, the others in more. One
	// lookup finds both the exact receives posted and the messages that
	// arrived unexpected. The queues of the first keys are held inline:
	// allocated apart (with arrays of their own for the ids), a match
	// at 65,536 ranks took a cache miss on the key's queues and another
	// on their array, on top of the context's.
	nkeys int32
	keys  [smallKeys]uint64
	kqs   [smallKeys]keyQueues
	more  map[uint64]*keyQueues
	wild  []int32
	// coll replaces the keys in the context of expanded collectives,
	// whose receives are exact; nil until the context's first use (a
	// point-to-point context never has it; the world communicator's are
	// in Sim.worldColl). Held inline, it would have enlarged every
	// context, and every rank has two: at 65,536 ranks of few events
	// each, the memory first touched is what the replay's cost per event
	// grows with.
	coll *collQueue
}

// colls returns q's collective queue, creating it.
func (q *ctxQueues) colls(a *allocs) *collQueue {
	if q.coll == nil {
		q.coll = a.colls.one()
	}
	return q.coll
}

// smallKeys is how many keys of a context are found by scanning an array
// rather than hashing. A rank receives from a few peers (a 2-D stencil's
// four); a map per rank and context cost a lookup through its header and
// groups on every message, the map's memory scattered across the heap, so
// that at 4,096 ranks it was mostly cache misses.
const smallKeys = 4

// keyQueues are the posted receives and unexpected messages of one key.
// A key stays in its context once used: point-to-point keys are bounded
// by the trace's peers and tags.
type keyQueues struct {
	posted idList // receive ops, linked through recvOp.next
	unexp  idList // messages, linked through message.next
}

// idList is a queue of message or receive ids linked through their next
// fields (which the free lists use only once an id is no longer live):
// a message waits in at most one unexpected queue, a receive in at most
// one posted queue. head and tail hold id+1, so that the zero list is
// empty. A queue of its own array cost a cache miss on the array at
// every match, the id then read costing another.
type idList struct {
	head, tail int32
}

func (l *idList) empty() bool  { return l.head == 0 }
func (l *idList) first() int32 { return l.head - 1 }

// pushMsg appends message id to l.
func (s *Sim) pushMsg(l *idList, id int32) {
	s.msgs[id].next = -1
	if l.head == 0 {
		l.head = id + 1
	} else {
		s.msgs[l.tail-1].next = id
	}
	l.tail = id + 1
}

// popMsg removes and returns l's first message.
func (s *Sim) popMsg(l *idList) int32 {
	id := l.head - 1
	if nx := s.msgs[id].next; nx >= 0 {
		l.head = nx + 1
	} else {
		l.head, l.tail = 0, 0
	}
	return id
}

// pushOp appends receive op id to l.
func (s *Sim) pushOp(l *idList, id int32) {
	s.ops[id].next = -1
	if l.head == 0 {
		l.head = id + 1
	} else {
		s.ops[l.tail-1].next = id
	}
	l.tail = id + 1
}

// popOp removes and returns l's first receive op.
func (s *Sim) popOp(l *idList) int32 {
	id := l.head - 1
	if nx := s.ops[id].next; nx >= 0 {
		l.head = nx + 1
	} else {
		l.head, l.tail = 0, 0
	}
	return id
}

// countMsgs returns how many messages l holds.
func (s *Sim) countMsgs(l *idList) int {
	n := 0
	for id := l.head - 1; id >= 0; id = s.msgs[id].next {
		n++
	}
	return n
}

// find returns the queues of key k in q, or nil.
func (q *ctxQueues) find(k uint64) *keyQueues {
	n := min(int(q.nkeys), smallKeys)
	for i := range n {
		if q.keys[i] == k {
			return &q.kqs[i]
		}
	}
	if q.more == nil {
		return nil
	}
	return q.more[k]
}

// key returns the queues of key k in q, creating them.
func (q *ctxQueues) key(k uint64, a *allocs) *keyQueues {
	if kq := q.find(k); kq != nil {
		return kq
	}
	var kq *keyQueues
	if q.nkeys < smallKeys {
		q.keys[q.nkeys] = k
		kq = &q.kqs[q.nkeys]
	} else {
		if q.more == nil {
			q.more = map[uint64]*keyQueues{}
		}
		kq = a.keys.one()
		q.more[k] = kq
	}
	q.nkeys++
	return kq
}

// each calls f with the queues of every key of q, in no particular order.
func (q *ctxQueues) each(f func(*keyQueues)) {
	for i := range min(int(q.nkeys), smallKeys) {
		f(&q.kqs[i])
	}
	for _, kq := range q.more {
		f(kq)
	}
}

// of returns the queues of context c, creating them; a rank's first
// context, its point-to-point messages on the world communicator (the
// only one most ranks use: the world's collectives are in
// Sim.worldColl), comes from the run's slab first (nil: none). The slab
// is an argument rather than a pointer kept by every rank: 65,536
// copies of one pointer were 512 KiB for the collector to scan. Two
// contexts a rank (that of the world's collectives beside it) were 144
// bytes a rank left untouched but interleaved with the used ones, so
// first touched all the same (9 MiB at 65,536 ranks).
func (q *rankQueues) of(c int, first *slab[ctxQueues]) *ctxQueues {
	if c >= len(q.ctx) {
		if first != nil && c == 0 && cap(q.ctx) == 0 {
			q.ctx = first.take(1)
		}
		q.ctx = append(q.ctx, make([]ctxQueues, c+1-len(q.ctx))...)
	}
	return &q.ctx[c]
}

func (s *Sim) newFifo() *fifo {
	if n := len(s.fifos); n > 0 {
		f := s.fifos[n-1]
		s.fifos = s.fifos[:n-1]
		return f
	}
	return &fifo{}
}

// pair returns the sequence counters of messages from src to dst: the
// number sent in the high 32 bits, the next to become visible in the low
// ones. Small worlds keep them in a dense matrix.
func (s *Sim) pair(src, dst int32) *uint64 {
	if s.densePairs != nil {
		return &s.densePairs[int(src)*len(s.ranks)+int(dst)]
	}
	return s.pairs.at(src, dst)
}

// countSend counts a message sent from src to dst and returns its
// sequence number within the pair.
func (s *Sim) countSend(src, dst int32) uint32 {
	pv := s.pair(src, dst)
	seq := uint32(*pv >> 32)
	if s.densePairs != nil && seq == uint32(*pv) {
		s.denseFrom[src]++ // the pair's first message not yet visible
	}
	*pv += 1 << 32
	return seq
}

func (s *Sim) allocMsg() int32 {
	if s.freeMsg >= 0 {
		id := s.freeMsg
		s.freeMsg = s.msgs[id].next
		return id
	}
	s.msgs = append(s.msgs, message{})
	return int32(len(s.msgs) - 1)
}

func (s *Sim) allocOp() int32 {
	if s.freeOp >= 0 {
		id := s.freeOp
		s.freeOp = s.ops[id].next
		return id
	}
	s.ops = append(s.ops, recvOp{})
	return int32(len(s.ops) - 1)
}

// maybeFree returns message id to the free list once nothing refers to
// it.
func (s *Sim) maybeFree(id int32) {
	m := &s.msgs[id]
	if !m.live || m.waits != 0 {
		return
	}
	if s.mode() == Inject {
		if !m.delivered {
			return
		}
	} else if !m.sendDone || !m.recvDone {
		return
	}
	// Every allocation writes the whole message, and every walk over
	// s.msgs skips those not live: no need to clear the rest.
	m.live, m.next = false, s.freeMsg
	s.freeMsg = id
}

func (s *Sim) freeOpID(id int32) {
	o := &s.ops[id]
	if !o.live() || o.held() {
		return
	}
	// As for messages: post writes the whole op.
	o.flags &^= opLive
	o.next = s.freeOp
	s.freeOp = id
}

// issue starts a send from rank r. bind says what waits for it; req is
// the request id of a bindReq send (0 for an anonymous one).
func (s *Sim) issue(r int32, rk *rank, dst, tag int32, comm uint16, coll bool, size int64, sync bool, ev int32, bind sendBinding, req int64) int32 {
	id := s.allocMsg()
	m := &s.msgs[id]
	now := s.k.Now()
	*m = message{
		size: size, tSend: now, src: r, dst: dst, tag: tag, comm: comm, coll: coll,
		recvOp: -1, sendEv: ev, next: -1, live: true,
	}
	rk.sent++
	rk.sentB += size
	if s.recording() {
		*s.msgRec(id) = msgRecord{outSend: s.recSend(rk, m)}
		m = &s.msgs[id]
	}
	switch bind {
	case bindInject:
		m.dataAtSend = true
		m.waits |= waitInject
		rk.block++
		s.sendNet(id, r, dst, size, phData, true)
		return id
	case bindCall:
		m.waits |= waitCall
		rk.callPending++
	case bindReq:
		m.waits |= waitHeld
		s.addReq(rk, request{id: req, idx: id})
	}
	// Protocol.
	m.dataAtSend, m.complete = s.protocol(size, sync)
	if m.complete == doneAtDelivery && !coll && s.recBuffered != nil && s.isRecordedBuffered(r, ev) {
		m.complete = doneAtIssue // the recorded run's MPI buffered it
		m.dataAtSend = !s.atMatch
	}
	m.seq = s.countSend(r, dst)
	if m.complete == doneAtIssue {
		s.sendDone(id)
	}
	switch {
	case m.dataAtSend:
		m.dataSent = true
		s.sendNet(id, r, dst, size, phData, false)
	case s.cfg.Handshake == HandshakeRTSCTS:
		s.sendNet(id, r, dst, 0, phRTS, false)
	default:
		s.arrive(id)
	}
	return id
}

// protocol returns whether a send's data leaves with it and when it
// completes.
func (s *Sim) protocol(size int64, sync bool) (dataAtSend bool, complete uint8) {
	eager := !s.atMatch
	switch s.cfg.Send {
	case SendBuffered:
		return eager, doneAtIssue
	case SendSynchronous:
		return eager, doneAtRecv
	case SendNoSpace:
		return eager, doneAtDelivery
	}
	if size >= s.threshold {
		return false, doneAtDelivery
	}
	if sync {
		return eager, doneAtRecv
	}
	return eager, doneAtIssue
}

func (s *Sim) sendNet(id, src, dst int32, size int64, phase uint8, notify bool) {
	m := &s.msgs[id]
	m.netPhase = phase
	s.stats.inFlight++
	s.net.Send(netmodel.Message{ID: id, Src: s.nodeOf[src], Dst: s.nodeOf[dst], Bytes: size, NotifyInjected: notify})
}

// delivered is the network's report that message id's current trip
// ended.
func (s *Sim) delivered(id int32) {
	m := &s.msgs[id]
	s.stats.inFlight--
	now := s.k.Now()
	switch m.netPhase {
	case phRTS:
		m.netPhase = phNone
		s.arrive(id)
		return
	case phCTS:
		s.sendNet(id, m.src, m.dst, m.size, phData, false)
		return
	}
	m.netPhase = phNone
	m.delivered = true
	if s.recording() {
		s.msgRec(id).tDeliver = now
	}
	s.stats.latency.add(now - m.tSend)
	s.stats.lastDeliver = max(s.stats.lastDeliver, now)
	if s.mode() == Inject {
		s.stats.messages++
		s.stats.bytes += m.size
		s.record(id, -1)
		s.maybeFree(id)
		return
	}
	if m.complete == doneAtDelivery {
		s.sendDone(id)
	}
	if m.recvOp >= 0 {
		s.completeRecv(m.recvOp)
		return
	}
	s.arrive(id)
}

// injected is the network's report that message id left its source.
func (s *Sim) injected(id int32) {
	m := &s.msgs[id]
	if m.waits&waitInject != 0 {
		m.waits &^= waitInject
		s.unblock(m.src)
	}
	s.maybeFree(id)
}

// arrive makes a message's envelope known at its destination, in the
// order of the pair's sends (MPI's non-overtaking rule).
func (s *Sim) arrive(id int32) {
	// visible may complete and free the message: keep its ends.
	m := &s.msgs[id]
	src, dst := m.src, m.dst
	k := uint64(uint32(src))<<32 | uint64(uint32(dst))
	pv := s.pair(src, dst)
	next := uint32(*pv)
	if m.seq != next {
		s.held[k] = append(s.held[k], id)
		s.nHeld++
		return
	}
	s.visible(id)
	next++
	for s.nHeld > 0 {
		h := s.held[k]
		if len(h) == 0 {
			break
		}
		found := false
		for i, x := range h {
			if s.msgs[x].seq == next {
				h = append(h[:i], h[i+1:]...)
				if len(h) == 0 {
					delete(s.held, k)
				} else {
					s.held[k] = h
				}
				s.nHeld--
				s.visible(x)
				next++
				found = true
				break
			}
		}
		if !found {
			break
		}
	}
	pv = s.pair(src, dst)
	*pv = *pv&^0xffffffff | uint64(next)
	if uint32(*pv>>32) == next {
		// Nothing of the pair in flight: forget it.
		if s.densePairs != nil {
			s.denseFrom[src]--
		} else {
			s.pairs.remove(src, dst)
		}
	}
}

// visible matches a message with the earliest posted receive that
// accepts it, or files it as unexpected.
func (s *Sim) visible(id int32) {
	m := &s.msgs[id]
	s.visSeq++
	m.visSeq = s.visSeq
	key := matchKey(m.src, m.tag)
	if m.coll {
		cq := s.collQ(m.dst, m.comm)
		if o := s.collTake(cq, key, false); o >= 0 {
			s.match(id, o)
		} else {
			s.collPush(cq, key, id, true)
		}
		return
	}
	q := s.queues[m.dst].of(ctxOf(m.comm, false), &s.alloc.ctxs)
	kq := q.find(key)
	best := int32(-1)
	exact := false
	if kq != nil && !kq.posted.empty() {
		best, exact = kq.posted.first(), true
	}
	wi := -1
	for i, w := range q.wild {
		if s.accepts(&s.ops[w], m) {
			if best < 0 || s.ops[w].postSeq < s.ops[best].postSeq {
				best, exact, wi = w, false, i
			}
			break
		}
	}
	if best >= 0 {
		if exact {
			s.popOp(&kq.posted)
		} else {
			q.wild = append(q.wild[:wi], q.wild[wi+1:]...)
		}
		s.match(id, best)
		return
	}
	if kq == nil {
		kq = q.key(key, &s.alloc)
	}
	s.pushMsg(&kq.unexp, id)
}

// accepts reports whether wildcard receive o accepts message m.
func (s *Sim) accepts(o *recvOp, m *message) bool {
	return o.comm == m.comm && o.coll() == m.coll &&
		(o.anySrc() || o.src == m.src) && (o.anyTag() || o.tag == m.tag)
}

// post posts a receive on rank r and matches it with the earliest
// unexpected message it accepts.
func (s *Sim) post(r, src, tag int32, comm uint16, coll bool, flags tracefmt.Flags, ev int32) int32 {
	id := s.allocOp()
	o := &s.ops[id]
	s.postSeq++
	*o = recvOp{
		postSeq: s.postSeq, rank: r, src: src, recorded: src, tag: tag,
		ev: ev, msg: -1, next: -1, comm: comm, flags: opLive,
	}
	if coll {
		o.flags |= opColl
	}
	if s.cfg.AnySource == AnyFree && !coll {
		o.set(opAnySrc, flags.Has(tracefmt.FlagAnySource))
		o.set(opAnyTag, flags.Has(tracefmt.FlagAnyTag))
	}
	key := matchKey(src, tag)
	if coll {
		cq := s.collQ(r, comm)
		if m := s.collTake(cq, key, true); m >= 0 {
			s.match(m, id)
		} else {
			s.collPush(cq, key, id, false)
		}
		return id
	}
	q := s.queues[r].of(ctxOf(comm, false), &s.alloc.ctxs)
	if !o.anySrc() && !o.anyTag() {
		kq := q.key(key, &s.alloc)
		if !kq.unexp.empty() {
			s.match(s.popMsg(&kq.unexp), id)
			return id
		}
		s.pushOp(&kq.posted, id)
		return id
	}
	var bestQ *keyQueues
	best := uint64(math.MaxUint64)
	// The earliest visible message is the same in any order of the
	// keys: visSeq numbers are unique.
	q.each(func(kq *keyQueues) {
		if kq.unexp.empty() {
			return
		}
		m := &s.msgs[kq.unexp.first()]
		if s.accepts(o, m) && m.visSeq < best {
			best, bestQ = m.visSeq, kq
		}
	})
	if bestQ != nil {
		s.match(s.popMsg(&bestQ.unexp), id)
		return id
	}
	q.wild = append(q.wild, id)
	return id
}

// match pairs message mid with receive oid.
func (s *Sim) match(mid, oid int32) {
	m := &s.msgs[mid]
	o := &s.ops[oid]
	m.recvOp, o.msg = oid, mid
	if s.recording() {
		s.msgRec(mid).tMatch = s.k.Now()
		m = &s.msgs[mid]
	}
	// A negative recorded sender is none (a streamed SimGrid -555):
	// nothing to be inconsistent with.
	if o.anySrc() && m.src != o.recorded && !m.coll && o.recorded >= 0 {
		s.wildcardMismatch(o, m)
	}
	if m.delivered {
		s.completeRecv(oid)
		return
	}
	if !m.dataSent {
		m.dataSent = true
		if s.cfg.Handshake == HandshakeRTSCTS {
			s.sendNet(mid, m.dst, m.src, 0, phCTS, false)
		} else {
			s.sendNet(mid, m.src, m.dst, m.size, phData, false)
		}
	}
}

// completeRecv completes receive oid, whose message has arrived.
func (s *Sim) completeRecv(oid int32) {
	o := &s.ops[oid]
	m := &s.msgs[o.msg]
	o.flags |= opDone
	if s.rec != nil {
		*s.opRec(oid) = opRecord{mSize: m.size, mSrc: m.src, mTag: m.tag, mOut: s.msgRec(o.msg).outSend}
		o, m = &s.ops[oid], &s.msgs[o.msg]
	}
	m.recvDone = true
	rk := &s.ranks[o.rank]
	rk.recvd++
	rk.recvdB += m.size
	s.stats.messages++
	s.stats.bytes += m.size
	if s.ovh != nil {
		rk.pendingOvh += s.ovh.RecvOverhead(m.size)
	}
	s.record(o.msg, o.ev)
	mid := o.msg
	if m.complete == doneAtRecv {
		s.sendDone(mid)
	}
	if o.waiter() {
		o.flags &^= opWaiter
		s.unblock(o.rank)
	}
	s.maybeFree(mid)
}

// sendDone completes the send of message id.
func (s *Sim) sendDone(id int32) {
	m := &s.msgs[id]
	if m.sendDone {
		return
	}
	m.sendDone = true
	rk := &s.ranks[m.src]
	if m.waits&waitCall != 0 {
		m.waits &^= waitCall
		rk.callPending--
		if rk.waitCall {
			s.unblock(m.src)
		}
	}
	if m.waits&waitSend != 0 {
		m.waits &^= waitSend
		s.unblock(m.src)
	}
	s.maybeFree(id)
}
