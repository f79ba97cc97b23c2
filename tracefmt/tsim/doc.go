// Package tsim reads and writes tracesim's own text trace format, .tsim:
// a line-oriented format meant to be written by hand, diffed, and used as
// the lossless interchange format between the other formats.
//
// A file starts with a header (the line "tsim 1", the number of ranks,
// the time unit, whether the trace is timed, and the state, marker and
// communicator definitions and attributes), followed by one record per
// line:
//
//	tsim 1
//	ranks 2
//	unit us
//	state Compute cat=compute color=#4caf50
//
//	0    0 enter MPI_Send
//	1.5  0 send to=1 tag=0 size=4KiB
//	2    0 leave MPI_Send
//	3    1 recv from=0 tag=0 size=4096
//
// Records of different ranks may come in any order; each rank's records
// keep their file order. docs/tsim.md in the repository is the full
// reference, with a worked example and a grammar.
//
// Read streams its input (in blocks of lines decoded on every CPU, see
// blocks.go) and builds the trace with a
// tracefmt.Builder, which pairs enters with leaves and matches messages;
// errors are *ParseError values naming the line, the column and what was
// expected. Write writes every field of the model that has a meaning for
// the event's kind, so that Read(Write(t)) equals t: times, units, the
// timed flag, the state, marker and communicator tables in order (with
// colours, categories, formats and source ids), attributes, texts, request
// ids, flags and compute amounts, float64 values exactly. Fields an event
// kind does not use (the tag of an enter, a text on a leave) are not
// written. Sniff recognises the format from a file's first bytes.
package tsim
