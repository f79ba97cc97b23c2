package flow

import "github.com/tracesim/tracesim/engine/des"

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

// heapPlace puts flow fi with key k at position i of the heap.
func (n *Network) heapPlace(i int, fi int32, k hkey) {
	n.heap[i], n.hkey[i] = fi, k
	n.flows[fi].hi = int32(i)
}

// heapUp moves the entry at i towards the root until its parent is
// earlier.
func (n *Network) heapUp(i int) {
	h, keys := n.heap, n.hkey
	fi, k := h[i], keys[i]
	for i > 0 {
		p := (i - 1) / heapArity
		if !k.less(keys[p]) {
			break
		}
		n.heapPlace(i, h[p], keys[p])
		i = p
	}
	n.heapPlace(i, fi, k)
}

// heapDown moves the entry at i towards the leaves until its children
// are later, and reports whether it moved.
func (n *Network) heapDown(i int) bool {
	h, keys := n.heap, n.hkey
	m := len(h)
	fi, k := h[i], keys[i]
	start := i
	for {
		c := heapArity*i + 1
		if c >= m {
			break
		}
		best := c
		for j := c + 1; j < min(c+heapArity, m); j++ {
			if keys[j].less(keys[best]) {
				best = j
			}
		}
		if !keys[best].less(k) {
			break
		}
		n.heapPlace(i, h[best], keys[best])
		i = best
	}
	if i > start {
		n.heapPlace(i, fi, k)
	}
	return i > start
}

// heapPush adds flow fi at its completion time.
func (n *Network) heapPush(fi int32) {
	f := &n.flows[fi]
	n.heap = append(n.heap, fi)
	n.hkey = append(n.hkey, hkey{f.finish, f.seq})
	n.heapUp(len(n.heap) - 1)
}

// heapFix moves the entry at i, whose flow's completion time changed,
// into its place.
func (n *Network) heapFix(i int) {
	n.hkey[i].t = n.flows[n.heap[i]].finish
	if !n.heapDown(i) {
		n.heapUp(i)
	}
}

// heapPop removes the earliest flow and returns it.
func (n *Network) heapPop() int32 {
	top := n.heap[0]
	last := len(n.heap) - 1
	fi, k := n.heap[last], n.hkey[last]
	n.heap, n.hkey = n.heap[:last], n.hkey[:last]
	if last > 0 {
		n.heapPlace(0, fi, k)
		n.heapDown(0)
	}
	n.flows[top].hi = -1
	return top
}
