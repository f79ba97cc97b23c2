// Package packet is the packet-level network model of the simulator
// (`--model packet`): messages are split into packets that cross the
// routers of a topology (engine/topology) along the routes of a routing
// algorithm (engine/routing), with virtual cut-through switching, per-VC
// input buffers, credit-based back-pressure and a router pipeline delay.
// It implements netmodel.Network, so the replay engine drives it like the
// analytic models, in every replay mode.
//
// # Model
//
// A message of s bytes becomes ⌈s/PacketSize⌉ packets (one when
// PacketSize is 0, or for an empty message), each carrying Header extra
// bytes. The source node's network interface (NIC) keeps an injection
// queue of messages and sends their packets, in order, over its injection
// link into input buffer VC 0 of its router's terminal port, as long as
// that buffer has room (credits). Every router input port has VCs virtual
// channels, each a FIFO buffer of Buffer packets.
//
// Only a packet's head and tail are simulated (NSIM, seed 004 §3.1): a
// packet whose head reaches the front of an input buffer is routed
// RouterDelay after its head arrived (and not before the previous packet
// of that buffer has left it); the routing algorithm's choices are tried
// in order and the first whose downstream buffer has room for the whole
// packet — for two packets when the choice carries routing.Bubble (bubble
// flow control) — wins. The head leaves at s = max(now, when the output
// link is free), the tail at e = max(s + bytes/bandwidth, when the tail
// arrived), and both arrive latency later at the next router; the link is
// busy from s to e. The buffer slot is released when the tail leaves, and
// its credit reaches the upstream router one link latency later. A packet
// that finds no room waits at the front of its buffer (head-of-line
// blocking) until a credit returns to one of its outputs. The destination
// NIC accepts packets as they come (its ejection queue never fills); a
// message is delivered when its last packet's tail has arrived.
//
// With uniform links of bandwidth b and latency l, an uncontended message
// of n packets of wire sizes p_1 … p_n that crosses L links and R = L − 1
// routers (topology.PathLinks) arrives after
//
//	T0 = Σ p_i / b + L·l + R·RouterDelay
//
// — serialisation, time of flight and router delays, Dally and Towles'
// zero-load latency of cut-through — provided the buffers are deep enough
// to stream: (Buffer − 1)·p/b ≥ 2·l + RouterDelay (see ZeroLoad).
//
// Events: one per packet per router it crosses, one per message delivered
// (two when its injection is reported), and wake-ups when waiting packets
// get credits back; links and credits returning in the future are
// bookkept without events. Simulations are deterministic for a seed.
//
// # Stalls
//
// The model never polls: when every packet waits for a credit that no
// event will return, nothing is scheduled and the engine's kernel runs
// dry. Stall (netmodel.Staller) then lists the full buffers and a cycle
// of buffers whose head packets wait for each other, and Explain says it
// in words; the replay engine reports both with its deadlock report.
//
// # Metrics
//
// Metrics gives per-link bytes, busy time and utilisation, per-buffer
// occupancy (current, maximum, time-weighted mean), the packets that
// waited longer than WaitThreshold, link groups per dimension and
// direction, the fat-tree level shares, and packet and message latencies.
// With SamplePeriod set, the network also measures every period in which
// it carries traffic and hands the Sample to OnSample (CSVWriter writes
// them as CSV).
package packet

import (
	"fmt"
	"math"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
)

// Config describes a packet-level network.
type Config struct {
	// Topology is the network; every node is an endpoint.
	Topology topology.Topology
	// Routing names the routing algorithm (routing.Parse); empty means
	// routing.Default for the topology and VCs.
	Routing string
	// VCs is the number of virtual channels per port (0: 1).
	VCs int
	// Buffer is the capacity of each virtual channel's input buffer, in
	// packets (0: 4).
	Buffer int
	// PacketSize is the largest payload of a packet in bytes; 0 sends
	// every message as one packet.
	PacketSize int64
	// Header is added to every packet's payload.
	Header int64
	// RouterDelay is the router pipeline delay (routing, VC and switch
	// allocation) between a head's arrival and its earliest departure.
	RouterDelay des.Time
	// WaitThreshold is the time in a buffer beyond RouterDelay above
	// which a packet counts as a long wait (0: 1 µs).
	WaitThreshold des.Time
	// SamplePeriod is the period of the metrics samples; 0 disables them.
	SamplePeriod des.Time
	// OnSample, when set, receives every sample on the simulation
	// goroutine. The Sample and its slices are reused afterwards.
	OnSample func(*netmodel.Sample)
	// Seed seeds the routing algorithm's random choices.
	Seed uint64
	// MemoryLimit is the largest MemoryEstimate New accepts, in bytes
	// (0: DefaultMemoryLimit): a topology too big for the machine is
	// refused with its estimate before anything is allocated.
	MemoryLimit int64
}

// The interfaces the network implements.
var (
	_ netmodel.Network    = (*Network)(nil)
	_ netmodel.Staller    = (*Network)(nil)
	_ netmodel.Estimator  = (*Network)(nil)
	_ netmodel.Finisher   = (*Network)(nil)
	_ routing.Queues      = (*Network)(nil)
	_ routing.BatchQueues = (*liveQueues)(nil)
)

// Limits of the model's compact indexing.
const (
	// MaxBuffer is the largest buffer, in packets.
	MaxBuffer = 4096
	// maxIndex bounds router ports × VCs (event objects are int32).
	maxIndex = math.MaxInt32 / 2
)

// Event kinds of the network (netmodel.Host.Schedule kinds).
const (
	evRoute    uint8 = iota // obj: input VC whose front packet is to be routed; arg: its port
	evWake                  // obj: output port whose waiters retry
	evNIC                   // obj: injection lane that may inject again
	evInjected              // obj: message slot whose last packet left its NIC
	evDeliver               // obj: message slot whose last packet arrived
)

// noPeer marks a port that leads nowhere in Network.peer.
const noPeer = math.MinInt32

// Network is a packet-level network. It is driven by one simulation
// goroutine (netmodel.Host); its Metrics are copies safe to hand to other
// goroutines.
type Network struct {
	cfg  Config
	topo topology.Topology
	alg  routing.Algorithm
	h    netmodel.Host
	// now is the host's clock, read once per event (Handle) or Send:
	// the routing asks for queue lengths several times per hop.
	now   des.Time
	nv    int32 // virtual channels per port
	nb    int32 // buffer slots per virtual channel
	delay des.Time
	// choices is the routing buffer (capacity MaxChoices); waitPorts
	// the distinct ports of a waiting packet's choices (wait).
	choices   []routing.Choice
	waitPorts []portVCs
	// repeatable: the routing gives a packet the same choices however
	// often it is asked (routing.Repeatable). The choices of a waiting
	// packet are then held, held[(h−1)·stride:h·stride] for its input
	// buffer's hold h (count, then output VC·2 + 1 for a bubble hop), so
	// that a wake-up that cannot move it skips the routing.
	repeatable bool
	// pickMost: the routing leaves its choices before the escape in
	// static order (routing.QueueOrderer) and try takes the one with the
	// most credits, which the occupancy order would have put first.
	pickMost bool
	// compact is the routing in compact form (routing.CompactRouting),
	// nil when it has none or does not defer its order (pickMost): try
	// then scans hop's ports and VCs and builds n.choices only for a
	// packet that must wait.
	compact routing.CompactRouting
	hop     routing.Compact
	// fromHop: the last failed try left its choices in hop, not in
	// choices (wait, hold and portVCs read them from there).
	fromHop bool
	// laneState is the routing state of the message whose injection
	// lane is chosen (lane).
	laneState  routing.State
	held       []int32
	heldFree   []int32
	holdStride int32

	// Ports: router r's port p has the global index gp = portBase[r]+p.
	portBase []int32
	ports    []port
	// medium[r] is the shared channel of a bus router, or -1 (nil when
	// no router has one).
	medium []int32

	// Links, by link id.
	links []link
	// linkByPort: every router port's outgoing link has the port's
	// global index as its id (crossbars, tori, meshes, dragonflies), so
	// that a departure finds its link without the port's record.
	linkByPort bool
	// laneLinks: each lane keeps its injection link's state (see nic)
	// and links[nic.inject] is brought up to date only when read
	// (syncLanes): every node has one lane and the link to itself, all
	// injection links share injPS and injLat, and no sample is handed
	// out while running (no OnSample).
	laneLinks   bool
	injPS       float64
	injLat      des.Time
	linkGroup   []uint8
	groupNames  []string
	groupLinks  []int
	routerLinks int // router-to-router links (for mean utilisation)
	// measuredLinks and measuredQueues are the lengths of Metrics'
	// lists: the links that exist, and the routers' input buffers of
	// ports that lead somewhere.
	measuredLinks, measuredQueues int

	// Input buffers, by input VC iv = gp·V + vc; their packets are
	// linked front to back through pkt.next.
	ins []inBuf

	// Output VCs ov = gp·V + vc of the routers' ports (gp below
	// portBase[R]: a lane's buffer is no router's output): credits
	// towards the downstream buffer (only those of ports towards another
	// router are set). waiters and wakeAt (one more than the time of the
	// port's pending wake-up, 0 for none), by router port.
	outs    []outVC
	waiters [][]waiter
	wakeAt  []des.Time
	// waited has bit og set when waiters[og] is not empty: a credit
	// returning to a port looks here, in a few cache lines for the
	// whole network, instead of at the port's list.
	waited []uint64
	// sameLat is the latency of every link when they all have the
	// same (-1 otherwise): a credit's way back then costs no look at
	// the link it takes.
	sameLat des.Time

	// pend[ov·B + slot] are the times pending credits come back to
	// output VC ov, for buffers of more than outRing packets (nil
	// otherwise: outVC.ring).
	pend []des.Time
	// lanePend[lane·B + slot] are the times the credits on their way
	// back to a lane come back, for buffers of more than outRing packets
	// (nil otherwise: nic.ring).
	lanePend []des.Time

	// nics are the injection lanes, nodeLane[node] … nodeLane[node+1]−1
	// those of a node. nq counts the packets queued at every node of a
	// network with several lanes on some node (nil with one lane per
	// node: a lane then keeps its node's maximum itself, in the cache
	// line a message touches anyway), laneOut the router port each of
	// its lanes leaves by (-1: any).
	nics     []nic
	nodeLane []int32
	nq       []nodeQueue
	laneOut  []int32

	pk     []pkt
	freePk int32
	// slots is the number of buffer slots, a bound on the packets.
	slots  int
	msgs   []msg
	freeMg int32

	// serBytes and serPS are the last serialisation ser computed, of
	// serTime (serBytes −1: none yet).
	serBytes int64
	serPS    float64
	serTime  des.Time

	// Counters.
	inFlight    int
	flying      int64 // payload of the messages in flight
	pktInFlight int
	delivered   uint64
	bytes       int64
	packets     uint64
	hops        uint64
	// tries counts routing attempts (a packet at the front of a buffer
	// trying its choices), for the benchmarks: tries per hop.
	tries     uint64
	longWaits uint64
	pktLat    netmodel.LatencyAcc
	msgLat    netmodel.LatencyAcc

	smp sampler

	layout *netmodel.Layout
}

// port is a router port (by global index): 16 bytes, four to a cache
// line and none across two (at 20, with the router's first port, nearly
// a third straddled two lines); that first port is portBase[router].
type port struct {
	router int32 // its router
	link   int32 // the channel leaving through it, -1 if none
	peer   int32 // the global port at the other end, ^lane, or noPeer
	in     int32 // its port number at the router (for a lane's buffer, the terminal port's)
}

// link is the state of a channel.
type link struct {
	ps      float64  // picoseconds per byte
	lat     des.Time // latency
	free    des.Time // end of the last reservation
	busy    des.Time // total reserved transmission time
	bytes   int64
	packets uint64
	// snap is the tick of its latest lazy snapshot, linkSnaps[l][0].tick
	// (see sampler.beforeLink).
	snap uint64
	// A link of 64 bytes is one cache line of the table (whose start is
	// page-aligned): at 56 most links straddled two, and a hop read both.
	_ [8]byte
}

// inBuf is an input buffer (a port's virtual channel) and its statistics.
type inBuf struct {
	readFree des.Time // when its last departure has left it
	area     float64  // occupancy × ps since the start
	last     des.Time // last change of occupancy
	gen      uint32   // wait registration round
	long     uint32   // long waits
	hold     int32    // its waiting packet's held choices + 1, 0 for none
	// front and back are its first and last packets (pk; linked by
	// pkt.next), valid when count > 0.
	front, back int32
	count       uint16
	max, pmax   uint16 // maximum occupancy: overall, this sample period
	waiting     bool   // its front packet waits for credits
	// snap is the tick of its latest lazy snapshot, bufSnaps[iv][0].tick
	// (see sampler.beforeBuf); inBuf is 64 bytes with it.
	snap uint64
}

// outVC is the credit counter of an output port's virtual channel.
type outVC struct {
	// next is the time the first pending credit comes back (des.Never
	// when none is pending), kept here so that a look at the credits
	// touches one cache line.
	next    des.Time
	credits int32
	// head and count delimit the ring of the times its pending credits
	// come back: ring itself when buffers hold at most outRing packets,
	// else pend[ov·B …].
	head, count uint16
	ring        [outRing]des.Time
}

// outRing is the room for pending credits in an outVC: the default
// buffer of 4 packets keeps its credits in the line of its counter.
const outRing = 4

type waiter struct {
	iv  int32
	gen uint32
	// vcs are the port's virtual channels the packet may take (bit v
	// for VC v): a credit on another VC cannot move it.
	vcs uint64
}

// nic is an injection lane of a node's network interface: a FIFO of
// messages that injects into one input buffer of the node's router. A node
// attached to a router of its own (a direct network: torus, mesh, ring,
// hypercube) has one lane per router port towards another router, each
// with its own buffer, so that it drives all of those ports at once and a
// message blocked towards one direction does not hold the messages behind
// it to other directions; every other node has one lane into its terminal
// port.
type nic struct {
	// The first cache line: what a packet's departure from the lane's
	// buffer touches (its credit's way back: the ring, the queue's head,
	// the pending wake-up) besides what the injection reads.
	//
	// ring[head … head+count) (mod Buffer) are the times its pending
	// credits come back, in order of return, for buffers of at most
	// outRing packets (else Network.lanePend). In the lane's own line,
	// where a linked list of records in a shared table took a line of
	// its own and a free list (docs/sim.md, "Packet model: a lane's
	// credits in the lane's record").
	ring        [outRing]des.Time
	at          des.Time // pending evNIC time, des.Never if none
	credits     int32
	iv          int32 // its input buffer at the router (VC 0)
	inject      int32 // link id node → router
	qhead       int32 // message FIFO (msg.next), -1 when empty
	head, count uint16
	_           [4]byte

	// The second line: what a message's arrival in the queue and its
	// injection touch. A nic is 128 bytes, two cache lines of the table
	// (whose start is page-aligned), side by side for the hardware's
	// prefetch of a line's neighbour.
	node   int32
	qtail  int32
	free   des.Time // when its last packet has left the node
	queued int64    // packets not yet injected
	// maxQueued is the most packets its node ever had queued, kept here
	// when every node has one lane (Network.nq nil). The bytes not yet
	// packetised are not kept: Metrics adds them up from the queued
	// messages.
	maxQueued int64
	// busy, bytes, packets and snap are the injection link's (see
	// link) under Network.laneLinks, whose free is the lane's free: in
	// the line pump touches anyway, where links[inject] took one more
	// line a message.
	busy    des.Time
	bytes   int64
	packets uint64
	snap    uint64
}

// nodeQueue is the injection queue of a node over all its lanes, for
// networks with several lanes on a node.
type nodeQueue struct {
	queued, maxQueued int64
}

// pkt is a packet: 64 bytes, one cache line of the table (whose start
// is page-aligned).
type pkt struct {
	st   routing.State
	msg  int32
	next int32 // the next packet of its buffer, or of the free list
	// whole: the packet is its message's only one, so that its arrival
	// is the message's (its ejection then leaves the message's record
	// alone until the delivery: a cache line less per message). In the
	// padding before bytes: pkt stays 64 bytes.
	whole   bool
	bytes   int64 // wire bytes
	born    des.Time
	headArr des.Time
	tailArr des.Time
}

// msg is a message: 64 bytes, one cache line of the table (whose start
// is page-aligned). At 80 bytes every record straddled two lines, and a
// delivery, which reads id, bytes and sent, missed on both. The payload
// not yet packetised is not kept: every packet but the last carries
// PacketSize bytes (pump).
type msg struct {
	id      int32
	src     int32
	dst     int32
	next    int32
	toEmit  int64 // packets not yet injected
	toArr   int64 // packets not yet arrived
	notify  bool
	bytes   int64
	sent    des.Time
	arrival des.Time
}

// New builds a network on cfg.Topology.
func New(cfg Config) (*Network, error) {
	t := cfg.Topology
	if t == nil {
		return nil, fmt.Errorf("packet: no topology")
	}
	if cfg.VCs == 0 {
		cfg.VCs = 1
	}
	if cfg.Buffer == 0 {
		cfg.Buffer = 4
	}
	if cfg.WaitThreshold == 0 {
		cfg.WaitThreshold = des.Microsecond
	}
	switch {
	case cfg.VCs < 1 || cfg.VCs > routing.MaxVCs:
		return nil, fmt.Errorf("packet: %d virtual channels (expected 1 to %d)", cfg.VCs, routing.MaxVCs)
	case cfg.Buffer < 1 || cfg.Buffer > MaxBuffer:
		return nil, fmt.Errorf("packet: buffer of %d packets (expected 1 to %d)", cfg.Buffer, MaxBuffer)
	case cfg.PacketSize < 0 || cfg.Header < 0:
		return nil, fmt.Errorf("packet: packet size %d and header %d must not be negative", cfg.PacketSize, cfg.Header)
	case cfg.RouterDelay < 0 || cfg.SamplePeriod < 0 || cfg.WaitThreshold < 0:
		return nil, fmt.Errorf("packet: router delay, sample period and wait threshold must not be negative")
	}
	if err := checkMemory(&cfg); err != nil {
		return nil, err
	}
	name := cfg.Routing
	if name == "" {
		var err error
		if name, err = routing.Default(t, cfg.VCs); err != nil {
			return nil, fmt.Errorf("packet: %w", err)
		}
	}
	n := &Network{cfg: cfg, topo: t, nv: int32(cfg.VCs), nb: int32(cfg.Buffer), delay: cfg.RouterDelay,
		freePk: -1, freeMg: -1, serBytes: -1}
	alg, err := routing.Parse(name, t, routing.Options{VCs: cfg.VCs, Seed: cfg.Seed, Queues: (*liveQueues)(n)})
	if err != nil {
		return nil, fmt.Errorf("packet: %w", err)
	}
	if cfg.Buffer < 2 && usesBubble(alg) {
		return nil, fmt.Errorf("packet: routing %s uses bubble flow control, which needs buffers of at least 2 packets (have %d)", alg.Name(), cfg.Buffer)
	}
	n.alg = alg
	n.cfg.Routing = alg.Name()
	n.choices = make([]routing.Choice, 0, alg.MaxChoices())
	if o, ok := alg.(routing.QueueOrderer); ok {
		n.pickMost = o.DeferQueueOrder()
	}
	if c, ok := alg.(routing.CompactRouting); ok && n.pickMost {
		n.compact = c
	}
	if r, ok := alg.(routing.Repeatable); ok && r.Repeatable() {
		n.repeatable, n.holdStride = true, int32(alg.MaxChoices())+1
	}
	if err := n.build(); err != nil {
		return nil, err
	}
	n.smp.init(n)
	return n, nil
}

// usesBubble reports whether alg applies bubble flow control somewhere.
func usesBubble(alg routing.Algorithm) bool {
	g, ok := alg.Topology().(*topology.Grid)
	if !ok {
		return false
	}
	wraps := false
	for d := 0; d < g.NumDims(); d++ {
		wraps = wraps || g.Wraps(d)
	}
	switch alg.Name() {
	case "dor:bubble", "valiant:bubble", "adaptive":
		return wraps
	}
	return false
}

// build lays out the ports, links, buffers and network interfaces.
func (n *Network) build() error {
	t := n.topo
	R := t.NumRouters()
	V, B := int(n.nv), int(n.nb)
	N := t.NumNodes()
	// Nodes alone on their router get one injection lane per port
	// towards another router (see nic); they are counted first so the
	// lanes' buffers can follow the routers' ports. A node's first lane
	// injects into its terminal port's buffer; only the others have
	// ports of their own.
	alone := make([]int32, R)
	for i := 0; i < N; i++ {
		r, _ := t.Attach(i)
		alone[r]++
	}
	n.nodeLane = make([]int32, N+1)
	lanes := 0
	for i := 0; i < N; i++ {
		n.nodeLane[i] = int32(lanes)
		lanes++
		if r, _ := t.Attach(i); alone[r] == 1 {
			if k := routerPorts(t, r); k > 1 {
				lanes += k
			}
		}
	}
	n.nodeLane[N] = int32(lanes)
	n.portBase = make([]int32, R+1)
	total := 0
	for r := 0; r < R; r++ {
		n.portBase[r] = int32(total)
		total += t.NumPorts(r)
		if (total+lanes-N)*V > maxIndex || (total+lanes-N)*V*B > maxIndex {
			return fmt.Errorf("packet: %s has too many ports × VCs × buffer slots for the model", t.Spec())
		}
	}
	n.portBase[R] = int32(total)
	routerTotal := total
	total += lanes - N
	n.ports = make([]port, total)
	for gp := routerTotal; gp < total; gp++ {
		n.ports[gp] = port{link: -1, peer: noPeer}
	}
	hasMedium := false
	for r := 0; r < R; r++ {
		np := t.NumPorts(r)
		for p := 0; p < np; p++ {
			gp := n.portBase[r] + int32(p)
			pt := port{router: int32(r), link: int32(t.OutLink(r, p)), peer: noPeer, in: int32(p)}
			switch pe := t.Peer(r, p); pe.Kind {
			case topology.PeerRouter:
				pt.peer = n.portBase[pe.ID] + int32(pe.Port)
			case topology.PeerNode:
				pt.peer = ^n.nodeLane[pe.ID]
			}
			n.ports[gp] = pt
		}
		if t.Medium(r) != topology.NoLink {
			hasMedium = true
		}
	}
	if hasMedium {
		n.medium = make([]int32, R)
		for r := range n.medium {
			n.medium[r] = int32(t.Medium(r))
		}
	}
	L := t.NumLinks()
	n.links = make([]link, L)
	n.sameLat = -1
	for id := 0; id < L; id++ {
		l := t.Link(topology.LinkID(id))
		if !l.Valid {
			continue
		}
		if !(l.Props.Bandwidth > 0) {
			return fmt.Errorf("packet: link %d of %s has no bandwidth", id, t.Spec())
		}
		n.links[id].ps = 1e12 / l.Props.Bandwidth
		n.links[id].lat = des.Time(l.Props.Latency)
		switch {
		case n.measuredLinks == 0:
			n.sameLat = n.links[id].lat
		case n.sameLat != n.links[id].lat:
			n.sameLat = -2 // two latencies: no common one
		}
		n.measuredLinks++
	}
	for gp := range routerTotal {
		if n.ports[gp].peer != noPeer {
			n.measuredQueues += V
		}
	}
	if n.sameLat < 0 {
		n.sameLat = -1
	}
	n.groups()

	nIV := total * V
	n.ins = make([]inBuf, nIV)
	n.held, n.heldFree = n.held[:0], n.heldFree[:0]
	n.slots = nIV * B
	// Only the ports towards another router have a downstream buffer:
	// the others' output VCs are never looked at (a packet leaving by
	// them is ejected, and the routing orders only router ports), so
	// they are left unwritten, and pages of them take no resident
	// memory (every port of a crossbar leads to a node).
	n.outs = make([]outVC, routerTotal*V)
	for gp := range routerTotal {
		if n.ports[gp].peer >= 0 {
			for ov := gp * V; ov < (gp+1)*V; ov++ {
				n.outs[ov] = outVC{next: des.Never, credits: n.nb}
			}
		}
	}
	if B > outRing {
		n.pend = make([]des.Time, routerTotal*V*B)
	}
	n.waiters = make([][]waiter, routerTotal)
	n.wakeAt = make([]des.Time, routerTotal) // zero: no wake-up (wakePort)
	n.waited = make([]uint64, (routerTotal+63)/64)

	n.nics = make([]nic, lanes)
	if B > outRing {
		n.lanePend = make([]des.Time, lanes*B)
	}
	if lanes != N {
		n.nq = make([]nodeQueue, N)
		n.laneOut = make([]int32, lanes)
		for l := range n.laneOut {
			n.laneOut[l] = -1
		}
	}
	for i := 0; i < N; i++ {
		r, p := t.Attach(i)
		term := n.portBase[r] + int32(p)
		l := n.nodeLane[i]
		n.nics[l] = nic{node: int32(i), iv: term * n.nv, inject: int32(t.InjectLink(i)),
			credits: n.nb, qhead: -1, qtail: -1, at: des.Never}
		// A lane's buffer is a copy of the terminal port: same router,
		// same port number for the routing, same links.
		for q := 0; q < t.NumPorts(r) && l+1 < n.nodeLane[i+1]; q++ {
			if t.Peer(r, q).Kind != topology.PeerRouter {
				continue
			}
			l++
			// The lanes before l but the first of each node, i + 1 of
			// them up to node i's first.
			gp := int32(routerTotal) + l - int32(i) - 1
			n.ports[gp] = n.ports[term]
			n.ports[gp].peer = ^l
			n.nics[l] = n.nics[n.nodeLane[i]]
			n.nics[l].iv = gp * n.nv
			n.laneOut[l] = int32(q)
		}
	}
	n.linkByPort = true
	for gp := range routerTotal {
		if l := n.ports[gp].link; l >= 0 && l != int32(gp) {
			n.linkByPort = false
			break
		}
	}
	n.laneLinks = n.lanesOwnLinks(routerTotal)
	return nil
}

// lanesOwnLinks reports whether the lanes can keep their injection
// links' state (Network.laneLinks), and sets injPS and injLat if so:
// every node has one lane, its own injection link, which no router
// port and no medium uses, all of one bandwidth and latency, and no
// sample is handed out while running (the eager sampler reads links
// at every period; the lazy one keeps its copies through beforeLane).
func (n *Network) lanesOwnLinks(routerTotal int) bool {
	if n.nq != nil || n.cfg.OnSample != nil || len(n.nics) == 0 {
		return false
	}
	used := make([]bool, len(n.links))
	for gp := range routerTotal {
		if l := n.ports[gp].link; l >= 0 {
			used[l] = true
		}
	}
	for _, m := range n.medium {
		if m >= 0 {
			used[m] = true
		}
	}
	first := n.nics[0].inject
	if first < 0 || n.links[first].ps == 0 {
		return false
	}
	for i := range n.nics {
		l := n.nics[i].inject
		if l < 0 || used[l] || n.links[l].ps != n.links[first].ps || n.links[l].lat != n.links[first].lat {
			return false
		}
		used[l] = true
	}
	n.injPS, n.injLat = n.links[first].ps, n.links[first].lat
	return true
}

// syncLanes brings the injection links' records up to date from their
// lanes under laneLinks: a reader of links (Metrics) calls it first.
func (n *Network) syncLanes() {
	if !n.laneLinks {
		return
	}
	for i := range n.nics {
		c := &n.nics[i]
		lk := &n.links[c.inject]
		lk.free, lk.busy, lk.bytes, lk.packets, lk.snap = c.free, c.busy, c.bytes, c.packets, c.snap
	}
}

// routerPorts counts router r's ports that lead to another router.
func routerPorts(t topology.Topology, r int) int {
	k := 0
	for p := 0; p < t.NumPorts(r); p++ {
		if t.Peer(r, p).Kind == topology.PeerRouter {
			k++
		}
	}
	return k
}

// Name returns "packet".
func (n *Network) Name() string { return "packet" }

// Topology returns the network's topology.
func (n *Network) Topology() topology.Topology { return n.topo }

// Routing returns the routing algorithm.
func (n *Network) Routing() routing.Algorithm { return n.alg }

// Config returns the configuration in force (defaults applied, the
// routing's canonical name).
func (n *Network) Config() Config { return n.cfg }

// Finish measures the last sample period once the simulation has ended
// (netmodel.Finisher).
func (n *Network) Finish() { n.smp.finish(n.h.Now()) }

// Attach connects the network to the engine.
func (n *Network) Attach(h netmodel.Host) { n.h = h }

// InFlight returns the number of messages sent and not yet delivered.
func (n *Network) InFlight() int { return n.inFlight }

func (n *Network) schedule(at des.Time, kind uint8, obj int32) {
	n.h.Schedule(at, kind, obj, 0)
}

// Send queues m at its source's network interface.
func (n *Network) Send(m netmodel.Message) {
	now := n.h.Now()
	n.now = now
	if int(m.Src) >= len(n.nics) || int(m.Dst) >= len(n.nics) || m.Src < 0 || m.Dst < 0 {
		// The engine places ranks on the topology's nodes; this is a
		// programming error, not bad input.
		panic(fmt.Sprintf("packet: message between nodes %d and %d of a %d-node network", m.Src, m.Dst, len(n.nics)))
	}
	n.smp.event(now)
	slot := n.allocMsg()
	g := &n.msgs[slot]
	packets := int64(1)
	if n.cfg.PacketSize > 0 && m.Bytes > 0 {
		packets = (m.Bytes + n.cfg.PacketSize - 1) / n.cfg.PacketSize
	}
	*g = msg{id: m.ID, src: m.Src, dst: m.Dst, next: -1, toEmit: packets, notify: m.NotifyInjected,
		bytes: m.Bytes, sent: now, arrival: now}
	g.toArr = g.toEmit
	n.inFlight++
	n.flying += m.Bytes
	if m.Src == m.Dst {
		// Ranks of one node talk through memory: no network time.
		g.toEmit, g.toArr = 0, 0
		if m.NotifyInjected {
			n.schedule(now, evInjected, slot)
		}
		n.schedule(now, evDeliver, slot)
		return
	}
	lane := n.lane(m.Src, m.Dst)
	c := &n.nics[lane]
	c.queued += g.toEmit
	if n.nq == nil {
		c.maxQueued = max(c.maxQueued, c.queued)
	} else {
		q := &n.nq[m.Src]
		q.queued += g.toEmit
		q.maxQueued = max(q.maxQueued, q.queued)
	}
	if c.qtail >= 0 {
		n.msgs[c.qtail].next = slot
	} else {
		c.qhead = slot
	}
	c.qtail = slot
	if c.qhead == slot {
		n.pump(lane)
	}
}

// lane picks the injection lane of a message from src to dst: on a node
// with several, the one towards the first router port of the message's
// route (the routing's first choice for a fresh packet).
func (n *Network) lane(src, dst int32) int32 {
	if n.nq == nil {
		// A lane per node (no node alone on a router of several
		// ports: a crossbar, a fat tree): lane src, without a look at
		// nodeLane, a cache miss per message on a large network.
		return src
	}
	l0, l1 := n.nodeLane[src], n.nodeLane[src+1]
	if l1-l0 == 1 {
		return l0
	}
	// The state lives in the network: a local one would escape to the
	// heap through the routing's interface, an allocation per message.
	st := &n.laneState
	n.alg.Init(st, int(src), int(dst))
	pt := &n.ports[n.nics[l0].iv/n.nv]
	if n.compact != nil && n.compact.RouteCompact(int(pt.router), int(pt.in), 0, st, &n.hop) {
		return n.laneCompact(l0, l1, n.portBase[pt.router])
	}
	n.choices = n.alg.Route(int(pt.router), int(pt.in), 0, st, n.choices[:0])
	if len(n.choices) > 0 {
		first := n.choices[0].Port
		if n.pickMost {
			// The occupancy order the routing left to us: all choices
			// full keeps the static order.
			if i, most := n.mostRoom(n.portBase[pt.router]); most > 0 {
				first = n.choices[i].Port
			}
		}
		for l := l0 + 1; l < l1; l++ {
			if n.laneOut[l] == first {
				return l
			}
		}
	}
	return l0
}

// laneCompact is lane for a routing that gave the first hop in compact
// form (n.hop), at the router whose first global port is base: the lane
// of the first of the expanded choices — the first, in static order, of
// the adaptive choices with the most credits (pickMost), else the first
// choice — found without building the list, as tryCompact does.
func (n *Network) laneCompact(l0, l1, base int32) int32 {
	h := &n.hop
	lo, hi := int32(h.VCLo), int32(h.VCHi)
	first := h.Last.Port
	if len(h.Ports) > 0 && lo < hi {
		first = h.Ports[0]
	}
	most := int32(0)
	for _, port := range h.Ports {
		ov0 := (base + port) * n.nv
		for ov := ov0 + lo; ov < ov0+hi; ov++ {
			o := &n.outs[ov]
			if o.next <= n.now {
				n.collect(o, ov)
			}
			if o.credits > most {
				first, most = port, o.credits
			}
		}
	}
	for l := l0 + 1; l < l1; l++ {
		if n.laneOut[l] == first {
			return l
		}
	}
	return l0
}

// Handle processes one of the network's events.
func (n *Network) Handle(e des.Event) {
	n.now = n.h.Now()
	n.smp.event(e.At)
	switch e.Kind {
	case evRoute:
		n.route(e.Obj, int32(e.Arg))
	case evWake:
		n.wake(e.Obj)
	case evNIC:
		c := &n.nics[e.Obj]
		if c.at <= e.At {
			c.at = des.Never
		}
		n.pump(e.Obj)
	case evInjected:
		n.h.Injected(n.msgs[e.Obj].id)
	case evDeliver:
		g := &n.msgs[e.Obj]
		id := g.id
		n.inFlight--
		n.flying -= g.bytes
		n.delivered++
		n.bytes += g.bytes
		lat := e.At - g.sent
		n.msgLat.Add(lat)
		n.smp.msgLat.Add(lat)
		n.smp.delivered++
		n.freeMsg(e.Obj)
		n.h.Delivered(id)
	}
}

// msgRoom and pktRoom are the room the message and packet tables get at
// their first use: a few per node and per injection lane (a packet
// always holds a buffer slot, so never more than those), so that a run
// where every node sends at once (a stencil's halo, an alltoall round)
// does not grow them by doubling, each time copying them onto fresh
// pages and leaving the old copy to the collector (at 65,536 nodes that
// was 14 % of the peak resident size). Capacity never written costs no
// resident memory; at most a million entries (64 MB of address space
// each).
func (n *Network) msgRoom() int { return min(4*(len(n.nodeLane)-1), 1<<20) }

func (n *Network) pktRoom() int { return min(4*len(n.nics), n.slots, 1<<20) }

func (n *Network) allocMsg() int32 {
	if n.freeMg >= 0 {
		id := n.freeMg
		n.freeMg = n.msgs[id].next
		return id
	}
	if cap(n.msgs) == 0 {
		n.msgs = make([]msg, 0, n.msgRoom())
	}
	n.msgs = append(n.msgs, msg{})
	return int32(len(n.msgs) - 1)
}

func (n *Network) freeMsg(id int32) {
	n.msgs[id] = msg{next: n.freeMg}
	n.freeMg = id
}

func (n *Network) allocPkt() int32 {
	if n.freePk >= 0 {
		id := n.freePk
		n.freePk = n.pk[id].next
		return id
	}
	if cap(n.pk) == 0 {
		n.pk = make([]pkt, 0, n.pktRoom())
	}
	n.pk = append(n.pk, pkt{})
	return int32(len(n.pk) - 1)
}

func (n *Network) freePkt(id int32) {
	n.pk[id].next = n.freePk
	n.freePk = id
}

// ser is the time link l takes to carry b bytes, des.Never past the end
// of simulated time.
// Packets are mostly of one size and links of one bandwidth: the last
// answer is kept (the same product, so the same rounding).
func (n *Network) ser(b int64, l *link) des.Time {
	if b == n.serBytes && l.ps == n.serPS {
		return n.serTime
	}
	return n.serNew(b, l.ps)
}

// serAt is ser for a link of ps picoseconds per byte.
func (n *Network) serAt(b int64, ps float64) des.Time {
	if b == n.serBytes && ps == n.serPS {
		return n.serTime
	}
	return n.serNew(b, ps)
}

// serNew is ser for another size or bandwidth than the last.
func (n *Network) serNew(b int64, ps float64) des.Time {
	t := des.FromPS(float64(b) * ps)
	n.serBytes, n.serPS, n.serTime = b, ps, t
	return t
}
