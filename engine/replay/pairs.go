package replay

// pairTable holds the sequence counters of the messages one rank sends,
// by destination: an open-addressing hash table with linear probing.
// One table per rank keeps a rank's counters together in memory, which a
// map keyed by (source, destination) over every pair of a 65,536-rank
// world does not (its lookups were a quarter of a replay's profile
// there). A counter whose messages have all become visible is removed
// (the next message of the pair starts again at zero), so a table holds
// the peers with messages in flight, not every peer the rank ever had:
// an all-to-all over P ranks would otherwise leave P² counters.
type pairTable struct {
	// keys holds destination+1 (0 marks a free slot); vals the counters.
	keys []int32
	vals []uint64
	n    int
}

// at returns the counter of destination dst, adding it at zero. The
// pointer is valid until the next call that adds a destination.
func (t *pairTable) at(dst int32) *uint64 {
	if len(t.keys) == 0 {
		t.keys, t.vals = make([]int32, 4), make([]uint64, 4)
	}
	mask := len(t.keys) - 1
	k := dst + 1
	for i := pairHash(dst) & mask; ; i = (i + 1) & mask {
		switch t.keys[i] {
		case k:
			return &t.vals[i]
		case 0:
			if 4*(t.n+1) > 3*len(t.keys) {
				t.grow()
				return t.at(dst)
			}
			t.keys[i] = k
			t.n++
			return &t.vals[i]
		}
	}
}

// remove drops destination dst's counter, if any. Later entries of its
// probe run move back into the hole, so lookups never stop short.
func (t *pairTable) remove(dst int32) {
	if len(t.keys) == 0 {
		return
	}
	mask := len(t.keys) - 1
	i := pairHash(dst) & mask
	for t.keys[i] != dst+1 {
		if t.keys[i] == 0 {
			return
		}
		i = (i + 1) & mask
	}
	t.n--
	for j := (i + 1) & mask; t.keys[j] != 0; j = (j + 1) & mask {
		// The entry at j may fill the hole at i if its home slot h does
		// not lie cyclically in (i, j].
		h := pairHash(t.keys[j]-1) & mask
		if (j > i && (h <= i || h > j)) || (j < i && h <= i && h > j) {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.keys[i], t.vals[i] = 0, 0
}

// grow doubles the table and re-inserts its counters.
func (t *pairTable) grow() {
	keys, vals := t.keys, t.vals
	t.keys, t.vals = make([]int32, 2*len(keys)), make([]uint64, 2*len(keys))
	mask := len(t.keys) - 1
	for j, k := range keys {
		if k == 0 {
			continue
		}
		i := pairHash(k-1) & mask
		for t.keys[i] != 0 {
			i = (i + 1) & mask
		}
		t.keys[i], t.vals[i] = k, vals[j]
	}
}

// pairHash spreads destinations over the table: a rank's peers are often
// at regular strides (powers of two in Bruck's and dissemination
// algorithms), which the identity would pile into a few slots.
func pairHash(dst int32) int {
	return int((uint32(dst) * 0x9e3779b1) >> 8)
}
