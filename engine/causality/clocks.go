package causality

import (
	"context"
	"fmt"

	"github.com/tracesim/tracesim/tracefmt"
)

// Lamport holds the Lamport clock of every event.
type Lamport struct {
	// Clock holds, per rank, the clock of each event:
	// L(e) = L(prev) + 1, and at a receive or collective exit
	// max(L(prev), L(send or latest enter)) + 1. The first event of a
	// rank without incoming edges has clock 1.
	Clock [][]uint64
	// Broken lists the receives and collective exits whose incoming edge
	// was ignored because it closed a causal cycle (or has no source).
	Broken []tracefmt.EventRef
}

// Of returns the clock of event e.
func (l *Lamport) Of(e tracefmt.EventRef) uint64 { return l.Clock[e.Rank][e.Index] }

// Lamport computes the Lamport clock of every event in one topological
// walk of the graph: O(events), 8 bytes per event.
func (g *Graph) Lamport(ctx context.Context) (*Lamport, error) {
	t := g.t
	l := &Lamport{Clock: make([][]uint64, t.Size())}
	for r := range t.Ranks {
		l.Clock[r] = make([]uint64, len(t.Ranks[r].Events))
	}
	inst := make([]uint64, len(g.colls))
	broken, err := g.walk(ctx, func(r, i int, msg bool, sink, src int32) {
		var c uint64
		if i > 0 {
			c = l.Clock[r][i-1]
		}
		if msg {
			e := &t.Ranks[r].Events[i]
			c = max(c, l.Clock[e.Peer][e.Match])
		}
		if sink >= 0 {
			c = max(c, inst[sink])
		}
		c++
		l.Clock[r][i] = c
		if src >= 0 {
			inst[src] = max(inst[src], c)
		}
	}, nil)
	if err != nil {
		return nil, err
	}
	l.Broken = broken
	return l, nil
}

// Relation says how two events are ordered by happens-before.
type Relation int8

// Relations between events.
const (
	Concurrent Relation = iota
	// Before: the event happens before the cone's event.
	Before
	// After: the event happens after the cone's event.
	After
	// Same: it is the cone's event.
	Same
)

// String returns "concurrent", "before", "after" or "same".
func (r Relation) String() string {
	switch r {
	case Before:
		return "before"
	case After:
		return "after"
	case Same:
		return "same"
	}
	return "concurrent"
}

// Cone is the causal past and future of one event: its vector clock and
// its reverse, computed on demand rather than stored for every event.
type Cone struct {
	// Event is the event the cone is about.
	Event tracefmt.EventRef
	// Past holds, per rank, the index of the last event of that rank
	// that happens before Event (Event itself on its own rank), or −1
	// when none does. Every earlier event of the rank is in the past as
	// well, so Past[q]+1 is the vector clock entry V(Event)[q].
	Past []int32
	// Future holds, per rank, the index of the first event of that rank
	// that happens after Event (Event itself on its own rank), or −1 when
	// none does; every later event of the rank is in the future as well.
	Future []int32
}

// VectorClock returns the vector clock of the cone's event: per rank the
// number of its events that happen before or are the event.
func (c *Cone) VectorClock() []int64 {
	v := make([]int64, len(c.Past))
	for q, p := range c.Past {
		v[q] = int64(p) + 1
	}
	return v
}

// Relation returns how event f relates to the cone's event.
func (c *Cone) Relation(f tracefmt.EventRef) Relation {
	switch {
	case f == c.Event:
		return Same
	case f.Index <= c.Past[f.Rank]:
		return Before
	case c.Future[f.Rank] >= 0 && f.Index >= c.Future[f.Rank]:
		return After
	}
	return Concurrent
}

// Cone computes the causal past and future of event e by walking the
// graph backwards along receives and collective exits and forwards along
// sends and collective enters. Each direction visits every event at most
// once: O(events) per call, O(ranks) memory beyond the result.
func (g *Graph) Cone(e tracefmt.EventRef) (*Cone, error) {
	t := g.t
	P := t.Size()
	if e.Rank < 0 || int(e.Rank) >= P || e.Index < 0 || int(e.Index) >= len(t.Ranks[e.Rank].Events) {
		return nil, fmt.Errorf("causality: no event %d on rank %d", e.Index, e.Rank)
	}
	c := &Cone{Event: e, Past: make([]int32, P), Future: make([]int32, P)}
	g.past(c)
	g.future(c)
	return c, nil
}

// findRef returns the instance of the entry of refs at index i, or −1.
func findRef(refs []collRef, i int32) int32 {
	lo, hi := 0, len(refs)
	for lo < hi {
		m := (lo + hi) / 2
		if refs[m].index < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(refs) && refs[lo].index == i {
		return refs[lo].inst
	}
	return -1
}

func (g *Graph) past(c *Cone) {
	t := g.t
	sinkAt := g.collRefs().sinkAt
	P := t.Size()
	scanned := make([]int32, P)
	for q := range P {
		c.Past[q] = -1
		scanned[q] = -1 // highest index already scanned
	}
	c.Past[c.Event.Rank] = c.Event.Index
	work := []int32{c.Event.Rank}
	raise := func(q, i int32) {
		if i > c.Past[q] {
			c.Past[q] = i
			work = append(work, q)
		}
	}
	for len(work) > 0 {
		q := work[len(work)-1]
		work = work[:len(work)-1]
		ev := t.Ranks[q].Events
		for i := scanned[q] + 1; i <= c.Past[q]; i++ {
			e := &ev[i]
			if e.Kind == tracefmt.KindRecv && e.Match >= 0 {
				raise(e.Peer, e.Match)
			}
			if e.Kind == tracefmt.KindLeave {
				if id := findRef(sinkAt[q], i); id >= 0 {
					for _, s := range g.colls[id].sources {
						raise(s.Rank, s.Index)
					}
				}
			}
		}
		scanned[q] = max(scanned[q], c.Past[q])
	}
}

func (g *Graph) future(c *Cone) {
	t := g.t
	srcAt := g.collRefs().srcAt
	P := t.Size()
	scanned := make([]int32, P) // lowest index already scanned
	for q := range P {
		c.Future[q] = -1
		scanned[q] = int32(len(t.Ranks[q].Events))
	}
	c.Future[c.Event.Rank] = c.Event.Index
	work := []int32{c.Event.Rank}
	lower := func(q, i int32) {
		if c.Future[q] < 0 || i < c.Future[q] {
			c.Future[q] = i
			work = append(work, q)
		}
	}
	for len(work) > 0 {
		q := work[len(work)-1]
		work = work[:len(work)-1]
		ev := t.Ranks[q].Events
		for i := c.Future[q]; i < scanned[q]; i++ {
			e := &ev[i]
			if e.Kind == tracefmt.KindSend && e.Match >= 0 {
				lower(e.Peer, e.Match)
			}
			if e.Kind == tracefmt.KindCollective {
				if id := findRef(srcAt[q], i); id >= 0 {
					for _, x := range g.colls[id].sinks {
						lower(x.Rank, x.Index)
					}
				}
			}
		}
		scanned[q] = min(scanned[q], c.Future[q])
	}
}
