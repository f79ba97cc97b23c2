package replay

import (
	"fmt"
	mathbits "math/bits"

	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
)

// A collective in which every rank's exit depends on every rank's entry
// (barrier, allreduce, allgather, all-to-all, reduce-scatter) lets no
// rank leave before the last one has entered. On a contention-free
// network whose messages do not queue behind each other (puppet, the
// simgrid model without contention), a message's times depend only on
// when its sender starts its round and its receiver posts for it, so the
// ranks may wait, sending nothing, until the last one enters; then every
// message's times and every rank's exit follow from tight loops over
// the rounds, with no kernel event per message, exactly as the
// per-message replay gives them. For an aligned plan (every message sent
// in round k is received in the peer's round k), round k's start times
// give each message's send and post times, its arrival and completion,
// and so the ranks' round k+1 start times.
//
// What else could tell the difference is excluded or accounted for:
//   - a message of the pair sent before the collective and not yet
//     visible at its destination holds the collective's messages of the
//     pair back (MPI's non-overtaking rule): bulkHolds finds them as each
//     rank enters, and their arrival bounds the pair's matches;
//   - a receive a rank left pending before the collective could match a
//     message that a rank leaving early sends it, which the per-message
//     replay holds back until that rank's last collective message to it
//     has arrived: for such pairs bulkCompute files a stand-in message
//     that becomes visible then (bulkVisible) and holds the pair's later
//     messages back as the real one would;
//   - wildcard matching (any-source free) and records of messages or of
//     the simulated run need each message: those runs expand per message.
type bulkState struct {
	// checked and ok: whether the run's settings allow bulk
	// collectives at all (bulkAllowed).
	checked, ok bool
	an          *netmodel.Analytic
	// hops, when positive, is the hops between any two distinct nodes:
	// the network was built on the complete graph (Config.Network), and
	// bulkDenseRound need not ask it.
	hops  int
	model netmodel.Model
	insts map[collKey]*bulkInstance
	pool  []*bulkInstance
	// steps and peer are bulkRounds' scratch.
	steps []collective.Step
	peer  []int32
	// resume holds the calls whose computation a cancelled run stopped,
	// by their evBulkResume event.
	resume []*bulkInstance
	// calls counts the calls computed in bulk, fallbacks those the
	// notes report; holds and standIns the pairs bulkHolds and
	// bulkStandIn took care of; denseRounds the rounds bulkDenseRound
	// ran.
	calls, fallbacks, holds, standIns, denseRounds int
}

// bulkRun is the progress of a call's computation: the next round, the
// ranks' start times of the current round (start) and the next (next),
// and what the messages so far add to the counters.
type bulkRun struct {
	comm         uint16
	mem          []int32
	node         []int32
	k            int
	start, next  []des.Time
	recvN, sentN []uint64
	recvB, sentB []int64
	pendingVis   map[uint64]des.Time
	// everyN and everyB count the messages and bytes every rank sent
	// and received in the rounds bulkDenseRound ran as permutations:
	// they go to every rank once, after the last round.
	everyN               uint64
	everyB               int64
	messages             uint64
	bytes                int64
	lastDeliver, histLat des.Time
	histN                uint64
}

// bulkInstance is one collective call computed in bulk.
type bulkInstance struct {
	// bulk is decided when the first rank enters; the call's other ranks
	// follow it.
	bulk bool
	// first is the plan of the first rank to enter.
	first collective.Plan
	enter []des.Time // by local rank
	// plans holds each local rank's plan unless uniform is set: then
	// every rank's plan so far is first's for that rank
	// (collective.Plan.ForRank), and plans is empty. An allreduce of
	// 65,536 ranks kept 65,536 copies of one plan (8 MB, read once per
	// round).
	plans   []collective.Plan
	uniform bool
	pending []bool // by local rank: a receive of its own was pending at entry
	entered []bool // by local rank
	arrived int
	passed  int
	// holds bounds the visibility of the call's messages by pair of
	// local ranks (bulkHolds).
	holds map[uint64]des.Time
	// holdFrom has bit i set when local rank i sends a pair of holds:
	// the others' messages skip the look-up (at 65,536 ranks a few
	// holds made every one of the call's million messages hash).
	holdFrom []uint64
	// run is the computation's progress (bulkRounds).
	run bulkRun
	// broken is set when a rank entered with something the bulk
	// computation cannot take (a schedule other than the first rank's,
	// blocking sends of its call pending): the call then runs per
	// message from its last rank's entry (bulkFallback).
	broken bool
}

// bulkAllowed reports whether the run's settings allow collectives
// computed in bulk.
func (s *Sim) bulkAllowed() bool {
	b := &s.bulk
	if b.checked {
		return b.ok
	}
	b.checked = true
	an, ok := s.net.(*netmodel.Analytic)
	if !ok || an.Serializes() || s.opts.PerMessageCollectives || s.opts.RecordMessages || s.opts.RecordTrace ||
		s.mode() == Inject || s.cfg.AnySource == AnyFree {
		return false
	}
	if _, ovh := an.Model().(netmodel.Overheads); ovh {
		// CPU overheads are bursts that ranks on a node share.
		return false
	}
	b.an, b.model, b.ok = an, an.Model(), true
	b.insts = map[collKey]*bulkInstance{}
	return true
}

// bulkJoin decides whether world rank r's part c of a collective is
// computed in bulk and, if so, files it with its call.
func (s *Sim) bulkJoin(r int32, rk *rank, c *collRun, P int) {
	if P < 2 || !(c.op.Shape() == tracefmt.ShapeAllToAll || c.op == tracefmt.OpOther) || !s.bulkAllowed() {
		return
	}
	b := &s.bulk
	key := collKey{c.comm, c.inst}
	bi := b.insts[key]
	if bi == nil {
		if n := len(b.pool); n > 0 {
			bi = b.pool[n-1]
			b.pool = b.pool[:n-1]
			*bi = bulkInstance{enter: bi.enter[:0], plans: bi.plans[:0], pending: bi.pending[:0], entered: bi.entered[:0], run: bi.run}
		} else {
			bi = &bulkInstance{}
		}
		// Every rank files its part, in bulk or not, so that the call's
		// ranks follow its first whatever their own plans say.
		bi.bulk = c.plan.Aligned() && c.plan.Rounds() > 0 && rk.callPending == 0
		bi.first = c.plan
		bi.uniform = true
		if bi.bulk {
			bi.enter = zeros(bi.enter, P)
			bi.pending = zeros(bi.pending, P)
			bi.entered = zeros(bi.entered, P)
		}
		b.insts[key] = bi
	}
	bi.arrived++
	if !bi.bulk {
		if bi.arrived == P {
			delete(b.insts, key)
			b.pool = append(b.pool, bi)
		}
		return
	}
	c.bulk, c.key = true, key
	if rk.callPending > 0 || !c.plan.SameSchedule(&bi.first) {
		bi.broken = true
	}
	bi.filePlan(c.me, &c.plan)
	_, loc := s.commMembers(c.comm)
	s.bulkHolds(bi, r, loc)
	for _, q := range rk.reqs {
		if q.recv && !s.ops[q.idx].done() {
			bi.pending[c.me] = true
			break
		}
	}
}

// filePlan files local rank me's plan pl: nothing while pl is first's
// for me, else in plans, which then gets every rank's.
func (bi *bulkInstance) filePlan(me int, pl *collective.Plan) {
	if bi.uniform {
		if bi.first.ForRank(me) == *pl {
			return
		}
		// The ranks that filed so far had first's plans, and every
		// other rank files its own before the call is computed.
		bi.uniform = false
		for j := range bi.enter {
			bi.plans = append(bi.plans, bi.first.ForRank(j))
		}
	}
	bi.plans[me] = *pl
}

// collBulk runs rank r's part of a collective computed in bulk: it
// enters and waits; the last rank to enter computes everyone's exit.
func (s *Sim) collBulk(r int32, rk *rank, c *collRun) bool {
	bi := s.bulk.insts[c.key]
	if c.started {
		bi.passed++
		if bi.passed == len(bi.enter) {
			delete(s.bulk.insts, c.key)
			s.bulk.pool = append(s.bulk.pool, bi)
		}
		s.endColl(rk)
		return true
	}
	c.started = true
	bi.enter[c.me] = s.k.Now()
	bi.entered[c.me] = true
	rk.block++
	s.blockOn(r, rk, ActCollective)
	if bi.arrived == len(bi.enter) {
		mem, loc := s.commMembers(c.comm)
		if bi.broken {
			s.bulkFallback(c.key, bi, mem)
		} else {
			s.bulkCompute(bi, c.comm, mem, loc)
		}
	}
	return false
}

// bulkFallback runs a call whose ranks disagree per message, every rank
// starting at its last rank's entry.
func (s *Sim) bulkFallback(key collKey, bi *bulkInstance, mem []int32) {
	s.bulk.fallbacks++
	now := s.k.Now()
	for _, w := range mem {
		c := s.ranks[w].coll
		c.bulk, c.started = false, false
		s.k.Schedule(now, evWake, w, 0)
	}
	delete(s.bulk.insts, key)
	s.bulk.pool = append(s.bulk.pool, bi)
}

// bulkHolds files in bi.holds, for each member world rank r sends to
// a message dst has not yet seen (sent before the call), when the last of
// those arrives: MPI's non-overtaking rule holds the call's messages of
// the pair until then. Nothing is in flight at most calls' entries.
func (s *Sim) bulkHolds(bi *bulkInstance, r int32, loc []int32) {
	if s.stats.inFlight == 0 && s.nHeld == 0 || !s.hasUnseen(r) {
		return
	}
	for i := range s.msgs {
		m := &s.msgs[i]
		if m.src != r || !m.live || m.visSeq != 0 || loc[m.dst] < 0 {
			continue
		}
		at := m.tSend // arrived already, held behind an earlier one
		switch m.netPhase {
		case phData:
			if !m.delivered {
				at = des.Add(m.tSend, s.bulkLatency(s.nodeOf[m.src], s.nodeOf[m.dst], m.size))
			}
		case phRTS:
			at = des.Add(m.tSend, s.bulkLatency(s.nodeOf[m.src], s.nodeOf[m.dst], 0))
		}
		if bi.holds == nil {
			bi.holds = map[uint64]des.Time{}
			bi.holdFrom = make([]uint64, (len(bi.enter)+63)/64)
		}
		k := matchKey(loc[m.src], loc[m.dst])
		bi.holdFrom[loc[m.src]/64] |= 1 << (loc[m.src] % 64)
		bi.holds[k] = max(bi.holds[k], at)
		s.bulk.holds++
	}
}

// hasUnseen reports whether some message world rank r sent has not yet
// become visible at its destination: its pair counters say so, in O(1)
// (a small world's count of the source's unseen pairs; a large world's
// tables keep only the pairs with such messages).
func (s *Sim) hasUnseen(r int32) bool {
	if s.densePairs != nil {
		return s.denseFrom[r] > 0
	}
	return s.pairs.from(r) > 0
}

// bulkLatency is the analytic network's time for bytes from node ns to
// node nd: what Send adds to a message's start.
func (s *Sim) bulkLatency(ns, nd int32, bytes int64) des.Time {
	h := s.bulk.an.Hops(int(ns), int(nd))
	if h <= 0 {
		return 0
	}
	return s.bulk.model.Latency(bytes, h)
}

// bulkCompute starts computing every message of a call all of whose
// ranks have entered (bulkRounds).
func (s *Sim) bulkCompute(bi *bulkInstance, comm uint16, mem, loc []int32) {
	b := &s.bulk
	b.calls++
	P := len(mem)
	run := &bi.run
	run.comm, run.mem = comm, mem
	run.node = sized(run.node, P)
	for j, w := range mem {
		run.node[j] = s.nodeOf[w]
	}
	run.start = sized(run.start, P)
	copy(run.start, bi.enter)
	run.next = sized(run.next, P)
	copy(run.next, bi.enter)
	run.recvN = zeros(run.recvN, P)
	run.recvB = zeros(run.recvB, P)
	run.sentN = zeros(run.sentN, P)
	run.sentB = zeros(run.sentB, P)
	run.pendingVis = nil
	for j := range P {
		if bi.pending[j] {
			// Messages to a rank with a receive of its own pending: when
			// the pair's last becomes visible, by pair of local ranks.
			run.pendingVis = map[uint64]des.Time{}
			break
		}
	}
	run.k, run.messages, run.bytes, run.lastDeliver = 0, 0, 0, 0
	run.everyN, run.everyB = 0, 0
	run.histLat, run.histN = -1, 0
	s.bulkRounds(bi)
}

// bulkRounds computes the rounds of bi from the next one on, round k's
// start times giving each message's times and so round k+1's, then
// accounts the messages as the per-message replay would (the ranks' and
// the run's counters, the latency histogram, the network's deliveries)
// and schedules each rank's exit. When the run's context is cancelled
// between rounds it stops and resumes at the same instant
// (evBulkResume), so that Run returns within a round, not at the end
// of a call of billions of messages.
func (s *Sim) bulkRounds(bi *bulkInstance) {
	b := &s.bulk
	run := &bi.run
	mem, node := run.mem, run.node
	P := len(mem)
	an, model := b.an, b.model
	// The latency of the last (bytes, hops) asked: a round's messages
	// mostly share both.
	lastBytes, lastHops, lastLat := int64(-1), -1, des.Time(0)
	lat := func(ns, nd int32, bytes int64) des.Time {
		h := an.Hops(int(ns), int(nd))
		if h <= 0 {
			return 0
		}
		if h != lastHops || bytes != lastBytes {
			lastBytes, lastHops, lastLat = bytes, h, model.Latency(bytes, h)
		}
		return lastLat
	}
	holds, holdFrom := bi.holds, bi.holdFrom
	rts := s.cfg.Handshake == HandshakeRTSCTS
	start, next := run.start, run.next
	recvN, recvB, sentN, sentBy := run.recvN, run.recvB, run.sentN, run.sentB
	pendingVis := run.pendingVis
	messages, bytes, lastDeliver := run.messages, run.bytes, run.lastDeliver
	histLat, histN := run.histLat, run.histN
	// The protocol of the last size asked.
	lastSize, lastData, lastComplete := int64(-1), false, uint8(0)
	steps := b.steps
	rounds := bi.first.Rounds() // every rank's, or the call fell back
	for ; run.k < rounds; run.k++ {
		if run.k > 0 && s.runCtx != nil && s.runCtx.Err() != nil {
			break
		}
		k := run.k
		copy(next, start)
		// A round in which every rank sends at most one message, all of
		// one size, comes from RoundPeers and runs in bulkDenseRound:
		// one pass filling peer, then a loop of a few loads a message,
		// rather than a call and a slice per rank (SendsAs).
		if bi.uniform {
			if cap(b.peer) < P {
				b.peer = make([]int32, P)
			}
			if size, perm, ok := bi.first.RoundPeers(k, b.peer[:P]); ok {
				run.messages, run.bytes, run.lastDeliver = messages, bytes, lastDeliver
				run.histLat, run.histN = histLat, histN
				s.bulkDenseRound(bi, b.peer[:P], size, perm, start, next)
				b.denseRounds++
				messages, bytes, lastDeliver = run.messages, run.bytes, run.lastDeliver
				histLat, histN = run.histLat, run.histN
				start, next = next, start
				continue
			}
		}
		for src := range P {
			if bi.uniform {
				steps = bi.first.SendsAs(src, k, steps[:0])
			} else {
				steps = bi.plans[src].Sends(k, steps[:0])
			}
			if len(steps) == 0 {
				continue
			}
			ts := start[src]
			ns := node[src]
			var sentB int64
			for _, st := range steps {
				dst := st.Peer
				size := st.Bytes
				tp := start[dst]
				nd := node[dst]
				l := lat(ns, nd, size)
				if size != lastSize {
					lastSize = size
					lastData, lastComplete = s.protocol(size, false)
				}
				dataAtSend, complete := lastData, lastComplete
				var arrive des.Time
				switch {
				case dataAtSend:
					arrive = des.Add(ts, l)
				case rts:
					arrive = des.Add(ts, lat(ns, nd, 0))
				default:
					arrive = ts
				}
				if holds != nil && holdFrom[src/64]&(1<<(src%64)) != 0 {
					arrive = max(arrive, holds[matchKey(int32(src), dst)])
				}
				match := max(arrive, tp)
				var deliver, recvDone des.Time
				if dataAtSend {
					deliver, recvDone = des.Add(ts, l), match
				} else {
					at := match
					if rts {
						at = des.Add(at, lat(nd, ns, 0))
					}
					deliver = des.Add(at, l)
					recvDone = deliver
				}
				sendDone := ts
				switch complete {
				case doneAtDelivery:
					sendDone = deliver
				case doneAtRecv:
					sendDone = recvDone
				}
				next[src] = max(next[src], sendDone)
				next[dst] = max(next[dst], recvDone)
				if pendingVis != nil && bi.pending[dst] {
					k := matchKey(int32(src), dst)
					pendingVis[k] = max(pendingVis[k], arrive)
				}
				d := deliver - ts
				if d != histLat {
					s.stats.latency.addN(histLat, histN)
					histLat, histN = d, 0
				}
				histN++
				lastDeliver = max(lastDeliver, deliver)
				recvN[dst]++
				recvB[dst] += size
				sentB += size
			}
			// The ranks' counters go to the ranks once per call, after
			// the last round: a rank is a few hundred bytes, and touching
			// the peers' in the loop missed the cache at every message,
			// the sender's once per round (16 rounds at 65,536 ranks).
			sentN[src] += uint64(len(steps))
			sentBy[src] += sentB
			messages += uint64(len(steps))
			bytes += sentB
		}
		start, next = next, start
	}
	b.steps = steps
	run.start, run.next = start, next
	run.messages, run.bytes, run.lastDeliver = messages, bytes, lastDeliver
	run.histLat, run.histN = histLat, histN
	if run.k < rounds {
		// Cancelled: carry on when the run resumes.
		b.resume = append(b.resume, bi)
		s.k.Schedule(s.k.Now(), evBulkResume, int32(len(b.resume)-1), 0)
		return
	}
	s.stats.latency.addN(histLat, histN)
	for j, w := range mem {
		rk := &s.ranks[w]
		rk.recvd += recvN[j] + run.everyN
		rk.recvdB += recvB[j] + run.everyB
		rk.sent += sentN[j] + run.everyN
		rk.sentB += sentBy[j] + run.everyB
	}
	trips, tripB := messages, bytes
	if rts {
		trips = 3 * messages // the request to send and the clear to send carry no bytes
	}
	s.stats.messages += messages
	s.stats.bytes += bytes
	s.stats.lastDeliver = max(s.stats.lastDeliver, lastDeliver)
	an.Credit(trips, tripB)
	for k, v := range pendingVis {
		src, dst := int32(k>>32), int32(uint32(k))
		if v > start[src] {
			// The sender leaves before its last message to dst is
			// visible there: what it sends next waits for it.
			s.bulkStandIn(mem[src], mem[dst], run.comm, v)
		}
	}
	for j, w := range mem {
		s.k.Schedule(start[j], evWake, w, 0)
	}
}

// bulkDenseRound computes a round of run in which local rank src sends
// one message of size bytes to peer[src] (none when negative), from the
// ranks' start times of the round to their next (a copy of start on
// entry), and accounts the messages: what bulkRounds' general loop does
// for such a round, message by message in the same order, so that the
// histogram, the holds, the pending receives' visibility and every time
// come out the same. perm says every rank sends one message and receives
// one: the ranks' counters then go to run.everyN and everyB.
func (s *Sim) bulkDenseRound(bi *bulkInstance, peer []int32, size int64, perm bool, start, next []des.Time) {
	run := &bi.run
	model := s.bulk.model
	dataAtSend, complete := s.protocol(size, false)
	if dataAtSend && complete == doneAtIssue && s.bulk.hops > 0 {
		s.bulkEagerRound(bi, peer, size, model.Latency(size, s.bulk.hops), start, next)
	} else {
		s.bulkAnyRound(bi, peer, size, dataAtSend, complete, start, next)
	}
	if perm {
		run.everyN++
		run.everyB += size
		return
	}
	for src, dst := range peer {
		if dst >= 0 {
			run.recvN[dst]++
			run.recvB[dst] += size
			run.sentN[src]++
			run.sentB[src] += size
		}
	}
}

// bulkEagerRound is bulkDenseRound's loop for eager messages whose send
// completes at issue on the complete graph: a message takes l between
// two nodes, nothing within one, and its sender's next round does not
// wait for it. The loop over the ranks calls nothing (a call makes Go
// keep its values on the stack): a change of latency leaves it to
// account the last run, and the holds and pending receives, which only
// raise a receiver's time by max, have passes of their own over the
// ranks they concern.
func (s *Sim) bulkEagerRound(bi *bulkInstance, peer []int32, size int64, l des.Time, start, next []des.Time) {
	run := &bi.run
	P := len(peer)
	start, next, node := start[:P:P], next[:P:P], run.node[:P:P]
	histLat, histN := run.histLat, run.histN
	lastDeliver := run.lastDeliver
	var n uint64
	for i := 0; i < P; {
		for ; i < P; i++ {
			dst := peer[i]
			if dst < 0 {
				continue
			}
			ts := start[i]
			deliver := ts
			if node[i] != node[dst] {
				deliver = des.Add(ts, l)
			}
			if deliver-ts != histLat {
				break
			}
			histN++
			n++
			next[dst] = max(next[dst], deliver, start[dst])
			lastDeliver = max(lastDeliver, deliver)
		}
		if i < P {
			// Message i starts a run of another latency: i is
			// taken again with it.
			s.stats.latency.addN(histLat, histN)
			dst := peer[i]
			histLat, histN = 0, 0
			if node[i] != node[dst] {
				histLat = des.Add(start[i], l) - start[i]
			}
		}
	}
	// arrive is when message src's data is visible at its receiver:
	// its delivery, or later when an earlier message of the pair holds
	// it back.
	holds, holdFrom := bi.holds, bi.holdFrom
	arrive := func(src int, dst int32) des.Time {
		at := start[src]
		if node[src] != node[dst] {
			at = des.Add(at, l)
		}
		if holds != nil && holdFrom[uint(src)/64]&(1<<(uint(src)%64)) != 0 {
			at = max(at, holds[matchKey(int32(src), dst)])
		}
		return at
	}
	if holds != nil {
		for w, bits := range holdFrom {
			for ; bits != 0; bits &= bits - 1 {
				src := w*64 + mathbits.TrailingZeros64(bits)
				if src < P && peer[src] >= 0 {
					dst := peer[src]
					next[dst] = max(next[dst], arrive(src, dst))
				}
			}
		}
	}
	if pv := run.pendingVis; pv != nil {
		for src, dst := range peer {
			if dst >= 0 && bi.pending[dst] {
				k := matchKey(int32(src), dst)
				pv[k] = max(pv[k], arrive(src, dst))
			}
		}
	}
	run.histLat, run.histN, run.lastDeliver = histLat, histN, lastDeliver
	run.messages += n
	run.bytes += int64(n) * size
}

// bulkAnyRound is bulkDenseRound's loop for any protocol and network.
func (s *Sim) bulkAnyRound(bi *bulkInstance, peer []int32, size int64, dataAtSend bool, complete uint8, start, next []des.Time) {
	run := &bi.run
	P := len(peer)
	holds, holdFrom := bi.holds, bi.holdFrom
	pendingVis, pending := run.pendingVis, bi.pending
	start, next, node := start[:P:P], next[:P:P], run.node[:P:P]
	model := s.bulk.model
	rts := s.cfg.Handshake == HandshakeRTSCTS
	// The latencies of the last hop count asked (l of size, l0 of an
	// empty control message): a round's messages mostly share it.
	lastHops, l, l0 := -1, des.Time(0), des.Time(0)
	histLat, histN := run.histLat, run.histN
	lastDeliver := run.lastDeliver
	var n uint64
	for src, dst := range peer {
		if dst < 0 {
			continue
		}
		n++
		ts, tp := start[src], start[dst]
		if h := s.bulk.hopsOf(node[src], node[dst]); h != lastHops {
			lastHops, l, l0 = h, 0, 0
			if h > 0 {
				l = model.Latency(size, h)
				if rts {
					l0 = model.Latency(0, h)
				}
			}
		}
		arrive := ts
		switch {
		case dataAtSend:
			arrive = des.Add(ts, l)
		case rts:
			arrive = des.Add(ts, l0)
		}
		if holds != nil && holdFrom[uint(src)/64]&(1<<(uint(src)%64)) != 0 {
			arrive = max(arrive, holds[matchKey(int32(src), dst)])
		}
		match := max(arrive, tp)
		var deliver, recvDone des.Time
		switch {
		case dataAtSend:
			deliver, recvDone = des.Add(ts, l), match
		case rts:
			// The clear to send comes back over the hops from dst to
			// src.
			at := match
			if h := s.bulk.hopsOf(node[dst], node[src]); h == lastHops {
				at = des.Add(at, l0)
			} else {
				at = des.Add(at, s.bulkLatency(node[dst], node[src], 0))
			}
			deliver = des.Add(at, l)
			recvDone = deliver
		default:
			deliver = des.Add(match, l)
			recvDone = deliver
		}
		if pendingVis != nil && pending[dst] {
			k := matchKey(int32(src), dst)
			pendingVis[k] = max(pendingVis[k], arrive)
		}
		switch complete {
		case doneAtDelivery:
			next[src] = max(next[src], deliver)
		case doneAtRecv:
			next[src] = max(next[src], recvDone)
		}
		next[dst] = max(next[dst], recvDone)
		if d := deliver - ts; d != histLat {
			s.stats.latency.addN(histLat, histN)
			histLat, histN = d, 0
		}
		histN++
		lastDeliver = max(lastDeliver, deliver)
	}
	run.histLat, run.histN, run.lastDeliver = histLat, histN, lastDeliver
	run.messages += n
	run.bytes += int64(n) * size
}

// hopsOf is the analytic network's hops from node ns to node nd.
func (b *bulkState) hopsOf(ns, nd int32) int {
	if b.hops > 0 {
		if ns == nd {
			return 0
		}
		return b.hops
	}
	return b.an.Hops(int(ns), int(nd))
}

// bulkResume carries on with the call whose computation a cancelled run
// stopped (bulkRounds); i indexes bulkState.resume.
func (s *Sim) bulkResume(i int32) {
	b := &s.bulk
	bi := b.resume[i]
	b.resume[i] = nil
	for n := len(b.resume); n > 0 && b.resume[n-1] == nil; n-- {
		b.resume = b.resume[:n-1]
	}
	s.bulkRounds(bi)
}

// evBulkVisible is the kernel event of a stand-in message becoming
// visible (bulkStandIn).
const evBulkVisible = evWake + 1

// evBulkResume resumes the computation of a call (bulkRounds).
const evBulkResume = evWake + 2

// standInTag is the tag of stand-in messages, which no expanded
// collective message has (theirs are the call's sequence number and
// phase, never negative).
const standInTag = -1

// bulkStandIn files a stand-in for the last message from world rank src
// to dst of a call computed in bulk, which becomes visible at dst at
// time at: the pair's messages sent after it are held back until then,
// as MPI's non-overtaking rule holds them behind the real one.
func (s *Sim) bulkStandIn(src, dst int32, comm uint16, at des.Time) {
	s.bulk.standIns++
	id := s.allocMsg()
	m := &s.msgs[id]
	*m = message{
		tSend: s.k.Now(), src: src, dst: dst, tag: standInTag, comm: comm, coll: true,
		recvOp: -1, sendEv: -1, next: -1, live: true,
		sendDone: true, recvDone: true,
	}
	m.seq = s.countSend(src, dst)
	s.k.Schedule(at, evBulkVisible, id, 0)
}

// bulkVisible makes stand-in message id visible, releasing the pair's
// messages held behind it, and frees it.
func (s *Sim) bulkVisible(id int32) {
	m := &s.msgs[id]
	src, dst, comm := m.src, m.dst, m.comm
	s.arrive(id)
	// visible filed it as unexpected in the collectives' context: no
	// receive takes its tag.
	s.collTake(s.collQ(dst, comm), matchKey(src, standInTag), true)
	s.maybeFree(id)
}

// bulkNotes returns the notes on collectives computed in bulk that the
// per-message replay could have timed differently.
func (s *Sim) bulkNotes() []string {
	var notes []string
	if n := s.bulk.fallbacks; n > 0 {
		notes = append(notes, fmt.Sprintf("%d collective calls whose ranks disagreed on the schedule (or entered with blocking sends pending) started their messages when their last rank entered", n))
	}
	return notes
}

// addN adds n latencies of t.
func (h *histogram) addN(t des.Time, n uint64) {
	if n == 0 {
		return
	}
	if h.n == 0 || t < h.min {
		h.min = t
	}
	h.max = max(h.max, t)
	h.n += n
	h.bins[binOf(t)] += n
	// Sums of whole picoseconds are exact below 2^53, in any order: one
	// product then equals n additions.
	if tot := float64(float64(t) * float64(n)); h.sum+tot < 1<<53 {
		h.sum += tot
		return
	}
	for range n {
		h.sum += float64(t)
	}
}

// sized returns x resized to n elements, whose values the caller sets:
// x's own array when it has room, else a new one advised as huge pages.
// A call over 65,536 ranks sizes a dozen arrays of P elements (~5 MiB),
// and growing them by append wrote them, clearing or copying, before
// any advice: ~1,000 faults of 4 KiB on the first call.
func sized[T any](x []T, n int) []T {
	if cap(x) >= n {
		return x[:n]
	}
	x = make([]T, n)
	hugepage.Advise(x)
	return x
}

// zeros returns x resized to n zero elements (see sized).
func zeros[T any](x []T, n int) []T {
	x = sized(x, n)
	clear(x)
	return x
}
