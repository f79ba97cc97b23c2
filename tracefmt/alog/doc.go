// Package alog reads ALOG, the text logfile format of the ALOG library
// and of MPE 1.x (MPICH-1), displayed by upshot and nupshot.
//
// # Format
//
// One record per line, six integer fields and an optional comment:
//
//	type process task data cycle timestamp [comment]
//
// Blank lines and lines starting with '#' are skipped, as nupshot does.
// Timestamps are unsigned integer microseconds. Negative types -1 to -99
// are header records; those the reader uses are:
//
//	 -1 creator (comment)            -9 event name: data = event type, comment = name
//	 -3 number of processes (data)  -10 event format: data = event type, comment
//	-11 timer roll-over point (timestamp)
//	-13 state: task = start event type, data = end event type,
//	    comment = "color:bitmap name" (or "color name")
//
// The others (-2 #events, -4 #tasks, -5 #event types, -6/-7 start and end
// time, -8 #timer cycles, -14 message definition, -15 process name, and
// -100 clock synchronisation) carry nothing the model keeps and are
// skipped. Header records may appear anywhere; states and event names are
// applied once the whole file has been read.
//
// Type -101 is a message sent by process to data, -102 a message received
// by process from data; both carry "tag size" in the comment. Other types
// (0 and up, and below -102) are state starts and ends when a -13 record
// names them (the first definition of an event type wins, as in nupshot),
// and point events otherwise, named by their -9 record or "event N". A
// comment on a state start or point event becomes its info text. States
// pair like MPE's: an end closes the oldest open start of its state on
// that process (tracefmt.PairOldest). Header records are no events, so a
// trace's span runs from its first to its last event record. A state
// named as an MPI collective (BARRIER, MPI_Bcast) that holds no messages
// of its implementation gets a collective event at its start, of unknown
// size but for barriers (tracefmt.DeriveCollectives).
//
// The world size is the -3 header's count or the largest process number
// plus one, whichever is larger: MPE's clog2alog counts the processes that
// logged events, which is less than the world when a process logged none.
//
// # Time and timer roll-over
//
// Times are kept in integer microseconds (tracefmt.Microsecond), exactly.
// The ALOG library read a wrapping microsecond clock (usc_clock) whose
// largest value is the -11 header's roll-over point R: the clock counts 0,
// 1, ..., R, 0, ... so one period is R+1 microseconds. When a reading is
// smaller than the previous one of the same process, the library itself
// increments that process's cycle (xx_write in alog.c), so the absolute
// time of a record is
//
//	cycle × (R + 1) + timestamp.
//
// Because the writer already counts every roll-over in the cycle column, a
// timestamp that decreases without a new cycle is not an unrecorded wrap
// but a clock that went backwards, and is kept as written. MPE's clog2alog
// writes cycle 0 and roll-over point 0 (times are converted from CLOG's
// float64 seconds and never wrap). As both writers put the header records
// first, a non-zero cycle before the -11 header is an error, as is a -11
// header that changes the roll-over point after cycles used it, or an
// absolute time beyond 2^53 µs, which a float64 could not hold exactly.
//
// # Streaming and memory
//
// Lines are read one at a time. Events are kept in a compact 32-byte form
// until the end of the file, when the world size and the state definitions
// are known, and then handed to tracefmt.Builder chunk by chunk, each chunk
// released as soon as it has been added.
package alog
