// Package clog2 reads and writes MPE's CLOG2 trace files (`.clog2`), the
// format written by MPE's logging library (`mpicc -mpilog`) at MPI_Finalize
// and read by its clog2TOslog2 converter and Jumpshot.
//
// # Layout
//
// A file is a 1024-byte ASCII preamble, data blocks of block_size bytes
// (65536 by default) and, from version 02.42 on, a communicator table at
// commtable_fptr. Records are packed from the start of a block; every block
// but the last ends with an ENDBLOCK record, the last with ENDLOG (time
// 1e8); the rest of a block is filler. A record is a 24-byte header (time,
// communicator, rank in that communicator, thread, record type) and a body
// whose size depends on the type. The merged file that MPE writes at
// MPI_Finalize is big-endian and "finalized"; the per-process temporary
// files are native-endian, unfinalized, and their TIMESHIFT records still
// have to be applied to the times that follow them (Read does so as MPE's
// merger does).
//
// # Mapping to the trace model
//
// Read builds a tracefmt.Trace in seconds (times kept exactly as the
// float64 in the file): BAREEVT/CARGOEVT records whose event type is a
// STATEDEF's start or end become enter and leave events (an end closes the
// oldest open start of its state, as MPE's converter does, and the cargo
// bytes become the enter's info text), MSGEVT records become sends (-101)
// and receives (-102) with world-rank peers, COLLEVT records become
// collectives, other event types become markers (named by EVENTDEF).
// MPE itself logs collectives as states only: when the file has no
// COLLEVT record, every state named as an MPI collective (MPI_Allreduce,
// MPI_Ibcast, ...) gets a collective event at its start, on the state's
// communicator, with no root (MPE does not log it) and with the sizes MPE
// logs in the end event's cargo for MPI_Alltoall and MPI_Alltoallv (two
// big-endian int32: bytes sent, bytes received); the others are marked
// tracefmt.FlagSizeUnknown (a barrier moves none). Write leaves these
// derived events out (attribute "clog2.derived_collectives").
// Communicators come from the communicator table and the COMMEVT records,
// which map every (communicator, rank) pair to a world rank; Event.Comm of
// every event, states included, indexes Trace.Comms. MPE's ids are 32-bit
// indexes of its merged table, which lists every process's MPI_COMM_SELF:
// a world of 65,536 ranks or more has more entries than Event.Comm can
// index, so the MPI_COMM_SELFs no record runs on are then left out of
// Trace.Comms and kept, with their place in the table, in the attribute
// "clog2.commtable.selves" for Write. A world rank outside
// the world, in a header or as a peer, is an error.
//
// Read holds a few blocks at a time: one, or, when it decodes a merged
// big-endian file's blocks on several goroutines, three per goroutine,
// taken in in file order so that the trace and the first error are those
// of a read of one block after the other. Each rank's events are stored
// once: the slice that collects them while the file is read, sized from
// the number of blocks commtable_fptr announces, becomes the rank's
// stream; the goroutine that takes the blocks in reserves each block's
// places in it, and the workers write the decoded events there.
//
// CLOG2 holds more than MPI semantics, and a trace read from a CLOG2 file
// can be written back byte for byte. What the model has no field for is
// kept as follows:
//
//   - preamble values and the communicator table's UUIDs and kinds are trace
//     Attrs with the prefix "clog2.";
//   - TIMESHIFT, COMMEVT, CONSTDEF, STATEDEF, EVENTDEF and SRCLOC records are
//     no events: they are kept in Trace.Meta ("CLOG2 TIMESHIFT", ...) with
//     their place in their rank's stream and an info text listing the
//     record's fields (see IsBookkeeping), so that they neither stretch the
//     span (rank 0 writes the definitions at finalize) nor count as time a
//     rank spends; so are
//     MSGEVT and COLLEVT records whose peer or root is no rank: a value that
//     a CONSTDEF names (MPI_PROC_NULL, MPI_ANY_SOURCE), a rank of a
//     communicator that no COMMEVT maps (a per-process file knows only its
//     own process), a message still naming an intercommunicator;
//   - record fields that differ from what the writer derives from the model
//     (a non-zero thread or pad, an end event's cargo that differs from its
//     start's, a header that does not follow from the communicator table)
//     are listed by a "CLOG2 record" record in Trace.Meta just before the
//     event;
//   - the global record order of a merged file is not stored: it is MPE's
//     merge order, which the writer recomputes from the per-rank streams by
//     replaying MPE's binary-tree merge (ties go to the left subtree, then
//     the right one, then the node itself). Read checks that the file
//     follows it and stores the order in an Attr only when it does not.
//
// Write produces MPE's merged layout: version CLOG-02.44, big-endian,
// blocks closed with ENDBLOCK when the next record would not leave room
// for a terminator (used+size+24 >= block_size), ENDLOG at t = 1e8, the
// filler MPE leaves (the block buffer is reused without clearing, so a
// block's filler is the previous block's bytes, zeros in the first), the
// communicator table, and commtable_fptr in the preamble. A trace read from
// CLOG2 is written as it was read, nothing added. A trace that did not come
// from CLOG2 (no "clog2.version" attribute) gets what MPE would have
// written: TIMESHIFT and
// COMMEVT WORLD_CREATE/SELF_CREATE records for every rank (INTRA_CREATE for
// its other communicators), CONSTDEFs, and STATEDEF/EVENTDEF records at the
// end of rank 0's stream. MPI states keep MPE's own ids (start 2·id, end
// 2·id+1); other states get ids from 300 on, as do states whose source id
// an earlier state has (ALOG gives them all 0) unless the trace's own
// CLOG2 records define that id (a STATEDEF, or an id the file used without
// one): those are written as read, with no STATEDEF added for them. A
// STATEDEF of id 0 with start and end 0 leaves its state a Source of zeros,
// which the model reads as none: the first state without a Source is that
// one when the trace holds such a record. Likewise an EVENTDEF of event
// type 0: the first user marker without a Source keeps event type 0.
// Compute and wait events have no CLOG2 record and are left out;
// collectives are COLLEVT records (which MPE itself never writes) whose
// event type is the start event of the matching MPI state, and whose
// single size is the bytes the rank sends.
package clog2
