package causality

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

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
	// replay.Default() in causal mode.
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
	// Findings lists every finding, grouped by kind in Kind order, each
	// kind in rank then event order.
	Findings []Finding
	// Counts counts the findings of each kind.
	Counts [NumKinds]int
	// Replayed reports whether a causal replay ran; Deadlock is its
	// report when it stopped with ranks blocked, ReplayError why it could
	// not run (the other checks are still valid).
	Replayed    bool
	Deadlock    *replay.Deadlock
	ReplayError string
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
// all of them. It costs O(findings × n) for small n rather than a sort of
// every finding.
func (r *Report) Top(n int, keep func(*Finding) bool) []Finding {
	var out []Finding
	for i := range r.Findings {
		f := &r.Findings[i]
		if keep != nil && !keep(f) {
			continue
		}
		if n > 0 && len(out) == n && !before(f, &out[n-1]) {
			continue
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
	}
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
	if o.LMin < 0 || math.IsNaN(o.LMin) || math.IsInf(o.LMin, 0) {
		return nil, fmt.Errorf("causality: minimum latency %v s: want a duration of 0 or more", o.LMin)
	}
	t := g.t
	rep := &Report{Timed: t.Timed, LMin: o.LMin, Events: t.NumEvents(), Collectives: len(g.colls)}
	var byKind [NumKinds][]Finding
	sc := scanner{t: t, lmin: o.LMin / t.Unit.Seconds(), byKind: &byKind}
	for r := range t.Ranks {
		if r&63 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		rep.Messages += sc.rank(r)
	}
	sc.unmatched()
	if t.Timed {
		sc.collectives(g)
	}
	byKind[KindCollectiveMismatch] = append(byKind[KindCollectiveMismatch], g.mismatches...)
	if runReplay(o.Replay, rep.Events) {
		d, err := deadlock(ctx, t, o.ReplayConfig)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			rep.ReplayError = err.Error()
		default:
			rep.Replayed = true
			rep.Deadlock = d
			if d != nil {
				byKind[KindDeadlock] = append(byKind[KindDeadlock], deadlockFinding(t, d))
			}
		}
	}
	n := 0
	for k := range byKind {
		n += len(byKind[k])
	}
	rep.Findings = make([]Finding, 0, n)
	for k := range byKind {
		rep.Counts[k] = len(byKind[k])
		rep.Findings = append(rep.Findings, byKind[k]...)
	}
	return rep, nil
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
	t      *tracefmt.Trace
	lmin   float64 // trace units
	byKind *[NumKinds][]Finding
	nondet []bool // per state
	// Unmatched sends and receives, paired up later to find tag
	// mismatches.
	sends, recvs []tracefmt.EventRef
}

func (s *scanner) add(f Finding) { s.byKind[f.Kind] = append(s.byKind[f.Kind], f) }

func (s *scanner) sec(x float64) float64 {
	if !s.t.Timed {
		return 0
	}
	return s.t.Seconds(x)
}

// rank scans rank r's events and returns its matched sends.
func (s *scanner) rank(r int) int {
	t := s.t
	if s.nondet == nil {
		s.nondet = make([]bool, len(t.States))
		for i, d := range t.States {
			s.nondet[i] = nondeterministic(d.Name)
		}
	}
	timed := t.Timed
	lmin := s.lmin
	ev := t.Ranks[r].Events
	messages := 0
	inNondet := 0
	r32 := int32(r)
	for i := range ev {
		e := &ev[i]
		if timed && i > 0 && e.Time < ev[i-1].Time {
			s.add(Finding{Kind: KindBackwards,
				Events: [2]tracefmt.EventRef{{Rank: r32, Index: int32(i - 1)}, {Rank: r32, Index: int32(i)}},
				Times:  [2]float64{t.Seconds(ev[i-1].Time), t.Seconds(e.Time)},
				Amount: t.Seconds(ev[i-1].Time - e.Time)})
		}
		switch e.Kind {
		case tracefmt.KindSend:
			if e.Match < 0 {
				s.sends = append(s.sends, tracefmt.EventRef{Rank: r32, Index: int32(i)})
				continue
			}
			messages++
			re := &t.Ranks[e.Peer].Events[e.Match]
			if timed && re.Time < e.Time+lmin {
				k := KindLatency
				if re.Time < e.Time {
					k = KindReversal
				}
				s.add(Finding{Kind: k,
					Events: [2]tracefmt.EventRef{{Rank: r32, Index: int32(i)}, {Rank: e.Peer, Index: e.Match}},
					Times:  [2]float64{t.Seconds(e.Time), t.Seconds(re.Time)},
					Amount: t.Seconds(e.Time + lmin - re.Time)})
			}
			if re.Size != e.Size {
				s.add(Finding{Kind: KindSizeMismatch,
					Events: [2]tracefmt.EventRef{{Rank: r32, Index: int32(i)}, {Rank: e.Peer, Index: e.Match}},
					Times:  [2]float64{s.sec(e.Time), s.sec(re.Time)},
					Amount: float64(re.Size - e.Size),
					Detail: fmt.Sprintf("%d B sent, %d B received", e.Size, re.Size)})
			}
		case tracefmt.KindRecv:
			if e.Match < 0 {
				s.recvs = append(s.recvs, tracefmt.EventRef{Rank: r32, Index: int32(i)})
			}
			if e.Flags&(tracefmt.FlagAnySource|tracefmt.FlagAnyTag) != 0 {
				what := "MPI_ANY_SOURCE"
				switch {
				case e.Flags.Has(tracefmt.FlagAnySource | tracefmt.FlagAnyTag):
					what = "MPI_ANY_SOURCE and MPI_ANY_TAG"
				case e.Flags.Has(tracefmt.FlagAnyTag):
					what = "MPI_ANY_TAG"
				}
				s.add(Finding{Kind: KindWildcard, Events: [2]tracefmt.EventRef{{Rank: r32, Index: int32(i)}, NoEvent},
					Times:  [2]float64{s.sec(e.Time), 0},
					Detail: fmt.Sprintf("receive posted with %s matched rank %d, tag %d", what, e.Peer, e.Tag)})
			}
		case tracefmt.KindEnter, tracefmt.KindLeave:
			if st := e.State(); int(st) < len(s.nondet) && s.nondet[st] {
				if e.Kind == tracefmt.KindLeave {
					inNondet = max(0, inNondet-1)
					continue
				}
				inNondet++
				s.add(Finding{Kind: KindNondeterministic, Events: [2]tracefmt.EventRef{{Rank: r32, Index: int32(i)}, NoEvent},
					Times: [2]float64{s.sec(e.Time), 0}, Detail: t.States[st].Name})
			}
		case tracefmt.KindWait:
			// A test recorded as a wait event, outside a state that
			// already said so.
			if e.Flags.Has(tracefmt.FlagTest) && inNondet == 0 {
				s.add(Finding{Kind: KindNondeterministic, Events: [2]tracefmt.EventRef{{Rank: r32, Index: int32(i)}, NoEvent},
					Times: [2]float64{s.sec(e.Time), 0}, Detail: "MPI_Test"})
			}
		}
	}
	return messages
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
				Times:  [2]float64{s.sec(se.Time), s.sec(e.Time)},
				Detail: fmt.Sprintf("sent with tag %d, received with tag %d", se.Tag, e.Tag)})
			continue
		}
		s.add(Finding{Kind: KindUnmatchedRecv, Events: [2]tracefmt.EventRef{ref, NoEvent},
			Times:  [2]float64{s.sec(e.Time), 0},
			Detail: fmt.Sprintf("receive from rank %d, tag %d, %d B: no such send", e.Peer, e.Tag, e.Size)})
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
			Times:  [2]float64{s.sec(e.Time), 0},
			Detail: fmt.Sprintf("send to rank %d, tag %d, %d B: no such receive", e.Peer, e.Tag, e.Size)})
	}
}

// collectives checks every collective edge: each sink must come l_min
// after the latest of its sources.
func (s *scanner) collectives(g *Graph) {
	t := s.t
	for id := range g.colls {
		in := &g.colls[id]
		if len(in.sinks) == 0 {
			continue
		}
		latest := in.sources[0]
		v := t.Event(latest).Time
		for _, src := range in.sources[1:] {
			if x := t.Event(src).Time; x > v {
				v, latest = x, src
			}
		}
		for _, x := range in.sinks {
			xt := t.Event(x).Time
			if xt < v+s.lmin {
				s.add(Finding{Kind: KindCollective, Events: [2]tracefmt.EventRef{latest, x},
					Times:  [2]float64{t.Seconds(v), t.Seconds(xt)},
					Amount: t.Seconds(v + s.lmin - xt),
					Detail: fmt.Sprintf("%s (%s) on communicator %d", in.op, shapeName(in.shape), in.comm)})
			}
		}
	}
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
// nil when it ran to the end.
func deadlock(ctx context.Context, t *tracefmt.Trace, cfg *replay.Config) (*replay.Deadlock, error) {
	c := replay.Default()
	if cfg != nil {
		c = *cfg
	} else {
		c.Mode = replay.Causal
	}
	s, err := replay.New(t, c, replay.Options{})
	if err != nil {
		return nil, fmt.Errorf("causal replay: %w", err)
	}
	if err := s.Run(ctx); err != nil {
		if errors.Is(err, ctx.Err()) {
			return nil, err
		}
		return nil, fmt.Errorf("causal replay: %w", err)
	}
	return s.Deadlock(), nil
}

// deadlockFinding turns a replay's deadlock report into a finding whose
// events are where the first two ranks of the cycle (or the first two
// blocked ranks) stopped.
func deadlockFinding(t *tracefmt.Trace, d *replay.Deadlock) Finding {
	f := Finding{Kind: KindDeadlock, Events: [2]tracefmt.EventRef{NoEvent, NoEvent}, Detail: d.Message}
	ranks := d.Cycle
	if len(ranks) == 0 {
		for _, b := range d.Blocked {
			ranks = append(ranks, b.Rank)
		}
	}
	f.Cycle = append([]int{}, ranks...)
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
