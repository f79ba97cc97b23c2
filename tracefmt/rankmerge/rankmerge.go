// Package rankmerge merges the events of a trace's ranks into one stream
// ordered by (key, rank), each rank's events kept in their own order: the
// order in which the tsim and Paraver writers write records.
//
// Sorting all events by time would move the events of a rank whose clock
// runs backwards before their predecessors, and a reader takes a rank's
// records in file order, so the trace read back would differ. The merge
// only ever compares the next event of each rank: a rank's events come
// out in index order whatever their keys.
package rankmerge

import (
	"cmp"
	"iter"
)

// head is a rank's next event in the heap: its key, computed once, the
// rank, its index and the rank's event count.
type head[K cmp.Ordered] struct {
	key  K
	rank int
	i, n int
}

// Merge returns the (rank, index) pairs of the events of ranks 0..ranks-1
// (rank r has count(r) events, indexed from 0) ordered by key(r, i) and
// then by rank, each rank's indexes in increasing order. key is called
// once per event, just before the event can be compared; keys must not be
// NaN. The merge is a binary heap of the ranks that still have events:
// O(N log P) comparisons for N events over P ranks, one allocation of P
// entries per iteration and none per event. Stopping the iteration early
// is allowed.
func Merge[K cmp.Ordered](ranks int, count func(r int) int, key func(r, i int) K) iter.Seq2[int, int] {
	return func(yield func(r, i int) bool) {
		h := make([]head[K], 0, ranks)
		for r := range ranks {
			if n := count(r); n > 0 {
				h = append(h, head[K]{key(r, 0), r, 0, n})
			}
		}
		for i := len(h)/2 - 1; i >= 0; i-- {
			down(h, i)
		}
		for len(h) > 0 {
			top := &h[0]
			if !yield(top.rank, top.i) {
				return
			}
			if top.i++; top.i < top.n {
				top.key = key(top.rank, top.i)
			} else {
				last := len(h) - 1
				h[0] = h[last]
				h = h[:last]
			}
			down(h, 0)
		}
	}
}

// less orders heads by key, then rank. Heads are distinct ranks, so no
// two are equal and the merge's order does not depend on the heap's shape.
func less[K cmp.Ordered](a, b *head[K]) bool {
	return a.key < b.key || a.key == b.key && a.rank < b.rank
}

// down moves h[i] down to its place in the heap.
func down[K cmp.Ordered](h []head[K], i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
