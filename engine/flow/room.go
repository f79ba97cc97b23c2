package flow

import "github.com/tracesim/tracesim/internal/hugepage"

// The flow model's arrays sized by the flows in flight (the flow slots
// and their per-slot arrays, the completion heap, the solver's arrays
// grown by build, check and fill) reach tens of MiB at 65,536 ranks,
// where a quarter of a million flows start at one instant. Written as
// they grew, they were faulted in 4 KiB at a time. These arrays are made
// fresh by withRoom and advised as huge pages (hugepage.Make) before
// anything is written in them, so that they fault in 2 MiB at a time;
// room never written stays unfaulted. The lists appended to one element
// at a time in the solver's and the network's inner loops (the flows
// and links a solve reaches, the pending changes) keep append: a call
// there cost more instructions than their faults (see docs/sim.md).

// withRoom returns s with room for at least c elements: s itself when it
// has it, else a fresh array of capacity c, advised before s is copied
// into it.
func withRoom[T any](s []T, c int) []T {
	if cap(s) >= c {
		return s
	}
	t := hugepage.Make[T](len(s), c)
	copy(t, s)
	return t
}
