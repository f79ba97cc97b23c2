package clog2

import (
	"container/heap"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// source is a rank's stream of records, in the rank's order.
type source interface {
	// head returns the current record, or nil when the stream is done.
	head() *record
	// next moves to the following record.
	next() error
}

// mergeNode replays MPE's CLOG_Merger_sort at one rank of its binary tree
// (children 2r+1 and 2r+2): a three-way merge of the left subtree, the
// right subtree and the rank's own records. Ties go left, then right, then
// local, exactly as MPE compares (left <= right, then <= local). Exhausted
// streams count as +Inf, as MPE's CLOG_MAXTIME does for real times.
type mergeNode struct {
	left, right *mergeNode
	local       source
	chosen      int8 // -1 unknown, 0 left, 1 right, 2 local, 3 done
	// head is the chosen record while chosen >= 0: a node's choice reads
	// its children's heads without descending to their leaves, so a
	// record costs O(depth) choices, not O(depth²).
	head *record
}

func buildMergeTree(srcs []source, r int) *mergeNode {
	if r >= len(srcs) {
		return nil
	}
	return &mergeNode{left: buildMergeTree(srcs, 2*r+1), right: buildMergeTree(srcs, 2*r+2), local: srcs[r], chosen: -1}
}

func (n *mergeNode) headRec() *record {
	if n == nil {
		return nil
	}
	n.choose()
	return n.head
}

func (n *mergeNode) choose() {
	if n.chosen >= 0 {
		return
	}
	l, r, m := n.left.headRec(), n.right.headRec(), n.local.head()
	if l == nil && r == nil && m == nil {
		n.chosen, n.head = 3, nil
		return
	}
	lt, rt, mt := timeOf(l), timeOf(r), timeOf(m)
	var c int8
	if lt <= rt {
		if lt <= mt {
			c = 0
		} else {
			c = 2
		}
	} else {
		if rt <= mt {
			c = 1
		} else {
			c = 2
		}
	}
	// With NaN or infinite times the comparison may pick an exhausted
	// stream (MPE misbehaves there); take the first live one instead.
	if (c == 0 && l == nil) || (c == 1 && r == nil) || (c == 2 && m == nil) {
		switch {
		case l != nil:
			c = 0
		case r != nil:
			c = 1
		default:
			c = 2
		}
	}
	n.chosen = c
	n.head = [3]*record{l, r, m}[c]
}

func timeOf(r *record) float64 {
	if r == nil {
		return math.Inf(1)
	}
	return r.time
}

// pop advances past the current head.
func (n *mergeNode) pop() error {
	n.choose()
	var err error
	switch n.chosen {
	case 0:
		err = n.left.pop()
	case 1:
		err = n.right.pop()
	case 2:
		err = n.local.next()
	}
	n.chosen = -1
	return err
}

// postLess reports whether rank a comes before rank b in the post-order of
// MPE's merge tree (left subtree, right subtree, node), which orders
// records of equal time in a merged file.
func postLess(a, b int32) bool {
	if a == b {
		return false
	}
	da, db := depth(a), depth(b)
	x, y := a, b
	for da > db {
		x = (x - 1) / 2
		da--
	}
	for db > da {
		y = (y - 1) / 2
		db--
	}
	if x == y {
		// One is an ancestor of the other: descendants come first.
		return depth(a) > depth(b)
	}
	for (x-1)/2 != (y-1)/2 {
		x, y = (x-1)/2, (y-1)/2
	}
	return x < y
}

// postOrder returns the position of every rank of a world of P ranks in
// the post-order of MPE's merge tree.
func postOrder(P int) []int32 {
	pos := make([]int32, P)
	n := int32(0)
	// Iterative post-order walk: descend left as far as possible, then
	// right, emitting a node once both children are done.
	type frame struct {
		r     int32
		state uint8
	}
	stack := []frame{{0, 0}}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		c := 2*f.r + 1 + int32(f.state)
		if f.state < 2 {
			f.state++
			if int(c) < P {
				stack = append(stack, frame{c, 0})
			}
			continue
		}
		pos[f.r] = n
		n++
		stack = stack[:len(stack)-1]
	}
	return pos
}

func depth(r int32) int {
	d := 0
	for r > 0 {
		r = (r - 1) / 2
		d++
	}
	return d
}

// orderSpec is a stored global record order: the first records are the
// per-rank prefixes merged by (time, tree post-order), the rest follow
// runs of (rank, count).
type orderSpec struct {
	prefix []int64
	runs   []orderRun
}

type orderRun struct {
	rank int32
	n    int64
}

// encode renders the spec as "prefix:<base64 varints>;runs:<base64
// varints>" (prefix counts per rank; alternating rank, count).
func (o *orderSpec) encode() string {
	var p, r []byte
	for _, c := range o.prefix {
		p = binary.AppendUvarint(p, uint64(c))
	}
	for _, run := range o.runs {
		r = binary.AppendUvarint(r, uint64(run.rank))
		r = binary.AppendUvarint(r, uint64(run.n))
	}
	return "prefix:" + base64.StdEncoding.EncodeToString(p) + ";runs:" + base64.StdEncoding.EncodeToString(r)
}

func parseOrderSpec(s string, P int) (*orderSpec, error) {
	ps, rs, ok := strings.Cut(s, ";")
	ps, ok1 := strings.CutPrefix(ps, "prefix:")
	rs, ok2 := strings.CutPrefix(rs, "runs:")
	if !ok || !ok1 || !ok2 {
		return nil, fmt.Errorf("expected \"prefix:<counts>;runs:<runs>\"")
	}
	pb, err := base64.StdEncoding.DecodeString(ps)
	if err != nil {
		return nil, err
	}
	rb, err := base64.StdEncoding.DecodeString(rs)
	if err != nil {
		return nil, err
	}
	o := &orderSpec{}
	for len(pb) > 0 {
		v, n := binary.Uvarint(pb)
		if n <= 0 || v > math.MaxInt32 {
			return nil, fmt.Errorf("bad prefix count")
		}
		o.prefix = append(o.prefix, int64(v))
		pb = pb[n:]
	}
	if len(o.prefix) != P {
		return nil, fmt.Errorf("%d prefix counts for %d ranks", len(o.prefix), P)
	}
	for len(rb) > 0 {
		rank, n := binary.Uvarint(rb)
		if n <= 0 || rank >= uint64(P) {
			return nil, fmt.Errorf("bad run rank")
		}
		rb = rb[n:]
		cnt, n := binary.Uvarint(rb)
		if n <= 0 || cnt > math.MaxInt32 {
			return nil, fmt.Errorf("bad run length")
		}
		rb = rb[n:]
		o.runs = append(o.runs, orderRun{int32(rank), int64(cnt)})
	}
	return o, nil
}

// orderMerger emits records in a stored order.
type orderMerger struct {
	srcs  []source
	spec  *orderSpec
	left  []int64 // prefix records left per rank
	h     prefixHeap
	run   int
	inRun int64
}

type prefixHeap struct {
	srcs  []source
	ranks []int32
}

func (h *prefixHeap) Len() int { return len(h.ranks) }
func (h *prefixHeap) Less(i, j int) bool {
	a, b := h.ranks[i], h.ranks[j]
	ta, tb := h.srcs[a].head().time, h.srcs[b].head().time
	if ta != tb {
		return ta < tb
	}
	return postLess(a, b)
}
func (h *prefixHeap) Swap(i, j int) { h.ranks[i], h.ranks[j] = h.ranks[j], h.ranks[i] }
func (h *prefixHeap) Push(x any)    { h.ranks = append(h.ranks, x.(int32)) }
func (h *prefixHeap) Pop() any {
	x := h.ranks[len(h.ranks)-1]
	h.ranks = h.ranks[:len(h.ranks)-1]
	return x
}

func newOrderMerger(srcs []source, spec *orderSpec) *orderMerger {
	m := &orderMerger{srcs: srcs, spec: spec, left: append([]int64(nil), spec.prefix...), h: prefixHeap{srcs: srcs}}
	for r := range srcs {
		if m.left[r] > 0 && srcs[r].head() != nil {
			m.h.ranks = append(m.h.ranks, int32(r))
		}
	}
	heap.Init(&m.h)
	return m
}

// headRank returns the rank whose head record comes next, -1 at the end,
// or an error when the spec does not fit the streams.
func (m *orderMerger) headRank() (int32, error) {
	if m.h.Len() > 0 {
		return m.h.ranks[0], nil
	}
	for r, n := range m.left {
		if n > 0 {
			return 0, fmt.Errorf("rank %d has %d records fewer than the stored order's prefix", r, n)
		}
	}
	for m.run < len(m.spec.runs) && m.inRun >= m.spec.runs[m.run].n {
		m.run++
		m.inRun = 0
	}
	if m.run == len(m.spec.runs) {
		for r, s := range m.srcs {
			if s.head() != nil {
				return 0, fmt.Errorf("rank %d has more records than the stored order", r)
			}
		}
		return -1, nil
	}
	r := m.spec.runs[m.run].rank
	if m.srcs[r].head() == nil {
		return 0, fmt.Errorf("rank %d has fewer records than the stored order", r)
	}
	return r, nil
}

func (m *orderMerger) pop(r int32) error {
	if m.h.Len() > 0 {
		if err := m.srcs[r].next(); err != nil {
			return err
		}
		m.left[r]--
		if m.left[r] > 0 && m.srcs[r].head() != nil {
			heap.Fix(&m.h, 0)
		} else {
			heap.Pop(&m.h)
		}
		return nil
	}
	m.inRun++
	return m.srcs[r].next()
}

// mergedOrderHash replays MPE's merge of t's record streams and hashes the
// world rank of every record in merged order, as Read hashes a file's.
func mergedOrderHash(t *tracefmt.Trace) (uint64, error) {
	wr, err := newWriter(t)
	if err != nil {
		return 0, err
	}
	srcs := make([]source, t.Size())
	for r := range srcs {
		s, err := wr.newStream(int32(r))
		if err != nil {
			return 0, err
		}
		srcs[r] = s
	}
	root := buildMergeTree(srcs, 0)
	var h uint64
	for {
		rec := root.headRec()
		if rec == nil {
			break
		}
		h = h*orderMul + uint64(uint32(rec.src)) + 1
		if err := root.pop(); err != nil {
			return 0, err
		}
	}
	return h, nil
}
