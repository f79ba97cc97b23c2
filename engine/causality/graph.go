package causality

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/tracesim/tracesim/tracefmt"
)

// maxExitScan bounds how far after a collective event its call's leave is
// looked for, so that a bare collective inside a long user state costs a
// constant, not the rest of the rank.
const maxExitScan = 64

// collInst is one collective call: the k-th collective of every member of
// a communicator.
type collInst struct {
	op    tracefmt.CollOp
	comm  uint16
	root  int32 // world rank, −1 for none
	shape tracefmt.Shape
	// enters holds, per local rank, the member's collective event;
	// exits the leave of the MPI state around it (the end of the call).
	// Rank −1 when the member has no such call or the call no leave.
	enters, exits []tracefmt.EventRef
	// sources are the enters the exits in sinks wait for; both empty
	// when the call defines no edge (ShapeNone, a member missing, an exit
	// missing).
	sources, sinks []tracefmt.EventRef
}

// collRef places an instance's source or sink in a rank's stream.
type collRef struct {
	index int32
	inst  int32
}

// Graph is the happens-before structure of a trace: program order, the
// matched messages (tracefmt's Match) and the logical edges of collective
// calls. It is built once, in O(events), and read by Lamport, Cone,
// Correct and the checks; it does not copy the trace, which must not
// change while the graph is used. A Graph is safe for concurrent reads.
//
// Beyond the trace it holds only what the events do not say directly:
// the collective calls (two references per member) and the events few
// checks look at. Messages take no room: the trace's Match links both
// ends.
type Graph struct {
	t     *tracefmt.Trace
	colls []collInst
	// refs places the sources and sinks of collective edges in the
	// ranks' streams, built on first use: the walks (Lamport, Cone,
	// Correct) need them, the checks do not.
	refs *collRefs
	// marks lists, rank after rank, the events the per-event checks other
	// than the clock and message checks look at (rank r's are
	// marks[markAt[r]:markAt[r+1]]): unmatched sends and receives,
	// wildcard receives, enters and leaves of non-deterministic calls,
	// waits flagged as tests. With them a check touches only the events
	// it needs.
	marks, markAt []int32
	// nondet says which states are non-deterministic calls.
	nondet []bool
	// mismatches are the collective calls the members disagree on, and
	// the text of each.
	mismatches []Finding
	texts      []string
}

// NewGraph builds the happens-before graph of t.
func NewGraph(t *tracefmt.Trace) *Graph {
	P := t.Size()
	g := &Graph{t: t, markAt: make([]int32, P+1), nondet: make([]bool, len(t.States)), refs: new(collRefs)}
	for i, d := range t.States {
		g.nondet[i] = nondeterministic(d.Name)
	}
	g.buildColls()
	return g
}

// Trace returns the trace the graph describes.
func (g *Graph) Trace() *tracefmt.Trace { return g.t }

// Collectives returns the number of collective calls (instances over all
// members) the graph found.
func (g *Graph) Collectives() int { return len(g.colls) }

// buildColls groups the collective events into calls: the k-th
// collective of each member of a communicator belong together, as MPI
// requires collectives to be called in the same order on every member.
func (g *Graph) buildColls() {
	t := g.t
	P := t.Size()
	type commState struct {
		members []int32 // world rank of each local rank
		local   []int32 // local rank of each world rank, −1 if none
		count   []int32 // collectives seen per world rank
		insts   []int32 // instance id of the k-th call
	}
	comms := make([]*commState, len(t.Comms))
	commOf := func(c uint16) *commState {
		if cs := comms[c]; cs != nil {
			return cs
		}
		cs := &commState{local: make([]int32, P), count: make([]int32, P)}
		for i := range cs.local {
			cs.local[i] = -1
		}
		if rs := t.Comms[c].Ranks; rs != nil {
			cs.members = rs
		} else {
			cs.members = make([]int32, P)
			for i := range cs.members {
				cs.members[i] = int32(i)
			}
		}
		for l, w := range cs.members {
			if cs.local[w] < 0 {
				cs.local[w] = int32(l)
			}
		}
		comms[c] = cs
		return cs
	}
	// The events of each rank the graph keeps are listed in buffers
	// reused from rank to rank, and copied once: growing slices per rank
	// would allocate and copy them again and again.
	var b rankEvents
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		g.classify(ev, &b)
		g.marks = append(g.marks, b.marks...)
		g.markAt[r+1] = int32(len(g.marks))
		for _, i32 := range b.colls {
			i := int(i32)
			e := &ev[i]
			cs := commOf(e.Comm)
			me := cs.local[r]
			k := cs.count[r]
			cs.count[r]++
			if me < 0 {
				g.mismatch(tracefmt.EventRef{Rank: int32(r), Index: int32(i)}, NoEvent,
					fmt.Sprintf("rank %d calls %s on communicator %d, which it is not a member of", r, e.Op(), e.Comm))
				continue
			}
			if int(k) == len(cs.insts) {
				n := len(cs.members)
				in := collInst{op: e.Op(), comm: e.Comm, root: e.Peer, shape: e.Op().Shape(),
					enters: make([]tracefmt.EventRef, n), exits: make([]tracefmt.EventRef, n)}
				for j := range n {
					in.enters[j], in.exits[j] = NoEvent, NoEvent
				}
				cs.insts = append(cs.insts, int32(len(g.colls)))
				g.colls = append(g.colls, in)
			}
			in := &g.colls[cs.insts[k]]
			ref := tracefmt.EventRef{Rank: int32(r), Index: int32(i)}
			if in.enters[me].Rank >= 0 {
				continue // a communicator listing a rank twice
			}
			if e.Op() != in.op || (in.op.Rooted() && e.Peer != in.root) {
				first := g.firstEnter(in)
				g.mismatch(first, ref, fmt.Sprintf("collective call %d on communicator %d: rank %d calls %s (root %d) where rank %d calls %s (root %d)",
					k, e.Comm, r, e.Op(), e.Peer, first.Rank, in.op, in.root))
				in.shape = tracefmt.ShapeNone // the edges would be guesses
			}
			in.enters[me] = ref
			in.exits[me] = exitOf(t, r, i)
		}
	}
	// Members with fewer calls than others leave holes.
	for c, cs := range comms {
		if cs == nil {
			continue
		}
		for _, w := range cs.members {
			if n := int(cs.count[w]); n < len(cs.insts) {
				in := &g.colls[cs.insts[n]]
				in.shape = tracefmt.ShapeNone
				g.mismatch(g.firstEnter(in), NoEvent, fmt.Sprintf("rank %d makes %d collective calls on communicator %d, others %d: it never calls this %s",
					w, n, c, len(cs.insts), in.op))
			}
		}
	}
	for id := range g.colls {
		g.edges(&g.colls[id])
	}
}

// marksOf returns the events of rank r that Graph.marks lists.
func (g *Graph) marksOf(r int) []int32 { return g.marks[g.markAt[r]:g.markAt[r+1]] }

// collRefs lists, per rank in stream order, the events that are sources
// (collective enters) and sinks (collective exits) of collective edges:
// slices of one array each.
type collRefs struct {
	once          sync.Once
	srcAt, sinkAt [][]collRef
}

// collRefs returns the sources and sinks of g's collective edges per
// rank, listing them on the first call.
func (g *Graph) collRefs() *collRefs {
	g.refs.once.Do(g.index)
	return g.refs
}

// index lists the sources and sinks of every call's edges per rank, in
// stream order: counted first, so that each list is a slice of one
// array of the exact size.
func (g *Graph) index() {
	P := g.t.Size()
	srcN, sinkN := make([]int32, P+1), make([]int32, P+1)
	for id := range g.colls {
		in := &g.colls[id]
		for _, s := range in.sources {
			srcN[s.Rank+1]++
		}
		for _, x := range in.sinks {
			sinkN[x.Rank+1]++
		}
	}
	cr := g.refs
	cr.srcAt, cr.sinkAt = cutRefs(srcN), cutRefs(sinkN)
	for id := range g.colls {
		in := &g.colls[id]
		for _, s := range in.sources {
			cr.srcAt[s.Rank] = append(cr.srcAt[s.Rank], collRef{s.Index, int32(id)})
		}
		for _, x := range in.sinks {
			cr.sinkAt[x.Rank] = append(cr.sinkAt[x.Rank], collRef{x.Index, int32(id)})
		}
	}
	for r := range P {
		slices.SortFunc(cr.srcAt[r], func(a, b collRef) int { return int(a.index - b.index) })
		slices.SortFunc(cr.sinkAt[r], func(a, b collRef) int { return int(a.index - b.index) })
	}
}

// cutRefs turns counts (rank r's in n[r+1]) into per-rank empty slices
// of one array, each with room for its rank's count.
func cutRefs(n []int32) [][]collRef {
	P := len(n) - 1
	for r := range P {
		n[r+1] += n[r]
	}
	out := make([][]collRef, P)
	if n[P] == 0 {
		return out
	}
	all := make([]collRef, n[P])
	for r := range P {
		out[r] = all[n[r]:n[r]:n[r+1]]
	}
	return out
}

// rankEvents are the events of one rank that the graph keeps.
type rankEvents struct {
	// marks are the events Graph.marks describes; colls the collective
	// events.
	marks, colls []int32
}

// classify lists in b the events of ev that the graph keeps. It is the
// loop over every event of the trace: kept alone so that it runs in
// registers.
func (g *Graph) classify(ev []tracefmt.Event, b *rankEvents) {
	b.marks, b.colls = b.marks[:0], b.colls[:0]
	nondet := g.nondet
	for i := range ev {
		e := &ev[i]
		switch e.Kind {
		case tracefmt.KindSend:
			if e.Match < 0 {
				b.marks = append(b.marks, int32(i))
			}
		case tracefmt.KindRecv:
			if e.Match < 0 || e.Flags&(tracefmt.FlagAnySource|tracefmt.FlagAnyTag) != 0 {
				b.marks = append(b.marks, int32(i))
			}
		case tracefmt.KindEnter, tracefmt.KindLeave:
			if st := e.State(); int(st) < len(nondet) && nondet[st] {
				b.marks = append(b.marks, int32(i))
			}
		case tracefmt.KindWait:
			if e.Flags.Has(tracefmt.FlagTest) {
				b.marks = append(b.marks, int32(i))
			}
		case tracefmt.KindCollective:
			b.colls = append(b.colls, int32(i))
		}
	}
}

func (g *Graph) firstEnter(in *collInst) tracefmt.EventRef {
	for _, e := range in.enters {
		if e.Rank >= 0 {
			return e
		}
	}
	return NoEvent
}

// edges fills the sources and sinks of instance in from its shape.
func (g *Graph) edges(in *collInst) {
	var root = -1
	if in.op.Rooted() {
		for j, e := range in.enters {
			if e.Rank == in.root {
				root = j
			}
		}
		if root < 0 {
			return
		}
	}
	for j := range in.enters {
		if in.enters[j].Rank < 0 {
			return
		}
	}
	switch in.shape {
	case tracefmt.ShapeAllToAll:
		in.sources, in.sinks = in.enters, in.exits
	case tracefmt.ShapeOneToAll:
		in.sources, in.sinks = in.enters[root:root+1], in.exits
	case tracefmt.ShapeAllToOne:
		in.sources, in.sinks = in.enters, in.exits[root:root+1]
	default:
		return
	}
	// A call without a recorded end cannot be checked: its "exit" would
	// be its enter, and an exit that must follow its own enter by l_min
	// is a cycle.
	for _, x := range in.sinks {
		if x.Rank < 0 {
			in.sources, in.sinks = nil, nil
			return
		}
	}
}

// exitOf returns the end of the call around collective event i of rank
// r: the leave of the innermost MPI state enclosing it, or NoEvent. A
// non-blocking collective (MPI_Iallreduce) has none: its call returns
// without waiting for the other members.
func exitOf(t *tracefmt.Trace, r, i int) tracefmt.EventRef {
	ev := t.Ranks[r].Events
	if ev[i].Flags.Has(tracefmt.FlagNonBlocking) {
		return NoEvent
	}
	for j := i + 1; j < len(ev) && j <= i+maxExitScan; j++ {
		e := &ev[j]
		switch e.Kind {
		case tracefmt.KindCollective:
			return NoEvent // two collectives in one call: whose end is it?
		case tracefmt.KindLeave:
			if e.Match < 0 || int(e.Match) > i {
				continue
			}
			if s := e.State(); int(s) < len(t.States) && t.States[s].Category.IsMPI() {
				return tracefmt.EventRef{Rank: int32(r), Index: int32(j)}
			}
			return NoEvent
		}
	}
	return NoEvent
}

// mismatch records a collective mismatch about events a and b (b may be
// NoEvent).
func (g *Graph) mismatch(a, b tracefmt.EventRef, text string) {
	f := Finding{Kind: KindCollectiveMismatch, Events: [2]tracefmt.EventRef{a, b}}
	for i, e := range f.Events {
		if e.Rank >= 0 {
			f.Times[i] = g.seconds(e)
		}
	}
	g.mismatches = append(g.mismatches, f)
	g.texts = append(g.texts, text)
}

func (g *Graph) seconds(e tracefmt.EventRef) float64 {
	if !g.t.Timed {
		return 0
	}
	return g.t.Seconds(g.t.Event(e).Time)
}

// visitFunc is called by walk for event i of rank r once every event it
// depends on has been visited. msg is false for a receive whose message
// edge was broken to escape a causal cycle (or that has no send); sink and
// src are the collective instances the event ends and enters, or −1.
type visitFunc func(r, i int, msg bool, sink, src int32)

// walk visits every event of the trace in a topological order of the
// graph: a rank runs until it reaches a receive whose send, or a
// collective exit whose enters, have not been visited, and waits. When
// every rank waits the graph has a cycle (impossible in a real run, but
// cut or mis-matched traces have them): the lowest waiting rank's edge is
// broken, recorded in the result, and the walk goes on.
//
// progress, when not nil, is called every 65536 events with the number
// visited so far and the total.
func (g *Graph) walk(ctx context.Context, visit visitFunc, progress func(done, total int)) ([]tracefmt.EventRef, error) {
	t := g.t
	P := t.Size()
	cr := g.collRefs()
	pos := make([]int32, P)
	srcCur := make([]int32, P)
	sinkCur := make([]int32, P)
	waiters := make([][]int32, P)
	queued := make([]bool, P)
	force := make([]bool, P)
	pending := make([]int32, len(g.colls))
	instWait := make([][]int32, len(g.colls))
	for id := range g.colls {
		pending[id] = int32(len(g.colls[id].sources))
	}
	queue := make([]int32, 0, P)
	for r := range P {
		queue = append(queue, int32(r))
		queued[r] = true
	}
	var broken []tracefmt.EventRef
	done := 0
	steps, total := 0, t.NumEvents()
	for {
		for len(queue) > 0 {
			r := queue[0]
			queue = queue[1:]
			queued[r] = false
			ev := t.Ranks[r].Events
			srcs, sinks := cr.srcAt[r], cr.sinkAt[r]
			start := pos[r]
			i := pos[r]
		run:
			for ; int(i) < len(ev); i++ {
				if steps++; steps&0xffff == 0 {
					if err := ctx.Err(); err != nil {
						return nil, err
					}
					if progress != nil {
						progress(steps, total)
					}
				}
				e := &ev[i]
				msg := false
				sink, src := int32(-1), int32(-1)
				if e.Kind == tracefmt.KindRecv && e.Match >= 0 {
					msg = true
					if p := e.Peer; pos[p] <= e.Match {
						if force[r] {
							force[r] = false
							msg = false
							broken = append(broken, tracefmt.EventRef{Rank: r, Index: i})
						} else {
							waiters[p] = append(waiters[p], r)
							break run
						}
					}
				}
				if c := sinkCur[r]; int(c) < len(sinks) && sinks[c].index == i {
					sink = sinks[c].inst
					if pending[sink] > 0 {
						if !force[r] {
							instWait[sink] = append(instWait[sink], r)
							break run
						}
						force[r] = false
						broken = append(broken, tracefmt.EventRef{Rank: r, Index: i})
						sink = -1
					}
					sinkCur[r]++
				}
				if c := srcCur[r]; int(c) < len(srcs) && srcs[c].index == i {
					src = srcs[c].inst
					srcCur[r]++
				}
				force[r] = false
				visit(int(r), int(i), msg, sink, src)
				pos[r] = i + 1
				if src >= 0 {
					if pending[src]--; pending[src] == 0 {
						for _, w := range instWait[src] {
							if !queued[w] {
								queued[w] = true
								queue = append(queue, w)
							}
						}
						instWait[src] = nil
					}
				}
			}
			pos[r] = i
			if int(i) == len(ev) && (start < i || len(ev) == 0) {
				done++
			}
			if i > start {
				for _, w := range waiters[r] {
					if !queued[w] {
						queued[w] = true
						queue = append(queue, w)
					}
				}
				waiters[r] = waiters[r][:0]
			}
		}
		if done == P {
			return broken, nil
		}
		// Every rank left waits: a cycle. Break the lowest rank's edge.
		for r := range P {
			if int(pos[r]) < len(t.Ranks[r].Events) {
				force[r] = true
				queued[r] = true
				queue = append(queue, int32(r))
				break
			}
		}
	}
}
