package replay

// pairTable holds the sequence counters of the messages between pairs of
// ranks, by (source, destination): one open-addressing hash table with
// linear probing, whose slots keep key and counter side by side. A
// counter whose messages have all become visible is removed (the next
// message of the pair starts again at zero), so the table holds the
// pairs with messages in flight, not every pair the run ever had: an
// all-to-all over P ranks would otherwise leave P² counters. Being
// bounded by the messages in flight, it stays small enough to sit in
// the cache; a table per source rank (as before) cost two cache misses
// per lookup at 4,096 ranks, the rank's table header and its slot, and
// was the largest single item of the replay's profile there (8.6 %).
type pairTable struct {
	slots []pairSlot
	// shift is 64 less log2(len(slots)): the hash keeps the product's
	// high bits, which mix every bit of the key.
	shift uint8
	n     int
	// fromSrc counts the pairs of each source rank (by index) in the
	// table: whether a rank has messages in flight, in O(1).
	fromSrc []int32
}

// from reports how many pairs with src as source the table holds.
func (t *pairTable) from(src int32) int32 {
	if int(src) >= len(t.fromSrc) {
		return 0
	}
	return t.fromSrc[src]
}

// pairSlot is one counter; key 0 marks a free slot.
type pairSlot struct {
	key uint64
	val uint64
}

// pairKey packs a pair into a key that is never 0.
func pairKey(src, dst int32) uint64 { return uint64(uint32(src)+1)<<32 | uint64(uint32(dst)) }

func (t *pairTable) home(k uint64) int { return int((k * 0x9e3779b97f4a7c15) >> t.shift) }

// at returns the counter of the pair (src, dst), adding it at zero. The
// pointer is valid until the next call that adds or removes a pair.
func (t *pairTable) at(src, dst int32) *uint64 {
	if len(t.slots) == 0 {
		t.slots, t.shift = make([]pairSlot, 16), 64-4
	}
	mask := len(t.slots) - 1
	k := pairKey(src, dst)
	for i := t.home(k); ; i = (i + 1) & mask {
		sl := &t.slots[i]
		switch sl.key {
		case k:
			return &sl.val
		case 0:
			if 4*(t.n+1) > 3*len(t.slots) {
				t.grow()
				return t.at(src, dst)
			}
			sl.key = k
			t.n++
			if int(src) >= len(t.fromSrc) {
				t.fromSrc = append(t.fromSrc, make([]int32, int(src)+1-len(t.fromSrc))...)
			}
			t.fromSrc[src]++
			return &sl.val
		}
	}
}

// remove drops the counter of the pair (src, dst), if any. Later entries
// of its probe run move back into the hole, so lookups never stop short.
func (t *pairTable) remove(src, dst int32) {
	if len(t.slots) == 0 {
		return
	}
	mask := len(t.slots) - 1
	k := pairKey(src, dst)
	i := t.home(k)
	for t.slots[i].key != k {
		if t.slots[i].key == 0 {
			return
		}
		i = (i + 1) & mask
	}
	t.n--
	t.fromSrc[src]--
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
}

// grow doubles the table and re-inserts its counters.
func (t *pairTable) grow() {
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
