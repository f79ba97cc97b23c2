package replay

import (
	"unsafe"

	"github.com/tracesim/tracesim/internal/hugepage"
)

// slabChunk is how many small slices a slab's first allocation serves.
const slabChunk = 256

// slab hands out the first backing arrays of many small slices (a rank's
// requests, a match key's queues) from allocations shared by slabChunk of
// them. Each slice grew on its own from nothing (1, 2, 4, 8 elements,
// each step a malloc and a copy), and a trace of many ranks and few
// events per rank paid that growth once per rank: at 65,536 ranks the
// replay's growslice and newobject were a fifth of its CPU profile. A
// slice that outgrows its first array moves to one of its own, as any
// append does; the shared array stays allocated while one of its slices
// lives, memory bounded by the ranks and their match keys.
//
// Chunks grow: each allocation serves twice as many slices as the one
// before, up to slabMaxBytes, and is advised as huge pages. At 65,536
// ranks the slabs hold tens of MiB (a run of a collective and two
// contexts a rank), first touched rank by rank: in chunks of 256 they
// were a page fault every 4 KiB; a small run still takes chunks of
// slabChunk.
type slab[T any] struct {
	buf []T
	// chunk is how many slices the next allocation serves (0:
	// slabChunk).
	chunk int
	// first, when not 0, is how many slices the first allocation
	// serves (expect).
	first int
}

// slabMaxBytes bounds a slab's allocations, but for a first one sized by
// expect.
const slabMaxBytes = 8 << 20

// expect sizes the slab's first allocation for n slices (one a rank):
// at 65,536 ranks the doubling chunks of the requests, contexts and
// collective runs were mostly under 4 MiB, too small to hold many whole
// aligned huge pages, and their first touches ~3,000 faults of 4 KiB.
// The slices are taken in order, so the memory touched is the chunk's
// start, whichever ranks take them.
func (sl *slab[T]) expect(n int) {
	if len(sl.buf) == 0 && sl.chunk == 0 {
		sl.first = n
	}
}

// grow replaces the slab's array with a new one for k-element slices.
func (sl *slab[T]) grow(k int) {
	n := max(sl.chunk, slabChunk)
	first := sl.first > 0
	if first {
		n = max(sl.first, slabChunk)
		sl.first = 0
	}
	sl.buf = make([]T, k*n)
	hugepage.Advise(sl.buf)
	if !first && uintptr(2*k*n)*unsafe.Sizeof(sl.buf[0]) <= slabMaxBytes {
		sl.chunk = 2 * n
	}
}

// take returns an empty slice of capacity k (at most slabChunk).
func (sl *slab[T]) take(k int) []T {
	if len(sl.buf) < k {
		sl.grow(k)
	}
	x := sl.buf[:0:k]
	sl.buf = sl.buf[k:]
	return x
}

// one returns a pointer to a new zero T from the slab.
func (sl *slab[T]) one() *T {
	if len(sl.buf) == 0 {
		sl.grow(1)
	}
	x := &sl.buf[0]
	sl.buf = sl.buf[1:]
	return x
}

// First capacities of the per-rank and per-key slices: a rank of a
// stencil or CG keeps eight requests open (four receives and four sends)
// and its collective rounds post a receive or two; a rank has a context
// for point-to-point messages and one for expanded collectives.
const (
	firstReqs    = 8
	firstOps     = 4
	firstCtxs    = 2
	firstCommSeq = 2
)

// allocs are the slabs of a run.
type allocs struct {
	reqs  slab[request]
	ops   slab[int32]
	keys  slab[keyQueues]
	ctxs  slab[ctxQueues]
	colls slab[collQueue]
	runs  slab[collRun]
	seqs  slab[uint32]
}

// expect sizes the first allocation of the per-rank slabs for a run of
// ranks ranks.
func (a *allocs) expect(ranks int) {
	a.reqs.expect(ranks)
	a.ops.expect(ranks)
	a.ctxs.expect(ranks)
	a.runs.expect(ranks)
	a.seqs.expect(ranks)
}

// addReq appends q to the rank's open requests.
func (s *Sim) addReq(rk *rank, q request) {
	if cap(rk.reqs) == 0 {
		rk.reqs = s.alloc.reqs.take(firstReqs)
	}
	rk.reqs = append(rk.reqs, q)
}

// addOp appends receive op to the rank's current operation.
func (s *Sim) addOp(rk *rank, op int32) {
	if cap(rk.ops) == 0 {
		rk.ops = s.alloc.ops.take(firstOps)
	}
	rk.ops = append(rk.ops, op)
}

// flightPerRank is how many of a rank's messages (and posted receives)
// the message and receive tables are sized for before the run: a
// point-to-point pattern keeps a message to each of a few neighbours in
// flight (a 2-D stencil four, a CG four to eight). Grown by append from
// nothing, the tables of a 65,536-rank stencil (261,120 messages at
// once, 88 bytes each) copied themselves about four times over in Go's
// 1.25× steps; a trace with fewer sends per rank gets smaller tables,
// one with more grows them as before.
const flightPerRank = 4
