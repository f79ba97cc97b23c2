// Package routing decides, hop by hop, where a packet goes next in a
// topology and on which virtual channel. It is what a router of the
// packet-level model calls per packet hop, and it is pure: no simulation
// state except what the caller passes in (the packet's State and, for
// adaptive choices, a Queues oracle).
//
// # Calling convention
//
// At the source network interface:
//
//	alg.Init(&pkt.Route, srcNode, dstNode)
//	r, port := topo.Attach(srcNode) // the packet enters r on port, VC 0
//
// At every router, for the packet at the head of input (port, vc):
//
//	choices := alg.Route(r, port, vc, &pkt.Route, buf[:0])
//
// returns candidate (output port, output VC) pairs in preference order.
// The router takes the first one whose downstream buffer can accept the
// packet — room for one packet under virtual cut-through, for two when the
// choice has the Bubble flag (bubble flow control) — and, if none can,
// waits and asks again later (asking again is allowed and idempotent as far
// as correctness goes; random and round-robin orders may differ). A choice
// with the Eject flag leads to the destination node. Otherwise the packet
// crosses topo.OutLink(r, c.Port) to topo.Peer(r, c.Port) and arrives there
// on the peer's port, VC c.VC.
//
// buf must have capacity MaxChoices(); Route then never allocates. An
// Algorithm holds random-number and round-robin state and is not safe for
// concurrent use: give each simulation its own (Parse is cheap).
//
// # Deadlock
//
// Available lists, per topology, which routings are deadlock-free and how
// many virtual channels they need. DependencyGraph builds the channel
// dependency graph of a small instance and finds its cycles (Dally and
// Seitz): dimension order with dateline VCs and up/down routing have none;
// plain dimension order with one VC on a torus has one. Bubble flow control
// is deadlock-free although its dependency graph is cyclic: the guarantee
// comes from the Bubble check the packet model applies, not from the
// routing function.
package routing

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"

	"github.com/tracesim/tracesim/engine/topology"
)

// Flags qualify a Choice.
type Flags uint8

// Choice flags.
const (
	// Bubble: the hop enters a ring (injection, change of dimension or
	// direction, or change of VC) on a bubble-controlled channel; under
	// bubble flow control it may proceed only if the downstream buffer
	// has room for two packets, leaving a free bubble in the ring.
	// Packets that continue along the same ring on the same VC need room
	// for one.
	Bubble Flags = 1 << iota
	// Eject: the port leads to the destination node.
	Eject
	// Escape: the VC is the escape channel of an adaptive routing.
	Escape
	// Detour: the hop belongs to a non-minimal (Valiant) route.
	Detour
)

// Has reports whether all bits of g are set.
func (f Flags) Has(g Flags) bool { return f&g == g }

// String lists the flags ("bubble|escape").
func (f Flags) String() string {
	var parts []string
	for i, n := range []string{"bubble", "eject", "escape", "detour"} {
		if f&(1<<i) != 0 {
			parts = append(parts, n)
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, "|")
}

// Choice is a candidate output of a router for a packet.
type Choice struct {
	Port  int32
	VC    uint8
	Flags Flags
}

// String renders the choice as "p3/vc1[bubble]".
func (c Choice) String() string {
	s := fmt.Sprintf("p%d/vc%d", c.Port, c.VC)
	if c.Flags != 0 {
		s += "[" + c.Flags.String() + "]"
	}
	return s
}

// State is the routing part of a packet header. Init fills it; Route may
// update it (the phase of a Valiant route, the decision of UGAL). The
// packet model stores it with the packet and never interprets it.
type State struct {
	Src, Dst  int32 // source and destination nodes
	DstRouter int32 // the destination node's router
	// Inter is the intermediate router (grids, custom graphs) or group
	// (dragonfly) of a Valiant route, -1 for a minimal one.
	Inter int32
	// Phase is 0 on the way to Inter and 1 afterwards.
	Phase uint8
	// Flags holds algorithm-private bits (UGAL's decision).
	Flags uint8
}

const stateDecided = 1 // UGAL has chosen between minimal and Valiant

// Queues lets adaptive routings see congestion. The packet model
// implements it.
type Queues interface {
	// Occupancy is the load of output port p, virtual channel vc of router
	// r: packets waiting for it plus packets in the downstream buffer not
	// yet acknowledged by credits. Lower is better.
	Occupancy(r, p, vc int) int
}

// BatchQueues is a Queues that also gives the occupancies of several
// choices of one router in one call: keys[i] = Occupancy(r, cands[i].Port,
// cands[i].VC). Adaptive routings ask for every candidate of every hop;
// one call per hop instead of one per candidate is what the packet model
// implements.
type BatchQueues interface {
	Queues
	Occupancies(r int, cands []Choice, keys []int32)
}

// Repeatable is implemented by algorithms that can tell whether Route,
// asked again for the same packet at the same router, input port and VC,
// returns the same set of choices (perhaps in another order, as queue
// lengths change) and changes no state: no random draw, no round-robin
// counter, no State update. The packet model then checks a waiting
// packet's known choices for room before routing it again, and skips the
// attempt when none has any, which changes nothing it computes.
type Repeatable interface {
	Repeatable() bool
}

// Options configure an algorithm.
type Options struct {
	// VCs is the number of virtual channels per port (default 1).
	VCs int
	// Seed seeds the algorithm's random choices (math/rand/v2 PCG).
	Seed uint64
	// Queues is consulted by shortest-queue and adaptive choices; nil
	// means every queue is empty (choices keep their static order).
	Queues Queues
}

// QueueOrderer is an algorithm whose choices, but for a last one with the
// Escape flag, it would order by occupancy, least first (stable), and can
// leave that order to a caller that only wants the first of them with
// room: DeferQueueOrder reports whether it does, and from then on Route
// lists those choices in their static order without reading any queue.
// The first with the most room in static order is then what the ordered
// list would put first, and a list where none has room is the same both
// ways.
type QueueOrderer interface {
	DeferQueueOrder() bool
}

// Compact is a hop's choices in compact form (CompactRouting): each port
// of Ports on each virtual channel of [VCLo, VCHi), ports outer, then
// Last — the list Route gives, in the same order, without one Choice per
// port and VC.
type Compact struct {
	Ports      []int32
	VCLo, VCHi uint8
	Last       Choice
}

// AppendChoices appends h's choices to out, in Route's order.
func (h *Compact) AppendChoices(out []Choice) []Choice {
	for _, p := range h.Ports {
		for v := h.VCLo; v < h.VCHi; v++ {
			out = append(out, Choice{Port: p, VC: v})
		}
	}
	return append(out, h.Last)
}

// CompactRouting is an algorithm that can give a hop's choices as a
// Compact, which a router scans without building the list (adaptive
// routing on a grid, in the static order of QueueOrderer once
// DeferQueueOrder was called). RouteCompact fills h (h.Ports reuses its buffer, of capacity
// MaxChoices) and reports whether it did; when it did not, call Route.
type CompactRouting interface {
	RouteCompact(r, inPort, inVC int, st *State, h *Compact) bool
}

// MaxVCs is the largest number of virtual channels supported.
const MaxVCs = 64

// Algorithm is a routing function bound to a topology.
type Algorithm interface {
	// Name is the canonical name ("dor", "updown:random", …).
	Name() string
	// Topology is the network the algorithm routes on.
	Topology() topology.Topology
	// VCs is the number of virtual channels it was configured for.
	VCs() int
	// MaxChoices bounds the number of choices Route returns.
	MaxChoices() int
	// Init prepares a packet's State at its source.
	Init(st *State, src, dst int)
	// Route appends to out the choices for a packet at router r that
	// arrived on (inPort, inVC) and returns the extended slice.
	Route(r, inPort, inVC int, st *State, out []Choice) []Choice
}

// policy orders equivalent candidates.
type policy uint8

const (
	policyFirst  policy = iota // static order (lowest dimension, port first)
	policyRandom               // uniformly random first candidate
	policyRR                   // round robin per router
	policyQueue                // shortest queue first (ties: static order)
	policyDmodK                // fat tree: destination-mod-k up port
)

// base holds what every algorithm shares.
type base struct {
	name    string
	topo    topology.Topology
	vcs     int
	max     int
	pcg     rand.PCG
	queues  Queues
	batch   BatchQueues // queues, when it implements BatchQueues
	rr      []uint32
	keys    []int32
	classes int
	vcLo    []uint8 // first VC of each class
	vcHi    []uint8 // one past the last VC of each class
	vcClass []uint8 // class of each VC
}

func (b *base) Name() string                { return b.name }
func (b *base) Topology() topology.Topology { return b.topo }
func (b *base) VCs() int                    { return b.vcs }
func (b *base) MaxChoices() int             { return b.max }

func newBase(name string, t topology.Topology, opt Options, classes int) base {
	b := base{name: name, topo: t, vcs: opt.VCs, queues: opt.Queues, classes: classes}
	b.batch, _ = opt.Queues.(BatchQueues)
	b.pcg.Seed(opt.Seed, 0x9e3779b97f4a7c15)
	b.vcLo = make([]uint8, classes)
	b.vcHi = make([]uint8, classes)
	b.vcClass = make([]uint8, opt.VCs)
	for c := 0; c < classes; c++ {
		b.vcLo[c] = uint8(c * opt.VCs / classes)
		b.vcHi[c] = uint8((c + 1) * opt.VCs / classes)
		for v := b.vcLo[c]; v < b.vcHi[c]; v++ {
			b.vcClass[v] = uint8(c)
		}
	}
	return b
}

// initState fills the fields every algorithm needs.
func (b *base) initState(st *State, src, dst int) {
	r, _ := b.topo.Attach(dst)
	*st = State{Src: int32(src), Dst: int32(dst), DstRouter: int32(r), Inter: -1}
}

// intn returns a uniform integer in [0, n) (Lemire's method with
// rejection, so the sequence depends only on the PCG stream).
func (b *base) intn(n int) int {
	if n <= 1 {
		return 0
	}
	un := uint64(n)
	hi, lo := bits.Mul64(b.pcg.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(b.pcg.Uint64(), un)
		}
	}
	return int(hi)
}

// appendVCs appends port on every VC of class c.
func (b *base) appendVCs(out []Choice, port, c int, f Flags) []Choice {
	for v := b.vcLo[c]; v < b.vcHi[c]; v++ {
		out = append(out, Choice{Port: int32(port), VC: v, Flags: f})
	}
	return out
}

// order applies policy p to cands, which holds groups of group choices
// (one group per port, VCs inside), for router r.
func (b *base) order(p policy, r int, cands []Choice, group int) {
	n := len(cands)
	if n <= 1 || group <= 0 {
		return
	}
	groups := n / group
	switch p {
	case policyRandom:
		if groups > 1 {
			rotate(cands, b.intn(groups)*group)
		}
	case policyRR:
		if groups > 1 {
			k := int(b.rr[r] % uint32(groups))
			b.rr[r]++
			rotate(cands, k*group)
		}
	case policyQueue:
		b.byQueue(r, cands)
	}
}

// byQueue sorts cands (at least two) by the occupancy of their queues at
// router r, least first, keeping the static order among equals; without
// Queues it leaves them.
func (b *base) byQueue(r int, cands []Choice) {
	if b.queues == nil {
		return
	}
	n := len(cands)
	if cap(b.keys) < n {
		b.keys = make([]int32, n)
	}
	keys := b.keys[:n]
	if b.batch != nil {
		b.batch.Occupancies(r, cands, keys)
	} else {
		for i, c := range cands {
			keys[i] = int32(b.queues.Occupancy(r, int(c.Port), int(c.VC)))
		}
	}
	// Insertion sort: stable, allocation-free, and n is small.
	for i := 1; i < n; i++ {
		k, c := keys[i], cands[i]
		j := i - 1
		for j >= 0 && keys[j] > k {
			keys[j+1], cands[j+1] = keys[j], cands[j]
			j--
		}
		keys[j+1], cands[j+1] = k, c
	}
}

// rotate moves s[k:] to the front.
func rotate(s []Choice, k int) {
	if k == 0 {
		return
	}
	reverse(s[:k])
	reverse(s[k:])
	reverse(s)
}

func reverse(s []Choice) {
	for i, j := 0, len(s)-1; i < j; i, j = i+1, j-1 {
		s[i], s[j] = s[j], s[i]
	}
}

// portLoad is the total occupancy of a port over all VCs.
func (b *base) portLoad(r, p int) int {
	if b.queues == nil {
		return 0
	}
	s := 0
	for v := 0; v < b.vcs; v++ {
		s += b.queues.Occupancy(r, p, v)
	}
	return s
}
