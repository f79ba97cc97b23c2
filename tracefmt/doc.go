// Package tracefmt is the in-memory model of a message-passing trace.
//
// A Trace holds the world size, a table of state definitions, the
// communicators, and one event stream per rank in recorded order. Events are
// points: entering and leaving a state, sending and receiving a point-to-point
// message, waiting on requests, a collective operation, a compute burst, or a
// marker. State intervals are enter/leave pairs linked to each other;
// messages are send/receive pairs linked by MPI's non-overtaking rule.
//
// Each Event is a fixed 40-byte value so that traces of tens of millions of
// events fit in memory; fields whose meaning depends on the event kind are
// reached through accessors (Event.State, Event.Op, Event.Request, ...).
//
// Times are float64 values in the trace's own unit (Trace.Unit), so a time read
// from a source format is kept exactly as written there: CLOG2's float64
// seconds, ALOG's integer microseconds, Paraver's integer nanoseconds. A trace
// may also be untimed (replay formats such as SimGrid's time-independent
// traces), in which case only the order of events and the compute amounts
// carry meaning.
//
// Format readers and writers live in subpackages, one per format; they build
// traces through a Builder, which pairs states and matches messages.
package tracefmt
