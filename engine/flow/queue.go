package flow

import (
	"github.com/tracesim/tracesim/engine/des"
)

// The completion queue: the sharing flows by completion time, then by
// the order they were sent (deterministic ties). It is a 4-ary heap
// whose entries carry their keys (hkey, beside the flow slots in heap),
// so that sifting compares contiguous keys rather than reaching into
// the flows' records, and moves an entry into its place once rather than
// swapping it level by level. The order is a total one (seq is unique),
// so the flows come out in the same order whatever the heap's shape.

// hkey is a completion queue entry's key: the flow's completion time,
// then its send order.
type hkey struct {
	t   des.Time
	seq uint64
}

func (a hkey) less(b hkey) bool { return a.t < b.t || a.t == b.t && a.seq < b.seq }

// heapArity is the number of children of a node of the heap: a shallower
// heap than a binary one, whose children's keys share a cache line.
const heapArity = 4

// heapUp moves the entry at i towards the root until its parent is
// earlier.
func (n *Network) heapUp(i int) {
	h, keys, hpos := n.heap, n.hkey, n.hpos
	fi, k := h[i], keys[i]
	for i > 0 {
		p := (i - 1) / heapArity
		kp := keys[p]
		if !k.less(kp) {
			break
		}
		q := h[p]
		h[i], keys[i], hpos[q] = q, kp, int32(i)
		i = p
	}
	h[i], keys[i], hpos[fi] = fi, k, int32(i)
}

// minChild returns the earliest of the children of the entry at i, or
// -1 when it has none. A node with all its children, every one but the
// last few, is compared in a fixed pattern.
func minChild(keys []hkey, i int) int {
	c := heapArity*i + 1
	m := len(keys)
	if c+heapArity <= m {
		a, b := c, c+2
		if keys[c+1].less(keys[c]) {
			a = c + 1
		}
		if keys[c+3].less(keys[c+2]) {
			b = c + 3
		}
		if keys[b].less(keys[a]) {
			return b
		}
		return a
	}
	if c >= m {
		return -1
	}
	best := c
	for j := c + 1; j < m; j++ {
		if keys[j].less(keys[best]) {
			best = j
		}
	}
	return best
}

// heapDown moves the entry at i towards the leaves until its children
// are later.
func (n *Network) heapDown(i int) {
	h, keys, hpos := n.heap, n.hkey, n.hpos
	fi, k := h[i], keys[i]
	start := i
	for {
		best := minChild(keys, i)
		if best < 0 || !keys[best].less(k) {
			break
		}
		q := h[best]
		h[i], keys[i], hpos[q] = q, keys[best], int32(i)
		i = best
	}
	if i > start {
		h[i], keys[i], hpos[fi] = fi, k, int32(i)
	}
}

// heapPush adds flow fi at its completion time.
func (n *Network) heapPush(fi int32) {
	f := &n.flows[fi]
	if len(n.heap) == cap(n.heap) {
		// Doubled, as the flow slots (growFlows): append's growth by a
		// quarter would copy the entries five times as often.
		c := max(2*cap(n.heap), 64)
		n.heap = withRoom(n.heap, c)
		n.hkey = withRoom(n.hkey, c)
	}
	n.heap = append(n.heap, fi)
	n.hkey = append(n.hkey, hkey{f.finish, f.seq})
	n.heapUp(len(n.heap) - 1)
}

// heapFix moves the entry at i, whose flow's completion time changed,
// into its place.
func (n *Network) heapFix(i int) {
	t := n.flows[n.heap[i]].finish
	old := n.hkey[i].t
	n.hkey[i].t = t
	// Earlier, it can only go up (its children were later than before);
	// later, only down.
	if t < old {
		n.heapUp(i)
	} else if t > old {
		n.heapDown(i)
	}
}

// heapPop removes the earliest flow and returns it. The hole it leaves
// at the root goes down along the earliest children to a leaf, where the
// last entry fills it and moves up into its place: the last entry,
// from the bottom, seldom goes far up, and the way down compares the
// children only. The order is total, so the flows come out as with any
// other heap.
func (n *Network) heapPop() int32 {
	h, keys, hpos := n.heap, n.hkey, n.hpos
	top := h[0]
	hpos[top] = -1
	last := len(h) - 1
	fi, k := h[last], keys[last]
	h, keys = h[:last], keys[:last]
	n.heap, n.hkey = h, keys
	if last == 0 {
		return top
	}
	i := 0
	for {
		// minChild, inlined for nodes with all their children.
		c := heapArity*i + 1
		best := c
		if c+heapArity <= last {
			b := c + 2
			if keys[c+1].less(keys[c]) {
				best = c + 1
			}
			if keys[c+3].less(keys[c+2]) {
				b = c + 3
			}
			if keys[b].less(keys[best]) {
				best = b
			}
		} else if best = minChild(keys, i); best < 0 {
			break
		}
		q := h[best]
		h[i], keys[i], hpos[q] = q, keys[best], int32(i)
		i = best
	}
	h[i], keys[i], hpos[fi] = fi, k, int32(i)
	n.heapUp(i)
	return top
}
