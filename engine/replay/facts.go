package replay

import (
	"context"
	"fmt"
	"math"
	"slices"

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
	if fs.find {
		fs.chans = map[chanID]*chanFacts{}
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
	chans     map[chanID]*chanFacts
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
	comm     uint16
	src, dst int32
	tag      int32
}

// chanFacts counts a channel's sends and receives; sends holds its
// candidate sends not yet received, recvs the receives met before their
// send, each with its message's ordinal on the channel.
type chanFacts struct {
	sent, recvd int64
	sends       []ordCand
	recvs       []ordRecv
}

type ordCand struct {
	ord  int64
	cand int32
}

type ordRecv struct {
	ord  int64
	time float64 // the enter of its MPI_Recv; NaN: not in one
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

// classes returns the classes of the states up to st, classifying the
// states defined since the last call.
func (fs *factScan) classes(st tracefmt.StateID) {
	if int(st) < len(fs.class) {
		return
	}
	tmp := Sim{tr: fs.h}
	tmp.classifyStates()
	fs.class = tmp.class
	ps := newPartsScan(fs.h)
	fs.part = ps.kind
}

// run takes a run of rank r's events (Prescan's fn).
func (fs *factScan) run(r int, first int32, ev []tracefmt.Event) error {
	if err := fs.ctx.Err(); err != nil {
		return err
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
			fs.classes(e.State())
			if fs.part[e.State()] == partFinalize {
				rf.end = min(rf.end, e.Time)
			}
			if fs.find {
				rf.push(openCall{i, e.State(), e.Time})
			}
		case tracefmt.KindLeave:
			fs.classes(e.State())
			if k := e.Match; k >= 0 {
				if fs.part[e.State()] == partInit && k > rf.init {
					rf.init, rf.start = k, e.Time
				}
				if ids, ok := rf.waiting[k]; ok {
					for _, c := range ids {
						fs.cands[c].leave, fs.cands[c].hasLeave = e.Time, true
						fs.decide(c)
					}
					delete(rf.waiting, k)
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
	ch := fs.channel(chanID{e.Comm, int32(r), e.Peer, e.Tag})
	ord := ch.sent
	ch.sent++
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
	if ord < ch.recvd {
		// Its receive came first.
		rv := ch.recvs[0]
		ch.recvs = ch.recvs[1:]
		if cand >= 0 {
			fs.received(cand, rv.time)
		}
	} else if cand >= 0 {
		ch.sends = append(ch.sends, ordCand{ord, cand})
	}
	fs.settle(chanID{e.Comm, int32(r), e.Peer, e.Tag}, ch)
}

// recv meets a receive.
func (fs *factScan) recv(r int, i int32, e *tracefmt.Event) {
	id := chanID{e.Comm, e.Peer, int32(r), e.Tag}
	ch := fs.channel(id)
	ord := ch.recvd
	ch.recvd++
	t := math.NaN()
	if c, ok := fs.call(&fs.ranks[r], i); ok && fs.class[c.state].kind == callRecv {
		t = c.time
	}
	if ord < ch.sent {
		if len(ch.sends) > 0 && ch.sends[0].ord == ord {
			fs.received(ch.sends[0].cand, t)
			ch.sends = ch.sends[1:]
		}
	} else {
		ch.recvs = append(ch.recvs, ordRecv{ord, t})
	}
	fs.settle(id, ch)
}

func (fs *factScan) channel(id chanID) *chanFacts {
	ch := fs.chans[id]
	if ch == nil {
		ch = &chanFacts{}
		fs.chans[id] = ch
	}
	return ch
}

// settle forgets a channel with no message in flight: its ordinals
// start again from 0 as well.
func (fs *factScan) settle(id chanID, ch *chanFacts) {
	if ch.sent == ch.recvd {
		delete(fs.chans, id)
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
	s.msgs = make([]message, 0, f.inFlight)
	s.ops = make([]recvOp, 0, f.posted)
	if s.densePairs == nil {
		s.pairs.reserve(f.senders)
	}
	s.stats.totalEvents = f.totalEvents
	return f.hasCompute, nil
}
