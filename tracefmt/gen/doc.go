// Package gen generates synthetic MPI traces of classic communication
// patterns, for teaching, for testing the rest of tracesim, and for
// benchmarks that need traces of any size. `tracesim gen` is built on it.
//
// # What a trace looks like
//
// A generated trace is one a real MPI run could have produced, logged as
// MPE logs it: timed, in microseconds (tracefmt.Microsecond) with whole
// nanoseconds (three decimals), one state per MPI call (MPI_Send,
// MPI_Recv, MPI_Sendrecv, MPI_Isend, MPI_Irecv, MPI_Wait, MPI_Waitall,
// MPI_Allreduce, MPI_Alltoall; each defined with a colour and a category)
// with the call's events inside it:
//
//   - a send event is logged as the send call starts;
//   - a receive event is logged just before the call that completes it
//     returns (MPI_Recv, MPI_Sendrecv, or the MPI_Wait/MPI_Waitall of an
//     MPI_Irecv), at the time it returns; MPI_Irecv itself holds no event.
//     Non-blocking sends and receives carry FlagNonBlocking and a request
//     id (per rank, from 1, never reused); a wait holds a tracefmt.Wait
//     event for its request, MPI_Waitall a tracefmt.WaitAll event;
//   - a collective is one tracefmt.Collective event at the rank's entry;
//     it is not expanded into messages. bcast-tree is the exception: its
//     broadcast is made of explicit point-to-point messages.
//
// Computation between calls is shown as a "Compute" state (category
// compute) around a tracefmt.ComputeTime event holding the burst's length
// as the rank's clock measures it, so that timelines show it and replay
// engines need not infer it from gaps. A computation time of 0 produces
// no compute events. Every message is matched: there are no unmatched
// sends or receives. The trace's "generator" attribute holds the command
// line that regenerates it.
//
// # Timing model
//
// Times come from a small model with one clock per rank, all starting at
// 0, in integer nanoseconds: an MPI call costs Overhead of CPU time; a
// message of n bytes sent at ts arrives at ts + Latency + n/Bandwidth;
// sends are eager, so a blocking send returns after Overhead + n/Bandwidth
// without waiting for its receiver; a receive completes at the later of
// its posting + Overhead and its message's arrival; non-blocking
// operations complete at their wait (a send once its data has been
// injected); a collective ends on every rank at the last rank's entry plus
// Overhead + ⌈log2 P⌉ rounds (recursive doubling for MPI_Allreduce, each
// round Latency + bytes/Bandwidth; Bruck's algorithm for MPI_Alltoall,
// each round moving P/2 blocks). There is no contention. Every receive is
// thus logged at least Latency after its send, and every collective exit
// at least Latency after the last entry.
//
// # Patterns
//
// Every pattern computes first in each iteration, then communicates, so
// that a receive is logged close to its send (this is what lets small
// clock skews reverse messages). Patterns lists them with their defaults:
//
//   - ring: MPI_Sendrecv to rank+1 from rank−1 (a ring shift).
//   - pingpong: 2 ranks; rank 0 computes, sends and receives the answer;
//     rank 1 receives, computes and answers; K round trips.
//   - stencil2d: a rows×cols grid as square as possible (rows ≥ cols ≥ 2,
//     row-major ranks), not periodic: edge ranks have fewer neighbours.
//     Each iteration: MPI_Irecv from, then MPI_Isend to, each neighbour
//     (north, south, west, east), MPI_Waitall, then an 8-byte
//     MPI_Allreduce (a residual norm).
//   - alltoall: an MPI_Alltoall of Size bytes per pair.
//   - master-worker: rank 0 sends a task (Size bytes, tag 1) to each
//     worker, then receives results (Size bytes, tag 2) with
//     MPI_ANY_SOURCE (FlagAnySource; the earliest result to arrive
//     matches, and the event names its actual sender) and answers each
//     with the next task, or with a 0-byte stop message (tag 1) once all
//     Iters × (P−1) tasks are out. Workers receive from rank 0 with a
//     specific tag. Task times are uniform in [0.5, 1.5) × Compute,
//     drawn from the seed.
//   - bcast-tree: rank 0 broadcasts Size bytes along MPICH's binomial
//     tree with MPI_Send and MPI_Recv.
//   - cg: NAS CG's communication on P = 2^k ranks, in NAS's process grid
//     (square, or twice as many columns as rows): log2(cols) MPI_Irecv,
//     MPI_Send, MPI_Wait steps with the row partners (recursive halving,
//     tag = step), the same with the transpose partner (tag 1; the
//     diagonal ranks of a square grid exchange with themselves, as NAS CG
//     does), then two 8-byte MPI_Allreduce (dot products).
//   - random-pairs: each iteration a random perfect matching drawn from
//     the seed (a shuffle of the ranks, paired off in order; with an odd
//     count the last rank idles); partners exchange Size bytes with
//     MPI_Sendrecv.
//
// # Clock skew
//
// With Skew > 0 each rank's clock reads t + θ + ρ·t instead of the model
// time t: the offset θ is uniform in [−Skew, +Skew] and the drift ρ
// uniform in [−Skew, +Skew] per second of run, capped at ±1000 ppm. The
// whole trace is then shifted so that the earliest rank starts at 0.
// Offsets larger than a message's transit make its receive appear before
// its send, as in real traces whose clocks were not synchronised; each
// rank's own times still never decrease.
//
// # Determinism
//
// Randomness (task times, matchings, jitter, skew) comes from
// math/rand/v2's PCG seeded with Options.Seed, one stream per purpose, so
// the same options always give the same trace and adding skew does not
// change a pattern's choices.
package gen
