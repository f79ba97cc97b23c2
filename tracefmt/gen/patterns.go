package gen

import (
	"math/bits"

	"github.com/tracesim/tracesim/tracefmt"
)

// Message tags.
const (
	tagData   = 0 // ring, pingpong, stencil2d, bcast-tree, random-pairs
	tagTask   = 1 // master-worker: a task, or a 0-byte stop message
	tagResult = 2 // master-worker: a result
)

// scalarBytes is the size of the allreduces of stencil2d and cg: one
// double (a residual norm, a dot product).
const scalarBytes = 8

func runRing(g *gen) {
	p := g.p
	ts := make([]int64, p)
	for range g.o.Iters {
		for r := range p {
			g.compute(r, g.burst())
			ts[r] = g.clock[r]
		}
		for r := range p {
			prev := (r + p - 1) % p
			g.sendrecv(r, (r+1)%p, prev, tagData, g.arrival(ts[prev], g.o.Size))
		}
	}
}

func runPingpong(g *gen) {
	n := g.o.Size
	for range g.o.Iters {
		g.compute(0, g.burst())
		ts := g.send(0, 1, tagData, n)
		g.recv(1, 0, tagData, n, g.arrival(ts, n), 0)
		g.compute(1, g.burst())
		ts = g.send(1, 0, tagData, n)
		g.recv(0, 1, tagData, n, g.arrival(ts, n), 0)
	}
}

// Stencil directions; a message sent towards d arrives from opposite(d).
const (
	north = iota
	south
	west
	east
	numDirs
)

func opposite(d int) int { return d ^ 1 }

// stencilNeighbours returns each rank's neighbours (north, south, west,
// east; -1 at the grid's edges) on the row-major rows×cols grid.
func stencilNeighbours(p int) [][numDirs]int32 {
	rows, cols := gridDims(p)
	nb := make([][numDirs]int32, p)
	for r := range p {
		row, col := r/cols, r%cols
		n := &nb[r]
		*n = [numDirs]int32{-1, -1, -1, -1}
		if row > 0 {
			n[north] = int32(r - cols)
		}
		if row < rows-1 {
			n[south] = int32(r + cols)
		}
		if col > 0 {
			n[west] = int32(r - 1)
		}
		if col < cols-1 {
			n[east] = int32(r + 1)
		}
	}
	return nb
}

func runStencil(g *gen) {
	p, n := g.p, g.o.Size
	nb := stencilNeighbours(p)
	sendAt := make([][numDirs]int64, p)
	recvReq := make([][numDirs]int64, p)
	for range g.o.Iters {
		for r := range p {
			g.compute(r, g.burst())
		}
		for r := range p {
			for d, q := range nb[r] {
				if q >= 0 {
					recvReq[r][d] = g.irecv(r)
				}
			}
			for d, q := range nb[r] {
				if q >= 0 {
					sendAt[r][d], _ = g.isend(r, int(q), tagData)
				}
			}
		}
		for r := range p {
			// MPI_Waitall returns when every halo has arrived and every
			// send buffer has been injected; MPE logs the receives as it
			// returns.
			t := g.clock[r]
			g.enter(r, stWaitall, t)
			end := t + g.ovh
			for d, q := range nb[r] {
				if q >= 0 {
					end = max(end, g.arrival(sendAt[q][opposite(d)], n), sendAt[r][d]+g.ovh+g.wire)
				}
			}
			for d, q := range nb[r] {
				if q >= 0 {
					g.add(r, g.nbRecv(r, end, int(q), tagData, n, recvReq[r][d]))
				}
			}
			g.add(r, tracefmt.WaitAll(g.read(r, end)))
			g.leave(r, stWaitall, end)
			g.clock[r] = end
		}
		g.allreduce(scalarBytes)
	}
}

func runAlltoall(g *gen) {
	for range g.o.Iters {
		for r := range g.p {
			g.compute(r, g.burst())
		}
		g.alltoall()
	}
}

// pendingResult is a worker's result on its way to the master.
type pendingResult struct {
	arrival int64
	worker  int32
}

func (a pendingResult) before(b pendingResult) bool {
	return a.arrival < b.arrival || a.arrival == b.arrival && a.worker < b.worker
}

// resultQueue is a min-heap of results by arrival time.
type resultQueue []pendingResult

func (h *resultQueue) push(x pendingResult) {
	*h = append(*h, x)
	q := *h
	for i := len(q) - 1; i > 0; {
		parent := (i - 1) / 2
		if !q[i].before(q[parent]) {
			break
		}
		q[i], q[parent] = q[parent], q[i]
		i = parent
	}
}

func (h *resultQueue) pop() pendingResult {
	q := *h
	top := q[0]
	last := len(q) - 1
	q[0] = q[last]
	q = q[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(q) {
			break
		}
		if c+1 < len(q) && q[c+1].before(q[c]) {
			c++
		}
		if !q[c].before(q[i]) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	*h = q
	return top
}

// runMasterWorker: rank 0 sends one task to every worker, then receives
// results with MPI_ANY_SOURCE (the earliest to arrive matches) and
// answers each with the next task, or with a 0-byte stop message once
// every task is out. Task times are uniform in [0.5, 1.5) × Compute.
func runMasterWorker(g *gen) {
	n := g.o.Size
	tasks := g.o.Iters * (g.p - 1)
	queue := make(resultQueue, 0, g.p)
	handed := 0
	dispatch := func(w int) {
		ts := g.send(0, w, tagTask, n)
		g.recv(w, 0, tagTask, n, g.arrival(ts, n), 0)
		g.compute(w, g.taskTime())
		ts = g.send(w, 0, tagResult, n)
		queue.push(pendingResult{g.arrival(ts, n), int32(w)})
		handed++
	}
	for w := 1; w < g.p && handed < tasks; w++ {
		dispatch(w)
	}
	for range tasks {
		res := queue.pop()
		w := int(res.worker)
		g.recv(0, w, tagResult, n, res.arrival, tracefmt.FlagAnySource)
		if handed < tasks {
			dispatch(w)
			continue
		}
		ts := g.send(0, w, tagTask, 0)
		g.recv(w, 0, tagTask, 0, g.arrival(ts, 0), 0)
	}
}

// runBcastTree: rank 0 broadcasts along MPICH's binomial tree: a rank
// receives from the rank that differs in its lowest set bit, then sends
// to the ranks at distances 2^k below that bit, farthest first.
func runBcastTree(g *gen) {
	p, n := g.p, g.o.Size
	arr := make([]int64, p)
	for range g.o.Iters {
		for r := range p {
			g.compute(r, g.burst())
		}
		// A parent's rank is below its children's: one pass in rank
		// order times the tree.
		for r := range p {
			mask := 1
			for mask < p {
				if r&mask != 0 {
					g.recv(r, r-mask, tagData, n, arr[r], 0)
					break
				}
				mask <<= 1
			}
			for mask >>= 1; mask > 0; mask >>= 1 {
				if c := r + mask; c < p {
					arr[c] = g.arrival(g.send(r, c, tagData, n), n)
				}
			}
		}
	}
}

// cgPartners returns NAS CG's row-reduction partners (partners[i-1] for
// step i = 1..log2 cols) and transpose partners.
func cgPartners(p int) (row [][]int32, transpose []int32) {
	rows, cols := cgDims(p)
	l2 := bits.Len(uint(cols)) - 1
	row = make([][]int32, l2)
	for i := range row {
		row[i] = make([]int32, p)
	}
	transpose = make([]int32, p)
	for r := range p {
		prow, pcol := r/cols, r%cols
		div := cols
		for i := range l2 {
			j := (pcol+div/2)%div + pcol/div*div
			row[i][r] = int32(prow*cols + j)
			div /= 2
		}
		if rows == cols {
			transpose[r] = int32(r%rows*rows + r/rows)
		} else {
			transpose[r] = int32(2*(r/2%rows*rows+r/2/rows) + r%2)
		}
	}
	return row, transpose
}

func runCG(g *gen) {
	p, n := g.p, g.o.Size
	row, transpose := cgPartners(p)
	sendAt := make([]int64, p)
	req := make([]int64, p)
	// exchange is NAS CG's MPI_Irecv, MPI_Send, MPI_Wait with a partner
	// (the diagonal ranks of a square grid exchange with themselves).
	exchange := func(peer []int32, tag int32) {
		for r := range p {
			req[r] = g.irecv(r)
			sendAt[r] = g.send(r, int(peer[r]), tag, n)
		}
		for r := range p {
			q := int(peer[r])
			g.wait(r, req[r], q, tag, n, g.arrival(sendAt[q], n))
		}
	}
	for range g.o.Iters {
		for r := range p {
			g.compute(r, g.burst())
		}
		for i := len(row); i >= 1; i-- {
			exchange(row[i-1], int32(i))
		}
		exchange(transpose, 1)
		g.allreduce(scalarBytes)
		g.allreduce(scalarBytes)
	}
}

// runRandomPairs: each iteration shuffles the ranks with the seeded
// generator and pairs them off in that order; partners exchange Size
// bytes with MPI_Sendrecv, and the last rank of an odd count idles.
func runRandomPairs(g *gen) {
	p := g.p
	perm := make([]int, p)
	for i := range perm {
		perm[i] = i
	}
	partner := make([]int, p)
	ts := make([]int64, p)
	for range g.o.Iters {
		for r := range p {
			g.compute(r, g.burst())
			ts[r] = g.clock[r]
		}
		g.rng.Shuffle(p, func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for i := 0; i+1 < p; i += 2 {
			partner[perm[i]], partner[perm[i+1]] = perm[i+1], perm[i]
		}
		if p%2 == 1 {
			partner[perm[p-1]] = -1
		}
		for r := range p {
			if q := partner[r]; q >= 0 {
				g.sendrecv(r, q, q, tagData, g.arrival(ts[q], g.o.Size))
			}
		}
	}
}
