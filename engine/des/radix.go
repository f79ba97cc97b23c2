package des

import (
	"math/bits"
	"slices"
)

// radixQueue is the kernel's event queue: a radix heap, which needs what
// the kernel guarantees (no event is scheduled before the last one taken
// out) and in return costs a few word operations per event where a heap
// compares and moves events up and down log₄ n levels. It gives the same
// order as Queue: by time, then by the order of the pushes.
//
// The heap orders groups of events, not events: the events scheduled at
// one time mostly share a group (a FIFO list in push order), and the
// group moves between buckets as one entry. A packet network schedules
// dozens of events at every time it visits (16×16 torus: 26 events per
// distinct time), which a heap of single events moved one by one, 3.9
// times each on its way down the buckets.
//
// Bucket 0 holds the groups at the time of the last event taken out
// (last); bucket b ≥ 1 those whose time first differs from last in bit
// b−1 (keys are times with the sign bit flipped, so that they compare as
// unsigned numbers). Every bucket is in push order: a bucket is filled
// by a redistribution only while it is empty, and new groups come later
// than every group already queued. Bucket 0's front is thus the group of
// the next event.
//
// A push finds the group of its time through a small direct-mapped
// cache (by a hash of the time); on a miss it opens a new group, and the
// group it evicted takes no more events. Two groups of one time are
// therefore in the order of their first pushes, and each holds a run of
// that time's pushes that comes after the other group's, in one bucket:
// push order is kept without ever merging or searching.
type radixQueue struct {
	b [65][]gref
	// head is the front of bucket 0 (taken groups stay below it until
	// the bucket empties).
	head int
	// full has bit b−1 set when bucket b ≥ 1 holds groups.
	full uint64
	last uint64
	n    int
	seq  uint64

	groups []group
	freeG  []int32
	// nodes holds the queued events, linked in their groups; freeN is
	// the head of its free list (−1: none).
	nodes []node
	freeN int32
	// cache maps a hash of a time to the last group opened for it, +1
	// (0: none).
	cache [cacheSize]int32
}

// cacheSize is the number of entries of the group cache (a power of 2).
const cacheSize = 4096

// gref is a group in a bucket, with its time's key.
type gref struct {
	key uint64
	g   int32
}

// group is a FIFO list of events at one time, linked through nodes.
type group struct {
	at         Time
	head, tail int32
	// open says the group takes pushes (it is queued and not yet
	// drained).
	open bool
}

type node struct {
	e    Event
	next int32
}

// key maps a time to an unsigned key of the same order.
func key(at Time) uint64 { return uint64(at) ^ 1<<63 }

// slot is the cache entry of a time's key.
func slot(k uint64) uint64 { return (k * 0x9e3779b97f4a7c15) >> (64 - 12) }

// newRadixQueue returns a queue whose first events may lie at start or
// later.
func newRadixQueue(start Time) radixQueue { return radixQueue{last: key(start), freeN: -1} }

// Len returns the number of queued events.
func (q *radixQueue) Len() int { return q.n }

// Push queues an event at at, which must not lie before the last event
// taken out (the kernel moves such events to the present first).
func (q *radixQueue) Push(at Time, kind uint8, obj int32, arg int64) {
	q.seq++
	q.n++
	// The event's node.
	id := q.freeN
	if id >= 0 {
		q.freeN = q.nodes[id].next
	} else {
		q.nodes = append(q.nodes, node{})
		id = int32(len(q.nodes) - 1)
	}
	nd := &q.nodes[id]
	nd.e = Event{At: at, Arg: arg, seq: q.seq, Obj: obj, Kind: kind}
	nd.next = -1

	k := key(at)
	c := &q.cache[slot(k)]
	if gi := *c - 1; gi >= 0 {
		if g := &q.groups[gi]; g.open && g.at == at {
			q.nodes[g.tail].next = id
			g.tail = id
			return
		}
	}
	// A new group for at.
	var gi int32
	if m := len(q.freeG); m > 0 {
		gi = q.freeG[m-1]
		q.freeG = q.freeG[:m-1]
	} else {
		q.groups = append(q.groups, group{})
		gi = int32(len(q.groups) - 1)
	}
	q.groups[gi] = group{at: at, head: id, tail: id, open: true}
	*c = gi + 1
	b := bits.Len64(k ^ q.last)
	q.b[b] = append(q.b[b], gref{key: k, g: gi})
	if b > 0 {
		q.full |= 1 << (b - 1)
	}
}

// Grow makes room for n more events at the time of the last one taken
// out (a burst of start events).
func (q *radixQueue) Grow(n int) {
	if n > 0 {
		q.nodes = slices.Grow(q.nodes, n)
	}
}

// Peek returns the earliest event without taking it out; ok is false
// when the queue is empty. It leaves the buckets as they are: moving
// last forward would refuse a later push between the last event taken
// out and this one.
func (q *radixQueue) Peek() (e Event, ok bool) {
	if q.head < len(q.b[0]) {
		return q.nodes[q.groups[q.b[0][q.head].g].head].e, true
	}
	if q.full == 0 {
		return Event{}, false
	}
	s := q.b[bits.TrailingZeros64(q.full)+1]
	m := 0
	for i := 1; i < len(s); i++ {
		if s[i].key < s[m].key { // strict: the first of equal times came first
			m = i
		}
	}
	return q.nodes[q.groups[s[m].g].head].e, true
}

// Pop takes out the earliest event; ok is false when the queue is empty.
func (q *radixQueue) Pop() (e Event, ok bool) {
	if q.head == len(q.b[0]) {
		if q.full == 0 {
			return Event{}, false
		}
		q.refill()
	}
	gi := q.b[0][q.head].g
	g := &q.groups[gi]
	id := g.head
	nd := &q.nodes[id]
	e = nd.e
	g.head = nd.next
	nd.next = q.freeN
	q.freeN = id
	q.n--
	if g.head < 0 {
		// Drained: a push at its time (the present) opens a new group
		// behind it.
		g.open = false
		q.freeG = append(q.freeG, gi)
		q.head++
		if q.head == len(q.b[0]) {
			q.b[0], q.head = q.b[0][:0], 0
		}
	}
	return e, true
}

// refill moves last to the earliest time of the lowest non-empty bucket
// and spreads that bucket over the buckets below it, which are empty
// (bucket 0 included); its groups at the new last land in bucket 0, in
// push order.
func (q *radixQueue) refill() {
	i := bits.TrailingZeros64(q.full) + 1
	s := q.b[i]
	m := s[0].key
	for _, r := range s[1:] {
		m = min(m, r.key)
	}
	q.last = m
	for _, r := range s {
		b := bits.Len64(r.key ^ m)
		q.b[b] = append(q.b[b], r)
		if b > 0 {
			q.full |= 1 << (b - 1)
		}
	}
	q.b[i] = s[:0]
	q.full &^= 1 << (i - 1)
	q.head = 0
}
