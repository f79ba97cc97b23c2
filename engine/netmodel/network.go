// Package netmodel holds the network side of the simulation engine: the
// event-driven interface every network model implements, and the analytic
// (contention-free) models — PUPPET's switching models, LogGOPS, and
// SimGrid's CM02 on a star cluster.
//
// A network receives messages from the engine (Send), and tells the
// engine when a message's last byte has left its source (Injected, when
// asked) and when the message is at its destination (Delivered). An
// analytic model computes both instants when the message is sent and
// schedules one kernel event for each; a packet-level model injects
// packets into routers and reaches the same callbacks through many events
// of its own, with queues, back-pressure and stalls. The engine does not
// know which kind it drives.
package netmodel

import (
	"math/rand/v2"

	"github.com/tracesim/tracesim/engine/des"
)

// Host is what a network sees of the engine that drives it. All calls
// happen on the simulation goroutine.
type Host interface {
	// Now returns the current simulated time.
	Now() des.Time
	// Schedule queues an event owned by the network: it comes back
	// through Network.Handle with the same kind, obj and arg. Networks
	// may use any kind in [0, 128).
	Schedule(at des.Time, kind uint8, obj int32, arg int64)
	// Rand returns the simulation's seeded random source.
	Rand() *rand.Rand
	// Delivered reports that message id has fully arrived at its
	// destination node, now.
	Delivered(id int32)
	// Injected reports that the last byte of message id has left its
	// source node, now: the source may hand over its next message. Only
	// called for messages sent with NotifyInjected.
	Injected(id int32)
}

// Message is a message handed to a network.
type Message struct {
	// ID names the message in the Host callbacks.
	ID int32
	// Src and Dst are node numbers.
	Src, Dst int32
	// Bytes is the payload size; protocol control messages have 0.
	Bytes int64
	// NotifyInjected asks for a Host.Injected call when the message has
	// left its source.
	NotifyInjected bool
}

// Network carries messages between nodes.
type Network interface {
	// Name returns the model's name ("puppet", "loggops", ...).
	Name() string
	// Attach connects the network to the engine before the first Send.
	Attach(h Host)
	// Send hands m to the network at the host's current time. It must
	// not call back into the host: deliveries and injections are
	// reported from events (Handle), even when they happen at once.
	Send(m Message)
	// Handle processes an event the network scheduled.
	Handle(e des.Event)
	// InFlight returns the number of messages sent and not yet delivered.
	InFlight() int
	// Metrics appends the network's current measurements to m, for the
	// engine's snapshots; m's slices are fresh for each call, so the
	// network may not keep them.
	Metrics(m *Metrics)
	// Explain describes, one line per problem, why messages in flight
	// cannot progress (full buffers and the cycle they form). The engine
	// calls it when nothing is left to simulate while messages are still
	// in flight.
	Explain() []string
}

// Overheads is implemented by models that charge CPU time for
// communication (LogGOPS's o and O). The engine runs these as CPU bursts
// of the ranks involved.
type Overheads interface {
	// SendOverhead is the sender's CPU time before a message of the given
	// size is handed to the network.
	SendOverhead(bytes int64) des.Time
	// RecvOverhead is the receiver's CPU time once a message of the
	// given size has arrived and matched.
	RecvOverhead(bytes int64) des.Time
}

// Estimator is implemented by networks that can tell without simulating
// how long a message of the given size takes between two neighbouring
// nodes, overheads included; the analytic collective model uses it.
type Estimator interface {
	Estimate(bytes int64) des.Time
}

// Distance gives the number of links between two nodes.
type Distance interface {
	Hops(src, dst int) int
}

// Complete is the distance of a complete graph: one hop between distinct
// nodes, or Fixed hops when Fixed is positive (the --hops override).
type Complete struct {
	Fixed int
}

// Hops returns 0 for src == dst, else max(1, c.Fixed).
func (c Complete) Hops(src, dst int) int {
	if src == dst {
		return 0
	}
	return max(1, c.Fixed)
}
