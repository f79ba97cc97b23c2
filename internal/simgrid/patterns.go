package simgrid

import "fmt"

// Communication patterns of 8 ranks as time-independent actions (rank
// r's lines for WriteRanks), shared by the tests that compare tracesim's
// models with smpirun -replay. Sizes are in bytes, datatype 6 (MPI_BYTE
// in SimGrid's TI traces).

// Incast8: ranks 1–7 send 1 MB to rank 0 at once (rank 0 posts every
// receive first), then 20 KB (below the detached threshold) the same way.
func Incast8(r int) []string {
	var a []string
	for _, size := range []int{1000000, 20000} {
		if r == 0 {
			for s := 1; s < 8; s++ {
				a = append(a, fmt.Sprintf("irecv %d 0 %d 6", s, size))
			}
			a = append(a, "waitall 7")
		} else {
			a = append(a, fmt.Sprintf("compute %d", 100000*r), fmt.Sprintf("send 0 0 %d 6", size))
		}
	}
	return a
}

// Alltoall8: every rank posts receives from and sends 200 KB to every
// other rank, then waits; twice.
func Alltoall8(r int) []string {
	var a []string
	for it := range 2 {
		a = append(a, fmt.Sprintf("compute %d", 1000000*(1+(r+it)%3)))
		for s := range 8 {
			if s != r {
				a = append(a, fmt.Sprintf("irecv %d 0 200000 6", s))
			}
		}
		for d := 1; d < 8; d++ {
			a = append(a, fmt.Sprintf("isend %d 0 200000 6", (r+d)%8))
		}
		a = append(a, "waitall 14")
	}
	return a
}

// HaloRing8: every rank of a ring exchanges 500 KB with both neighbours
// at once, three times.
func HaloRing8(r int) []string {
	var a []string
	l, rt := (r+7)%8, (r+1)%8
	for it := range 3 {
		a = append(a, fmt.Sprintf("compute %d", 2000000+500000*((r+it)%2)),
			fmt.Sprintf("irecv %d 0 500000 6", l), fmt.Sprintf("irecv %d 0 500000 6", rt),
			fmt.Sprintf("isend %d 0 500000 6", l), fmt.Sprintf("isend %d 0 500000 6", rt),
			"waitall 4")
	}
	return a
}

// MasterWorker8 returns a master-worker of two rounds: rank 0 sends a
// 300 KB task to every worker at once (the first tasks share its links),
// the workers compute for different times and send 100 KB results back.
// The master collects them with receives posted from every worker, or,
// with anySource, with blocking MPI_ANY_SOURCE receives (-555) in the
// order they come.
func MasterWorker8(anySource bool) func(r int) []string {
	return func(r int) []string {
		var a []string
		for round := range 2 {
			if r != 0 {
				a = append(a, fmt.Sprintf("recv 0 %d 300000 6", round),
					fmt.Sprintf("compute %d", 500000*((r+round)%4+1)),
					fmt.Sprintf("send 0 %d 100000 6", 10+round))
				continue
			}
			for w := 1; w < 8; w++ {
				a = append(a, fmt.Sprintf("isend %d %d 300000 6", w, round))
			}
			for w := 1; w < 8; w++ {
				if anySource {
					a = append(a, fmt.Sprintf("recv -555 %d 100000 6", 10+round))
				} else {
					a = append(a, fmt.Sprintf("irecv %d %d 100000 6", w, 10+round))
				}
			}
			if anySource {
				a = append(a, "waitall 7")
			} else {
				a = append(a, "waitall 14")
			}
		}
		return a
	}
}
