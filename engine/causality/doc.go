// Package causality checks the causality of a trace and corrects its
// timestamps: `tracesim check` and `tracesim fix` are built on it, and the
// TUI's Causality tab reads the same types.
//
// # Checks
//
// Check (or Graph.Check) reports Findings of every Kind in one pass over
// the events: the clock condition t(recv) ≥ t(send) + l_min of every
// matched message (KindReversal when the receive is stamped before the
// send, KindLatency when it is stamped after it but sooner than l_min),
// the logical edges of collectives (KindCollective: with
// tracefmt.CollOp.Shape, N×N calls need every exit ≥ the latest enter +
// l_min, 1×N calls every exit ≥ the root's enter + l_min, N×1 calls the
// root's exit ≥ the latest enter + l_min; a collective's enter is its
// collective event, its exit the leave of the MPI state around it),
// clocks running backwards on a rank, unmatched sends and receives, tag
// and size mismatches, collective calls the members disagree on,
// wildcard receives and non-deterministic calls (MPI_Test*,
// MPI_Waitany, MPI_Waitsome, MPI_Iprobe, and waits flagged
// tracefmt.FlagTest). By transitivity, checking every edge is enough to
// check every happens-before pair. Optionally (Options.Replay) it runs a
// causal replay of engine/replay and reports a deadlock as a finding.
//
// # Logical clocks
//
// A Graph holds the happens-before structure: program order, matched
// messages and collective edges. Graph.Lamport computes the Lamport clock
// of every event. Graph.Cone computes the vector clock of one event on
// demand, as its causal past and future per rank, by walking the graph
// backwards and forwards from it: no O(ranks) vector is stored per event.
//
// # Correction
//
// Correct returns a corrected copy of a trace next to the untouched
// original. MethodOffsets solves the difference constraints
// θ_p − θ_q ≤ t(recv) − t(send) − l_min (one per message from p to q,
// and through one extra node per collective) with Bellman–Ford: constant
// per-rank offsets that leave every interval as it was, or a negative
// cycle proving that none exist (the clocks drift). MethodCLC runs the
// controlled logical clock: a forward pass that moves receives (and
// collective exits) after their sends and glides each clock back towards
// its original timestamps at rate 1 − γ, then a backward amortisation
// that spreads each such jump over the events before it along a slope σ.
// MethodBoth (the default) does the first, when offsets exist, then the
// second.
//
// What the CLC promises, for two consecutive events of a rank whose
// original interval is Δ ≥ 0, when the later one is not a corrected
// receive or collective exit: the corrected interval lies in
// [γ·Δ, (1 + σ)·Δ] (γ and σ of the last pass; a pass is repeated with a
// smaller γ only if violations remain). Every interval stays ≥ 0, and
// every message and collective edge satisfies the clock condition unless
// it closes a causal cycle (Correction.Broken).
package causality
