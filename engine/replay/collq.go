package replay

import "github.com/tracesim/tracesim/internal/hugepage"

// collInline is how many entries a collective queue holds in its own
// record before it files them in the run's map (Sim.collBig): an
// expanded collective keeps a handful of receives and messages per rank
// in flight (a recursive-doubling allreduce one or two), and a short
// scan of one cache line costs less than the insert and delete a map
// pays for each of their keys (which are used once: they hold the
// operation's sequence number); an all-to-all or a linear gather on
// many ranks keeps more, and the map bounds its cost.
const collInline = 4

// collQueue holds the posted receives and the unexpected messages of
// one rank's context of expanded collectives by key, in push order
// within a key and kind. A receive is held as its op id, a message as
// the complement of its message id.
//
// One queue holds both kinds in one 64-byte record. Two queues of
// slices (posted receives, unexpected messages: 128 bytes and four
// arrays of their own) cost a delivery at 65,536 ranks a cache miss on
// the queues and one on each array they scanned; receives and messages
// of one key never wait together (either finds the other first), so
// sharing the entries costs no scan.
type collQueue struct {
	keys [collInline]uint64
	ids  [collInline]int32
	n    int32
	// bigN counts the queue's entries in Sim.collBig: while it is zero,
	// the record holds them all.
	bigN int32
	_    [8]byte // to a cache line
}

// collBigKey names a fifo of Sim.collBig: one queue's entries of one
// key and kind.
type collBigKey struct {
	q   *collQueue
	k   uint64
	msg bool
}

// collEntry is how a queue holds receive op or message id.
func collEntry(id int32, msg bool) int32 {
	if msg {
		return ^id
	}
	return id
}

// msgs returns the number of unexpected messages q holds in its record
// (those in Sim.collBig are counted there).
func (q *collQueue) msgs() int {
	n := 0
	for _, v := range q.ids[:q.n] {
		if v < 0 {
			n++
		}
	}
	return n
}

// collPush appends receive op or message id (msg) under key k.
func (s *Sim) collPush(q *collQueue, k uint64, id int32, msg bool) {
	if q.bigN == 0 && q.n < collInline {
		q.keys[q.n], q.ids[q.n] = k, collEntry(id, msg)
		q.n++
		return
	}
	if s.collBig == nil {
		s.collBig = map[collBigKey]*fifo{}
	}
	if q.bigN == 0 {
		// Move the record's entries to the map in order, so that each
		// key's fifo keeps push order.
		for i, k := range q.keys[:q.n] {
			v := q.ids[i]
			s.bigPush(q, k, v < 0, v)
		}
		q.n = 0
	}
	s.bigPush(q, k, msg, collEntry(id, msg))
}

func (s *Sim) bigPush(q *collQueue, k uint64, msg bool, v int32) {
	bk := collBigKey{q, k, msg}
	f := s.collBig[bk]
	if f == nil {
		f = s.newFifo()
		s.collBig[bk] = f
	}
	f.push(v)
	q.bigN++
}

// collTake removes and returns the earliest receive op (msg false) or
// message (msg true) under key k, or -1.
func (s *Sim) collTake(q *collQueue, k uint64, msg bool) int32 {
	if q.bigN == 0 {
		// Written out rather than copy: at most three entries move,
		// and most often none (the only one, or the last, is taken).
		n := int(q.n)
		for i := range n {
			if v := q.ids[i]; q.keys[i] == k && (v < 0) == msg {
				for j := i + 1; j < n; j++ {
					q.keys[j-1], q.ids[j-1] = q.keys[j], q.ids[j]
				}
				q.n--
				return collEntry(v, msg)
			}
		}
		return -1
	}
	bk := collBigKey{q, k, msg}
	f := s.collBig[bk]
	if f == nil {
		return -1
	}
	q.bigN--
	v := f.pop()
	if f.len() == 0 {
		// The key is used up: recycle its fifo.
		delete(s.collBig, bk)
		s.fifos = append(s.fifos, f)
	}
	return collEntry(v, msg)
}

// collQ returns rank r's queue of expanded collectives on communicator
// comm. The world communicator's queues sit in one table by rank
// (pointer-free, advised as huge pages): reached through the rank's
// contexts, a delivery at 65,536 ranks took a cache miss on the rank's
// queues, one on its context and one on the context's collective queues
// before the entries.
func (s *Sim) collQ(r int32, comm uint16) *collQueue {
	if comm == 0 && s.worldColl != nil {
		return &s.worldColl[r]
	}
	return s.newCollQ(r, comm)
}

// newCollQ is collQ's other cases, kept apart so that collQ inlines.
func (s *Sim) newCollQ(r int32, comm uint16) *collQueue {
	if comm == 0 {
		s.worldColl = make([]collQueue, len(s.ranks))
		hugepage.Advise(s.worldColl)
		return &s.worldColl[r]
	}
	return s.queues[r].of(ctxOf(comm, true), &s.alloc.ctxs).colls(&s.alloc)
}
