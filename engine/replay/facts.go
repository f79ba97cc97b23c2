package replay

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
)

// A trace in memory tells the replay, before its first event, what only
// the whole trace knows (scanTrace): whether it has compute events
// (--cpu-from auto), its recorded span and parts, the sends its recorded
// run buffered (--send recorded), and how many messages to make room
// for. A streamed trace whose source can read it once ahead (a
// Prescanner: tsim.Source) hands the same facts over in Facts, found by
// ScanFacts in one pass over the file in its order, with memory bounded
// by the ranks and the messages in flight in that order.

// Prescanner is a tracefmt.Source that can read its whole trace once
// before any ReadRank, calling fn with runs of one rank's events in the
// order of its file (each rank's events in their order, first the index
// of ev[0] in the rank's stream), leaves with the index of the enter
// they close as Match (-1: none), enters and messages with Match -1. fn
// may read Header, whose States hold those defined so far.
type Prescanner interface {
	tracefmt.Source
	Prescan(fn func(rank int, first int32, ev []tracefmt.Event) error) error
}

// Facts are the facts of a whole trace a streamed replay needs before
// its first event (see ScanFacts); Options.Facts hands them over.
type Facts struct {
	hasCompute     bool
	timed          bool
	spanLo, spanHi float64
	parts          *RecordedParts
	recBuffered    []bufferedSend
	inFlight       int
	posted         int
	senders        int
	totalEvents    uint64
	// The settings the buffered sends were found for.
	findBuffered bool
	threshold    int64
}

// ScanFacts reads src's trace once (Prescan) and returns the facts a
// replay under cfg needs: with them, NewSource gives the results New
// gives for the trace read whole. It must be called before src is read
// otherwise. It stops with ctx's error when ctx is done.
func ScanFacts(ctx context.Context, src Prescanner, cfg Config) (*Facts, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	h := src.Header()
	if h == nil || h.Size() == 0 {
		return nil, fmt.Errorf("replay: the trace has no ranks")
	}
	fs := &factScan{
		ctx:       ctx,
		h:         h,
		threshold: cfg.Threshold(),
		find:      cfg.Send == SendRecorded && cfg.Mode != Inject && h.Timed,
		lo:        math.Inf(1), hi: math.Inf(-1),
		ranks: make([]rankFacts, h.Size()),
	}
	if err := src.Prescan(fs.run); err != nil {
		return nil, err
	}
	return fs.facts(), nil
}

// factScan is the state of ScanFacts' pass.
type factScan struct {
	ctx       context.Context
	h         *tracefmt.Trace
	class     []stateClass
	part      []uint8
	threshold int64
	find      bool
	lo, hi    float64
	compute   bool
	total     uint64
	ranks     []rankFacts
	runs      int
	chans     chanTable
	cands     []candidate
	free      []int32
	buffered  []bufferedSend
}

// rankFacts is a rank's part of the pass.
type rankFacts struct {
	n                   int32
	first, last         float64
	start, end          float64
	init                int32 // the latest MPI_Init enter left (-1: none)
	sends, recvs, colls int
	// open are the enters not yet left, counting every leave as closing
	// the latest (enclosingCall's walk back), within scanCall events.
	open []openCall
	// waiting maps an MPI_Send's enter to the candidates that wait for
	// its leave.
	waiting map[int32][]int32
}

type openCall struct {
	idx   int32
	state tracefmt.StateID
	time  float64
}

// chanID is a channel of MatchMessages: FIFO per communicator, source,
// destination and tag.
type chanID struct {
	src, dst int32
	tag      int32
	comm     uint16
}

// candidate is a blocking send sentEarly may find early: its call's
// leave and its receive's call are known once met (hasLeave, hasRecv;
// recv NaN when the receive is not in an MPI_Recv). Decided, its slot is
// reused (free): the candidates held are those in flight.
type candidate struct {
	send              bufferedSend
	leave, recv       float64
	hasLeave, hasRecv bool
}

// classes classifies the states defined so far (fs.class, fs.part), for
// a state beyond those classified.
func (fs *factScan) classes() {
	tmp := Sim{tr: fs.h}
	tmp.classifyStates()
	fs.class = tmp.class
	ps := newPartsScan(fs.h)
	fs.part = ps.kind
}

// run takes a run of rank r's events (Prescan's fn).
func (fs *factScan) run(r int, first int32, ev []tracefmt.Event) error {
	// A run is a rank's records in a block: a few events at many ranks.
	if fs.runs++; fs.runs&255 == 0 {
		if err := fs.ctx.Err(); err != nil {
			return err
		}
	}
	rf := &fs.ranks[r]
	if first != rf.n {
		return fmt.Errorf("replay: prescan gave rank %d's events from %d, expected %d", r, first, rf.n)
	}
	if rf.n == 0 && len(ev) > 0 {
		rf.first, rf.start, rf.init = ev[0].Time, ev[0].Time, -1
		rf.end = math.Inf(1)
	}
	for j := range ev {
		e := &ev[j]
		i := first + int32(j)
		if x := e.Time; x < fs.lo {
			fs.lo = x
		}
		if x := e.Time; x > fs.hi {
			fs.hi = x
		}
		switch e.Kind {
		case tracefmt.KindEnter:
			if int(e.State()) >= len(fs.class) {
				fs.classes()
			}
			if fs.part[e.State()] == partFinalize {
				rf.end = min(rf.end, e.Time)
			}
			if fs.find {
				rf.push(openCall{i, e.State(), e.Time})
			}
		case tracefmt.KindLeave:
			if int(e.State()) >= len(fs.class) {
				fs.classes()
			}
			if k := e.Match; k >= 0 {
				if fs.part[e.State()] == partInit && k > rf.init {
					rf.init, rf.start = k, e.Time
				}
				if len(rf.waiting) > 0 {
					fs.left(rf, k, e.Time)
				}
			}
			if fs.find && len(rf.open) > 0 {
				rf.open = rf.open[:len(rf.open)-1]
			}
		case tracefmt.KindCompute:
			fs.compute = true
		case tracefmt.KindCollective:
			rf.colls++
		case tracefmt.KindRecv:
			rf.recvs++
			if fs.find {
				fs.recv(r, i, e)
			}
		case tracefmt.KindSend:
			rf.sends++
			if fs.find {
				fs.send(r, i, e)
			}
		}
	}
	if len(ev) > 0 {
		rf.last = ev[len(ev)-1].Time
	}
	rf.n += int32(len(ev))
	fs.total += uint64(len(ev))
	return nil
}

// left notes the leave at t of rank rf's enter k: the candidates that
// wait for it know their call's end.
func (fs *factScan) left(rf *rankFacts, k int32, t float64) {
	if ids, ok := rf.waiting[k]; ok {
		for _, c := range ids {
			fs.cands[c].leave, fs.cands[c].hasLeave = t, true
			fs.decide(c)
		}
		delete(rf.waiting, k)
	}
}

// push opens an enter, keeping those within scanCall events.
func (rf *rankFacts) push(c openCall) {
	if len(rf.open) >= 4*scanCall {
		k := 0
		for k < len(rf.open) && rf.open[k].idx < c.idx-scanCall {
			k++
		}
		rf.open = rf.open[:copy(rf.open, rf.open[k:])]
	}
	rf.open = append(rf.open, c)
}

// call returns the innermost MPI call open at event i (enclosingCall).
func (fs *factScan) call(rf *rankFacts, i int32) (openCall, bool) {
	for k := len(rf.open) - 1; k >= 0 && rf.open[k].idx >= i-scanCall; k-- {
		if c := rf.open[k]; fs.class[c.state].mpi {
			return c, true
		}
	}
	return openCall{}, false
}

// send meets a send: a candidate when sentEarly could find it early.
func (fs *factScan) send(r int, i int32, e *tracefmt.Event) {
	cand := int32(-1)
	if e.Size >= fs.threshold && e.Peer >= 0 && int(e.Peer) < len(fs.ranks) &&
		!e.Flags.Has(tracefmt.FlagNonBlocking|tracefmt.FlagSync|tracefmt.FlagSendrecv) {
		rf := &fs.ranks[r]
		if c, ok := fs.call(rf, i); ok && fs.class[c.state].kind == callSend {
			cd := candidate{send: bufferedSend{rank: int32(r), ev: i, dst: e.Peer, size: e.Size}}
			if k := len(fs.free); k > 0 {
				cand = fs.free[k-1]
				fs.free = fs.free[:k-1]
				fs.cands[cand] = cd
			} else {
				cand = int32(len(fs.cands))
				fs.cands = append(fs.cands, cd)
			}
			if rf.waiting == nil {
				rf.waiting = map[int32][]int32{}
			}
			rf.waiting[c.idx] = append(rf.waiting[c.idx], cand)
		}
	}
	if t, ok := fs.chans.send(chanID{int32(r), e.Peer, e.Tag, e.Comm}, cand); ok && cand >= 0 {
		// Its receive came first.
		fs.received(cand, t)
	}
}

// recv meets a receive.
func (fs *factScan) recv(r int, i int32, e *tracefmt.Event) {
	t := math.NaN()
	if c, ok := fs.call(&fs.ranks[r], i); ok && fs.class[c.state].kind == callRecv {
		t = c.time
	}
	if c := fs.chans.recv(chanID{e.Peer, int32(r), e.Tag, e.Comm}, t); c >= 0 {
		fs.received(c, t)
	}
}

// received notes the receive of candidate c, in an MPI_Recv entered at
// t (NaN: none).
func (fs *factScan) received(c int32, t float64) {
	cd := &fs.cands[c]
	cd.recv, cd.hasRecv = t, true
	fs.decide(c)
}

// decide lists candidate c once both ends are known (an MPI_Send left
// before the MPI_Recv was entered: sentEarly), and frees its slot.
func (fs *factScan) decide(c int32) {
	cd := &fs.cands[c]
	if !cd.hasLeave || !cd.hasRecv {
		return
	}
	if cd.leave < cd.recv { // false when recv is NaN
		fs.buffered = append(fs.buffered, cd.send)
	}
	fs.free = append(fs.free, c)
}

// facts ends the pass.
func (fs *factScan) facts() *Facts {
	f := &Facts{hasCompute: fs.compute, timed: fs.h.Timed, totalEvents: fs.total,
		findBuffered: fs.find, threshold: fs.threshold}
	var parts *partsScan
	if fs.h.Timed {
		parts = newPartsScan(fs.h)
	}
	for r := range fs.ranks {
		rf := &fs.ranks[r]
		if rf.n == 0 {
			continue
		}
		if parts != nil {
			parts.start, parts.end = rf.start, min(rf.end, rf.last)
			parts.rankDone()
		}
		if rf.sends > 0 || rf.colls > 0 {
			f.senders = r + 1
		}
		f.inFlight += min(rf.sends, flightPerRank)
		f.posted += min(rf.recvs, flightPerRank)
	}
	if fs.h.Timed && fs.lo <= fs.hi {
		f.spanLo, f.spanHi = fs.lo, fs.hi
	}
	if parts != nil {
		f.parts = parts.parts(fs.h, f.spanLo, f.spanHi)
	}
	slices.SortFunc(fs.buffered, func(a, b bufferedSend) int {
		if a.rank != b.rank {
			return int(a.rank - b.rank)
		}
		return int(a.ev - b.ev)
	})
	f.recBuffered = fs.buffered
	return f
}

// useFacts sets what scanTrace sets for a trace in memory from the facts
// of a streamed one, and returns whether it has compute events.
func (s *Sim) useFacts(f *Facts) (bool, error) {
	find := s.cfg.Send == SendRecorded && s.cfg.Mode != Inject && s.tr.Timed
	if f.findBuffered != find || find && f.threshold != s.threshold || f.timed != s.tr.Timed {
		return false, fmt.Errorf("replay: the trace's facts were scanned for other settings (--send, --mode, --eager-threshold)")
	}
	s.spanLo, s.spanHi = f.spanLo, f.spanHi
	if f.parts != nil {
		p := *f.parts
		s.parts = &p
	}
	s.recBuffered = f.recBuffered
	if len(s.recBuffered) > 0 {
		s.notes = append(s.notes, recordedNote(len(s.recBuffered), s.threshold))
	}
	s.msgs = hugepage.Make[message](0, f.inFlight)
	s.ops = hugepage.Make[recvOp](0, f.posted)
	if s.densePairs == nil {
		s.pairs.reserve(f.senders)
	}
	s.stats.totalEvents = f.totalEvents
	return f.hasCompute, nil
}

// chanTable holds the channels with messages in flight in the file's
// order (sent != received), each with its ordinals and two FIFO lists:
// its candidate sends not yet received and the receives met before their
// send. A map of pointers to per-channel records cost a hash, a probe and
// an allocation per message, and the garbage of a record per settled
// channel (12 % of a streamed 65,536-rank stencil's CPU); the table is
// open addressing over one array of values, its lists linked through
// one array of items, neither holding a pointer: no allocation once
// grown, nothing for the garbage collector to scan.
type chanTable struct {
	// slots has a power-of-two length (0 before the first channel),
	// at most three quarters of them used; shift places a hash in it.
	slots []chanSlot
	shift uint8
	used  int
	items []chanItem
	// free is one more than the first free item (0: none); free items
	// link through next.
	free int32
}

// chanSlot is a channel of the table: its ordinals count from the last
// time it had no message in flight.
type chanSlot struct {
	src, dst, tag int32
	comm          uint16
	used          bool
	sent, recvd   int32
	// waiting lists the channel's candidate sends not yet received
	// (when sent > recvd) or its receives met before their send (when
	// recvd > sent): never both.
	waiting chanList
}

func (sl *chanSlot) id() chanID { return chanID{sl.src, sl.dst, sl.tag, sl.comm} }

// chanList is a FIFO list of items (head -1: empty).
type chanList struct{ head, tail int32 }

// chanItem is a send or a receive waiting on a channel: its ordinal,
// and the candidate of a send, the MPI_Recv's enter time of a receive.
type chanItem struct {
	ord  int32
	cand int32
	time float64
	next int32
}

// send notes a send on channel id, candidate cand (-1: none). When its
// receive came first, it returns the time of that receive's MPI_Recv
// and true.
func (ct *chanTable) send(id chanID, cand int32) (float64, bool) {
	at := ct.find(id)
	ch := &ct.slots[at]
	ord := ch.sent
	ch.sent++
	t, ok := 0.0, false
	if ord < ch.recvd {
		t, ok = ct.pop(&ch.waiting).time, true
	} else if cand >= 0 {
		ct.push(&ch.waiting, chanItem{ord: ord, cand: cand})
	}
	ct.settle(at)
	return t, ok
}

// recv notes a receive on channel id, in an MPI_Recv entered at t (NaN:
// none), and returns the candidate send it receives (-1: none).
func (ct *chanTable) recv(id chanID, t float64) int32 {
	at := ct.find(id)
	ch := &ct.slots[at]
	ord := ch.recvd
	ch.recvd++
	c := int32(-1)
	if ord < ch.sent {
		if ch.waiting.head >= 0 && ct.items[ch.waiting.head].ord == ord {
			c = ct.pop(&ch.waiting).cand
		}
	} else {
		ct.push(&ch.waiting, chanItem{ord: ord, time: t})
	}
	ct.settle(at)
	return c
}

// hash places id in a table of 1<<(64-shift) slots.
func (ct *chanTable) hash(id chanID) int {
	h := (uint64(uint32(id.src))<<32 | uint64(uint32(id.dst))) * 0x9e3779b97f4a7c15
	h ^= (uint64(uint32(id.tag))<<16 | uint64(id.comm)) * 0xc2b2ae3d27d4eb4f
	h ^= h >> 31
	h *= 0x94d049bb133111eb
	return int(h >> ct.shift)
}

// find returns the slot of channel id, adding it (no message) when the
// table does not hold it.
func (ct *chanTable) find(id chanID) int {
	if 4*(ct.used+1) > 3*len(ct.slots) {
		ct.grow()
	}
	mask := len(ct.slots) - 1
	for i := ct.hash(id); ; i = (i + 1) & mask {
		sl := &ct.slots[i]
		if !sl.used {
			*sl = chanSlot{src: id.src, dst: id.dst, tag: id.tag, comm: id.comm, used: true, waiting: chanList{-1, -1}}
			ct.used++
			return i
		}
		if sl.src == id.src && sl.dst == id.dst && sl.tag == id.tag && sl.comm == id.comm {
			return i
		}
	}
}

// grow doubles the table (to 64 slots first), placing its channels again.
func (ct *chanTable) grow() {
	old := ct.slots
	n := max(2*len(old), 64)
	ct.slots = make([]chanSlot, n)
	hugepage.Advise(ct.slots)
	ct.shift = uint8(64 - bits.TrailingZeros(uint(n)))
	mask := n - 1
	for k := range old {
		if !old[k].used {
			continue
		}
		i := ct.hash(old[k].id())
		for ct.slots[i].used {
			i = (i + 1) & mask
		}
		ct.slots[i] = old[k]
	}
}

// settle forgets the channel in slot at when it has no message in
// flight: its ordinals start again from 0 as well. The channels after it
// in its probe run move back (linear probing's deletion), so that no
// slot is ever a tombstone.
func (ct *chanTable) settle(at int) {
	if sl := &ct.slots[at]; sl.sent != sl.recvd {
		return
	}
	mask := len(ct.slots) - 1
	hole := at
	for i := (at + 1) & mask; ct.slots[i].used; i = (i + 1) & mask {
		// The channel at i may fill the hole when its home is not
		// in the cyclic range (hole, i].
		if home := ct.hash(ct.slots[i].id()); (i-home)&mask >= (i-hole)&mask {
			ct.slots[hole] = ct.slots[i]
			hole = i
		}
	}
	ct.slots[hole] = chanSlot{}
	ct.used--
}

// push appends it to list l.
func (ct *chanTable) push(l *chanList, it chanItem) {
	it.next = -1
	k := ct.free - 1
	if k >= 0 {
		ct.free = ct.items[k].next + 1
		ct.items[k] = it
	} else {
		k = int32(len(ct.items))
		ct.items = append(ct.items, it)
	}
	if l.tail >= 0 {
		ct.items[l.tail].next = k
	} else {
		l.head = k
	}
	l.tail = k
}

// pop removes and returns the head of list l, which is not empty.
func (ct *chanTable) pop(l *chanList) chanItem {
	k := l.head
	it := ct.items[k]
	if l.head = it.next; l.head < 0 {
		l.tail = -1
	}
	ct.items[k].next = ct.free - 1
	ct.free = k + 1
	return it
}
