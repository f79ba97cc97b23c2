// Package replay is the simulation engine: it replays a trace on a
// simulated machine, with MPI semantics, and predicts how long the
// application would take there.
//
// A Sim walks each rank's event stream in recorded order on a
// discrete-event kernel (engine/des). Sends hand messages to a network
// (an analytic model of engine/netmodel, or the packet-level network of
// engine/packet on the configured topology, routing and placement: see
// Config.Machine); receives block until their message has arrived;
// non-blocking requests complete at waits; collectives expand into the
// point-to-point messages of an algorithm (engine/collective) or are
// costed analytically; computation becomes CPU bursts that ranks on one
// node share by processor sharing. Seed 000 §4 (INSEE) defines the replay
// modes, seed 003 chapter 3 (PUPPET) the send semantics and the
// multitasking model; docs/sim.md documents every setting.
//
// # Timed and untimed traces
//
// An untimed trace (SimGrid's time-independent format) is a list of
// operations: compute amounts, sends and receives (non-blocking ones with
// request ids), waits and collectives. A timed trace (MPE-like) brackets
// MPI calls with states; its send events sit inside the call's state and
// its receive events just before the state of the receive or wait that
// completed them ends. The engine treats an MPI state as one call: the
// sends inside it are issued when reached and the call ends, at the
// state's leave, once its blocking sends have completed; the receives
// inside one call are posted together and complete it together. The
// computation of a timed trace is the time between MPI calls (or its
// compute events, see CPUFrom), scaled by CPUScale.
//
// # Stepping and snapshots
//
// Step, RunUntil and Run advance the simulation; they must be called from
// one goroutine. Snapshot may be called from any goroutine: it returns the
// latest published snapshot, an immutable value, and asks the simulation
// goroutine to publish a fresh one at its next check (every
// Options.CheckEvery events while running; Step and RunUntil publish when
// they return).
package replay

import (
	"context"
	"fmt"
	"github.com/tracesim/tracesim/engine/collective"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
)

// Options are the engine settings that do not describe the machine.
type Options struct {
	// RecordTrace keeps the simulated run as a timed trace (Sim.Trace).
	RecordTrace bool
	// RecordMessages keeps one record per message (Sim.Messages).
	RecordMessages bool
	// CheckEvery is how many events Run processes between checks of its
	// context and of snapshot requests; 0 means 4096.
	CheckEvery int
	// Network replaces the analytic network the configuration describes
	// (the packet-level model plugs in here). It must serve
	// Config.Nodes(ranks) nodes.
	Network netmodel.Network
	// Distance gives hop counts between nodes to the analytic models;
	// nil means Config.Topology's, else the complete graph (Config.Hops
	// overrides both).
	Distance netmodel.Distance
	// NodeOf places rank r on node NodeOf[r] (a placement strategy of
	// engine/placement); nil means Config's Placement, RanksPerNode or
	// Map. It must have one entry per rank.
	NodeOf []int
	// OnSample receives the packet model's metrics samples (every
	// Config.SamplePeriod while the network carries traffic), on the
	// simulation goroutine; the Sample is reused after the call.
	OnSample func(*netmodel.Sample)
	// PerMessageCollectives replays every expanded collective message
	// by message, even where it could be computed in bulk (bulk.go):
	// the same results, more kernel events.
	PerMessageCollectives bool
	// NoNetSnapshots leaves the snapshots' Net empty, for callers that
	// read only Results: the network is then measured once, by Results,
	// instead of at every snapshot (at 65,536 packet nodes a measurement
	// allocates and faults in tens of megabytes). Ignored with OnSample:
	// a measurement hands over the samples due, which the caller may
	// need before it calls Results.
	NoNetSnapshots bool
	// Facts are the whole-trace facts of a streamed trace (ScanFacts),
	// for NewSource; NewSource scans a Prescanner itself without them.
	Facts *Facts
	// NoRankStatus leaves the snapshots' Ranks nil, for callers that
	// read only Results: a snapshot is otherwise built at New and at the
	// end of every Run, each with a status per rank (two lists of
	// 65,536, ~1 µs a rank with their first touch).
	NoRankStatus bool
}

// densePairLimit is the largest world whose per-pair message counters
// are kept in a P×P matrix (2 MiB) rather than a map.
const densePairLimit = 512

// Kernel event kinds owned by the engine; the network's kinds are offset
// by netKind.
const (
	evStart uint8 = iota
	evBurstEnd
	evCPU
	evWake
	netKind uint8 = 128
)

// Sim is one replay of a trace on a configured machine.
type Sim struct {
	cfg  Config
	opts Options
	tr   *tracefmt.Trace
	// src yields the ranks' events of a streamed trace (nil: tr's own);
	// window is how many events a rank reads from it at a time.
	src    tracefmt.Source
	window int
	// countWild is set when any-source auto chose free for a streamed
	// trace that cannot tell its wildcard receives before they are read:
	// wildcards counts them as they come (settleAnySource).
	countWild bool
	wildcards int
	// sizeUnknown counts tr's collectives without recorded sizes.
	sizeUnknown int
	// notes are the choices made for the trace (Results.Notes).
	notes []string
	// recBuffered are the sends replayed as buffered because the
	// recorded run buffered them (SendRecorded), in rank and event order.
	recBuffered []bufferedSend
	// parts is Results.RecordedParts of a timed trace in memory, found
	// by scanTrace.
	parts *RecordedParts
	// spanLo and spanHi are the trace's Span, found by scanTrace.
	spanLo, spanHi float64

	k    *des.Kernel
	net  netmodel.Network
	ovh  netmodel.Overheads
	est  netmodel.Estimator
	host host

	ranks []rank
	nodes []node
	// nodeOf is the node of each rank, apart from the ranks' state:
	// every message reads both of its ends' nodes, and at 65,536 ranks
	// the receiver's state was a cache miss there (256 KiB of nodes
	// stay in cache).
	nodeOf []int32
	class  []stateClass
	// early pairs each rank's MPI_Irecv calls with the receives they
	// posted (earlypost.go); nil when the trace has no such calls.
	early []earlyRank
	ready []int32
	// readyHead indexes the first rank of ready still to run.
	readyHead int

	msgs []message
	// msgRecs holds what the records need of each message, by id,
	// while recording (recording).
	msgRecs []msgRecord
	freeMsg int32
	ops     []recvOp
	// opRecs holds what the records need of each receive's message, by
	// id, while recording the run.
	opRecs []opRecord
	freeOp int32
	// alloc serves the first arrays of the ranks' small slices.
	alloc      allocs
	queues     []rankQueues
	fifos      []*fifo
	pairs      pairTable // when densePairs is nil
	densePairs []uint64
	// denseFrom counts, by source rank, the pairs of densePairs with
	// messages not yet visible (what pairTable.from tells of a large
	// world): hasUnseen read the source's whole row of the matrix at
	// every rank's entry into a bulk collective, P² reads a call (1.3 %
	// of a 64-rank stencil's instructions, 6 % of its D1 misses).
	denseFrom []int32
	held      map[uint64][]int32
	nHeld     int
	postSeq   uint64
	visSeq    uint64
	// endUnmatched is unmatchedMessages' count when finish took it
	// (endCounted): Results reads it rather than walking every rank's
	// queues a second time (at 65,536 ranks a walk misses the cache on
	// ~5 lines a rank).
	endUnmatched int
	endCounted   bool
	// ranksDone counts the ranks in StateDone (finalize).
	ranksDone int

	// worldColl holds the world communicator's collective queues by
	// rank, nil until an expanded collective's first message; collBig
	// the entries of collective queues past collInline (collq.go).
	worldColl []collQueue
	collBig   map[collBigKey]*fifo

	colls     map[collKey]*collInstance
	collPool  []*collInstance
	collRuns  []*collRun
	collSteps []collective.Step // scratch: the round a rank starts
	// comms holds, per communicator, the world rank of each local rank
	// and the local rank of each world rank (commMembers).
	comms []commRanks
	// bulk holds the collectives computed in bulk (bulk.go).
	bulk bulkState
	// runCtx is the context of the Run or RunUntil in progress: a long
	// computation within one event checks it (bulkRounds).
	runCtx context.Context

	// Derived settings.
	threshold   int64
	atMatch     bool
	gaps        bool // computation from the gaps of a timed trace
	computeEvts bool // computation from compute events
	unitPS      float64
	flopPS      float64
	// nodeFlopPS is flopPS per node when a platform's hosts run at
	// different speeds, nil otherwise.
	nodeFlopPS []float64

	stats   stats
	rec     *recorder
	records []MessageRecord
	wild    []WildcardMismatch

	done     bool
	deadlock *Deadlock
	err      error
	wall     time.Duration

	snap     atomic.Pointer[Snapshot]
	wantSnap atomic.Bool
	// netSnap is the latest snapshot while its Net is still the
	// network's state (nothing ran since publish): Results copies it
	// instead of measuring the network again (at 65,536 packet nodes a
	// measurement takes 70-90 ms). Only the simulation goroutine uses it.
	netSnap *Snapshot
	// netBuilds counts the network measurements taken (tests).
	netBuilds int
}

// stats are the run's counters.
type stats struct {
	traceEvents uint64
	totalEvents uint64
	messages    uint64
	bytes       int64
	inFlight    int
	lastDeliver des.Time
	latency     histogram
	skipped     int
	// collByP2P counts collective calls replayed as the point-to-point
	// messages the trace records inside them.
	collByP2P int
}

// New prepares a replay of t under cfg. The trace is read, never
// modified, and must not change while the simulation runs.
func New(t *tracefmt.Trace, cfg Config, opts Options) (*Sim, error) {
	if t == nil || t.Size() == 0 {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("replay: the trace has no ranks")
	}
	return newSim(t, nil, cfg, opts)
}

// gcBeforeEvents is the trace size, in events, from which New collects
// the heap before the replay allocates its state.
const gcBeforeEvents = 1 << 20

// collectLoadGarbage runs a garbage collection once the replay of a
// large trace in memory has allocated its tables, before the run. A
// reader leaves garbage behind (its buffers, the tsim reader's blocks),
// and the collector last ran while the trace was being built: its next
// run is due at twice the trace, so the run's own allocations (the
// ranks' slabs, ~26 MB at 65,536 ranks) came from fresh pages on top of
// that garbage. Collected, the garbage is reused: stencil2d at 65,536
// ranks (7.8 M events), sim --model puppet peak RSS 482 -> 454 MB. It
// runs after newSim's tables are allocated, not before: Go clears
// reused memory as it allocates it, page by page before the huge-page
// advice can act (~4,000 faults of 4 KiB for the message and receive
// tables), where fresh memory needs no clearing and faults 2 MiB at a
// time. The trace's events hold no pointers, so the collection marks
// little.
func collectLoadGarbage(t *tracefmt.Trace) {
	if t.NumEvents() >= gcBeforeEvents {
		runtime.GC()
	}
}

// NewSource prepares a replay of the trace src yields, pulling each
// rank's events as the run reaches them: the memory the run takes grows
// with the ranks and the messages in flight, not with the trace's length.
// The results are those New gives for the same trace, except that a
// streamed trace lists no wildcard mismatches for receives whose sender
// it does not record, that Snapshot's TotalTraceEvents is 0 (not known
// before the end), and that Results.Recorded is 0 for a timed trace. A
// timed trace computes from its gaps unless CPUFrom says events. A
// source that can read its trace once ahead (Prescanner: a tsim file) or
// Options.Facts (ScanFacts) give the whole trace's facts first, and then
// the results of New (see facts.go).
// Recording the run (Options.RecordTrace) needs the trace in memory. The
// Sim reads src but does not close it.
func NewSource(src tracefmt.Source, cfg Config, opts Options) (*Sim, error) {
	if opts.RecordTrace {
		return nil, fmt.Errorf("replay: recording the simulated run needs the trace in memory (read it whole and use New)")
	}
	if m, ok := src.(tracefmt.InMemory); ok {
		return New(m.Trace(), cfg, opts)
	}
	if ps, ok := src.(Prescanner); ok && opts.Facts == nil {
		f, err := ScanFacts(context.Background(), ps, cfg)
		if err != nil {
			return nil, err
		}
		opts.Facts = f
	}
	t := src.Header()
	if t == nil || t.Size() == 0 {
		if err := cfg.Validate(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("replay: the trace has no ranks")
	}
	if n, ok := t.Attr(tracefmt.AttrUnrecordedSources); ok && n == "" && cfg.AnySource == AnyRecorded {
		return nil, fmt.Errorf("replay: the trace records no sender for its wildcard receives (SimGrid -555): --any-source recorded needs the trace read whole, whose reader guesses them")
	}
	return newSim(t, src, cfg, opts)
}

// newSim prepares a replay of t, whose events are t's own when src is
// nil, else src's.
func newSim(t *tracefmt.Trace, src tracefmt.Source, cfg Config, opts Options) (*Sim, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg, err := cfg.Resolve()
	if err != nil {
		return nil, err
	}
	var notes []string
	auto := cfg.AnySource == AnyAuto
	if note := cfg.resolveAnySource(t); note != "" {
		notes = append(notes, note)
	}
	P := t.Size()
	if opts.CheckEvery <= 0 {
		opts.CheckEvery = 4096
	}
	s := &Sim{
		cfg: cfg, opts: opts, tr: t, notes: notes, src: src,
		k:       des.NewKernel(cfg.Seed),
		ranks:   hugepage.Make[rank](P, P),
		held:    map[uint64][]int32{},
		colls:   map[collKey]*collInstance{},
		queues:  hugepage.Make[rankQueues](P, P),
		freeMsg: -1, freeOp: -1,
		threshold: cfg.Threshold(),
		atMatch:   cfg.eagerAtMatch(),
		window:    streamWindow(P),
	}
	if n, ok := t.Attr(tracefmt.AttrUnrecordedSources); ok && n == "" && auto && src != nil {
		// A streamed trace counts its wildcard receives as they come
		// (settleAnySource).
		s.countWild = true
	}
	// The per-rank arrays are first touched rank by rank as the run
	// starts: as huge pages, a fault brings in 2 MiB, not 4 KiB (19 MiB
	// of ranks and 1.5 MiB of queues at 65,536 ranks).
	s.alloc.expect(P)
	s.host.s = s
	if P <= densePairLimit {
		s.densePairs = make([]uint64, P*P)
		s.denseFrom = make([]int32, P)
	}
	var mach *Machine
	if opts.NodeOf == nil || opts.Network == nil {
		var err error
		if mach, err = cfg.Machine(P, opts.OnSample); err != nil {
			return nil, err
		}
	}
	placed := opts.NodeOf
	if placed == nil {
		placed = mach.NodeOf
	} else if len(placed) != P {
		return nil, fmt.Errorf("replay: placement has %d entries for %d ranks", len(placed), P)
	}
	nNodes := 0
	for r, n := range placed {
		if n < 0 {
			return nil, fmt.Errorf("replay: placement puts rank %d on node %d", r, n)
		}
		nNodes = max(nNodes, n+1)
	}
	if opts.NodeOf == nil && mach.Topology == nil {
		nNodes = max(nNodes, mach.Nodes) // a map's unused nodes count too
	}
	nodeOf := func(r int) int { return placed[r] }
	// 3.5 MiB at 65,536 nodes, written node by node below.
	s.nodes = hugepage.Make[node](nNodes, nNodes)
	s.nodeOf = make([]int32, P)
	hasCompute := false
	for r := range s.ranks {
		rk := &s.ranks[r]
		if src == nil {
			rk.ev = t.Ranks[r].Events
		} else {
			rk.feed = &feed{rank: r}
		}
		n := nodeOf(r)
		s.nodeOf[r] = int32(n)
		s.nodes[n].ranks++
		rk.wrap = -1
		rk.burstWrap = -1
		if e := s.at(rk, 0); e != nil {
			rk.lastT = e.Time
		}
		if src == nil {
			s.stats.totalEvents += uint64(len(rk.ev))
		}
	}
	if s.err != nil {
		return nil, s.err // reading the first events
	}
	s.classifyStates()
	if cfg.Mode != Inject && hasIrecvCalls(s.class) {
		s.early = make([]earlyRank, len(t.Ranks))
		for r := range s.early {
			s.early[r].open = -1
		}
	}
	if src == nil {
		findBuffered := cfg.Send == SendRecorded && cfg.Mode != Inject
		hasCompute = s.scanTrace(findBuffered)
		if len(s.recBuffered) > 0 {
			s.notes = append(s.notes, recordedNote(len(s.recBuffered), s.threshold))
		}
	} else if opts.Facts != nil {
		// Scanned ahead (facts.go).
		if hasCompute, err = s.useFacts(opts.Facts); err != nil {
			return nil, err
		}
	} else {
		// The header: no events.
		s.spanLo, s.spanHi = t.Span()
		s.sizeUnknown = t.UnknownSizeCollectives()
	}
	if cfg.Mode == Predict {
		if t.Timed && (cfg.CPUFrom == CPUGaps || (cfg.CPUFrom == CPUAuto && !hasCompute)) {
			s.gaps = true
		} else {
			s.computeEvts = true
		}
	}
	if s.gaps {
		s.findInit()
	}
	s.unitPS = t.Unit.Seconds() * 1e12 * cfg.CPUScale
	s.flopPS = 1e12 / cfg.CPUSpeed * cfg.CPUScale
	if sp := cfg.nodeSpeeds; sp != nil {
		s.nodeFlopPS = make([]float64, len(sp))
		for n, v := range sp {
			s.nodeFlopPS[n] = 1e12 / v * cfg.CPUScale
		}
	}

	switch {
	case opts.Network != nil:
		s.net = opts.Network
	case cfg.Model.Measured():
		if nNodes > mach.Nodes {
			return nil, fmt.Errorf("replay: placement uses node %d; the network has %d nodes", nNodes-1, mach.Nodes)
		}
		s.net = mach.Network
	default:
		dist := opts.Distance
		if dist == nil && mach != nil && mach.Distance != nil {
			dist = mach.Distance
		}
		if dist == nil && mach != nil && mach.Topology != nil {
			dist = mach.Topology
		}
		nodes := nNodes
		if mach != nil {
			nodes = max(nodes, mach.Nodes)
		}
		s.net = cfg.Network(nodes, dist)
		if dist == nil || cfg.Hops > 0 {
			// Config.Network's complete graph: distinct nodes are
			// max(1, Hops) apart.
			s.bulk.hops = max(1, cfg.Hops)
		}
	}
	if o, ok := s.net.(netmodel.Overheads); ok {
		s.ovh = o
	}
	if an, ok := s.net.(*netmodel.Analytic); ok {
		if _, has := an.Model().(netmodel.Overheads); !has {
			// Every overhead is zero: skip asking for them on each
			// message and collective round.
			s.ovh = nil
		}
	}
	if e, ok := s.net.(netmodel.Estimator); ok {
		s.est = e
	}
	s.net.Attach(&s.host)
	s.comms = make([]commRanks, len(t.Comms))
	if opts.RecordTrace {
		s.rec = newRecorder(t)
		outs := make([]rankOut, len(s.ranks))
		for r := range s.ranks {
			s.ranks[r].rec = &outs[r]
		}
	}
	// The start events, and an event for each message the tables were
	// sized for (its arrival): grown from the ranks' count, the queue's
	// nodes copied themselves over again at 65,536 ranks.
	s.k.Grow(len(s.ranks) + cap(s.msgs))
	for r := range s.ranks {
		s.k.Schedule(0, evStart, int32(r), 0)
	}
	if src == nil {
		collectLoadGarbage(t)
	}
	s.publish()
	return s, nil
}

// Config returns the configuration of the run.
func (s *Sim) Config() Config { return s.cfg }

// Now returns the current simulated time.
func (s *Sim) Now() des.Time { return s.k.Now() }

// Done reports whether the run has ended: every rank finished, or the
// run stopped on a deadlock or an error.
func (s *Sim) Done() bool { return s.done }

// Err returns the error that stopped the run, if any.
func (s *Sim) Err() error { return s.err }

// Deadlock returns the deadlock report of a run that stopped with ranks
// blocked, or nil.
func (s *Sim) Deadlock() *Deadlock { return s.deadlock }

// Step processes the next event and everything it makes ready at the same
// instant. It reports false once the run has ended.
func (s *Sim) Step() bool {
	start := time.Now()
	ok := s.step()
	s.wall += time.Since(start)
	s.publish()
	return ok
}

func (s *Sim) step() bool {
	if s.done {
		return false
	}
	s.netSnap = nil
	e, ok := s.k.Next()
	if !ok {
		s.finish()
		return false
	}
	s.handle(e)
	s.drain()
	if s.k.Overflowed() && s.err == nil {
		o, _ := s.k.Overflow()
		s.err = s.kernelRangeError(o)
	}
	if s.err != nil {
		s.done = true
		return false
	}
	return true
}

// RunUntil processes every event up to simulated time t (inclusive) or
// the end of the run, whichever comes first. It checks ctx every
// Options.CheckEvery events.
func (s *Sim) RunUntil(ctx context.Context, t des.Time) error {
	return s.run(ctx, t)
}

// Run runs the simulation to its end, or until ctx is cancelled (its
// error is returned then; the simulation can be resumed). A run that ends
// in a deadlock returns nil: see Deadlock.
func (s *Sim) Run(ctx context.Context) error {
	return s.run(ctx, des.Never)
}

func (s *Sim) run(ctx context.Context, until des.Time) error {
	start := time.Now()
	s.runCtx = ctx
	defer func() {
		s.runCtx = nil
		s.wall += time.Since(start)
		s.publish()
	}()
	n := 0
	for !s.done {
		// Run, whose limit is Never, need not peek at the next event's
		// time: it skips the peek (a search of the calendar's buckets
		// that Next repeats).
		if until != des.Never && s.k.NextTime() > until && s.k.Pending() > 0 {
			if id, ok := s.net.(netmodel.Idler); ok && until != des.Never {
				s.netSnap = nil
				id.SampleUntil(until) // nothing changes before the next event
			}
			return nil
		}
		s.step()
		if n++; n >= s.opts.CheckEvery {
			n = 0
			if err := ctx.Err(); err != nil {
				return err
			}
			if s.wantSnap.Load() {
				s.wall += time.Since(start)
				start = time.Now()
				s.publish()
			}
		}
	}
	return s.err
}

// handle dispatches one kernel event.
func (s *Sim) handle(e des.Event) {
	if e.Kind >= netKind {
		e.Kind -= netKind
		s.net.Handle(e)
		return
	}
	switch e.Kind {
	case evStart:
		rk := &s.ranks[e.Obj]
		rk.state = StateReady
		s.pushReady(e.Obj)
	case evBurstEnd:
		s.burstEnd(e.Obj)
	case evCPU:
		s.cpuEvent(e.Obj, e.Arg)
	case evWake:
		s.unblock(e.Obj)
	case evBulkVisible:
		s.bulkVisible(e.Obj)
	case evBulkResume:
		s.bulkResume(e.Obj)
	}
}

func (s *Sim) pushReady(r int32) { s.ready = append(s.ready, r) }

// drain runs every ready rank until it blocks, computes or ends.
func (s *Sim) drain() {
	for s.readyHead < len(s.ready) {
		r := s.ready[s.readyHead]
		s.readyHead++
		s.advance(r)
		if s.err != nil {
			return
		}
	}
	s.ready = s.ready[:0]
	s.readyHead = 0
}

// finish ends the run when no event is left: with a deadlock report if
// ranks are still blocked or messages stuck in the network.
func (s *Sim) finish() {
	s.done = true
	s.settleAnySource()
	// ranksDone, not a walk of the ranks (a line each, cold at the end
	// of a run of 65,536 ranks).
	stuck := s.net.InFlight() > 0 || s.ranksDone != len(s.ranks)
	if stuck {
		s.deadlock = s.analyseDeadlock()
	}
	if f, ok := s.net.(netmodel.Finisher); ok {
		f.Finish()
	}
	// Messages left unreceived in the unexpected queues (the ranks ended
	// without their receives) are counted through the tables, once:
	// Results reads the count.
	s.endUnmatched, s.endCounted = s.unmatchedMessages(), true
	if !stuck && s.endUnmatched == 0 {
		s.releaseFlightTables()
	}
}

// releaseGCBytes is the size of the message and receive tables from
// which releaseFlightTables collects the heap.
const releaseGCBytes = 4 << 20

// releaseFlightTables drops the message and receive tables of a run that
// ended with every message delivered and received and every receive
// matched (the deadlock report, the overflow error and the count of
// unmatched messages, which read them, come only from runs that did
// not). The run's peak memory is at its end, where Results allocates
// its per-rank arrays: collected first, they reuse the
// tables' pages instead of new ones (16 + 10 MiB of tables at 65,536
// ranks of a stencil, 6.5 + 2 MiB of results). The collection marks
// little: the trace's events hold no pointers.
func (s *Sim) releaseFlightTables() {
	size := uintptr(cap(s.msgs))*unsafe.Sizeof(message{}) + uintptr(cap(s.ops))*unsafe.Sizeof(recvOp{})
	s.msgs, s.ops = nil, nil
	s.freeMsg, s.freeOp = -1, -1
	if size >= releaseGCBytes {
		runtime.GC()
	}
}

// Network returns the network model the run drives.
func (s *Sim) Network() netmodel.Network { return s.net }

// host adapts Sim to netmodel.Host without exporting the callbacks.
type host struct{ s *Sim }

func (h *host) Now() des.Time { return h.s.k.Now() }
func (h *host) Schedule(at des.Time, kind uint8, obj int32, arg int64) {
	h.s.k.Schedule(at, kind+netKind, obj, arg)
}
func (h *host) Rand() *rand.Rand   { return h.s.k.Rand() }
func (h *host) Delivered(id int32) { h.s.delivered(id) }
func (h *host) Injected(id int32)  { h.s.injected(id) }

// callKind classifies an MPI state by the call it brackets.
type callKind uint8

const (
	callOther callKind = iota
	callSend
	callSsend
	callIsend
	callRecv
	callIrecv
	callSendrecv
	callWait
	callWaitall
	callTest
	callColl
)

type stateClass struct {
	mpi  bool
	kind callKind
	op   tracefmt.CollOp
	// init marks MPI_Init: the time before it is the rank's launch
	// (Paraver's "Not created"), not computation.
	init bool
}

// classifyStates decides which states are MPI calls and which calls.
func (s *Sim) classifyStates() {
	s.class = make([]stateClass, len(s.tr.States))
	for i, d := range s.tr.States {
		lower := strings.ToLower(d.Name)
		isMPI := d.Category.IsMPI() || strings.HasPrefix(lower, "mpi_") || strings.HasPrefix(lower, "pmpi_")
		if !isMPI {
			continue
		}
		n := strings.TrimPrefix(strings.TrimPrefix(lower, "p"), "mpi_")
		if !strings.HasPrefix(lower, "mpi_") && !strings.HasPrefix(lower, "pmpi_") {
			n = lower
		}
		c := stateClass{mpi: true}
		switch n {
		case "send", "bsend", "rsend":
			c.kind = callSend
		case "ssend":
			c.kind = callSsend
		case "isend", "ibsend", "irsend", "issend":
			c.kind = callIsend
		case "recv":
			c.kind = callRecv
		case "irecv":
			c.kind = callIrecv
		case "sendrecv", "sendrecv_replace":
			c.kind = callSendrecv
		case "wait", "waitany":
			c.kind = callWait
		case "waitall", "waitsome":
			c.kind = callWaitall
		case "test", "testany", "testall", "testsome":
			c.kind = callTest
		case "init", "init_thread":
			c.init = true
		default:
			name := strings.ReplaceAll(strings.TrimPrefix(n, "i"), "_", "")
			if op, ok := tracefmt.ParseCollOp(name); ok && op != tracefmt.OpOther {
				c.kind, c.op = callColl, op
			} else if op, ok := tracefmt.ParseCollOp(strings.ReplaceAll(n, "_", "")); ok && op != tracefmt.OpOther {
				c.kind, c.op = callColl, op
			}
		}
		s.class[i] = c
	}
}

// initWithin is how many of a rank's first events findInit looks at for
// MPI_Init.
const initWithin = 64

// findInit marks the ranks whose trace logs MPI_Init among its first
// events (preInit). A trace with no MPI_Init state has nothing to find:
// looking cost a pass over every rank's first events, the whole trace
// at 65,536 ranks of 30 events each (a cache miss every other event).
func (s *Sim) findInit() {
	if !slices.ContainsFunc(s.class, func(c stateClass) bool { return c.init }) {
		return
	}
	for r := range s.ranks {
		rk := &s.ranks[r]
		for i := int32(0); i < initWithin; i++ {
			e := s.at(rk, i)
			if e == nil {
				break
			}
			if e.Kind == tracefmt.KindEnter && s.class[e.State()].init {
				rk.preInit = true
				break
			}
		}
	}
}

// traceTime converts a duration in trace units to simulated time,
// scaled by CPUScale; des.Never when it does not fit (burst stops the run
// with an error then).
func (s *Sim) traceTime(d float64) des.Time { return des.FromPS(d * s.unitPS) }

// computeTime returns the simulated duration of rank r's compute event,
// or des.Never when it does not fit.
func (s *Sim) computeTime(r int32, e *tracefmt.Event) des.Time {
	a := e.Amount()
	if e.Flags.Has(tracefmt.FlagWork) {
		return des.FromPS(a * s.rankFlopPS(r))
	}
	return s.traceTime(a)
}

// rankFlopPS is the picoseconds a flop takes on rank r's node.
func (s *Sim) rankFlopPS(r int32) float64 {
	if s.nodeFlopPS != nil {
		return s.nodeFlopPS[s.nodeOf[r]]
	}
	return s.flopPS
}
