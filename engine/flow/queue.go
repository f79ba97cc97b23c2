package flow

import (
	"slices"

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
	keys = keys[:len(h)] // one bounds check for both arrays below
	fi, k := h[i], keys[i]
	for i > 0 {
		p := int(uint(i-1) / heapArity) // i > 0: a shift
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
		// An array: one bounds check for the four keys.
		kc := (*[heapArity]hkey)(keys[c : c+heapArity])
		a, b := 0, 2
		if kc[1].less(kc[0]) {
			a = 1
		}
		if kc[3].less(kc[2]) {
			b = 3
		}
		if kc[b&(heapArity-1)].less(kc[a&(heapArity-1)]) {
			return c + b
		}
		return c + a
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
	keys = keys[:len(h)] // one bounds check for both arrays below
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
	keys = keys[:len(h)] // one bounds check for both arrays below
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
			// An array: one bounds check for the four keys.
			kc := (*[heapArity]hkey)(keys[c : c+heapArity])
			a, b := 0, 2
			if kc[1].less(kc[0]) {
				a = 1
			}
			if kc[3].less(kc[2]) {
				b = 3
			}
			if kc[b&(heapArity-1)].less(kc[a&(heapArity-1)]) {
				a = b
			}
			best = c + a
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

// drainMin is the number of queued flows below which complete pops the
// due flows one at a time without looking for them first (drainDue).
const drainMin = 256

// dueEnt is a due flow's entry, taken out of the heap by drainAll.
type dueEnt struct {
	k  hkey
	fi int32
}

// drainScratch is drainDue's scratch, kept between completions.
type drainScratch struct {
	at    []int32  // places of the due flows in the heap
	ents  []dueEnt // their entries
	place []int32  // by send order less the lowest: the flow, or -1
}

// takeDue takes the flows due by now out of the heap and appends them to
// done in the queue's order.
func (n *Network) takeDue(now des.Time, done []int32) []int32 {
	if len(n.heap) >= drainMin {
		done = n.drainDue(now, done)
	}
	for len(n.heap) > 0 && n.hkey[0].t <= now {
		done = append(done, n.heapPop())
	}
	return done
}

// drainDue takes the flows due by now out of the heap together and
// appends them to done in the queue's order (completion time, then send
// order), as popping them one by one would, when they are an eighth of
// the heap or more; when fewer, it leaves them to heapPop. On a
// synchronous pattern thousands of flows finish at one instant, a large
// share of those queued (at 65,536 ranks a quarter of a million at
// once): drainAll takes them out and heapifies the rest in time linear
// in the heap, rather than at a sift of the heap's depth per flow.
func (n *Network) drainDue(now des.Time, done []int32) []int32 {
	// Most completions have a few flows due: not all of the root's
	// children are, and the walk would be for nothing.
	for _, k := range n.hkey[1 : 1+heapArity] {
		if k.t > now {
			return done
		}
	}
	if due := n.dueAt(now); 8*len(due) >= len(n.heap) {
		return n.drainAll(now, due, done)
	}
	return done
}

// dueAt returns the places in the heap of the flows due by now, in
// increasing order: a subtree at the root (no child is due before its
// parent), walked breadth first with the result as the walk's queue.
func (n *Network) dueAt(now des.Time) []int32 {
	keys := n.hkey
	at := n.drain.at[:0]
	if len(keys) > 0 && keys[0].t <= now {
		at = append(at, 0)
	}
	for j := 0; j < len(at); j++ {
		c := heapArity*int(at[j]) + 1
		for e := min(c+heapArity, len(keys)); c < e; c++ {
			if keys[c].t <= now {
				at = append(at, int32(c))
			}
		}
	}
	n.drain.at = at
	return at
}

// drainAll takes the flows at places due (dueAt's) out of the heap,
// appends them to done in the queue's order and makes the rest a heap
// again. Due flows that all finish at one instant are put in order by
// their send order directly (placed at seq less the lowest, when those
// span less than four times their number); others are sorted by key.
func (n *Network) drainAll(now des.Time, due []int32, done []int32) []int32 {
	h, keys, hpos := n.heap, n.hkey, n.hpos
	t0, lo, hi := keys[0].t, keys[0].seq, keys[0].seq
	same := true
	for _, p := range due {
		k := keys[p]
		same = same && k.t == t0
		lo, hi = min(lo, k.seq), max(hi, k.seq)
		hpos[h[p]] = -1
	}
	if span := int(hi - lo); same && hi-lo < 4*uint64(len(due)) {
		// seq is unique: each flow has its own place.
		place := n.drain.place
		if cap(place) <= span {
			place = withRoom(place[:0], max(2*cap(place), span+1))
		}
		place = place[:span+1]
		for i := range place {
			place[i] = -1
		}
		for _, p := range due {
			place[keys[p].seq-lo] = h[p]
		}
		for _, fi := range place {
			if fi >= 0 {
				done = append(done, fi)
			}
		}
		n.drain.place = place
	} else {
		ents := n.drain.ents[:0]
		for _, p := range due {
			ents = append(ents, dueEnt{keys[p], h[p]})
		}
		slices.SortFunc(ents, func(a, b dueEnt) int {
			if a.k.less(b.k) {
				return -1
			}
			return 1 // keys are unique
		})
		for _, e := range ents {
			done = append(done, e.fi)
		}
		n.drain.ents = ents
	}
	// The rest, in their order in the heap, then heapified bottom up.
	m := 0
	for i, k := range keys {
		if k.t > now {
			fi := h[i]
			h[m], keys[m], hpos[fi] = fi, k, int32(m)
			m++
		}
	}
	n.heap, n.hkey = h[:m], keys[:m]
	if m > 1 {
		for i := (m - 2) / heapArity; i >= 0; i-- {
			n.heapDown(i)
		}
	}
	return done
}
