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
// Events are what the ranks did. A format's definition and bookkeeping
// records (MPE's STATEDEF, TIMESHIFT, COMMEVT, ...) are not events: readers
// keep them in Trace.Meta, out of the streams (Trace.MoveToMeta), so that
// a trace's span runs from its first to its last real event and no rank
// seems to compute while the library writes its definitions; a writer of
// the same format puts them back (Trace.WithMeta).
//
// An event has one time. A send stands at the send call and a receive at
// the arrival; formats that also stamp when the data left and when the
// receive was posted (Paraver's physical send and logical receive) keep
// those in Trace.MessageTimes, as offsets from the events' times, and the
// clock condition and the Timeline's arrows go from the physical send
// (Trace.PhysicalSend).
//
// Formats that log MPI collectives only as states (MPE's) get collective
// events from Trace.DeriveCollectives; a collective whose byte counts the
// trace does not record carries FlagSizeUnknown.
//
// Format readers and writers live in subpackages, one per format; they build
// traces through a Builder, which pairs states and matches messages.
package tracefmt
