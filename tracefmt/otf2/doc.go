// Package otf2 reads and writes OTF2 archives, the trace format of
// Score-P and of the tools that read its traces (Vampir, Scalasca, Cube).
//
// # Layout
//
// An archive is an anchor file ("traces.otf2": versions, chunk sizes,
// counts), a global definition file ("traces.def") and, per location (a
// thread), a local definition file and an event file ("traces/N.def",
// "traces/N.evt"). Definition and event files are chunked: each chunk
// opens with a header naming the byte order and is padded with
// END_OF_CHUNK bytes; records never span chunks. Integers are compressed
// (a size byte, then that many low-order bytes). Records carry their
// length, so fields a later OTF2 version added are skipped by older
// readers and unknown records by every reader; a handful of OTF2 1.0
// records (Enter, Leave, ...) have one compressed field and no length.
//
// # Mapping to the trace model
//
// Read builds a tracefmt.Trace: ranks are the processes of the MPI
// COMM_LOCATIONS group, a rank's threads are merged by time into its
// stream (regions of other threads become states "name (thread N)"),
// Enter/Leave are states, MPI point-to-point records messages (a
// non-blocking receive stands at the MpiIrecv that completes it, its
// MpiIrecvRequest being its posting, Trace.PostedAt),
// MpiCollectiveBegin/End collectives with root, communicator and bytes.
// Local id mapping tables and clock offsets are applied as the OTF2
// library applies them. docs/formats.md lists every record.
//
// Read streams: it holds one chunk per open file, and a rank's files are
// open only while that rank is read. Errors are FormatErrors naming the
// file and the byte offset.
//
// Write writes an archive otf2-print reads: one process and thread per
// rank, one region per state, the communicators, and the MPI records of
// the trace's events.
package otf2
