package replay

// collSmall bounds the entries a collective queue scans linearly before
// it files them in a map: an expanded collective keeps a handful of
// messages per rank in flight, and a short scan costs less than the
// insert and delete a map pays for each of their keys (which are used
// once: they hold the operation's sequence number); an all-to-all on
// many ranks keeps more, and the map bounds its cost.
const collSmall = 24

// collQueue holds the posted receives or unexpected messages of a
// collective context by key, in push order within a key. Up to
// collSmall entries sit in parallel slices; beyond, the entries move to
// a map of fifos until it empties again.
type collQueue struct {
	keys []uint64
	ids  []int32
	big  map[uint64]*fifo
	// bigN counts the entries in big: while it is zero, the slices are
	// the whole queue.
	bigN int
}

// len returns the number of entries.
func (q *collQueue) len() int { return len(q.ids) + q.bigN }

// push appends id under key k.
func (s *Sim) collPush(q *collQueue, k uint64, id int32) {
	if q.bigN == 0 && len(q.ids) < collSmall {
		q.keys = append(q.keys, k)
		q.ids = append(q.ids, id)
		return
	}
	if q.big == nil {
		q.big = map[uint64]*fifo{}
	}
	if q.bigN == 0 {
		// Move the slices to the map in order, so that each key's
		// fifo keeps push order.
		for i, k := range q.keys {
			s.bigPush(q, k, q.ids[i])
		}
		q.keys, q.ids = q.keys[:0], q.ids[:0]
	}
	s.bigPush(q, k, id)
}

func (s *Sim) bigPush(q *collQueue, k uint64, id int32) {
	f := q.big[k]
	if f == nil {
		f = s.newFifo()
		q.big[k] = f
	}
	f.push(id)
	q.bigN++
}

// collTake removes and returns the earliest entry under key k, or -1.
func (s *Sim) collTake(q *collQueue, k uint64) int32 {
	if q.bigN == 0 {
		for i, x := range q.keys {
			if x == k {
				id := q.ids[i]
				if n := len(q.keys) - 1; i < n {
					copy(q.keys[i:], q.keys[i+1:])
					copy(q.ids[i:], q.ids[i+1:])
					q.keys, q.ids = q.keys[:n], q.ids[:n]
				} else {
					// The last entry (most often the only one): no
					// move.
					q.keys, q.ids = q.keys[:i], q.ids[:i]
				}
				return id
			}
		}
		return -1
	}
	f := q.big[k]
	if f == nil {
		return -1
	}
	q.bigN--
	x := f.pop()
	if f.len() == 0 {
		// The key is used up: recycle its fifo.
		delete(q.big, k)
		s.fifos = append(s.fifos, f)
	}
	return x
}
