package des

import "slices"

// Event is one scheduled occurrence. Kind, Obj and Arg mean what the
// event's owner says; the kernel only orders events by At, then by the
// sequence number it assigns when an event is scheduled (kept beside the
// event in the queue: an Event of four fields travels in registers).
type Event struct {
	// At is when the event happens.
	At Time
	// Arg is a 64-bit argument (a message id, a generation counter).
	Arg int64
	// Obj names the object the event concerns (a rank, a node, a router).
	Obj int32
	// Kind says what the event is.
	Kind uint8
}

// entry is a queued event and its sequence number.
type entry struct {
	e   Event
	seq uint64
}

// before reports whether a comes out of the queue before b.
func before(a, b *entry) bool {
	return a.e.At < b.e.At || (a.e.At == b.e.At && a.seq < b.seq)
}

// Queue is a 4-ary min-heap of events stored by value. A 4-ary heap is
// shallower than a binary one and keeps a node's children in one cache
// line, which makes it the faster choice for the short-lived, mostly
// near-future events of a replay.
type Queue struct {
	h   []entry
	seq uint64
}

// Len returns the number of events in the queue.
func (q *Queue) Len() int { return len(q.h) }

// Push schedules an event. Events at equal times leave in push order.
func (q *Queue) Push(at Time, kind uint8, obj int32, arg int64) {
	q.seq++
	q.h = append(q.h, entry{Event{At: at, Arg: arg, Obj: obj, Kind: kind}, q.seq})
	q.up(len(q.h) - 1)
}

// pushEntry queues x with the sequence number it carries (calQueue's
// far events, numbered by the calendar).
func (q *Queue) pushEntry(x entry) {
	q.h = append(q.h, x)
	q.up(len(q.h) - 1)
}

// Peek returns the earliest event without removing it; ok is false when
// the queue is empty.
func (q *Queue) Peek() (e Event, ok bool) {
	if len(q.h) == 0 {
		return Event{}, false
	}
	return q.h[0].e, true
}

// Pop removes and returns the earliest event; ok is false when the queue
// is empty.
func (q *Queue) Pop() (e Event, ok bool) {
	n := len(q.h)
	if n == 0 {
		return Event{}, false
	}
	e = q.h[0].e
	last := q.h[n-1]
	q.h = q.h[:n-1]
	if n > 1 {
		q.down(last)
	}
	return e, true
}

// Grow makes room for n more events, so that a known burst of pushes
// (one start event per rank) allocates once rather than growing by a
// quarter at a time, which would allocate about five times the final size.
func (q *Queue) Grow(n int) {
	if n > 0 {
		q.h = slices.Grow(q.h, n)
	}
}

// Reset empties the queue, keeping its storage.
func (q *Queue) Reset() {
	q.h = q.h[:0]
	q.seq = 0
}

func (q *Queue) up(i int) {
	h := q.h
	e := h[i]
	for i > 0 {
		p := (i - 1) / 4
		if !before(&e, &h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// down places e, the former last element, starting from the root.
func (q *Queue) down(e entry) {
	h := q.h
	n := len(h)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// Find the smallest of up to four children: a node with all
		// four (all but the last) plays them off in pairs, which costs
		// the same three comparisons as a scan without its loop and
		// bounds checks.
		m := c
		if c+4 <= n {
			k := h[c : c+4 : c+4]
			a, b := 0, 2
			if before(&k[1], &k[0]) {
				a = 1
			}
			if before(&k[3], &k[2]) {
				b = 3
			}
			if before(&k[b], &k[a]) {
				a = b
			}
			m += a
		} else {
			for j := c + 1; j < n; j++ {
				if before(&h[j], &h[m]) {
					m = j
				}
			}
		}
		if !before(&h[m], &e) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = e
}
