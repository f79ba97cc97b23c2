// Package simgridti reads and writes SimGrid's time-independent (TI)
// traces, the action lists SMPI records with `smpirun -trace-ti` and
// replays with `smpirun -replay`.
//
// # Layouts
//
// A TI trace is one text file holding the actions of every rank, or an
// index file listing one file per line: with one line, that file holds
// every rank; with N lines, line k names rank k's file (the layout of
// `smpirun -trace-ti`: NAME plus NAME_files/). Read takes either and an
// Opener for the listed files; ReadFile opens them relative to the index.
// Write writes one file with every rank (the init actions first, then each
// rank's actions); WriteIndex writes the index layout, every file
// atomically.
//
// # Reading
//
// A line is a rank (a number, or an actor name such as p0), an action and
// its arguments, separated by blanks; blank lines and # lines are skipped.
// The world size is the number of files of an index, else the highest
// rank of a line (or of a comm_size action) plus one; a peer or root
// outside it is an error. Errors are *ParseError values naming
// file:line:column and what was expected. The trace is untimed
// (Timed=false, Unit seconds, Format "ti").
//
// Counts are elements of a datatype: the trailing datatype id of the
// action (SMPI's ids: 0 MPI_DOUBLE, 1 MPI_INT, 2 MPI_CHAR, 3 MPI_SHORT,
// 4 MPI_LONG, 5 MPI_FLOAT, 6 MPI_BYTE, … up to 59), else the rank's
// default: MPI_BYTE, or MPI_DOUBLE once its init action had an argument.
// Sizes are count × element size in bytes; like SimGrid, a fractional
// count loses its fraction.
//
// Actions become events as follows.
//
//   - init, finalize, comm_split, comm_dup: no event (comm_size N only
//     widens the world).
//   - compute F: a compute burst of F flops (tracefmt.ComputeWork).
//   - sleep S: a compute burst of S seconds (tracefmt.ComputeTime).
//   - location FILE LINE: a marker "location" with text "FILE:LINE".
//   - send, isend, Ssend/ssend, ISsend/issend, bsend, ibsend, rsend,
//     irsend DST TAG COUNT [DT]: a send; the i… forms are non-blocking
//     and get a request id (1, 2, … per rank, Event.Request), the ss…
//     forms are synchronous (FlagSync).
//   - recv, irecv SRC TAG COUNT [DT]: a receive; irecv gets a request id.
//     SRC -555 (MPI_ANY_SOURCE) or -333 (what SimGrid 3.32's tracer
//     writes for receives posted with MPI_ANY_SOURCE) is a wildcard
//     (FlagAnySource), TAG -444 (MPI_ANY_TAG) too (FlagAnyTag). A send or
//     receive whose peer is -666 (MPI_PROC_NULL) does nothing.
//   - sendRecv SENDCOUNT DST RECVCOUNT SRC [DT [DT]]: a send and a
//     receive, both FlagSendrecv, with tag 0 as in SimGrid.
//   - wait, test SRC DST TAG: SimGrid names a request by (sender,
//     receiver, tag); the wait completes the oldest pending isend or irecv
//     of the rank with that key (a wildcard irecv is filed under the
//     wildcard, and a wait naming a real source also finds it). A test is
//     a wait with FlagTest that leaves the request pending for the wait
//     that follows, since a TI trace does not say whether it succeeded. A
//     wait or test naming no pending request is skipped, as SimGrid's
//     replayer skips it; the trace counts them in its attribute
//     "ti.ignored_waits".
//   - waitall [N]: a wait on every pending request (tracefmt.WaitAll).
//   - waitAny, testany, testall, testsome, Start, Startall (written by
//     SimGrid's tracer, unknown to its replayer, and silent about which
//     request completed): markers named after the action, their arguments
//     as text.
//   - Collectives become tracefmt.Collective events with this rank's
//     bytes sent and received, those of the MPI call's send and receive
//     buffers: barrier (0, 0); bcast COUNT [ROOT [DT]] (root: count, 0;
//     others: 0, count); reduce COUNT FLOPS [ROOT [DT]] (count, count at
//     the root, else 0); allreduce, scan, exscan COUNT FLOPS [DT] (count,
//     count); alltoall SC RC [DT [DT]] (SC×P, RC×P); allgather SC RC
//     [DT [DT]] (SC, RC×P); gather SC RC [ROOT [DT [DT]]] (SC, RC×P at the
//     root); scatter SC RC [ROOT [DT [DT]]] (SC×P at the root, RC);
//     alltoallv SSIZE SC×P RSIZE RC×P [DT DT] (ΣSC, ΣRC); gatherv SC RC×P
//     [ROOT [DT [DT]]] (SC, ΣRC at the root); allgatherv SC RC×P [DT [DT]]
//     [DISPLACEMENT×P] (SC, ΣRC, in the first datatype as SimGrid does);
//     scatterv SC×P RC [ROOT [DT [DT]]] (ΣSC at the root, RC);
//     reducescatter RC×P FLOPS [DT] (ΣRC, this rank's RC). Roots default
//     to 0. The FLOPS of the reduction operator become a compute burst
//     after the collective (when not zero), where SimGrid computes them.
//     In a single file, arguments that depend on the world size are
//     settled once the whole file is read.
//
// The grammar of SimGrid before 3.20 is read too: sends and receives
// without tags (PEER SIZE [DT], tag 0), capitalised Isend and Irecv,
// argument-less wait and test, which took the newest pending request
// (SimGrid popped the back of its request list), camel-case collectives
// (allReduce, allToAll, allToAllV, gatherV, allGatherV, reduceScatter),
// and receives with no size (S4U replay examples: "p1 recv p0"). A
// three-argument send or receive is ambiguous (DST TAG COUNT or PEER SIZE
// DT): it is read in the current grammar unless the file has shown legacy
// spellings and no current ones, or its second argument is no integer.
//
// The TI format does not say which sender a wildcard receive got. The
// reader picks it by replaying the trace's order with eager sends (see
// resolveWildcards): a receive takes the earliest send it accepts, so the
// trace stays matched, and the receive keeps FlagAnySource. A wildcard
// receive no send can match keeps its own rank as source and stays
// unmatched.
//
// # Writing
//
// The writer writes SimGrid's current spellings with explicit datatype
// ids, so that `smpirun -replay` (tested with SimGrid 3.32) accepts the
// result: send, isend, recv, irecv, sendRecv, wait, test, waitall, the
// collectives, compute, sleep and location. Counts are written in
// WriteOptions.Datatype (MPI_DOUBLE by default), or in MPI_BYTE for a
// message or collective call whose sizes are not whole elements, the same
// on every rank taking part (SimGrid rejects a message whose two ends use
// different datatypes). A receive is never written smaller than its
// matched send (SimGrid aborts on truncation).
//
// Untimed traces write their compute bursts: work as compute, durations
// as sleep. Timed traces (from CLOG2, tsim, …) write as compute, converted
// with WriteOptions.CPUSpeed, the time each rank spends outside MPI states
// (states of an MPI category, and MPI_ states such as MPI_Init and
// MPI_Finalize); their explicit compute events are not written again.
//
// Per-rank counts the model does not keep are rebuilt from the other
// ranks' events of the same collective call (the k-th collective of every
// rank): the root's counts of gatherv and scatterv, the counts of
// allgatherv and reducescatter; the per-pair counts of alltoallv are
// invented in proportion to the senders' and receivers' totals (see
// a2avMatrix).
//
// What a TI file cannot hold is lost: synchronous sends are written as
// send (SimGrid's replayer knows no Ssend), markers other than location
// are dropped, collectives on communicators other than MPI_COMM_WORLD are
// an error, and a sendrecv whose tags are not 0 is written as isend, recv
// and wait. Wildcard receives are written as -555 (and -444), unless
// WriteOptions.ResolveWildcards writes the sources and tags they matched;
// SimGrid 3.32 files a wildcard irecv under source -556, so its replayer
// skips "wait -555 …" and completes such a receive only at a later
// waitall or at the end.
//
// Reading a TI trace, writing it and reading the result gives the same
// model, up to synchronous sends and dropped markers.
package simgridti
