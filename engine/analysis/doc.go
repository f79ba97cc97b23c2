// Package analysis computes what the Stats, Matrix and Sizes tabs show —
// the per-rank profile and MPI function summary, the point-to-point
// traffic matrix, the message size histogram — as functions of a trace,
// a time window and a set of ranks. The views draw these results and the
// `tracesim stats|matrix|sizes` commands print them, so that the command
// line and the UI can never disagree.
package analysis
