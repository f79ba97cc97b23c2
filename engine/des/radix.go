package des

import "math/bits"

// radixQueue is the kernel's event queue: a radix heap, which needs what
// the kernel guarantees (no event is scheduled before the last one taken
// out) and in return costs a few word operations per event where a heap
// compares and moves events up and down log₄ n levels. It gives the same
// order as Queue: by time, then by the order of the pushes.
//
// Bucket 0 holds the events at the time of the last event taken out
// (last); bucket b ≥ 1 those whose time first differs from last in bit
// b−1 (keys are times with the sign bit flipped, so that they compare as
// unsigned numbers). Every bucket is in push order: a bucket is filled
// by a redistribution only while it is empty, and pushes come later than
// every event already queued. Bucket 0's front is thus the next event.
type radixQueue struct {
	b [65][]Event
	// head is the front of bucket 0 (taken events stay below it until
	// the bucket empties).
	head int
	// full has bit b−1 set when bucket b ≥ 1 holds events.
	full uint64
	last uint64
	n    int
	seq  uint64
}

// key maps a time to an unsigned key of the same order.
func key(at Time) uint64 { return uint64(at) ^ 1<<63 }

// newRadixQueue returns a queue whose first events may lie at start or
// later.
func newRadixQueue(start Time) radixQueue { return radixQueue{last: key(start)} }

// Len returns the number of queued events.
func (q *radixQueue) Len() int { return q.n }

// Push queues an event at at, which must not lie before the last event
// taken out (the kernel moves such events to the present first).
func (q *radixQueue) Push(at Time, kind uint8, obj int32, arg int64) {
	q.seq++
	q.n++
	b := bits.Len64(key(at) ^ q.last)
	q.b[b] = append(q.b[b], Event{At: at, Arg: arg, seq: q.seq, Obj: obj, Kind: kind})
	if b > 0 {
		q.full |= 1 << (b - 1)
	}
}

// Grow makes room for n more events at the time of the last one taken
// out (a burst of start events).
func (q *radixQueue) Grow(n int) {
	if n > 0 && cap(q.b[0])-len(q.b[0]) < n {
		s := make([]Event, len(q.b[0]), len(q.b[0])+n)
		copy(s, q.b[0])
		q.b[0] = s
	}
}

// Peek returns the earliest event without taking it out; ok is false
// when the queue is empty. It leaves the buckets as they are: moving
// last forward would refuse a later push between the last event taken
// out and this one.
func (q *radixQueue) Peek() (e Event, ok bool) {
	if q.head < len(q.b[0]) {
		return q.b[0][q.head], true
	}
	if q.full == 0 {
		return Event{}, false
	}
	s := q.b[bits.TrailingZeros64(q.full)+1]
	m := 0
	for i := 1; i < len(s); i++ {
		if s[i].At < s[m].At { // strict: the first of equal times came first
			m = i
		}
	}
	return s[m], true
}

// Pop takes out the earliest event; ok is false when the queue is empty.
func (q *radixQueue) Pop() (e Event, ok bool) {
	if q.head == len(q.b[0]) {
		if q.full == 0 {
			return Event{}, false
		}
		q.refill()
	}
	e = q.b[0][q.head]
	q.head++
	if q.head == len(q.b[0]) {
		q.b[0], q.head = q.b[0][:0], 0
	}
	q.n--
	return e, true
}

// refill moves last to the earliest time of the lowest non-empty bucket
// and spreads that bucket over the buckets below it, which are empty
// (bucket 0 included); its events at the new last land in bucket 0, in
// push order.
func (q *radixQueue) refill() {
	i := bits.TrailingZeros64(q.full) + 1
	s := q.b[i]
	m := key(s[0].At)
	for _, e := range s[1:] {
		m = min(m, key(e.At))
	}
	q.last = m
	for _, e := range s {
		b := bits.Len64(key(e.At) ^ m)
		q.b[b] = append(q.b[b], e)
		if b > 0 {
			q.full |= 1 << (b - 1)
		}
	}
	q.b[i] = s[:0]
	q.full &^= 1 << (i - 1)
	q.head = 0
}
