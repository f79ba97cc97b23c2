package flow

import "math/bits"

// pool holds ranges of 1<<c elements (class c) in one array: the flows'
// link blocks (Network.blk) and the links' element lists (Network.elp)
// live in pools, and the records name their range by offset, so that
// the flow slots and the link records hold no pointer. At 65,536 ranks
// the quarter of a million slots and their blocks, and the links' lists,
// were 1.5 M small objects the collector marked at every cycle; a pool
// is one pointer-free array it does not scan. A range given back goes on
// its class's free list and is handed out again before the array grows.
type pool[T any] struct {
	buf  []T
	free [32][]int32 // per class: offsets of free ranges
}

// get returns the offset of a range of 1<<c elements, its contents
// whatever they were.
func (p *pool[T]) get(c int) int32 {
	if fl := p.free[c]; len(fl) > 0 {
		p.free[c] = fl[:len(fl)-1]
		return fl[len(fl)-1]
	}
	o, size := len(p.buf), 1<<c
	if o+size > cap(p.buf) {
		// Doubled, and advised as huge pages before it is written
		// (withRoom).
		p.buf = withRoom(p.buf, max(2*cap(p.buf), o+size, 1024))
	}
	p.buf = p.buf[:o+size]
	return int32(o)
}

// put gives back the range of 1<<c elements at offset o.
func (p *pool[T]) put(o int32, c int) {
	p.free[c] = append(p.free[c], o)
}

// class is the class of the smallest range of at least k elements:
// ⌈log₂ k⌉, 0 for k ≤ 1.
func class(k int) int {
	return bits.Len(uint(max(k, 1) - 1))
}
