// Package clog reads CLOG, the first binary logfile format of MPE (MPE 1.x,
// shipped with MPICH-1 up to 1.2.x; files named "*.clog"). CLOG2 is a
// different format with its own package.
//
// # Layout
//
// A merged CLOG file has no preamble: it is a sequence of blocks of 65536
// bytes (1024 bytes in MPICH 1.1.2 and earlier; the reader tells them apart
// by where the first block's ENDBLOCK record ends). Records are packed from
// the start of a block; every block but the last ends with an ENDBLOCK
// record and the last with ENDLOG, whose time is MPE's CLOG_MAXTIME (1e6)
// and is not an event. Whatever follows the terminator up to the block
// boundary is filler left over from MPE's reused merge buffer, often not
// zero, and is skipped.
//
// Every record starts with a 24-byte header: float64 time in seconds, int32
// record type, int32 length in 8-byte words (header included), int32
// procid (the MPI_COMM_WORLD rank) and an int32 pad that MPE never sets.
// Merged files are big-endian (MPE byte-swaps on little-endian hosts); the
// reader also accepts little-endian files, recognised from the first
// header. Record types and their lengths in words:
//
//	-2 ENDLOG    3   end of the log
//	-1 ENDBLOCK  3   end of a block
//	 0 UNDEF     any (never written; skipped)
//	 1 RAW       7   etype, data, srcloc, pad, char[16] string
//	 2 MSG       6   etype, tag, partner, comm, size, srcloc
//	 3 COLL      6   etype, root, comm, size, srcloc, pad
//	 4 COMM      5   etype, parent, newcomm, srcloc
//	 5 EVENTDEF  6   etype, pad, char[16] description
//	 6 STATEDEF 10   stateid, start etype, end etype, pad, char[24] color, char[16] name
//	 7 SRCLOC    9   srcloc, line, char[40] file
//	 8 SHIFT     4   float64 clock offset
//
// # Meaning
//
// MPE 1.x logs everything as RAW events. MPE_Log_send and MPE_Log_receive
// log etypes -101 and -102 with data = the partner's rank and the string
// "tag size"; etype -201 defines a constant and is not an event. Any other
// etype is the start or end of a state named by a STATEDEF (MPE's MPI
// wrappers use start = 2k+1, end = 2k+2; user states start at 500), or else
// a point event, named by an EVENTDEF when there is one. STATEDEFs are
// written by rank 0 wherever MPE_Describe_state ran, the MPI ones at
// MPI_Finalize, i.e. after the events they describe, so events are
// labelled once the whole file has been read. When two STATEDEFs claim the
// same etype the first one wins, as in upshot. Colours are upshot's
// "color:bitmap"; the model keeps the colour. A state's start string
// ("start broadcast") becomes the interval's info text.
//
// States pair start and end on the same rank; when a rank has several
// starts of the same state open, an end closes the oldest one, as MPE's
// converters do (tracefmt.PairOldest). MSG records (which MPE 1.x declares
// but its wrappers never write) become messages on MPI_COMM_WORLD when
// their etype is -101 or -102; COLL records become point events. SHIFT
// records are ignored: MPE applies the clock offsets to every timestamp
// while merging. Times are kept as written, in seconds. No definition,
// constant, source-location, shift or terminator record is an event, so a
// trace's span runs from its first to its last RAW or MSG event.
//
// MPE's wrappers log collectives as states (BARRIER, BCAST, ALLREDUCE,
// ...) without their sizes. A call that holds the messages of its
// implementation (MPICH-1 logged them) is those messages; any other gets
// a collective event at its start (tracefmt.DeriveCollectives), of
// unknown size but for barriers.
//
// # Streaming and memory
//
// The reader consumes the file one block at a time, but the world size
// (the largest procid plus one) and the state definitions are only known at
// the end of the file, while tracefmt.Builder needs the world size up front
// and the events' kinds depend on the definitions. Rather than requiring a
// seekable input for a pre-scan, the reader keeps each event as a compact
// 32-byte record (the file spends 56 bytes on it, the model 40) in chunks
// that are released as soon as they have been handed to the builder, so
// peak memory is the model plus at most the compact copy.
package clog
