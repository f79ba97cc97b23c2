package des

import (
	"math/bits"

	"github.com/tracesim/tracesim/internal/hugepage"
)

// Geometry of calQueue's ring: calSlots buckets of 2^calShift ps (256
// ps) each, a window of 67 µs ahead of the clock. A bucket is narrower
// than the gaps between the times a network model schedules (a 16×16
// torus: 30 ns and 29.2 ns after the present), so that its events mostly
// share one time and arrive in order. The ring costs 1 MiB of address
// space per kernel, resident as the clock sweeps it.
const (
	calShift    = 8
	calSlotsLog = 18
	calSlots    = 1 << calSlotsLog
	calMask     = calSlots - 1
	calWords    = calSlots / 64
	// calWalk is the most nodes a push walks to place an event before
	// the end of its bucket.
	calWalk = 8
	// calMaxShift bounds the bucket width tune may choose: 2^16 ps
	// (65.5 ns) a bucket, the ring's first 1,024 slots.
	calMaxShift = 16
	// calTune is the number of events taken out after which the queue
	// chooses its bucket width, once (see tune).
	calTune = 1 << 16
	// calTail is the share of the tuning period's pushes (the farthest
	// 1/calTail) that a tuned ring's window need not hold.
	calTail = 100
)

// calQueue is the kernel's event queue: a calendar (a ring of buckets
// by time) for the events of the near future, and a 4-ary heap for those
// beyond the ring's window. It needs what the kernel guarantees — no
// event is scheduled before the last one taken out — and gives the same
// order as Queue: by time, then by the order of the pushes (a sequence
// number every event carries, in the ring and in the heap alike).
//
// A network model schedules most of its events a fixed delay ahead (a
// packet on the torus of an alltoall: 66 % of its events exactly 30 ns
// after the present, most others ~52 µs, its serialisation), which a
// calendar queues and dequeues in a few word operations where a heap, or
// the radix heap before it, moved entries between levels.
//
// Bucket b (absolute: time >> sh) lives in slot b & mask. Every event
// in the ring lies in a bucket of [cur, cur+mask], cur being the
// bucket of the last event taken out, so a slot holds one bucket at a
// time and the ring's earliest event is the front of the first non-empty
// slot from cur's onwards (found through three levels of bitmaps). A
// bucket is a list sorted by (time, sequence), circular through its tail
// so that the slot keeps only the tail. A push appends to its bucket, or,
// when an event of the bucket lies later, walks from the bucket's front
// to its place — at most calWalk nodes: further, it goes to the heap, so
// that a burst of times out of order costs a heap push each, never a long
// walk. Any event may go to the heap (Pop takes the earlier of the two
// fronts), so the order does not depend on which of the two holds it.
//
// Buckets start 2^calShift ps wide; after calTune events taken out, tune
// widens them once if the run's events are sparse, and the ring shrinks
// by as much, keeping its window: a flow model's events are microseconds
// apart, and in 256-ps buckets nearly every push landed on a line of the
// 1-MiB ring that no event had touched for thousands of events (a cache
// miss a push), where in 65.5-ns buckets the ring is its first 4 KiB.
type calQueue struct {
	// slots holds each bucket's tail node + 1 (0: empty).
	slots *[calSlots]int32
	// occ has bit s set when slot s holds events, occ2 bit w when
	// occ[w] is not zero, occ3 bit k when occ2[k] is not zero.
	occ  *[calWords]uint64
	occ2 [calWords / 64]uint64
	occ3 uint64
	// cur is the bucket of the last event taken out, last its time;
	// sh is the buckets' width, log2 ps; the ring is its first mask+1
	// slots.
	cur   int64
	last  Time
	sh    uint
	mask  int64
	nodes []calNode
	// freeN is the head of nodes' free list (−1: none).
	freeN int32
	ring  int // events in the ring
	seq   uint64
	// far holds the events beyond the ring's window and those a
	// bucket could not place.
	far Queue
	// While tuning, pops counts the events taken out (tune runs at
	// tuneAt), first0 is the first one's time and delta counts the
	// pushes after the present by the bit length of their distance.
	tuning bool
	pops   int
	tuneAt int
	first0 Time
	delta  [65]int
}

// calNode is one event of the ring, 32 bytes: two to a cache line, where
// an entry and a link took 40. The kind rides in the low byte of the
// sequence number (a run pushes far fewer than 2^56 events), so that
// comparing sk compares the sequence numbers. A 65,536-rank stencil has
// ~261,000 messages in flight at once, each with its arrival here.
type calNode struct {
	at  Time
	arg int64
	// sk is the sequence number << 8 | the kind.
	sk   uint64
	obj  int32
	next int32
}

// event returns the event n holds.
func (n *calNode) event() Event {
	return Event{At: n.at, Arg: n.arg, Obj: n.obj, Kind: uint8(n.sk)}
}

// set stores entry x in n.
func (n *calNode) set(x entry) {
	n.at, n.arg, n.obj, n.sk = x.e.At, x.e.Arg, x.e.Obj, x.seq<<8|uint64(x.e.Kind)
}

// farFirst reports whether the far heap's entry a comes out before n.
func farFirst(a *entry, n *calNode) bool {
	return a.e.At < n.at || (a.e.At == n.at && a.seq < n.sk>>8)
}

// newCalQueue returns a queue whose first events may lie at start or
// later.
func newCalQueue(start Time) calQueue {
	return calQueue{slots: new([calSlots]int32), occ: new([calWords]uint64), cur: bucket(start, calShift),
		last: start, sh: calShift, mask: calMask, freeN: -1, tuning: true, tuneAt: calTune}
}

// bucket is the calendar bucket of time t in buckets of 2^sh ps.
func bucket(t Time, sh uint) int64 { return int64(t) >> sh }

// Len returns the number of queued events.
func (q *calQueue) Len() int { return q.ring + q.far.Len() }

// Grow makes room for n more events (a burst of start events).
func (q *calQueue) Grow(n int) {
	if n <= 0 || cap(q.nodes)-len(q.nodes) >= n {
		return
	}
	// Not slices.Grow, which clears the new room itself: a fresh
	// array's pages are zero already, and clearing them faulted them in
	// 4 KiB at a time (10 MiB at 65,536 ranks, ~2,600 faults of some 14
	// µs). Left untouched until the run fills it, the room is advised
	// as huge pages.
	nodes := make([]calNode, len(q.nodes), len(q.nodes)+n)
	copy(nodes, q.nodes)
	q.nodes = nodes
	hugepage.Advise(nodes[len(nodes):cap(nodes)])
}

// Push queues an event at at, which must not lie before the last event
// taken out (the kernel moves such events to the present first).
func (q *calQueue) Push(at Time, kind uint8, obj int32, arg int64) {
	q.seq++
	if q.tuning && at > q.last {
		q.delta[bits.Len64(uint64(at-q.last))]++
	}
	b := bucket(at, q.sh)
	if uint64(b-q.cur) > uint64(q.mask) {
		q.pushFar(at, kind, obj, arg)
		return
	}
	s := b & q.mask
	sl := &q.slots[s]
	tail := *sl - 1
	// prev is the node to insert after (-1: an empty bucket); the
	// event becomes the bucket's tail unless it goes before one.
	prev, last := tail, true
	if tail >= 0 && q.nodes[tail].at > at {
		last = false
		// An event of the bucket lies later: the event's place is
		// found from the bucket's front within calWalk nodes, or the
		// heap orders it (a burst of times out of order in one bucket
		// costs a heap push each, never a long walk).
		prev = -1
		p, c := tail, q.nodes[tail].next
		for range calWalk {
			if q.nodes[c].at > at {
				prev = p
				break
			}
			p, c = c, q.nodes[c].next
		}
		if prev < 0 {
			q.pushFar(at, kind, obj, arg)
			return
		}
	}
	id := q.freeN
	if id >= 0 {
		q.freeN = q.nodes[id].next
	} else {
		q.nodes = append(q.nodes, calNode{})
		id = int32(len(q.nodes) - 1)
	}
	q.ring++
	nd := &q.nodes[id]
	// Field by field: a composite literal is built on the stack first.
	nd.at, nd.arg, nd.obj, nd.sk = at, arg, obj, q.seq<<8|uint64(kind)
	if prev < 0 {
		nd.next = id
		*sl = id + 1
		q.occ[s>>6] |= 1 << uint(s&63)
		q.occ2[s>>12] |= 1 << uint((s>>6)&63)
		q.occ3 |= 1 << uint(s>>12)
		return
	}
	pn := &q.nodes[prev]
	nd.next = pn.next
	pn.next = id
	if last {
		*sl = id + 1
	}
}

// pushFar queues an event in the far heap, with the calendar's next
// sequence number (taken by Push).
//
//go:noinline
func (q *calQueue) pushFar(at Time, kind uint8, obj int32, arg int64) {
	q.far.pushEntry(entry{Event{At: at, Arg: arg, Obj: obj, Kind: kind}, q.seq})
}

// first returns the slot of the ring's earliest bucket; the ring must
// hold events.
func (q *calQueue) first() int64 {
	s := q.cur & q.mask
	w := s >> 6
	if m := q.occ[w] >> uint(s&63); m != 0 {
		return s + int64(bits.TrailingZeros64(m))
	}
	// A later word of w's group of 64, then a later group, else the
	// first word from slot 0 (the window's far end, before s).
	if j := w + 1; j&63 != 0 {
		if m := q.occ2[j>>6] >> uint(j&63); m != 0 {
			return q.firstIn(j + int64(bits.TrailingZeros64(m)))
		}
	}
	if k := w>>6 + 1; k < 64 {
		if m := q.occ3 >> uint(k); m != 0 {
			k += int64(bits.TrailingZeros64(m))
			return q.firstIn(k<<6 + int64(bits.TrailingZeros64(q.occ2[k])))
		}
	}
	k := int64(bits.TrailingZeros64(q.occ3))
	return q.firstIn(k<<6 + int64(bits.TrailingZeros64(q.occ2[k])))
}

// firstIn returns the first slot of occ's word w, which is not zero.
func (q *calQueue) firstIn(w int64) int64 {
	return w<<6 + int64(bits.TrailingZeros64(q.occ[w]))
}

// Peek returns the earliest event without taking it out; ok is false
// when the queue is empty.
func (q *calQueue) Peek() (e Event, ok bool) {
	if q.ring == 0 {
		return q.far.Peek()
	}
	s := q.first()
	h := &q.nodes[q.nodes[q.slots[s]-1].next]
	if q.far.Len() > 0 && farFirst(&q.far.h[0], h) {
		return q.far.h[0].e, true
	}
	return h.event(), true
}

// popFar takes out the far heap's earliest event, which is the queue's.
//
//go:noinline
func (q *calQueue) popFar() (e Event, ok bool) {
	e, _ = q.far.Pop()
	q.cur, q.last = bucket(e.At, q.sh), e.At
	if q.tuning {
		q.tuned()
	}
	return e, true
}

// Pop takes out the earliest event; ok is false when the queue is empty.
func (q *calQueue) Pop() (e Event, ok bool) {
	if q.ring == 0 {
		if len(q.far.h) == 0 {
			return Event{}, false
		}
		return q.popFar()
	}
	// The first non-empty slot: mostly in cur's word of the bitmap.
	s := q.cur & q.mask
	if m := q.occ[s>>6] >> uint(s&63); m != 0 {
		s += int64(bits.TrailingZeros64(m))
	} else {
		s = q.first()
	}
	sl := &q.slots[s]
	tail := *sl - 1
	tn := &q.nodes[tail]
	id := tn.next
	nd := &q.nodes[id]
	if len(q.far.h) > 0 && farFirst(&q.far.h[0], nd) {
		return q.popFar()
	}
	e = nd.event()
	if id == tail {
		*sl = 0
		w := s >> 6
		q.occ[w] &^= 1 << uint(s&63)
		if q.occ[w] == 0 {
			q.occ2[w>>6] &^= 1 << uint(w&63)
			if q.occ2[w>>6] == 0 {
				q.occ3 &^= 1 << uint(w>>6)
			}
		}
	} else {
		tn.next = nd.next
	}
	nd.next = q.freeN
	q.freeN = id
	q.ring--
	q.cur, q.last = bucket(e.At, q.sh), e.At
	if q.tuning {
		q.tuned()
	}
	return e, true
}

// tuned counts an event taken out while tuning, and tunes at tuneAt.
//
//go:noinline
func (q *calQueue) tuned() {
	q.pops++
	if q.pops == 1 {
		q.first0 = q.last
	}
	if q.pops >= q.tuneAt {
		q.tuning = false
		q.tune()
	}
}

// tune chooses the buckets' width from the events so far and moves the
// ring's events into buckets of that width. A bucket stays narrower than
// the median distance at which events are pushed after the present, by
// 2^7 (a packet model's 30-ns hops keep calShift's 256 ps, so that a
// bucket's events mostly share one time and arrive in order), and than
// a quarter of the mean time between the events taken out (a run of
// many ranks, whose events are dense however far ahead they are pushed,
// keeps narrow buckets too). The order of the events does not depend on
// the width.
func (q *calQueue) tune() {
	total := 0
	for _, c := range q.delta {
		total += c
	}
	if total == 0 || q.pops == 0 {
		return
	}
	// k is the median distance's bit length: 2^(k-1) ≤ d < 2^k.
	k, seen := 0, 0
	for i, c := range q.delta {
		seen += c
		if 2*seen >= total {
			k = i
			break
		}
	}
	sh := k - 1 - 7
	adv := int64(q.last-q.first0) / int64(q.pops)
	if a := bits.Len64(uint64(max(adv, 1))) - 1 - 2; a < sh {
		sh = a
	}
	sh = min(max(sh, calShift), calMaxShift)
	if uint(sh) != q.sh {
		q.rebucket(uint(sh), q.window(uint(sh), total))
	}
}

// window returns the ring's mask for buckets of 2^sh ps: at least the
// 67-µs window of calShift's ring, and as many more slots (up to all
// calSlots) as it takes to hold the pushes of the tuning period but for
// the farthest 1/calTail of them. A replay whose ranks compute between
// messages pushes most of its events hundreds of microseconds ahead (the
// SimGrid stencil256 case: 96 % of them), which a 67-µs window sent to
// the far heap, a 4-ary heap whose sift-down cost ~300 instructions a
// pop; the bitmaps find a bucket in a few word operations however wide
// the window, and a window covering a run's distances touches the ring
// only where its events lie.
func (q *calQueue) window(sh uint, total int) int64 {
	mask := int64(calMask >> (sh - calShift))
	// k: 2^k ps covers all but the farthest 1/calTail of the pushes.
	k, seen := 0, 0
	for i, c := range q.delta {
		seen += c
		if calTail*seen >= (calTail-1)*total {
			k = i
			break
		}
	}
	if k > int(sh) {
		mask = max(mask, int64(1)<<min(k-int(sh), calSlotsLog)-1)
	}
	return mask
}

// rebucket moves the ring's events into buckets of 2^sh ps: taken out
// in order, then appended to their new buckets (or to the far heap
// beyond the window), each with its sequence number.
func (q *calQueue) rebucket(sh uint, mask int64) {
	xs := make([]entry, 0, q.ring)
	for q.ring > 0 {
		s := q.first()
		sl := &q.slots[s]
		tail := *sl - 1
		tn := &q.nodes[tail]
		id := tn.next
		nd := &q.nodes[id]
		xs = append(xs, entry{nd.event(), nd.sk >> 8})
		if id == tail {
			*sl = 0
			w := s >> 6
			q.occ[w] &^= 1 << uint(s&63)
			if q.occ[w] == 0 {
				q.occ2[w>>6] &^= 1 << uint(w&63)
				if q.occ2[w>>6] == 0 {
					q.occ3 &^= 1 << uint(w>>6)
				}
			}
		} else {
			tn.next = nd.next
		}
		nd.next = q.freeN
		q.freeN = id
		q.ring--
	}
	q.sh = sh
	q.mask = mask
	q.cur = bucket(q.last, sh)
	for _, x := range xs {
		b := bucket(x.e.At, sh)
		if uint64(b-q.cur) > uint64(q.mask) {
			q.far.pushEntry(x)
			continue
		}
		s := b & q.mask
		sl := &q.slots[s]
		id := q.freeN
		q.freeN = q.nodes[id].next
		q.ring++
		nd := &q.nodes[id]
		nd.set(x)
		// In order: the event goes after every event of its bucket.
		if tail := *sl - 1; tail < 0 {
			nd.next = id
			q.occ[s>>6] |= 1 << uint(s&63)
			q.occ2[s>>12] |= 1 << uint((s>>6)&63)
			q.occ3 |= 1 << uint(s>>12)
		} else {
			nd.next = q.nodes[tail].next
			q.nodes[tail].next = id
		}
		*sl = id + 1
	}
}
