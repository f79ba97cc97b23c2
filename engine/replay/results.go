package replay

import (
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// Results are the outcome of a run. JSON names are those of
// `tracesim sim --json` (docs/sim.md).
type Results struct {
	// Mode and Model name the replay mode and network model.
	Mode  string `json:"mode"`
	Model string `json:"model"`
	// Makespan is the predicted run time: when the last rank finished
	// (inject mode: when the last message was delivered), in seconds.
	Makespan float64 `json:"makespan_s"`
	// Recorded is the duration of the trace as recorded (0 for untimed
	// traces), for comparison.
	Recorded float64 `json:"recorded_s"`
	// RecordedParts splits Recorded into what the replay replays and
	// the MPI start-up and teardown it does not; nil for untimed and
	// streamed traces.
	RecordedParts *RecordedParts `json:"recorded_parts"`
	Ranks         []RankResult   `json:"ranks"`
	Nodes         []NodeResult   `json:"nodes"`
	// ScaledSpeedup is Σ computation / makespan (PUPPET).
	ScaledSpeedup float64      `json:"scaled_speedup"`
	Messages      MessageStats `json:"messages"`
	// Events counts kernel events, TraceEvents trace records replayed.
	Events      uint64 `json:"events"`
	TraceEvents uint64 `json:"trace_events"`
	// Wall is the host time the simulation took, in seconds;
	// EventsPerSec and TraceEventsPerSec the resulting rates.
	Wall              float64 `json:"wall_s"`
	EventsPerSec      float64 `json:"events_per_s"`
	TraceEventsPerSec float64 `json:"trace_events_per_s"`
	// Complete is true when every rank reached the end of its trace.
	Complete bool `json:"complete"`
	// Deadlock describes why the run stopped with ranks blocked, or is
	// nil.
	Deadlock *Deadlock `json:"deadlock"`
	// Wildcards lists wildcard receives that matched another sender than
	// the recorded one (any-source free).
	Wildcards []WildcardMismatch `json:"wildcard_mismatches"`
	// AnySource is how wildcard receives matched: "recorded" or "free"
	// (any-source auto resolved for the trace).
	AnySource string `json:"any_source"`
	// Notes are choices the run made for the trace that the user did not
	// ask for, one sentence each (any-source auto choosing free).
	Notes []string `json:"notes"`
	// Skipped counts records the mode ignores (receives in inject mode,
	// collectives of ranks outside their communicator).
	Skipped int `json:"skipped"`
	// CollectivesAsMessages counts the collective calls replayed as the
	// point-to-point messages the trace records inside them (their
	// library realised them so, and traced it): --coll-alg does not
	// apply to them.
	CollectivesAsMessages int `json:"collectives_as_messages"`
	// CollectivesSizeUnknown counts the collective calls whose bytes the
	// trace does not record: they were replayed moving no data.
	CollectivesSizeUnknown int `json:"collectives_size_unknown"`
	// Network holds the packet model's measurements at the end of the
	// run (nil for the analytic models): delivery counters, packets,
	// hops, latencies, long waits, link groups, fat-tree level shares,
	// and the links, buffers and network interfaces that carried or held
	// traffic (idle ones are left out). Its lists may share memory with
	// the latest snapshot's Net: read-only, like a snapshot.
	Network *netmodel.Metrics `json:"network"`
}

// RankResult are one rank's times, in seconds. Finish = Compute +
// Overhead + Blocked + CPUWait.
type RankResult struct {
	Rank int `json:"rank"`
	Node int `json:"node"`
	// Finish is when the rank ended.
	Finish float64 `json:"finish_s"`
	// Compute is the CPU work of its computation.
	Compute float64 `json:"compute_s"`
	// Blocked is the time it waited for communication.
	Blocked float64 `json:"blocked_s"`
	// Overhead is the CPU time of communication (LogGOPS o and O).
	Overhead float64 `json:"overhead_s"`
	// Communication is the time in MPI operations: Blocked + Overhead.
	Communication float64 `json:"communication_s"`
	// CPUWait is the time lost to other ranks of its node (processor
	// sharing).
	CPUWait float64 `json:"cpu_wait_s"`
	// Utilisation is Compute / makespan.
	Utilisation float64 `json:"utilisation"`
	// Messages and bytes sent and received.
	Sent      uint64 `json:"sent"`
	Received  uint64 `json:"received"`
	SentBytes int64  `json:"sent_bytes"`
	RecvBytes int64  `json:"received_bytes"`
}

// NodeResult is one node's CPU use.
type NodeResult struct {
	Node  int `json:"node"`
	Ranks int `json:"ranks"`
	// Compute is the CPU work of its ranks, Utilisation Compute /
	// makespan.
	Compute     float64 `json:"compute_s"`
	Utilisation float64 `json:"utilisation"`
}

// MessageStats summarise the messages of a run. Count and Bytes are the
// messages a receive consumed; Arrived counts those whose data reached
// the receiver, received or not (an eager send nobody receives arrives
// and waits): Latency, from the send to the arrival of the data, is
// their distribution, so its histogram sums to Arrived, not Count.
type MessageStats struct {
	Count   uint64       `json:"count"`
	Bytes   int64        `json:"bytes"`
	Arrived uint64       `json:"arrived"`
	Latency LatencyStats `json:"latency"`
	// Unmatched counts messages no receive consumed.
	Unmatched int `json:"unmatched"`
}

// LatencyStats is a latency distribution in seconds. Percentiles come
// from the histogram: within 10 % of the exact value.
type LatencyStats struct {
	Min  float64 `json:"min_s"`
	Mean float64 `json:"mean_s"`
	P50  float64 `json:"p50_s"`
	P90  float64 `json:"p90_s"`
	P99  float64 `json:"p99_s"`
	Max  float64 `json:"max_s"`
	// Histogram has logarithmic bins, 8 per power of two of
	// picoseconds; empty bins are left out.
	Histogram []Bin `json:"histogram"`
}

// Bin is one histogram bin: Count latencies in [Lo, Hi) seconds.
type Bin struct {
	Lo    float64 `json:"lo_s"`
	Hi    float64 `json:"hi_s"`
	Count uint64  `json:"count"`
}

// histogram is a log-binned latency histogram: 8 bins per power of two.
type histogram struct {
	bins     [64 * 8]uint64
	n        uint64
	sum      float64
	min, max des.Time
}

const subBins = 8

func binOf(t des.Time) int {
	if t <= 0 {
		return 0
	}
	e := bits.Len64(uint64(t)) - 1 // 2^e ≤ t < 2^(e+1)
	frac := 0
	if e >= 3 {
		frac = int((uint64(t) >> (e - 3)) & 7)
	} else {
		frac = int((uint64(t) << (3 - e)) & 7)
	}
	return (e+1)*subBins + frac
}

func binLo(b int) float64 {
	if b < subBins {
		return 0
	}
	e := b/subBins - 1
	return math.Ldexp(1+float64(b%subBins)/subBins, e)
}

func (h *histogram) add(t des.Time) {
	if h.n == 0 || t < h.min {
		h.min = t
	}
	h.max = max(h.max, t)
	h.n++
	h.sum += float64(t)
	h.bins[binOf(t)]++
}

func (h *histogram) stats() LatencyStats {
	if h.n == 0 {
		return LatencyStats{Histogram: []Bin{}}
	}
	ls := LatencyStats{
		Min: h.min.Seconds(), Max: h.max.Seconds(), Mean: h.sum / float64(h.n) / 1e12,
		Histogram: []Bin{},
	}
	q := func(p float64) float64 {
		want := uint64(math.Ceil(p * float64(h.n)))
		var acc uint64
		for b, c := range h.bins {
			acc += c
			if acc >= want && c > 0 {
				// The middle of the bin, clamped to the observed range.
				v := (binLo(b) + binLo(b+1)) / 2
				return min(max(v, float64(h.min)), float64(h.max)) / 1e12
			}
		}
		return h.max.Seconds()
	}
	ls.P50, ls.P90, ls.P99 = q(0.5), q(0.9), q(0.99)
	for b, c := range h.bins {
		if c > 0 {
			ls.Histogram = append(ls.Histogram, Bin{Lo: binLo(b) / 1e12, Hi: binLo(b+1) / 1e12, Count: c})
		}
	}
	return ls
}

// MessageRecord is one message of the run (Options.RecordMessages).
// Times are in seconds; events index the ranks' streams (-1 for the
// messages of an expanded collective).
type MessageRecord struct {
	Src        int     `json:"src"`
	Dst        int     `json:"dst"`
	Tag        int32   `json:"tag"`
	Bytes      int64   `json:"bytes"`
	Collective bool    `json:"collective"`
	SendEvent  int     `json:"send_event"`
	RecvEvent  int     `json:"recv_event"`
	Sent       float64 `json:"sent_s"`
	Matched    float64 `json:"matched_s"`
	Delivered  float64 `json:"delivered_s"`
	Completed  float64 `json:"completed_s"`
}

func (s *Sim) record(id int32, recvEv int32) {
	if s.opts.RecordMessages {
		s.recordMessage(id, recvEv)
	}
}

// recordMessage is record while recording messages.
func (s *Sim) recordMessage(id int32, recvEv int32) {
	m, mr := &s.msgs[id], s.msgRec(id)
	se := int(m.sendEv)
	if m.coll {
		se = -1
	}
	s.records = append(s.records, MessageRecord{
		Src: int(m.src), Dst: int(m.dst), Tag: m.tag, Bytes: m.size, Collective: m.coll,
		SendEvent: se, RecvEvent: int(recvEv),
		Sent: m.tSend.Seconds(), Matched: mr.tMatch.Seconds(), Delivered: mr.tDeliver.Seconds(),
		Completed: s.k.Now().Seconds(),
	})
}

// Messages returns the per-message records, in completion order
// (Options.RecordMessages).
func (s *Sim) Messages() []MessageRecord { return s.records }

// WildcardMismatch is a wildcard receive that matched another sender than
// the trace recorded, which makes later records of the rank inconsistent
// with the trace (seed 000 §5.2).
type WildcardMismatch struct {
	Rank     int     `json:"rank"`
	Event    int     `json:"event"`
	Recorded int     `json:"recorded_source"`
	Actual   int     `json:"actual_source"`
	Time     float64 `json:"time_s"`
	// Next describes the first later record that shows the
	// inconsistency (a send to the recorded or the actual sender), and
	// NextEvent indexes it (-1 when none).
	Next      string `json:"next"`
	NextEvent int    `json:"next_event"`
}

func (s *Sim) wildcardMismatch(o *recvOp, m *message) {
	w := WildcardMismatch{
		Rank: int(o.rank), Event: int(o.ev), Recorded: int(o.recorded), Actual: int(m.src),
		Time: s.k.Now().Seconds(), NextEvent: -1,
	}
	rk := &s.ranks[o.rank]
	for i := int(o.ev) + 1; i < int(o.ev)+100000; i++ {
		e := s.at(rk, int32(i))
		if e == nil {
			break
		}
		if e.Kind == tracefmt.KindSend && (e.Peer == o.recorded || e.Peer == m.src) {
			w.NextEvent = i
			if e.Peer == o.recorded {
				w.Next = fmt.Sprintf("event %d sends to rank %d as if its message had come first, but rank %d's did", i, e.Peer, m.src)
			} else {
				w.Next = fmt.Sprintf("event %d sends to rank %d, but the trace had rank %d's message first", i, e.Peer, o.recorded)
			}
			break
		}
	}
	if w.NextEvent < 0 {
		w.Next = "no later send of the rank depends on it"
	}
	s.wild = append(s.wild, w)
}

// Results returns the run's results so far (final once Done). Like Step
// and Run, it belongs to the goroutine that runs the simulation; other
// goroutines read snapshots.
func (s *Sim) Results() Results {
	now := s.k.Now()
	makespan := des.Time(0)
	complete := true
	for r := range s.ranks {
		rk := &s.ranks[r]
		if rk.state == StateDone {
			makespan = max(makespan, rk.finish)
		} else {
			complete = false
			makespan = max(makespan, now)
		}
	}
	if s.mode() == Inject {
		makespan = max(makespan, s.stats.lastDeliver)
	}
	res := Results{
		Mode:                   [...]string{"inject", "causal", "predict"}[s.cfg.Mode],
		Model:                  s.net.Name(),
		Makespan:               makespan.Seconds(),
		Events:                 s.k.Events(),
		TraceEvents:            s.stats.traceEvents,
		Wall:                   s.wall.Seconds(),
		Complete:               complete && s.done,
		Deadlock:               s.deadlock,
		Wildcards:              s.wild,
		AnySource:              [...]string{"recorded", "free", "auto"}[s.cfg.AnySource],
		Notes:                  s.runNotes(),
		CollectivesAsMessages:  s.stats.collByP2P,
		Skipped:                s.stats.skipped,
		CollectivesSizeUnknown: s.sizeUnknown,
		// Filled rank by rank below: as huge pages, a fault brings in 2
		// MiB, not 4 KiB (6.5 MiB of ranks' results at 65,536 ranks, ~1,700
		// faults of some 14 µs each on the project's machine).
		Ranks: hugepage.Make[RankResult](len(s.ranks), len(s.ranks)),
		Nodes: hugepage.Make[NodeResult](len(s.nodes), len(s.nodes)),
	}
	if res.Wildcards == nil {
		res.Wildcards = []WildcardMismatch{}
	}
	if s.tr.Timed {
		a, b := s.spanLo, s.spanHi
		res.Recorded = s.tr.Seconds(b - a)
		if s.parts != nil { // a trace in memory (scanTrace)
			p := *s.parts
			res.RecordedParts = &p
		}
	}
	if res.Wall > 0 {
		res.EventsPerSec = float64(res.Events) / res.Wall
		res.TraceEventsPerSec = float64(res.TraceEvents) / res.Wall
	}
	ms := makespan.Seconds()
	var total float64
	for r := range s.ranks {
		rk := &s.ranks[r]
		blocked := rk.blocked
		if rk.state == StateBlocked {
			blocked += now - rk.since
		}
		finish := rk.finish
		if rk.state != StateDone {
			finish = now
		}
		rr := RankResult{
			Rank: r, Node: int(s.nodeOf[r]), Finish: finish.Seconds(),
			Compute: rk.compute.Seconds(), Blocked: blocked.Seconds(), Overhead: rk.overhead.Seconds(),
			Communication: (blocked + rk.overhead).Seconds(), CPUWait: rk.cpuWait.Seconds(),
			Sent: rk.sent, Received: rk.recvd, SentBytes: rk.sentB, RecvBytes: rk.recvdB,
		}
		if ms > 0 {
			rr.Utilisation = rr.Compute / ms
		}
		total += rr.Compute
		res.Ranks[r] = rr
		n := &res.Nodes[s.nodeOf[r]]
		n.Ranks++
		n.Compute += rr.Compute
	}
	for i := range res.Nodes {
		res.Nodes[i].Node = i
		if ms > 0 {
			res.Nodes[i].Utilisation = res.Nodes[i].Compute / ms
		}
	}
	if ms > 0 {
		res.ScaledSpeedup = total / ms
	}
	res.Messages = MessageStats{
		Count: s.stats.messages, Bytes: s.stats.bytes,
		Arrived: s.stats.latency.n, Latency: s.stats.latency.stats(),
		Unmatched: s.unmatched(),
	}
	if m := (&netmodel.Metrics{}); s.measured(m) {
		res.Network = m
	}
	return res
}

// measured fills m with the network's measurements and reports whether
// the network has its own (a topology); the counters of the analytic
// models are in the results already. When nothing ran since the latest
// snapshot, its measurements are copied rather than taken again; the
// snapshot, which a caller may hold, is left as it is; a list kept
// whole is shared with it (both are read-only).
func (s *Sim) measured(m *netmodel.Metrics) bool {
	if sn := s.netSnap; sn != nil {
		*m = sn.Net
		if m.Topology == nil {
			return false
		}
		m.Time = s.k.Now().Seconds()
		m.LevelShare = slices.Clone(m.LevelShare)
		m.Groups = slices.Clone(m.Groups)
		m.Links = keep(m.Links, usedLink)
		m.Queues = keep(m.Queues, usedQueue)
		m.NICs = keep(m.NICs, usedNIC)
		return true
	}
	s.measure(m)
	if m.Topology == nil {
		return false
	}
	m.Time = s.k.Now().Seconds()
	// Links that carried nothing are left out (the flow model counts
	// bytes, not packets).
	m.Links = slices.DeleteFunc(m.Links, func(l netmodel.LinkMetric) bool { return !usedLink(l) })
	m.Queues = slices.DeleteFunc(m.Queues, func(q netmodel.QueueMetric) bool { return !usedQueue(q) })
	m.NICs = slices.DeleteFunc(m.NICs, func(n netmodel.NICMetric) bool { return !usedNIC(n) })
	return true
}

// measure takes the network's measurements into m.
func (s *Sim) measure(m *netmodel.Metrics) {
	s.netBuilds++
	s.net.Metrics(m)
}

func usedLink(l netmodel.LinkMetric) bool   { return l.Packets != 0 || l.Bytes != 0 }
func usedQueue(q netmodel.QueueMetric) bool { return q.Max != 0 }
func usedNIC(n netmodel.NICMetric) bool     { return n.Max != 0 }

// keep returns the elements of xs for which used is true, leaving xs as
// it is: xs itself (clipped, so an append cannot write into it) when
// every element is, else a new slice.
func keep[T any](xs []T, used func(T) bool) []T {
	n := 0
	for _, x := range xs {
		if used(x) {
			n++
		}
	}
	switch n {
	case len(xs):
		return slices.Clip(xs)
	case 0:
		return xs[:0:0]
	}
	out := make([]T, 0, n)
	for _, x := range xs {
		if used(x) {
			out = append(out, x)
		}
	}
	return out
}

// runNotes returns the notes of the run so far: the choices made for
// the trace when it was opened and those the replay made since.
func (s *Sim) runNotes() []string {
	notes := slices.Clip(s.notes)
	if n := s.stats.collByP2P; n > 0 {
		notes = append(notes, fmt.Sprintf("%d collective calls replayed as the point-to-point messages the trace records inside them (the traced library realised them so); --coll-alg does not apply to them", n))
	}
	notes = append(notes, s.bulkNotes()...)
	return notes
}

// unmatched counts messages still waiting in unexpected queues: the count
// finish took at the end of the run, or a walk of the queues before.
func (s *Sim) unmatched() int {
	if s.endCounted {
		return s.endUnmatched
	}
	return s.unmatchedMessages()
}

// unmatchedMessages counts messages still waiting in unexpected queues.
func (s *Sim) unmatchedMessages() int {
	n := 0
	for r := range s.queues {
		for c := range s.queues[r].ctx {
			q := &s.queues[r].ctx[c]
			q.each(func(kq *keyQueues) { n += s.countMsgs(&kq.unexp) })
			if q.coll != nil {
				n += q.coll.msgs()
			}
		}
	}
	for i := range s.worldColl {
		n += s.worldColl[i].msgs()
	}
	for k, f := range s.collBig {
		if k.msg {
			n += f.len()
		}
	}
	for _, h := range s.held {
		n += len(h)
	}
	return n
}

// Snapshot is a consistent, immutable view of a running simulation.
type Snapshot struct {
	// Time is the simulated time.
	Time des.Time
	// Events counts kernel events; TraceEvents the trace records replayed
	// out of TotalTraceEvents.
	Events           uint64
	TraceEvents      uint64
	TotalTraceEvents uint64
	Done             bool
	Deadlock         *Deadlock
	// Ranks holds each rank's status (nil with Options.NoRankStatus).
	Ranks []RankStatus
	// InFlight counts network trips under way; Messages and Bytes the
	// messages completed so far.
	InFlight int
	Messages uint64
	Bytes    int64
	// Net holds the network's own measurements: delivery counters, and
	// for the packet model every link's bytes and utilisation, every
	// router buffer's occupancy and the topology to draw them on (see
	// netmodel.Metrics and docs/sim.md).
	Net netmodel.Metrics
}

// RankStatus is what one rank is doing in a snapshot.
type RankStatus struct {
	State RankState
	Act   Activity
	// Event is the index of the trace record the rank is at.
	Event int32
	// Call names the operation ("MPI_Recv", "MPI_Allreduce", the state
	// of a timed trace's call, "compute").
	Call string
	// Kind, Peer, Tag and Bytes describe that record.
	Kind  tracefmt.Kind
	Peer  int32
	Tag   int32
	Bytes int64
	// Since is when the rank blocked, for blocked ranks.
	Since   des.Time
	Compute des.Time
	Blocked des.Time
	Finish  des.Time
}

// Describe says what the rank does in words: "blocked in recv from 3
// (tag 0, 1 KiB) at event 17".
func (st RankStatus) Describe() string {
	switch st.State {
	case StateDone:
		return "done at " + units.FormatDuration(st.Finish.Seconds())
	case StateReady:
		return fmt.Sprintf("ready at event %d", st.Event)
	}
	what := st.Act.String()
	if st.Call != "" {
		what = st.Call
	}
	switch st.Kind {
	case tracefmt.KindSend:
		what += fmt.Sprintf(" to %d (tag %d, %s)", st.Peer, st.Tag, FormatSize(st.Bytes))
	case tracefmt.KindRecv:
		what += fmt.Sprintf(" from %d (tag %d, %s)", st.Peer, st.Tag, FormatSize(st.Bytes))
	}
	return fmt.Sprintf("%s in %s at event %d", st.State, what, st.Event)
}

// callName names the operation of event e for snapshots, without
// allocating.
func (s *Sim) callName(rk *rank, e *tracefmt.Event) string {
	if rk.coll != nil {
		return collStateName(rk.coll.op)
	}
	if rk.act == ActCompute {
		return "compute"
	}
	switch e.Kind {
	case tracefmt.KindSend:
		return sendStateName(e, rk)
	case tracefmt.KindRecv:
		if e.Flags.Has(tracefmt.FlagSendrecv) {
			return "MPI_Sendrecv"
		}
		return "MPI_Recv"
	case tracefmt.KindWait:
		if e.Flags.Has(tracefmt.FlagAll) {
			return "MPI_Waitall"
		}
		return "MPI_Wait"
	case tracefmt.KindCollective:
		return collStateName(e.Op())
	case tracefmt.KindEnter, tracefmt.KindLeave:
		if int(e.State()) < len(s.tr.States) {
			return s.tr.States[e.State()].Name
		}
	}
	return ""
}

// Snapshot returns the latest published snapshot and asks the simulation
// goroutine to publish a fresh one. It is safe to call from any
// goroutine.
func (s *Sim) Snapshot() *Snapshot {
	s.wantSnap.Store(true)
	return s.snap.Load()
}

// publish builds a snapshot of the current state and makes it the one
// Snapshot returns. Only the simulation goroutine calls it.
func (s *Sim) publish() {
	s.wantSnap.Store(false)
	sn := &Snapshot{
		Time: s.k.Now(), Events: s.k.Events(), TraceEvents: s.stats.traceEvents,
		TotalTraceEvents: s.stats.totalEvents, Done: s.done, Deadlock: s.deadlock,
		InFlight: s.stats.inFlight, Messages: s.stats.messages, Bytes: s.stats.bytes,
	}
	if !s.opts.NoRankStatus {
		sn.Ranks = make([]RankStatus, len(s.ranks))
	}
	for r := range sn.Ranks {
		rk := &s.ranks[r]
		st := RankStatus{State: rk.state, Act: rk.act, Event: rk.pos, Since: rk.since,
			Compute: rk.compute, Blocked: rk.blocked, Finish: rk.finish}
		if e := s.at(rk, rk.pos); e != nil {
			st.Kind, st.Peer, st.Tag, st.Bytes = e.Kind, e.Peer, e.Tag, e.Size
			st.Call = s.callName(rk, e)
		}
		sn.Ranks[r] = st
	}
	if s.net != nil && (!s.opts.NoNetSnapshots || s.opts.OnSample != nil) {
		s.measure(&sn.Net)
		s.netSnap = sn
	}
	s.snap.Store(sn)
}
