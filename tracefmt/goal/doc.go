// Package goal reads LogGOPSim's GOAL schedules (the text txt2bin reads):
//
//	num_ranks 2
//	rank 0 {
//	l1: calc 100
//	l2: send 8b to 1 tag 0
//	l2 requires l1
//	}
//
// A rank's schedule is a dependency graph of sends, receives and local
// computations; the trace is untimed and each rank's stream is one order
// that respects the graph (docs/formats.md says which order and how the
// dependencies become waits).
package goal
