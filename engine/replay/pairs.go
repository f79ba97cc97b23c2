package replay

import "github.com/tracesim/tracesim/internal/hugepage"

// pairTable holds the sequence counters of the messages between pairs of
// ranks, by (source, destination). Each source rank has a bucket of
// pairBucket slots of its own in one flat array, and the pairs that do not
// fit there go to an overflow hash table. A counter whose messages have
// all become visible is removed (the next message of the pair starts
// again at zero), so the table holds the pairs with messages in flight,
// not every pair the run ever had: an all-to-all over P ranks would
// otherwise leave P² counters.
//
// Why buckets by source: a single hash table of every pair in flight
// scatters a rank's pairs over the whole table, so at 4,096 ranks (16 k
// pairs in flight on a 2-D stencil, a 512 KiB table) nearly every lookup
// missed the cache and the lookup was the replay's largest single item
// (4.6 % of a whole `sim` run). A bucket is one cache line, its rank's
// sends and arrivals touch only it, and the replay advances ranks in
// order, so consecutive lookups walk the array forward. Sources with more
// peers in flight than a bucket holds (a collective's fan-out, an
// all-to-all) spill into the overflow table, which is then as before.
type pairTable struct {
	// buckets holds a bucket per source rank, by rank.
	buckets []pairBucketOf
	over    pairHash
	// n counts the pairs held, in buckets and overflow.
	n int
}

// pairBucket is the number of counters a source rank's bucket holds: five
// (a 2-D stencil's four peers and an allreduce round's partner) and the
// source's count of pairs fill one 64-byte cache line.
const pairBucket = 5

// pairBucketOf is the bucket of one source rank: one cache line, which
// the source's sends and arrivals touch and nothing else. With four
// 16-byte slots and the count in a table of its own, a 4,096-rank
// stencil under the packet model (four halo peers and an allreduce
// partner in flight) sent 6 % of its pairs to the overflow table, and a
// lookup that missed its bucket read the count's line too.
type pairBucketOf struct {
	// val holds the counters; key[i] is val[i]'s destination plus one
	// (0: free).
	val [pairBucket]uint64
	key [pairBucket]uint32
	// n counts the source's pairs in the table, bucket and overflow:
	// whether a rank has messages in flight, in O(1).
	n int32
}

// from reports how many pairs with src as source the table holds.
func (t *pairTable) from(src int32) int32 {
	if int(src) >= len(t.buckets) {
		return 0
	}
	return t.buckets[src].n
}

// reserve sizes the table for source ranks 0..n-1. Grown by append as
// the sources came (the replay starts ranks in order), the buckets of a
// 65,536-rank stencil were copied some fifty times over, each copy a
// fresh array whose pages the kernel had to fault in: 5 % of the
// engine's time there.
func (t *pairTable) reserve(n int) {
	if n <= len(t.buckets) {
		return
	}
	// 4 MiB at 65,536 senders, written pair by pair as the run meets
	// them.
	buckets := hugepage.Make[pairBucketOf](n, n)
	copy(buckets, t.buckets)
	t.buckets = buckets
}

// at returns the counter of the pair (src, dst), adding it at zero. The
// pointer is valid until the next call that adds or removes a pair.
func (t *pairTable) at(src, dst int32) *uint64 {
	if int(src) >= len(t.buckets) {
		t.buckets = append(t.buckets, make([]pairBucketOf, int(src)+1-len(t.buckets))...)
	}
	b := &t.buckets[src]
	k := uint32(dst) + 1
	free, held := -1, int32(0)
	for i, bk := range b.key {
		switch bk {
		case k:
			return &b.val[i]
		case 0:
			if free < 0 {
				free = i
			}
		default:
			held++
		}
	}
	if b.n > held {
		// Some of the source's pairs are in the overflow table.
		if v := t.over.find(src, dst); v != nil {
			return v
		}
	}
	t.n++
	b.n++
	if free >= 0 {
		b.key[free], b.val[free] = k, 0
		return &b.val[free]
	}
	return t.over.add(src, dst)
}

// remove drops the counter of the pair (src, dst), if any.
func (t *pairTable) remove(src, dst int32) {
	if int(src) >= len(t.buckets) {
		return
	}
	b := &t.buckets[src]
	k := uint32(dst) + 1
	for i, bk := range b.key {
		if bk == k {
			b.key[i], b.val[i] = 0, 0
			t.n--
			b.n--
			return
		}
	}
	if t.over.remove(src, dst) {
		t.n--
		b.n--
	}
}

// pairHash is the overflow of pairTable: one open-addressing hash table
// with linear probing, whose slots keep key and counter side by side.
type pairHash struct {
	slots []pairSlot
	// shift is 64 less log2(len(slots)): the hash keeps the product's
	// high bits, which mix every bit of the key.
	shift uint8
	n     int
}

// pairSlot is one counter; key 0 marks a free slot.
type pairSlot struct {
	key uint64
	val uint64
}

// pairKey packs a pair into a key that is never 0.
func pairKey(src, dst int32) uint64 { return uint64(uint32(src)+1)<<32 | uint64(uint32(dst)) }

func (t *pairHash) home(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> t.shift) }

// find returns the counter of the pair (src, dst), or nil.
func (t *pairHash) find(src, dst int32) *uint64 {
	if len(t.slots) == 0 {
		return nil
	}
	mask := len(t.slots) - 1
	k := pairKey(src, dst)
	for i := t.home(k); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		switch sl.key {
		case k:
			return &sl.val
		case 0:
			return nil
		}
	}
}

// add inserts the pair (src, dst), which is not in the table, at zero.
func (t *pairHash) add(src, dst int32) *uint64 {
	if len(t.slots) == 0 {
		t.slots, t.shift = make([]pairSlot, 16), 64-4
	}
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	k := pairKey(src, dst)
	i := t.home(k)
	for t.slots[i].key != 0 {
		i = (i + 1) & mask
	}
	t.slots[i].key = k
	t.n++
	return &t.slots[i].val
}

// remove drops the counter of the pair (src, dst) and reports whether it
// was there. Later entries of its probe run move back into the hole, so
// lookups never stop short.
func (t *pairHash) remove(src, dst int32) bool {
	if len(t.slots) == 0 {
		return false
	}
	mask := len(t.slots) - 1
	k := pairKey(src, dst)
	i := t.home(k)
	for t.slots[i].key != k {
		if t.slots[i].key == 0 {
			return false
		}
		i = (i + 1) & mask
	}
	t.n--
	for j := (i + 1) & mask; t.slots[j].key != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i if its home slot h does
		// not lie cyclically in (i, j].
		h := t.home(t.slots[j].key)
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.slots[i] = t.slots[j]
			i = j
		}
	}
	t.slots[i] = pairSlot{}
	return true
}

// grow doubles the table and re-inserts its counters.
func (t *pairHash) grow() {
	old := t.slots
	t.slots, t.shift = make([]pairSlot, 2*len(old)), t.shift-1
	mask := len(t.slots) - 1
	for _, sl := range old {
		if sl.key == 0 {
			continue
		}
		i := t.home(sl.key)
		for t.slots[i].key != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = sl
	}
}
