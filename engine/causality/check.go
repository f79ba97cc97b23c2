package causality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
)

// ReplayPolicy says when Check replays a trace to find deadlocks.
type ReplayPolicy uint8

// Replay policies.
const (
	// ReplayAuto replays traces of at most AutoReplayEvents events, so
	// that checking a huge trace stays a linear scan.
	ReplayAuto ReplayPolicy = iota
	// ReplayOff never replays.
	ReplayOff
	// ReplayOn always replays.
	ReplayOn
)

// AutoReplayEvents is the largest trace ReplayAuto replays: a causal
// replay runs at a few million events per second, so about a second.
const AutoReplayEvents = 1_000_000

// Options tune Check.
type Options struct {
	// LMin is the minimum message latency l_min in seconds. 0 reports
	// only strict reversals (t(recv) < t(send)); a positive value also
	// reports messages faster than it (KindLatency).
	LMin float64
	// Replay says whether to run a causal replay looking for deadlocks.
	Replay ReplayPolicy
	// ReplayConfig is the machine of that replay; nil means
	// replay.Default() in causal mode with the PUPPET model.
	ReplayConfig *replay.Config
}

// Report is what Check found.
type Report struct {
	// Timed is false for traces without timestamps: clock findings are
	// not looked for.
	Timed bool
	// LMin is the minimum latency used, in seconds.
	LMin float64
	// Events, Messages (matched) and Collectives (calls over all members)
	// count what was checked.
	Events, Messages, Collectives int
	// ByKind lists the findings of each kind, in rank then event order
	// (collective findings in call order).
	ByKind [NumKinds][]Finding
	// Counts counts the findings of each kind.
	Counts [NumKinds]int
	// Replayed reports whether a causal replay ran; Deadlock is its
	// report when it stopped with ranks blocked, ReplayError why it could
	// not run (the other checks are still valid).
	Replayed    bool
	Deadlock    *replay.Deadlock
	ReplayError string
	// ReplayNotes are the choices the replay made for the trace (sends
	// the recorded run buffered replayed as buffered, …: replay's
	// Results.Notes).
	ReplayNotes []string

	t     *tracefmt.Trace
	notes []string
}

// note attaches text to f and returns it.
func (r *Report) note(f Finding, text string) Finding {
	r.notes = append(r.notes, text)
	f.note = int32(len(r.notes))
	return f
}

// Detail describes finding f of the report in a short phrase: the
// message of a clock finding, the sizes of a size mismatch, the
// operations of a collective mismatch, the explanation of a deadlock
// (Report.Deadlock has all of it).
func (r *Report) Detail(f *Finding) string {
	if f.note > 0 && int(f.note) <= len(r.notes) {
		return r.notes[f.note-1]
	}
	t := r.t
	if t == nil || f.Events[0].Rank < 0 {
		return ""
	}
	e := t.Event(f.Events[0])
	switch f.Kind {
	case KindReversal, KindLatency:
		return fmt.Sprintf("message %d → %d, tag %d, %d B", f.Events[0].Rank, e.Peer, e.Tag, e.Size)
	case KindSizeMismatch:
		return fmt.Sprintf("%d B sent, %d B received", e.Size, t.Event(f.Events[1]).Size)
	case KindCollective:
		return fmt.Sprintf("%s (%s) on communicator %d", e.Op(), shapeName(e.Op().Shape()), e.Comm)
	case KindUnmatchedSend:
		return fmt.Sprintf("send to rank %d, tag %d, %d B: no such receive", e.Peer, e.Tag, e.Size)
	case KindUnmatchedRecv:
		return fmt.Sprintf("receive from rank %d, tag %d, %d B: no such send", e.Peer, e.Tag, e.Size)
	case KindTagMismatch:
		return fmt.Sprintf("sent with tag %d, received with tag %d", e.Tag, t.Event(f.Events[1]).Tag)
	case KindWildcard:
		what := "MPI_ANY_SOURCE"
		switch {
		case e.Flags.Has(tracefmt.FlagAnySource | tracefmt.FlagAnyTag):
			what = "MPI_ANY_SOURCE and MPI_ANY_TAG"
		case e.Flags.Has(tracefmt.FlagAnyTag):
			what = "MPI_ANY_TAG"
		}
		return fmt.Sprintf("receive posted with %s matched rank %d, tag %d", what, e.Peer, e.Tag)
	case KindNondeterministic:
		if e.Kind == tracefmt.KindEnter {
			return t.StateName(e.State())
		}
		return "MPI_Test"
	case KindBackwards:
		return "the clock steps back"
	}
	return ""
}

// JSON returns finding f as the JSON output shows it.
func (r *Report) JSON(f *Finding) FindingJSON {
	j := FindingJSON{Kind: f.Kind, Class: f.Kind.Class().String(), Ranks: f.Ranks(), Events: []EventJSON{},
		Amount: f.Amount, Unit: f.Kind.AmountUnit(), Detail: r.Detail(f)}
	if j.Ranks == nil {
		j.Ranks = []int{}
	}
	for i, e := range f.Events {
		if e.Rank >= 0 {
			j.Events = append(j.Events, EventJSON{e.Rank, e.Index, f.Times[i]})
		}
	}
	return j
}

// Findings returns every finding in one new slice, grouped by kind in
// Kind order.
func (r *Report) Findings() []Finding {
	n := 0
	for k := range r.ByKind {
		n += len(r.ByKind[k])
	}
	out := make([]Finding, 0, n)
	for k := range r.ByKind {
		out = append(out, r.ByKind[k]...)
	}
	return out
}

// Involving returns the findings that name event e, in Kind order: what
// a view shows for a selected event. It scans every finding.
func (r *Report) Involving(e tracefmt.EventRef) []Finding {
	var out []Finding
	for k := range r.ByKind {
		for _, f := range r.ByKind[k] {
			if f.Events[0] == e || f.Events[1] == e {
				out = append(out, f)
			}
		}
	}
	return out
}

// Total returns the number of findings of every kind.
func (r *Report) Total() int {
	n := 0
	for _, c := range r.Counts {
		n += c
	}
	return n
}

// Violations returns the number of findings that are violations (clock
// condition and defects), as opposed to notes.
func (r *Report) Violations() int {
	n := 0
	for k := range NumKinds {
		if k.Violation() {
			n += r.Counts[k]
		}
	}
	return n
}

// ClockViolations returns the number of clock-condition findings: what
// Correct removes.
func (r *Report) ClockViolations() int {
	n := 0
	for k := range NumKinds {
		if k.Class() == ClassClock {
			n += r.Counts[k]
		}
	}
	return n
}

// CountMap returns the counts by kind name, every kind included.
func (r *Report) CountMap() map[string]int {
	m := make(map[string]int, NumKinds)
	for k := range NumKinds {
		m[k.String()] = r.Counts[k]
	}
	return m
}

// before reports whether finding a comes first in display order: clock
// findings by decreasing amount, then defects, then notes, each by kind
// and position.
func before(a, b *Finding) bool {
	ca, cb := a.Kind.Class(), b.Kind.Class()
	if ca != cb {
		return ca < cb
	}
	if ca == ClassClock && a.Amount != b.Amount {
		return a.Amount > b.Amount
	}
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	if x, y := a.Events[1], b.Events[1]; x != y {
		if x.Rank != y.Rank {
			return x.Rank < y.Rank
		}
		return x.Index < y.Index
	}
	x, y := a.Events[0], b.Events[0]
	if x.Rank != y.Rank {
		return x.Rank < y.Rank
	}
	return x.Index < y.Index
}

// Top returns the first n findings keep accepts in display order (the
// largest clock violations first, then defects, then notes); n ≤ 0 means
// all of them. A small n costs O(findings × n), not a sort of every
// finding.
func (r *Report) Top(n int, keep func(*Finding) bool) []Finding {
	var out []Finding
	if n <= 0 || n > 64 {
		for k := range r.ByKind {
			for i := range r.ByKind[k] {
				if f := &r.ByKind[k][i]; keep == nil || keep(f) {
					out = append(out, *f)
				}
			}
		}
		slices.SortStableFunc(out, func(a, b Finding) int {
			switch {
			case before(&a, &b):
				return -1
			case before(&b, &a):
				return 1
			}
			return 0
		})
		if n > 0 && len(out) > n {
			out = out[:n:n]
		}
		return out
	}
	for k := range r.ByKind {
		for i := range r.ByKind[k] {
			out = r.top(out, &r.ByKind[k][i], n, keep)
		}
	}
	return out
}

// top inserts f into out, the first n findings in display order so far.
func (r *Report) top(out []Finding, f *Finding, n int, keep func(*Finding) bool) []Finding {
	if keep != nil && !keep(f) {
		return out
	}
	if n > 0 && len(out) == n && !before(f, &out[n-1]) {
		return out
	}
	j := len(out)
	for j > 0 && before(f, &out[j-1]) {
		j--
	}
	if n > 0 && len(out) == n {
		copy(out[j+1:], out[j:n-1])
	} else {
		out = append(out, Finding{})
		copy(out[j+1:], out[j:])
	}
	out[j] = *f
	return out
}

// Check looks for every kind of finding in t: the clock condition of
// each message and collective with minimum latency o.LMin, ranks whose
// clock runs backwards, unmatched and mismatched messages and
// collectives, wildcard receives, non-deterministic calls and (see
// o.Replay) deadlocks of a causal replay. Everything but the replay is
// one pass over the events.
func Check(ctx context.Context, t *tracefmt.Trace, o Options) (*Report, error) {
	return NewGraph(t).Check(ctx, o)
}

// Check is the package-level Check on a graph already built.
func (g *Graph) Check(ctx context.Context, o Options) (*Report, error) {
	return g.check(ctx, o, false)
}

// check is Check; with countOnly the report counts the findings of the
// per-event checks without listing them, for Correct's before and after.
func (g *Graph) check(ctx context.Context, o Options, countOnly bool) (*Report, error) {
	if o.LMin < 0 || math.IsNaN(o.LMin) || math.IsInf(o.LMin, 0) {
		return nil, fmt.Errorf("causality: minimum latency %v s: want a duration of 0 or more", o.LMin)
	}
	t := g.t
	rep := &Report{Timed: t.Timed, LMin: o.LMin, Events: t.NumEvents(), Collectives: len(g.colls), t: t}
	sc, err := g.scan(ctx, o.LMin/t.Unit.Seconds(), countOnly)
	if err != nil {
		return nil, err
	}
	rep.Messages = sc.msgs
	sc.unmatched()
	byKind := sc.gather()
	for i, f := range g.mismatches {
		byKind[KindCollectiveMismatch] = append(byKind[KindCollectiveMismatch], rep.note(f, g.texts[i]))
	}
	if runReplay(o.Replay, rep.Events) {
		d, notes, err := deadlock(ctx, t, o.ReplayConfig)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			rep.ReplayError = err.Error()
		default:
			rep.Replayed = true
			rep.Deadlock = d
			rep.ReplayNotes = notes
			if d != nil {
				byKind[KindDeadlock] = append(byKind[KindDeadlock], rep.note(deadlockFinding(t, d), d.Message))
			}
		}
	}
	rep.ByKind = byKind
	for k := range byKind {
		rep.Counts[k] = sc.counts[k] + len(byKind[k])
	}
	return rep, nil
}

// minScanEvents is the fewest events worth a goroutine of their own.
const minScanEvents = 1 << 18

// scan runs the per-rank checks, on several goroutines for large
// traces: each takes a contiguous block of ranks, and their findings are
// concatenated in rank order so that the result does not depend on the
// number of goroutines. Each rank's events are streamed once, in blocks
// that stay in cache: its clock is checked, and each of its matched sends
// against its receive, loaded through the send's Match (one load from
// another rank's stream per message: gathering both ends into slots
// first took 32 bytes a message, and index lists 20 more, for the same
// one scattered access). Each goroutine then checks a block of the
// collective calls, in call order, from the times of their members'
// events.
func (g *Graph) scan(ctx context.Context, lmin float64, countOnly bool) (*scanner, error) {
	t := g.t
	events := t.NumEvents()
	workers := max(1, min(runtime.GOMAXPROCS(0), t.Size(), events/minScanEvents))
	scs := make([]*scanner, workers)
	// Block w holds ranks bounds[w] to bounds[w+1]−1, about events/workers
	// events each.
	bounds := make([]int, workers+1)
	acc, w := 0, 1
	for r := range t.Ranks {
		acc += len(t.Ranks[r].Events)
		for w < workers && acc >= events*w/workers {
			bounds[w] = r + 1
			w++
		}
	}
	for ; w <= workers; w++ {
		bounds[w] = t.Size()
	}
	for w := range scs {
		scs[w] = newScanner(g, lmin, countOnly)
	}
	err := parallel(workers, func(w int) error {
		sc := scs[w]
		for r := bounds[w]; r < bounds[w+1]; r++ {
			if r&15 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			sc.rank(r)
		}
		// Each goroutine also takes a block of the collective calls, in
		// call order.
		if t.Timed {
			n := len(g.colls)
			sc.collectives(n*w/workers, n*(w+1)/workers)
		}
		sc.finish()
		return ctx.Err()
	})
	if err != nil {
		return nil, err
	}
	if workers == 1 {
		return scs[0], nil
	}
	m := newScanner(g, lmin, countOnly)
	for _, sc := range scs {
		for k := range m.chunks {
			m.chunks[k] = append(m.chunks[k], sc.chunks[k]...)
		}
		for k := range m.counts {
			m.counts[k] += sc.counts[k]
		}
		m.msgs += sc.msgs
		m.sends = append(m.sends, sc.sends...)
		m.recvs = append(m.recvs, sc.recvs...)
	}
	return m, nil
}

// parallel runs fn(0) to fn(n−1) on n goroutines, the caller's and n−1
// new ones, and returns their errors joined.
func parallel(n int, fn func(w int) error) error {
	if n == 1 {
		return fn(0)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	for w := 1; w < n; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = fn(w)
		}()
	}
	errs[0] = fn(0)
	wg.Wait()
	return errors.Join(errs...)
}

func runReplay(p ReplayPolicy, events int) bool {
	switch p {
	case ReplayOn:
		return true
	case ReplayAuto:
		return events <= AutoReplayEvents
	}
	return false
}

// scanner is the one pass of Check over the events.
type scanner struct {
	g    *Graph
	t    *tracefmt.Trace
	lmin float64 // trace units
	unit float64 // seconds per trace unit
	// chunks collect the findings of each kind in fixed-size slices:
	// growing one slice would copy and clear it again and again, and
	// checks can find millions. cur is the chunk being filled. gather
	// puts them in one slice per kind at the end.
	chunks [NumKinds][][]Finding
	cur    [NumKinds][]Finding
	// countOnly makes add count findings in counts instead of listing
	// them.
	countOnly bool
	counts    [NumKinds]int
	msgs      int
	// Unmatched sends and receives, paired up later to find tag
	// mismatches.
	sends, recvs []tracefmt.EventRef
	// ends and times are messages' and collectives' room for the times
	// of one block of sends or one call, reused.
	ends  []recvEnd
	times []float64
}

func newScanner(g *Graph, lmin float64, countOnly bool) *scanner {
	return &scanner{g: g, t: g.t, lmin: lmin, unit: g.t.Unit.Seconds(), countOnly: countOnly}
}

// add records f.
func (s *scanner) add(f Finding) {
	c := &s.cur[f.Kind]
	if len(*c) == cap(*c) && !s.newChunk(f.Kind) {
		return
	}
	*c = append(*c, f)
}

// newChunk files the full chunk of kind k and starts the next; it
// returns false when the scanner only counts, having counted a finding
// of kind k.
//
//go:noinline
func (s *scanner) newChunk(k Kind) bool {
	if s.countOnly {
		s.counts[k]++
		return false
	}
	size := 16 // a few findings need no more
	if c := s.cur[k]; cap(c) > 0 {
		s.chunks[k] = append(s.chunks[k], c)
		size = min(2*cap(c), maxFindingChunk)
	}
	s.cur[k] = make([]Finding, 0, size)
	return true
}

// finish files the chunks being filled.
func (s *scanner) finish() {
	for k, c := range s.cur {
		if len(c) > 0 {
			s.chunks[k] = append(s.chunks[k], c)
		}
		s.cur[k] = nil
	}
}

// maxFindingChunk is the largest number of findings per chunk: 192 KiB.
const maxFindingChunk = 4096

// gather concatenates the chunks into one slice per kind.
func (s *scanner) gather() [NumKinds][]Finding {
	s.finish()
	var out [NumKinds][]Finding
	for k := range out {
		if len(s.chunks[k]) == 1 {
			out[k], s.chunks[k] = s.chunks[k][0], nil
			continue
		}
		n := 0
		for _, c := range s.chunks[k] {
			n += len(c)
		}
		if n == 0 {
			continue
		}
		out[k] = make([]Finding, 0, n)
		for _, c := range s.chunks[k] {
			out[k] = append(out[k], c...)
		}
		s.chunks[k] = nil
	}
	return out
}

func (s *scanner) sec(x float64) float64 {
	if !s.t.Timed {
		return 0
	}
	return s.t.Seconds(x)
}

// scanBlock is the number of events a scan checks at a time: the clock
// pass over them leaves them in the cache for the message pass.
const scanBlock = 1024

// rank runs the per-rank checks on rank r: its clock never runs
// backwards, its matched sends against their receives, and the events
// the graph marks.
func (s *scanner) rank(r int) {
	t, g := s.t, s.g
	ev := t.Ranks[r].Events
	r32 := int32(r)
	timed := t.Timed
	// A send whose data left after the call (Paraver's physical send)
	// is checked from that time: the clock condition is about when the
	// data left and arrived.
	var mt []tracefmt.MessageTime
	if len(t.MessageTimes) > 0 {
		// Two binary searches a rank, 3 instructions an event at
		// 65,536 ranks of 30 events, for traces that have none.
		mt = t.MessageTimesOf(r)
	}
	var prev float64
	if len(ev) > 0 {
		prev = ev[0].Time
	}
	for lo := 0; lo < len(ev); lo += scanBlock {
		hi := min(lo+scanBlock, len(ev))
		blk := ev[lo:hi]
		if timed {
			for j := 0; j < len(blk); j++ {
				j += ascending(blk[j:], prev)
				if j == len(blk) {
					break
				}
				if j > 0 {
					prev = blk[j-1].Time
				}
				s.backwards(r32, lo+j, prev, blk[j].Time)
				prev = blk[j].Time
			}
			prev = blk[len(blk)-1].Time
		}
		mt = s.messages(r32, int32(lo), blk, mt)
	}
	inNondet := 0
	for _, i := range g.marksOf(r) {
		e := &ev[i]
		ref := tracefmt.EventRef{Rank: r32, Index: i}
		switch e.Kind {
		case tracefmt.KindSend:
			s.sends = append(s.sends, ref)
		case tracefmt.KindRecv:
			if e.Match < 0 {
				s.recvs = append(s.recvs, ref)
			}
			if e.Flags&(tracefmt.FlagAnySource|tracefmt.FlagAnyTag) != 0 {
				s.add(Finding{Kind: KindWildcard, Events: [2]tracefmt.EventRef{ref, NoEvent}, Times: [2]float64{s.sec(e.Time), 0}})
			}
		case tracefmt.KindEnter:
			inNondet++
			s.add(Finding{Kind: KindNondeterministic, Events: [2]tracefmt.EventRef{ref, NoEvent}, Times: [2]float64{s.sec(e.Time), 0}})
		case tracefmt.KindLeave:
			inNondet = max(0, inNondet-1)
		case tracefmt.KindWait:
			// A test recorded as a wait event, outside a state that
			// already said so.
			if inNondet == 0 {
				s.add(Finding{Kind: KindNondeterministic, Events: [2]tracefmt.EventRef{ref, NoEvent}, Times: [2]float64{s.sec(e.Time), 0}})
			}
		}
	}
}

// recvEnd is what a check needs of a matched send's receive: its time
// and size, loaded for a block of sends at a time.
type recvEnd struct {
	t    float64
	size int64
	j    int32 // the send's index in its block
}

// messages checks the matched sends of blk, rank r's events from index
// lo on, against their receives: the receive must come l_min after the
// send and carry its size. mt are rank r's message times from the block
// on (stream order); it returns those after the block.
//
// The receives are loaded first, for the whole block, in a loop with no
// branch on what it loads, so that their cache misses overlap; the
// checks then read them from s.ends. Loading and checking each in turn
// waited for every miss where the comparison is unpredictable (a skewed
// trace with half its messages reversed: 3× slower).
func (s *scanner) messages(r, lo int32, blk []tracefmt.Event, mt []tracefmt.MessageTime) []tracefmt.MessageTime {
	ranks := s.t.Ranks
	ends := s.ends[:0]
	for j := range blk {
		e := &blk[j]
		if e.Kind != tracefmt.KindSend || e.Match < 0 || uint(e.Peer) >= uint(len(ranks)) {
			continue
		}
		pe := ranks[e.Peer].Events
		if uint(e.Match) >= uint(len(pe)) {
			continue
		}
		rv := &pe[e.Match]
		ends = append(ends, recvEnd{rv.Time, rv.Size, int32(j)})
	}
	s.ends = ends
	s.msgs += len(ends)
	timed, lmin := s.t.Timed, s.lmin
	for _, m := range ends {
		e := &blk[m.j]
		i := lo + m.j
		sendT, recvT := e.Time, m.t
		for len(mt) > 0 && mt[0].Event.Index <= i {
			if mt[0].Event.Index == i {
				sendT += mt[0].Delta
			}
			mt = mt[1:]
		}
		if timed && recvT < sendT+lmin {
			kind := KindLatency
			if recvT < sendT {
				kind = KindReversal
			}
			s.add(Finding{Kind: kind,
				Events: [2]tracefmt.EventRef{{Rank: r, Index: i}, {Rank: e.Peer, Index: e.Match}},
				Times:  [2]float64{sendT * s.unit, recvT * s.unit},
				Amount: (sendT + lmin - recvT) * s.unit})
		}
		if m.size != e.Size {
			s.add(Finding{Kind: KindSizeMismatch,
				Events: [2]tracefmt.EventRef{{Rank: r, Index: i}, {Rank: e.Peer, Index: e.Match}},
				Times:  [2]float64{s.sec(sendT), s.sec(recvT)},
				Amount: float64(m.size - e.Size)})
		}
	}
	return mt
}

// ascending returns the length of the prefix of ev in which no event is
// stamped before the one before it, the first before prev. It is the
// loop that streams through every event of the trace: kept alone so that
// it runs in registers.
//
//go:noinline
func ascending(ev []tracefmt.Event, prev float64) int {
	for j := range ev {
		x := ev[j].Time
		if x < prev {
			return j
		}
		prev = x
	}
	return len(ev)
}

// backwards reports that event i of rank r, at time x, comes before the
// event before it, at time prev.
func (s *scanner) backwards(r int32, i int, prev, x float64) {
	s.add(Finding{Kind: KindBackwards,
		Events: [2]tracefmt.EventRef{{Rank: r, Index: int32(i - 1)}, {Rank: r, Index: int32(i)}},
		Times:  [2]float64{prev * s.unit, x * s.unit},
		Amount: (prev - x) * s.unit})
}

// nondeterministic reports whether a state names a call whose outcome
// depends on timing.
func nondeterministic(name string) bool {
	n := strings.ToLower(name)
	n = strings.TrimPrefix(n, "mpi_")
	return strings.HasPrefix(n, "test") || strings.HasPrefix(n, "waitany") || strings.HasPrefix(n, "waitsome") ||
		strings.HasPrefix(n, "iprobe") || strings.HasPrefix(n, "improbe")
}

// unmatched reports the unmatched sends and receives, pairing those that
// differ only by their tag.
func (s *scanner) unmatched() {
	type channel struct {
		src, dst int32
		comm     uint16
	}
	t := s.t
	open := map[channel][]tracefmt.EventRef{}
	for _, ref := range s.sends {
		e := t.Event(ref)
		k := channel{ref.Rank, e.Peer, e.Comm}
		open[k] = append(open[k], ref)
	}
	for _, ref := range s.recvs {
		e := t.Event(ref)
		k := channel{e.Peer, ref.Rank, e.Comm}
		if q := open[k]; len(q) > 0 {
			// The channel has a send no receive took: FIFO pairs the
			// oldest one with this receive.
			se := t.Event(q[0])
			open[k] = q[1:]
			s.add(Finding{Kind: KindTagMismatch, Events: [2]tracefmt.EventRef{q[0], ref},
				Times: [2]float64{s.sec(se.Time), s.sec(e.Time)}})
			continue
		}
		s.add(Finding{Kind: KindUnmatchedRecv, Events: [2]tracefmt.EventRef{ref, NoEvent},
			Times: [2]float64{s.sec(e.Time), 0}})
	}
	taken := map[tracefmt.EventRef]bool{}
	for _, q := range open {
		for _, ref := range q {
			taken[ref] = true
		}
	}
	// Report the sends left in stream order, not map order.
	for _, ref := range s.sends {
		if !taken[ref] {
			continue
		}
		e := t.Event(ref)
		s.add(Finding{Kind: KindUnmatchedSend, Events: [2]tracefmt.EventRef{ref, NoEvent},
			Times: [2]float64{s.sec(e.Time), 0}})
	}
}

// collectives checks the edges of collective calls from to to−1: each
// sink must come l_min after the latest of its sources, so a call costs
// O(members).
func (s *scanner) collectives(from, to int) {
	colls := s.g.colls
	for id := from; id < to; id++ {
		in := &colls[id]
		if len(in.sinks) == 0 {
			continue
		}
		// Loaded first, then compared, so that the loads' misses
		// overlap (see messages).
		st := s.load(in.sources)
		v, latest := st[0], 0
		for k := 1; k < len(st); k++ {
			if st[k] > v {
				v, latest = st[k], k
			}
		}
		lim := v + s.lmin
		for k, xt := range s.load(in.sinks) {
			if xt < lim {
				s.add(Finding{Kind: KindCollective, Events: [2]tracefmt.EventRef{in.sources[latest], in.sinks[k]},
					Times:  [2]float64{v * s.unit, xt * s.unit},
					Amount: (v + s.lmin - xt) * s.unit})
			}
		}
	}
}

// load returns the times of events refs in s.times.
func (s *scanner) load(refs []tracefmt.EventRef) []float64 {
	ranks := s.t.Ranks
	out := s.times[:0]
	for _, x := range refs {
		out = append(out, ranks[x.Rank].Events[x.Index].Time)
	}
	s.times = out
	return out
}

func shapeName(s tracefmt.Shape) string {
	switch s {
	case tracefmt.ShapeAllToAll:
		return "N×N"
	case tracefmt.ShapeOneToAll:
		return "1×N"
	case tracefmt.ShapeAllToOne:
		return "N×1"
	}
	return "none"
}

// deadlock replays t causally and returns the replay's deadlock report,
// nil when it ran to the end, and its notes.
func deadlock(ctx context.Context, t *tracefmt.Trace, cfg *replay.Config) (*replay.Deadlock, []string, error) {
	c := replay.Default()
	if cfg != nil {
		c = *cfg
	} else {
		// Finding a deadlock needs the order of events, not link
		// sharing: the cheapest model does.
		c.Mode, c.Model = replay.Causal, replay.ModelPuppet
	}
	s, err := replay.New(t, c, replay.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("causal replay: %w", err)
	}
	if err := s.Run(ctx); err != nil {
		if errors.Is(err, ctx.Err()) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("causal replay: %w", err)
	}
	return s.Deadlock(), s.Results().Notes, nil
}

// deadlockFinding turns a replay's deadlock report into a finding whose
// events are where the first two ranks of the cycle (or the first two
// blocked ranks) stopped.
func deadlockFinding(t *tracefmt.Trace, d *replay.Deadlock) Finding {
	f := Finding{Kind: KindDeadlock, Events: [2]tracefmt.EventRef{NoEvent, NoEvent}}
	ranks := d.Cycle
	if len(ranks) == 0 {
		for _, b := range d.Blocked {
			ranks = append(ranks, b.Rank)
		}
	}
	at := map[int]int{}
	for _, b := range d.Blocked {
		at[b.Rank] = b.Event
	}
	k := 0
	for _, r := range ranks {
		if k == 2 {
			break
		}
		i, ok := at[r]
		if !ok || r < 0 || r >= t.Size() {
			continue
		}
		n := len(t.Ranks[r].Events)
		if n == 0 {
			continue
		}
		// A rank blocked at the end of its trace (finalising) is shown
		// at its last event.
		i = min(max(i, 0), n-1)
		ref := tracefmt.EventRef{Rank: int32(r), Index: int32(i)}
		if k == 1 && ref == f.Events[0] {
			continue
		}
		f.Events[k] = ref
		if t.Timed {
			f.Times[k] = t.Seconds(t.Event(ref).Time)
		}
		k++
	}
	return f
}
