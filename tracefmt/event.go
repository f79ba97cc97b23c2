package tracefmt

import (
	"fmt"
	"math"
)

// Kind says what an Event records.
type Kind uint8

// Event kinds.
const (
	// KindEnter starts a state interval (an MPI call, a user state). State()
	// names it; Match is the index of its KindLeave, or -1 while unpaired.
	KindEnter Kind = iota + 1
	// KindLeave ends a state interval; Match is the index of its KindEnter,
	// or -1 when the trace never entered it.
	KindLeave
	// KindSend is a point-to-point send: Peer is the destination world rank.
	KindSend
	// KindRecv is a point-to-point receive: Peer is the actual source world
	// rank (for wildcard receives, the sender that matched).
	KindRecv
	// KindWait completes non-blocking requests: Request() names one, or
	// FlagAll means every request still outstanding on the rank.
	KindWait
	// KindCollective is a collective operation: Op(), Root(), Comm, bytes
	// sent in Size and received in RecvBytes().
	KindCollective
	// KindCompute is a burst of computation: Amount() is a duration in the
	// trace's unit, or work in flops when FlagWork is set.
	KindCompute
	// KindMarker is a point event with no MPI meaning (a user event, a
	// format's bookkeeping record); Marker() indexes Trace.Markers.
	KindMarker
	numKinds
)

var kindNames = [...]string{
	KindEnter:      "enter",
	KindLeave:      "leave",
	KindSend:       "send",
	KindRecv:       "recv",
	KindWait:       "wait",
	KindCollective: "coll",
	KindCompute:    "compute",
	KindMarker:     "marker",
}

// String returns the kind's name as used in the tsim text format.
func (k Kind) String() string {
	if k > 0 && k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind with the given name.
func ParseKind(s string) (Kind, bool) {
	for k := KindEnter; k < numKinds; k++ {
		if kindNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// Flags qualify an event. Each flag is meaningful for some kinds only.
type Flags uint8

// Event flags.
const (
	// FlagNonBlocking marks an Isend or Irecv: the call returns at once and
	// a later KindWait with the same request completes it.
	FlagNonBlocking Flags = 1 << iota
	// FlagSendrecv marks a send and the receive that follows it as one
	// MPI_Sendrecv call.
	FlagSendrecv
	// FlagSync marks a synchronous send (MPI_Ssend): it completes only when
	// the matching receive has started.
	FlagSync
	// FlagAnySource marks a receive posted with MPI_ANY_SOURCE.
	FlagAnySource
	// FlagAnyTag marks a receive posted with MPI_ANY_TAG.
	FlagAnyTag
	// FlagWork marks a compute burst whose amount is work (flops), not time.
	FlagWork
	// FlagAll marks a wait on every outstanding request (MPI_Waitall
	// without an explicit list, SimGrid's waitall).
	FlagAll
	// FlagTest marks a wait that comes from a Test call that found the
	// request complete.
	FlagTest
)

// Has reports whether all of the flags in g are set.
func (f Flags) Has(g Flags) bool { return f&g == g }

// Event is one record of a rank's stream. Its size is 40 bytes; fields whose
// meaning depends on Kind are reached through the accessors below.
type Event struct {
	// Time is the timestamp in the trace's unit; zero in untimed traces.
	Time float64
	// Size is a byte count: the message size of a send or receive, the
	// bytes a rank sends in a collective.
	Size int64
	// aux holds per-kind data: the request id of a point-to-point event or
	// wait, the received bytes of a collective, the float64 bits of a
	// compute amount, the text reference of an enter or marker.
	aux int64
	// Match links an event to its partner: a send to the index of the
	// matching receive in the peer's stream and back, an enter to its leave
	// and back. -1 when unmatched.
	Match int32
	// Peer is the other world rank of a send or receive; for other kinds it
	// holds the state id, marker id or collective root (see accessors).
	Peer int32
	// Tag is the message tag of a send or receive; the operation of a
	// collective.
	Tag int32
	// Comm indexes Trace.Comms (0 is MPI_COMM_WORLD).
	Comm  uint16
	Kind  Kind
	Flags Flags
}

// Enter returns an event that enters state s at time t.
func Enter(t float64, s StateID) Event {
	return Event{Time: t, Kind: KindEnter, Peer: int32(s), Match: -1}
}

// Leave returns an event that leaves state s at time t.
func Leave(t float64, s StateID) Event {
	return Event{Time: t, Kind: KindLeave, Peer: int32(s), Match: -1}
}

// Send returns a send of size bytes to world rank dst.
func Send(t float64, dst int, tag int32, comm uint16, size int64) Event {
	return Event{Time: t, Kind: KindSend, Peer: int32(dst), Tag: tag, Comm: comm, Size: size, Match: -1}
}

// Recv returns a receive of size bytes from world rank src (the actual
// source, also for wildcard receives).
func Recv(t float64, src int, tag int32, comm uint16, size int64) Event {
	return Event{Time: t, Kind: KindRecv, Peer: int32(src), Tag: tag, Comm: comm, Size: size, Match: -1}
}

// Wait returns a wait for request req (0 and FlagAll for every request).
func Wait(t float64, req int64) Event {
	return Event{Time: t, Kind: KindWait, aux: req, Match: -1}
}

// WaitAll returns a wait for every request outstanding on the rank.
func WaitAll(t float64) Event {
	return Event{Time: t, Kind: KindWait, Flags: FlagAll, Match: -1}
}

// Collective returns a collective operation. root is the root world rank,
// or -1 for rooted-less operations; sent and recvd are this rank's bytes.
func Collective(t float64, op CollOp, root int, comm uint16, sent, recvd int64) Event {
	return Event{Time: t, Kind: KindCollective, Tag: int32(op), Peer: int32(root), Comm: comm, Size: sent, aux: recvd, Match: -1}
}

// ComputeTime returns a compute burst of d trace time units.
func ComputeTime(t float64, d float64) Event {
	return Event{Time: t, Kind: KindCompute, aux: int64(math.Float64bits(d)), Match: -1}
}

// ComputeWork returns a compute burst of the given amount of work (flops).
func ComputeWork(t float64, flops float64) Event {
	return Event{Time: t, Kind: KindCompute, Flags: FlagWork, aux: int64(math.Float64bits(flops)), Match: -1}
}

// Mark returns a marker event of marker definition m.
func Mark(t float64, m MarkerID) Event {
	return Event{Time: t, Kind: KindMarker, Peer: int32(m), Match: -1}
}

// State returns the state of an enter or leave event.
func (e *Event) State() StateID { return StateID(e.Peer) }

// Marker returns the marker definition of a marker event.
func (e *Event) Marker() MarkerID { return MarkerID(e.Peer) }

// Op returns the operation of a collective event.
func (e *Event) Op() CollOp { return CollOp(e.Tag) }

// Root returns the root world rank of a collective event, or -1.
func (e *Event) Root() int { return int(e.Peer) }

// RecvBytes returns the bytes a rank receives in a collective event.
func (e *Event) RecvBytes() int64 { return e.aux }

// Request returns the request id of a non-blocking send or receive or of a
// wait; 0 means none.
func (e *Event) Request() int64 { return e.aux }

// SetRequest sets the request id of a send, receive or wait.
func (e *Event) SetRequest(req int64) { e.aux = req }

// Amount returns the duration (trace units) or work (flops, FlagWork) of a
// compute event.
func (e *Event) Amount() float64 { return math.Float64frombits(uint64(e.aux)) }

// TextRef returns the Trace.Texts index of the info text attached to an
// enter or marker event, or -1 when it has none.
func (e *Event) TextRef() int { return int(e.aux) - 1 }

// SetTextRef attaches Trace.Texts[i] to an enter or marker event (i < 0
// removes it).
func (e *Event) SetTextRef(i int) {
	if i < 0 {
		e.aux = 0
		return
	}
	e.aux = int64(i) + 1
}

// IsP2P reports whether e is a point-to-point send or receive.
func (e *Event) IsP2P() bool { return e.Kind == KindSend || e.Kind == KindRecv }

// StateID indexes Trace.States.
type StateID int32

// MarkerID indexes Trace.Markers.
type MarkerID int32

// CollOp is a collective operation.
type CollOp uint8

// Collective operations.
const (
	OpOther CollOp = iota
	OpBarrier
	OpBcast
	OpReduce
	OpAllreduce
	OpGather
	OpGatherv
	OpScatter
	OpScatterv
	OpAllgather
	OpAllgatherv
	OpAlltoall
	OpAlltoallv
	OpReduceScatter
	OpScan
	OpExscan
	numOps
)

var opNames = [...]string{
	OpOther:         "other",
	OpBarrier:       "barrier",
	OpBcast:         "bcast",
	OpReduce:        "reduce",
	OpAllreduce:     "allreduce",
	OpGather:        "gather",
	OpGatherv:       "gatherv",
	OpScatter:       "scatter",
	OpScatterv:      "scatterv",
	OpAllgather:     "allgather",
	OpAllgatherv:    "allgatherv",
	OpAlltoall:      "alltoall",
	OpAlltoallv:     "alltoallv",
	OpReduceScatter: "reducescatter",
	OpScan:          "scan",
	OpExscan:        "exscan",
}

// String returns the operation's lower-case name ("allreduce").
func (o CollOp) String() string {
	if o < numOps {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// ParseCollOp returns the operation with the given lower-case name.
func ParseCollOp(s string) (CollOp, bool) {
	for o := OpOther; o < numOps; o++ {
		if opNames[o] == s {
			return o, true
		}
	}
	return 0, false
}

// Rooted reports whether the operation has a root rank.
func (o CollOp) Rooted() bool {
	switch o {
	case OpBcast, OpReduce, OpGather, OpGatherv, OpScatter, OpScatterv:
		return true
	}
	return false
}

// Shape classifies a collective by its synchronisation: every exit depends
// on every enter (N×N), on the root's enter (1×N), or only the root's exit
// on every enter (N×1).
type Shape uint8

// Collective shapes.
const (
	ShapeNone Shape = iota // scans and unknown operations
	ShapeAllToAll
	ShapeOneToAll
	ShapeAllToOne
)

// Shape returns the synchronisation shape of the operation.
func (o CollOp) Shape() Shape {
	switch o {
	case OpBarrier, OpAllreduce, OpAllgather, OpAllgatherv, OpAlltoall, OpAlltoallv, OpReduceScatter:
		return ShapeAllToAll
	case OpBcast, OpScatter, OpScatterv:
		return ShapeOneToAll
	case OpReduce, OpGather, OpGatherv:
		return ShapeAllToOne
	}
	return ShapeNone
}
