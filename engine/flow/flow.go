// Package flow is the flow-level network model of the simulator
// (`--model flow`): every message is a flow over the route its topology
// and routing give it, and the flows active at an instant share each
// link's bandwidth by weighted max-min fairness, re-solved whenever a flow
// starts or finishes. It follows SimGrid's CM02 model (Casanova and
// Marchal 2002, as in SimGrid's network_cm02.cpp and its LMM solver), so
// that its predictions can be checked against `smpirun -replay`. It
// implements netmodel.Network.
//
// # Model
//
// A message of s bytes from node a to node b is a flow of s + Envelope
// bytes over the links of its route: a's injection link, the router
// links the routing algorithm chooses (its first choice at every hop;
// adaptive routings order their choices by the number of flows on each
// output, so a flow's path is chosen when it starts from the current
// loads; Valiant picks its intermediate at random from the seeded
// source), and b's ejection link. Without a topology the engine gives the
// model a crossbar: SimGrid's star cluster, where every node has a private
// full-duplex link to one switch and a route is the sender's link up and
// the receiver's link down.
//
// A flow first waits its route latency λ (the sum of its links'
// latencies, times the latency factor), carrying nothing; then it shares
// bandwidth until its bytes are through, and the message is delivered.
// Every link direction is a constraint of capacity its bandwidth; every
// flow a variable x_f of weight 1/p_f, where p_f, CM02's "sharing
// penalty", is the route latency λ in seconds (plus WeightS/bw for each
// link when WeightS is set): a flow with a shorter route gets a larger
// share. The rates are the weighted max-min fair allocation — progressive
// filling: all unfixed rates grow as level/p_f until a link saturates,
// whose flows are then fixed — and each flow is bounded by the smallest
// bandwidth of its route and, when TCPGamma is set, by TCPGamma/(2λ), the
// TCP window over the round-trip time. A flow whose route latency is 0
// has penalty 1, as in SimGrid. With CrossTraffic c > 0 every flow also
// consumes c times its rate on the links of the route back from b to a
// (the acknowledgements of a TCP stream; SimGrid's default is 0.05).
//
// The solver is incremental: a change (a flow starting to share, a flow
// finishing) re-solves only the flows whose rates it can move, found by
// checking every flow's bottleneck rather than by following every shared
// link (see solve); the others keep their rates and their completion
// times. Changes at one instant are solved together. Bytes are accounted in float64 and
// completion times rounded up to the picosecond; runs are deterministic.
//
// Messages between ranks of one node cross no link and arrive at once.
//
// # Metrics
//
// Metrics gives per-link bytes, busy time (the integral of the used
// fraction of the bandwidth), utilisation and flow counts, the link
// groups of netmodel.LinkGroups and the message latencies; with
// SamplePeriod set, the network measures every period in which it
// carries traffic and hands the Sample to OnSample, like the packet
// model. Without OnSample nothing reads the samples: the network only
// keeps each link's integrals at the period boundaries before its last
// two changes, from which Metrics works out the last period's
// utilisation and flows, the figures a sample would have given.
package flow

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
)

// Config describes a flow-level network.
type Config struct {
	// Topology is the network; every node is an endpoint. Its links'
	// bandwidths are the constraints' capacities, their latencies the
	// flows' latencies.
	Topology topology.Topology
	// Routing names the routing algorithm (routing.Parse); empty means
	// routing.Default for the topology and VCs.
	Routing string
	// VCs is the number of virtual channels the routing is built for
	// (0: 1; more when the routing needs more, see RoutingVCs).
	VCs int
	// Envelope is added to every message's bytes (SMPI: 16).
	Envelope int64
	// CrossTraffic is the share of each flow's rate that it also
	// consumes on its reverse route (SimGrid: 0.05; 0: none).
	CrossTraffic float64
	// TCPGamma bounds each flow's rate by TCPGamma/(2·route latency), in
	// bytes (SimGrid's network/TCP-gamma, 4194304); 0: no bound.
	TCPGamma float64
	// WeightS adds WeightS/bandwidth per link of the route to a flow's
	// sharing penalty (SimGrid's network/weight-S; 0 under CM02).
	WeightS float64
	// Factors, when set, gives the latency and bandwidth factors of a
	// message of the given payload size (SMPI's smpi/lat-factor and
	// smpi/bw-factor): the flow waits lat × its route latency, and it
	// progresses at bw × the rate the sharing gives it.
	Factors func(bytes int64) (lat, bw float64)
	// Sharing is how every link of the topology shares its bandwidth
	// (SimGrid's sharing_policy): SplitDuplex (the zero value) gives each
	// direction its own capacity, Shared one capacity for both
	// directions, FatPipe none to share: each flow is bounded by the
	// bandwidth alone.
	Sharing Sharing
	// FatPipes are channels that bound each flow to their bandwidth
	// without sharing it (SimGrid's FATPIPE links among others of
	// another policy), whatever Sharing says.
	FatPipes []topology.LinkID
	// MediumFatPipe makes a shared medium (a bus's, or a crossbar's
	// backbone: topology.Star) bound each flow to its bandwidth without
	// sharing it (SimGrid's bb_sharing_policy FATPIPE); otherwise every
	// flow through it, either way, shares its one capacity (SHARED).
	MediumFatPipe bool
	// Limiter, when positive, is the bandwidth in bytes/s of a link of
	// each node that everything the node sends and receives crosses, in
	// both directions at once (SimGrid's limiter_link: SHARED, no
	// latency).
	Limiter float64
	// Loopback, when set, is the link a message between two ranks of one
	// node crosses: its latency, and its bandwidth as a bound that is not
	// shared (SimGrid's loopback links are FATPIPE).
	Loopback *topology.LinkProps
	// SelfRoute sends a message between two ranks of one node without
	// Loopback up the node's link and down again (SimGrid's star cluster)
	// rather than delivering it at once.
	SelfRoute bool
	// Hops, when set, replaces the routing algorithm: it appends to buf
	// the router-to-router links a message from node src to node dst
	// crosses between src's injection link and dst's ejection link, as
	// (from, to) pairs of adjacent routers (SimGrid's own routes on a
	// platform, which need not be paths); with a Limiter, (-1, n) pairs
	// add node n's limiter and (-2, r) pairs router r's.
	Hops func(src, dst int, buf []int) []int
	// RouterLimiters gives every router a limiter of bandwidth Limiter
	// too, which Hops names (SimGrid 3.32's DRAGONFLY).
	RouterLimiters bool
	// OneInjectionLink gives every node its single injection link
	// (SimGrid's hosts). Otherwise a node alone on a router with several
	// ports towards other routers (a torus, mesh, ring or hypercube node)
	// has one injection lane per such port, as in the packet model: each
	// a link of the injection link's bandwidth and latency that the
	// flows leaving by that port share, so the node drives all of its
	// router's ports at once.
	OneInjectionLink bool
	// Exhaustive makes every solve re-solve all the flows connected to a
	// change through shared links, as SimGrid's LMM does, rather than
	// only those whose bottleneck the change moves: the same rates,
	// slower. For checking the solver and measuring what it saves.
	Exhaustive bool
	// SamplePeriod is the period of the metrics samples; 0 disables them.
	SamplePeriod des.Time
	// OnSample, when set, receives every sample on the simulation
	// goroutine. The Sample and its slices are reused afterwards.
	OnSample func(*netmodel.Sample)
	// Seed seeds the routing algorithm's random choices.
	Seed uint64
}

// The interfaces the network implements.
var (
	_ netmodel.Network   = (*Network)(nil)
	_ netmodel.Estimator = (*Network)(nil)
	_ netmodel.Finisher  = (*Network)(nil)
	_ netmodel.Idler     = (*Network)(nil)
	_ routing.Queues     = (*Network)(nil)
)

// Sharing is a link sharing policy (SimGrid's sharing_policy).
type Sharing uint8

// Sharing policies.
const (
	// SplitDuplex links have one capacity per direction.
	SplitDuplex Sharing = iota
	// Shared links have one capacity for both directions.
	Shared
	// FatPipe links bound each flow to their bandwidth and share nothing.
	FatPipe
)

// Event kinds of the network (netmodel.Host.Schedule kinds).
const (
	evActivate uint8 = iota // obj: flow whose latency has elapsed
	evSolve                 // the changes of this instant are solved
	evWake                  // arg: wake generation; flows due now finish
	evLocal                 // obj: message id delivered without the network; arg: bytes<<1 | 1 to report injection
)

// Network is a flow-level network, driven by one simulation goroutine
// (netmodel.Host). Its Metrics are copies safe to hand to other
// goroutines.
type Network struct {
	cfg     Config
	topo    topology.Topology
	alg     routing.Algorithm
	h       netmodel.Host
	choices []routing.Choice
	st      routing.State
	maxHops int

	// links are the constraints: the topology's links (by link id), then
	// with a limiter one per node, with a loopback one per node, with
	// router limiters one per router.
	// alias maps a topology link to its constraint (a SHARED link's two
	// directions are one).
	links     []link
	lat       []des.Time // per constraint: its latency
	alias     []int32
	topoLinks int
	limiter   int32 // first limiter constraint; -1: none
	loopback  int32 // first loopback constraint; -1: none
	flows     []flowRec
	// blk holds the flows' link blocks, elp the links' element lists
	// (see pool).
	blk  pool[int32]
	elp  pool[elem]
	hops []int // Config.Hops scratch
	// fixedRoutes: a pair of nodes has one route, whatever the loads and
	// the random source (a platform's routes, dimension order), so
	// cachedPath keeps them. routeAt is, per
	// pair of nodes, the path's index in paths plus one (0: not yet).
	fixedRoutes bool
	routeAt     []int32
	paths       []path
	routeBuf    []int32
	scratch     []int32 // Send's route, when not cached
	// starInj and starEj are, on a network of one router, fixed routes,
	// no lanes and too many nodes for the path cache (the default
	// crossbar from 1,025 ranks on), each node's injection and ejection
	// constraints (aliased): the route from src to dst is starInj[src],
	// the router's shared medium when it has one (starMedium ≥ 0),
	// starEj[dst], what topoRoute finds through the routing and topology
	// interfaces. Nil otherwise (see starRoutes).
	starInj, starEj []int32
	starMedium      int32
	rlimiter        int32 // first router limiter constraint; -1: none
	// Injection lanes (Config.OneInjectionLink): node i's are the
	// constraints lanes+nodeLane[i] … lanes+nodeLane[i+1]−1, leaving its
	// router by ports laneOut[…]; laneOf[l−topoLinks] is the injection
	// link a lane constraint stands for in the metrics (-1: not a lane).
	lanes    int32
	nodeLane []int32
	laneOut  []int32
	laneOf   []int32
	injNode  []int32 // by topology link: the node whose lanes it stands for, or -1
	free     int32   // free list of flow slots (-1: none)
	seq      uint64

	// heap orders the sharing flows by completion time (queue.go);
	// hkey holds its entries' keys.
	heap []int32
	hkey []hkey
	// hpos is, per flow slot, its index in the heap (-1: outside),
	// apart from the flow records: sifting moves entries of flows it
	// does not otherwise touch.
	hpos  []int32
	drain drainScratch // drainDue's
	// wakeAt is the time of the pending wake event (des.Never: none);
	// wakeGen tells the current wake from superseded ones.
	wakeAt  des.Time
	wakeGen int64

	// Changes waiting for the solver: the flows started on or finished
	// from their links since the last solve, in order (their links are
	// the links whose flows changed; a finished flow's slot is freed
	// after the solve).
	pending      []int32
	solvePending bool
	epoch        uint32
	compLinks    []int32
	compFlows    []int32
	sys          system
	// lsolve is, per constraint, the solve that reached it and its
	// number there: kept apart from the link records, which the solver's
	// inner loops would otherwise pull into the cache line by line.
	lsolve []linkSolve
	fmark  []uint32 // per flow slot: the solve that reached it
	// whole remembers whole solves (see wholeMemo).
	whole wholeMemo
	// fatW is, per constraint, the weight of the first flow to use it
	// when it is a fatpipe that SimGrid's sharing may concern (a FATPIPE
	// backbone or FATPIPE links), 0 before; nil otherwise (see
	// noteFatPipes).
	fatW []float64
	// flevel is, per flow slot, its level (rate × penalty) at the last
	// solve, +Inf while it has not been solved or runs at rate 0; bneck
	// the constraint it was fixed at (-1: its bound). added are the
	// flows activated since the last solve (see solve).
	flevel []float64
	bneck  []int32
	// fixedAt is, per constraint, the number of its flows' uses of it
	// whose bneck it is: check passes over a link no kept flow is fixed
	// at without scanning its flows (see setBneck).
	fixedAt []int32
	added   []int32
	// routed counts, per constraint, the flows routed over it from their
	// start, latency phase included: the load adaptive routings compare,
	// so that flows starting at one instant see each other. Apart from
	// the link records, which a flow's start would otherwise pull into
	// the cache one by one when it is sent, and again when it shares.
	routed []int32
	// solveWith, when set (by tests), replaces the solver.
	solveWith func(now des.Time)
	done      []int32
	ids       []int32 // (message id, notify) of the flows done, for the callbacks

	// Link groups and the drawing layout, for the metrics.
	groupNames  []string
	linkGroup   []uint8
	groupLinks  []int
	routerLinks int
	layout      *netmodel.Layout
	estimate    des.Time // uncontended one-byte time between nodes 0 and 1
	estPerByte  float64  // its time per byte, ps

	// Counters.
	inFlight   int
	delivered  uint64
	bytes      int64
	flying     int64 // payload of the messages in flight
	unroutable int
	msgLat     netmodel.LatencyAcc
	smp        sampler
	// led integrates the links' measurements.
	led ledger
}

// link is one direction of a link: an LMM constraint.
type link struct {
	// The fields the network and the solver read and write at every
	// change of the link come first: the others are read when a flow
	// starts and by the tests.
	// The link's element list, en elements: while ecap is 0, in inl
	// (at most inlineElems); otherwise Network.elp.buf[eoff :
	// eoff+en], in a range of ecap elements (a power of two): an
	// offset into the pool rather than a slice, so that the records
	// hold no pointer for the collector to scan (see pool).
	eoff, en, ecap int32
	fwd            int32   // flows sharing the link (not counting crosstraffic)
	cap            float64 // bytes per second
	load           float64 // bytes per second consumed now
	// last is when the load or the flows last changed (or were about
	// to): the ledger has their measurements up to then; -1 before the
	// first change.
	last des.Time
	// fatpipe links bound their flows without sharing (no constraint).
	fatpipe bool
	used    bool   // carried a flow at some time
	tick    uint32 // the sampler's epoch in which it was last active
	// inl holds the element list while it is short (ecap 0), in the
	// 16 bytes that padded the record to 64, a cache line (no record
	// straddles two; see TestLinkRecordSize): most lists are one or two
	// flows long (a stencil's: 82 and 85 % of the removals at 4,096
	// and 65,536 ranks, 73 % at 64), and a list in the pool was one
	// more line a flow's start, its end and the solve's seed reached per
	// link. A link's latency, read only when a flow starts, is in
	// Network.lat.
	inl [inlineElems]elem
}

// inlineElems is the longest element list a link record holds itself
// (a power of two: indexes below it are masked rather than checked).
const inlineElems = 2

// linkSolve is a constraint's place in the current solve: mark is the
// solve's epoch when it has reached the constraint, local its number in
// the solve's system.
type linkSolve struct {
	mark  uint32
	local int32
}

// elem is a flow's use of a link: element k of flow f's links. It
// consumes the flow's rate times coeff(f, k): 1 on the route (k < the
// flow's nfwd), the crosstraffic share on the way back. The coefficient
// is not stored: nothing that scans a link's elements reads it, and 8
// bytes an element rather than 16 halve what those scans pull into the
// cache (at 65,536 ranks, 2 MiB less per 65,536 flows in flight).
type elem struct {
	f, k int32
}

// flowRec is a message in the network. It holds no pointer (see pool).
type flowRec struct {
	// The fields a re-solve reads and writes come first: links and the
	// progress and the weight (the first 64 bytes), then the bound (the
	// heap place is in Network.hpos); what the start and the delivery
	// need last.
	// The flow's links are Network.blk.buf[boff : boff+nl]: the route,
	// then (crosstraffic) the reverse route; while the flow is on its
	// links, the block goes on with the position of each in its link's
	// element list (pos). bcap is the block's room, a power of two ≥
	// 2·nl (0: no block yet); the slot keeps its block when it is freed.
	// One block a flow rather than two (see TestFlowRecordSize).
	boff, nl, bcap int32
	nfwd           int32
	value          float64 // rate on the links, bytes per second
	prev           float64 // value before the current solve
	remain         float64 // bytes left
	factor         float64 // progress = value × factor
	last           des.Time
	w              float64 // 1/penalty
	path           int32   // its cached path's index in Network.paths; -1: none
	// id is the message's while the slot holds a flow, the next free
	// slot (-1: none) while it is on the free list.
	id      int32
	bound   float64 // bytes per second; 0: none
	penalty float64 // CM02 sharing penalty, seconds
	finish  des.Time
	start   des.Time
	bytes   int64
	seq     uint64
	notify  bool
}

// flinks is flow f's links (see flowRec.boff).
func (n *Network) flinks(f *flowRec) []int32 {
	return n.blk.buf[f.boff : f.boff+f.nl]
}

// fpos is the position of each of f's links in its element list, which
// activate lays out after the links (see flowRec.boff).
func (n *Network) fpos(f *flowRec) []int32 {
	return n.blk.buf[f.boff+f.nl : f.boff+2*f.nl]
}

// elems is link lk's element list (see link.eoff).
func (n *Network) elems(lk *link) []elem {
	if lk.ecap == 0 {
		return lk.inl[:lk.en]
	}
	return n.elp.buf[lk.eoff : lk.eoff+lk.en]
}

// newBlock gives flow f a block with room for k links and their places
// (Send copies the links in), its old block given back.
func (n *Network) newBlock(f *flowRec, k int) {
	if f.bcap > 0 {
		n.blk.put(f.boff, class(int(f.bcap)))
	}
	c := class(2 * k)
	f.boff, f.bcap = n.blk.get(c), 1<<c
}

// elemAt is element p of link lk's list (p below lk.en).
func (n *Network) elemAt(lk *link, p int32) elem {
	if lk.ecap == 0 {
		return lk.inl[p&(inlineElems-1)] // p < en ≤ inlineElems
	}
	return n.elp.buf[lk.eoff+p]
}

// growElems gives link lk's element list, full, twice its room: out of
// the record into the pool, or a larger range of the pool.
func (n *Network) growElems(lk *link) {
	c := class(max(2*int(lk.ecap), 2*inlineElems))
	off := n.elp.get(c)
	copy(n.elp.buf[off:], n.elems(lk))
	if lk.ecap > 0 {
		n.elp.put(lk.eoff, class(int(lk.ecap)))
	}
	lk.eoff, lk.ecap = off, 1<<c
}

// inlineAgain gives the pool back the range of link lk's list, now
// empty, which the record holds again from its next flow on: otherwise
// a link that once had more than inlineElems flows would keep its list
// in the pool for good (at 65,536 ranks, every link the stencil's
// allreduce crosses).
func (n *Network) inlineAgain(lk *link) {
	n.elp.put(lk.eoff, class(int(lk.ecap)))
	lk.eoff, lk.ecap = 0, 0
}

// New builds a flow-level network on cfg.Topology.
func New(cfg Config) (*Network, error) {
	t := cfg.Topology
	if t == nil {
		return nil, fmt.Errorf("flow: no topology")
	}
	if !(cfg.CrossTraffic >= 0) || math.IsInf(cfg.CrossTraffic, 0) {
		return nil, fmt.Errorf("flow: crosstraffic %v must be a number ≥ 0", cfg.CrossTraffic)
	}
	if !(cfg.TCPGamma >= 0) || !(cfg.WeightS >= 0) {
		return nil, fmt.Errorf("flow: TCP gamma %v and weight-S %v must not be negative", cfg.TCPGamma, cfg.WeightS)
	}
	vcs := RoutingVCs(t, cfg.Routing, cfg.VCs)
	name := cfg.Routing
	if name == "" {
		var err error
		if name, err = routing.Default(t, vcs); err != nil {
			return nil, err
		}
	}
	n := &Network{cfg: cfg, topo: t, free: -1, wakeAt: des.Never}
	alg, err := routing.Parse(name, t, routing.Options{VCs: vcs, Seed: cfg.Seed, Queues: n})
	if err != nil {
		return nil, err
	}
	n.alg = alg
	n.fixedRoutes = cfg.Hops != nil || fixedRouting(t, alg)
	n.choices = make([]routing.Choice, 0, alg.MaxChoices())
	n.maxHops = 4*t.NumRouters() + 8
	L := t.NumLinks()
	N := t.NumNodes()
	extra := 0
	n.limiter, n.loopback = -1, -1
	if cfg.Limiter > 0 {
		n.limiter = int32(L + extra)
		extra += N
	}
	if cfg.Loopback != nil {
		n.loopback = int32(L + extra)
		extra += N
	}
	n.rlimiter = -1
	if cfg.Limiter > 0 && cfg.RouterLimiters {
		n.rlimiter = int32(L + extra)
		extra += t.NumRouters()
	}
	n.lanes = int32(L + extra)
	if !cfg.OneInjectionLink && cfg.Hops == nil {
		extra += n.buildLanes()
	}
	// Per constraint, advised as huge pages before they are written
	// (see withRoom): 131,072 links and more at 65,536 ranks.
	n.links = withRoom([]link(nil), L+extra)[:L+extra]
	n.lat = withRoom([]des.Time(nil), L+extra)[:L+extra]
	n.lsolve = withRoom([]linkSolve(nil), L+extra)[:L+extra]
	n.fixedAt = withRoom([]int32(nil), L+extra)[:L+extra]
	n.routed = withRoom([]int32(nil), L+extra)[:L+extra]
	n.alias = withRoom([]int32(nil), L)[:L]
	n.topoLinks = L
	for i := 0; i < L; i++ {
		n.alias[i] = int32(i)
		l := t.Link(topology.LinkID(i))
		if !l.Valid {
			continue
		}
		if !(l.Props.Bandwidth > 0) || math.IsInf(l.Props.Bandwidth, 0) {
			return nil, fmt.Errorf("flow: link %d (%s → %s) has bandwidth %v B/s: the flow model needs a finite positive bandwidth", i, l.From, l.To, l.Props.Bandwidth)
		}
		n.links[i].cap = l.Props.Bandwidth
		n.lat[i] = des.Time(l.Props.Latency)
		n.links[i].fatpipe = cfg.Sharing == FatPipe
		if l.Class == topology.ClassMedium {
			n.links[i].fatpipe = cfg.MediumFatPipe
		}
		if cfg.Sharing == Shared && l.Reverse != topology.NoLink && l.Reverse < l.ID {
			n.alias[i] = int32(l.Reverse)
		}
	}
	for _, l := range cfg.FatPipes {
		if l < 0 || int(l) >= L {
			return nil, fmt.Errorf("flow: fatpipe link %d is not a link of the topology (0 to %d)", l, L-1)
		}
		n.links[n.alias[l]].fatpipe = true
	}
	for i := int32(0); n.rlimiter >= 0 && i < int32(t.NumRouters()); i++ {
		n.links[n.rlimiter+i] = link{cap: cfg.Limiter}
	}
	if n.nodeLane != nil {
		n.injNode = make([]int32, L)
		for i := range n.injNode {
			n.injNode[i] = -1
		}
	}
	for i := 0; i+1 < len(n.nodeLane); i++ {
		inj := t.InjectLink(i)
		for k := n.nodeLane[i]; k < n.nodeLane[i+1]; k++ {
			n.links[n.lanes+k], n.lat[n.lanes+k] = n.links[inj], n.lat[inj]
			n.laneOf[n.lanes+k-int32(L)] = int32(inj)
			n.injNode[inj] = int32(i)
		}
	}
	for i := 0; i < N; i++ {
		if n.limiter >= 0 {
			n.links[n.limiter+int32(i)] = link{cap: cfg.Limiter}
		}
		if lb := cfg.Loopback; lb != nil {
			if !(lb.Bandwidth > 0) || math.IsInf(lb.Bandwidth, 0) {
				return nil, fmt.Errorf("flow: loopback bandwidth %v B/s: the flow model needs a finite positive bandwidth", lb.Bandwidth)
			}
			n.links[n.loopback+int32(i)] = link{cap: lb.Bandwidth, fatpipe: true}
			n.lat[n.loopback+int32(i)] = des.Time(lb.Latency)
		}
	}
	n.starRoutes()
	n.groupNames, n.linkGroup = netmodel.LinkGroups(t)
	n.groupLinks, n.routerLinks = netmodel.CountGroups(t, n.linkGroup, len(n.groupNames))
	if t.NumNodes() > 1 {
		if r, ok := n.route(0, 1, nil); ok {
			minBW := math.Inf(1)
			for _, l := range r {
				n.estimate += n.lat[l]
				minBW = min(minBW, n.links[l].cap)
			}
			n.estPerByte = 1e12 / minBW
		}
	}
	for i := range n.links {
		n.links[i].last = -1
	}
	// SimGrid's sharing of a fatpipe differs from a bound per flow only
	// between flows of different penalties (see noteFatPipes).
	if cfg.MediumFatPipe || cfg.Sharing == FatPipe || len(cfg.FatPipes) > 0 {
		n.fatW = make([]float64, len(n.links))
	}
	n.smp.init(n)
	period := des.Time(0)
	if n.smp.lazy {
		period = n.smp.clk.Period
	}
	n.led.init(n.links, period, cfg.OnSample == nil)
	return n, nil
}

// starRoutes fills starInj and starEj where a route is a node's
// injection link, the router's medium if it has one, then the
// destination's ejection link: one router, fixed routes, no injection
// lanes, no platform hops. Only
// above maxCachedNodes: below, cachedPath keeps each pair's whole path.
// At 4,096 ranks routing each flow both ways through the interfaces was
// 376 instructions an event (topoRoute, route, the routing algorithm's
// Init and Route, the topology's Attach, Medium, OutLink).
func (n *Network) starRoutes() {
	t := n.topo
	N := t.NumNodes()
	n.starMedium = -1
	if n.cfg.Hops != nil || !n.fixedRoutes || t.NumRouters() != 1 ||
		len(n.laneOut) > 0 || N <= maxCachedNodes {
		return
	}
	inj, ej := make([]int32, N), make([]int32, N)
	for i := range N {
		in := t.InjectLink(i)
		r, port := t.Attach(i)
		out := t.OutLink(r, port)
		if in == topology.NoLink || out == topology.NoLink {
			return
		}
		inj[i], ej[i] = n.alias[in], n.alias[out]
	}
	n.starInj, n.starEj = inj, ej
	if m := t.Medium(0); m != topology.NoLink {
		n.starMedium = int32(m)
	}
}

// buildLanes lays out the injection lanes (see Config.OneInjectionLink)
// and returns their number.
func (n *Network) buildLanes() int {
	t := n.topo
	N, R := t.NumNodes(), t.NumRouters()
	alone := make([]int32, R)
	for i := range N {
		r, _ := t.Attach(i)
		alone[r]++
	}
	n.nodeLane = make([]int32, N+1)
	for i := range N {
		n.nodeLane[i] = int32(len(n.laneOut))
		r, _ := t.Attach(i)
		if alone[r] != 1 || t.Medium(r) != topology.NoLink {
			continue
		}
		var ports []int32
		for p := 0; p < t.NumPorts(r); p++ {
			if t.Peer(r, p).Kind == topology.PeerRouter {
				ports = append(ports, int32(p))
			}
		}
		if len(ports) > 1 {
			n.laneOut = append(n.laneOut, ports...)
		}
	}
	n.nodeLane[N] = int32(len(n.laneOut))
	n.laneOf = make([]int32, int(n.lanes)-t.NumLinks()+len(n.laneOut))
	for i := range n.laneOf {
		n.laneOf[i] = -1
	}
	return len(n.laneOut)
}

// fixedRouting tells whether alg gives a packet one route between two
// nodes on t: on a crossbar or a bus (topology.Star) every routing goes
// straight to the destination's port, without a draw or a state; else a
// repeatable routing (routing.Repeatable: no random draw, no state)
// whose choices are not ordered by queue lengths either, which of the
// repeatable ones only dimension order is.
func fixedRouting(t topology.Topology, alg routing.Algorithm) bool {
	if _, star := t.(*topology.Star); star {
		return true
	}
	r, ok := alg.(routing.Repeatable)
	name := alg.Name()
	return ok && r.Repeatable() && (name == "dor" || strings.HasPrefix(name, "dor:"))
}

// RoutingVCs is the number of virtual channels the flow model builds the
// named routing with on t: vcs, or more when the routing needs more.
// Flows do not use virtual channels, so a routing that needs several (a
// Valiant route's phases, a torus's datelines) is built with them rather
// than refused.
func RoutingVCs(t topology.Topology, name string, vcs int) int {
	vcs = max(vcs, 1)
	key := strings.ToLower(strings.TrimSpace(name))
	for _, in := range routing.Available(t) {
		if in.Name == key {
			vcs = max(vcs, in.MinVCs)
		}
	}
	return min(vcs, routing.MaxVCs)
}

// Name returns "flow".
func (n *Network) Name() string { return "flow" }

// Topology returns the network's topology.
func (n *Network) Topology() topology.Topology { return n.topo }

// Routing returns the routing algorithm.
func (n *Network) Routing() routing.Algorithm { return n.alg }

// Attach connects the network to the engine.
func (n *Network) Attach(h netmodel.Host) { n.h = h }

// InFlight returns the number of messages sent and not yet delivered.
func (n *Network) InFlight() int { return n.inFlight }

// Finish takes the last measurements.
func (n *Network) Finish() { n.smp.finish(n.h.Now()) }

// Explain reports messages that could not be routed; flows otherwise
// always progress.
func (n *Network) Explain() []string {
	if n.unroutable == 0 {
		return nil
	}
	return []string{fmt.Sprintf("flow: %d messages found no route with routing %s on %s and were delivered at once", n.unroutable, n.alg.Name(), n.topo.Spec())}
}

// Estimate returns the uncontended time of a message of the given size
// between nodes 0 and 1: route latency plus bytes over the slowest link.
func (n *Network) Estimate(bytes int64) des.Time {
	return n.estimate + des.Time(math.Ceil(float64(bytes+n.cfg.Envelope)*n.estPerByte))
}

// Occupancy is the number of flows routed over the link leaving router r
// through port p, whatever the virtual channel (flows have none), those
// still in their latency phase included: the load adaptive routings
// compare.
func (n *Network) Occupancy(r, p, vc int) int {
	l := n.topo.OutLink(r, p)
	if l == topology.NoLink {
		return 0
	}
	return int(n.routed[n.alias[l]])
}

// route appends the constraints from node src to node dst to out: the
// node's loopback between two ranks of one node when there is one, else
// the source's limiter, the links of the route, the destination's
// limiter.
func (n *Network) route(src, dst int, out []int32) ([]int32, bool) {
	if src == dst && n.loopback >= 0 {
		return append(out, n.loopback+int32(src)), true
	}
	if src == dst {
		// Up the node's link and down again: a link both ways is
		// crossed once (SimGrid's star adds a link to a route once: a
		// SHARED link, or the limiter, is one constraint up and down).
		start := len(out)
		out, ok := n.routeApart(src, dst, out)
		kept := out[:start]
		for _, c := range out[start:] {
			if !slices.Contains(kept[start:], c) {
				kept = append(kept, c)
			}
		}
		return kept, ok
	}
	return n.routeApart(src, dst, out)
}

// routeApart is route's way from node src to node dst other than a
// loopback.
func (n *Network) routeApart(src, dst int, out []int32) ([]int32, bool) {
	if n.cfg.Hops != nil {
		return n.platformRoute(src, dst, out)
	}
	if n.limiter >= 0 {
		out = append(out, n.limiter+int32(src))
	}
	if n.starInj != nil && src != dst {
		out = append(out, n.starInj[src])
		if n.starMedium >= 0 {
			out = append(out, n.starMedium)
		}
		out = append(out, n.starEj[dst])
		if n.limiter >= 0 {
			out = append(out, n.limiter+int32(dst))
		}
		return out, true
	}
	start := len(out)
	out, ok := n.topoRoute(src, dst, out)
	for i := start; i < len(out); i++ {
		if out[i] < int32(n.topoLinks) { // not an injection lane
			out[i] = n.alias[out[i]]
		}
	}
	if ok && n.limiter >= 0 {
		out = append(out, n.limiter+int32(dst))
	}
	return out, ok
}

// maxCachedNodes bounds the networks whose platform paths are cached:
// the cache has an entry per pair of nodes.
const maxCachedNodes = 1024

// path is what a flow between two nodes starts with when its route is
// fixed (a platform's routes: see cachedPath): its constraints, route
// then way back (routeBuf[off:off+n], the first nfwd the route), and
// what Send works out from them.
type path struct {
	off, n, nfwd int32
	ok           bool // false: no route (the flow is delivered at once)
	lat          des.Time
	bound        float64 // +Inf: none
	penalty      float64 // before the latency factor
	// ha and hb are what wholeActivate chains of the path's links (see
	// linkHash), worked out once.
	ha, hb uint64
}

// cachedPath returns the path of a flow from node src to node dst, each
// pair's computed once, when the routes are fixed (fixedRoutes): computing
// one walks the routers' ports hop by hop. It returns nil for other
// routes and for networks of more than maxCachedNodes nodes.
func (n *Network) cachedPath(src, dst int) *path {
	if !n.fixedRoutes {
		return nil
	}
	N := n.topo.NumNodes()
	if N > maxCachedNodes || src == dst && n.loopback >= 0 {
		return nil
	}
	if n.routeAt == nil {
		n.routeAt = make([]int32, N*N)
	}
	pair := src*N + dst
	if at := n.routeAt[pair]; at > 0 {
		return &n.paths[at-1]
	}
	off := len(n.routeBuf)
	var ok bool
	n.routeBuf, ok = n.route(src, dst, n.routeBuf)
	p := path{off: int32(off), ok: ok}
	if !ok {
		n.routeBuf = n.routeBuf[:off]
	}
	p.nfwd = int32(len(n.routeBuf) - off)
	p.lat, p.bound, p.penalty = n.pathNumbers(n.routeBuf[off:], false)
	if ok && n.cfg.CrossTraffic > 0 {
		n.routeBuf, _ = n.route(dst, src, n.routeBuf)
	}
	p.n = int32(len(n.routeBuf) - off)
	p.ha, p.hb = linkHash(n.routeBuf[off:off+int(p.n)], p.nfwd)
	n.paths = append(n.paths, p)
	n.routeAt[pair] = int32(len(n.paths))
	return &n.paths[len(n.paths)-1]
}

// pathNumbers returns the latency, the rate bound (+Inf: none) and the
// sharing penalty (before the latency factor) of a flow over the route
// r; with route set, it counts the flow as routed over r's links.
func (n *Network) pathNumbers(r []int32, route bool) (lat des.Time, bound, penalty float64) {
	bound = math.Inf(1)
	for _, l := range r {
		lk := &n.links[l]
		if route {
			n.routed[l]++
		}
		lat += n.lat[l]
		bound = min(bound, lk.cap)
		if n.cfg.WeightS > 0 {
			penalty += n.cfg.WeightS / lk.cap
		}
	}
	penalty += lat.Seconds()
	if n.cfg.TCPGamma > 0 && lat > 0 {
		bound = min(bound, n.cfg.TCPGamma/(2*lat.Seconds()))
	}
	return lat, bound, penalty
}

// platformRoute appends the constraints of the route Config.Hops gives
// from node src to node dst; false when a hop joins routers that no link
// joins.
func (n *Network) platformRoute(src, dst int, out []int32) ([]int32, bool) {
	t := n.topo
	if n.limiter >= 0 {
		out = append(out, n.limiter+int32(src))
	}
	out = append(out, n.alias[t.InjectLink(src)])
	n.hops = n.cfg.Hops(src, dst, n.hops[:0])
	for i := 0; i+1 < len(n.hops); i += 2 {
		a, b := n.hops[i], n.hops[i+1]
		switch {
		case a == -1 && n.limiter >= 0:
			out = append(out, n.limiter+int32(b))
			continue
		case a == -2 && n.rlimiter >= 0:
			out = append(out, n.rlimiter+int32(b))
			continue
		case a < 0:
			continue
		}
		l := topology.NoLink
		for p := 0; p < t.NumPorts(a); p++ {
			if pr := t.Peer(a, p); pr.Kind == topology.PeerRouter && pr.ID == b {
				l = t.OutLink(a, p)
				break
			}
		}
		if l == topology.NoLink {
			return out, false
		}
		out = append(out, n.alias[l])
	}
	r, port := t.Attach(dst)
	out = append(out, n.alias[t.OutLink(r, port)])
	if n.limiter >= 0 {
		out = append(out, n.limiter+int32(dst))
	}
	return out, true
}

// topoRoute appends the topology links from node src to node dst to out.
func (n *Network) topoRoute(src, dst int, out []int32) ([]int32, bool) {
	t := n.topo
	st := &n.st // a field: a local would escape through the interface calls
	n.alg.Init(st, src, dst)
	inject := len(out)
	out = append(out, int32(t.InjectLink(src)))
	r, port := t.Attach(src)
	vc := 0
	for hop := 0; hop < n.maxHops; hop++ {
		if m := t.Medium(r); m != topology.NoLink {
			out = append(out, int32(m))
		}
		ch := n.alg.Route(r, port, vc, st, n.choices[:0])
		if len(ch) == 0 {
			return out, false
		}
		c := ch[0]
		if hop == 0 && n.nodeLane != nil {
			// The node's lane towards the port the flow leaves by.
			for k := n.nodeLane[src]; k < n.nodeLane[src+1]; k++ {
				if n.laneOut[k] == int32(c.Port) {
					out[inject] = n.lanes + k
				}
			}
		}
		l := t.OutLink(r, int(c.Port))
		if l == topology.NoLink {
			return out, false
		}
		out = append(out, int32(l))
		if c.Flags.Has(routing.Eject) {
			return out, true
		}
		p := t.Peer(r, int(c.Port))
		if p.Kind != topology.PeerRouter {
			return out, false
		}
		r, port, vc = p.ID, p.Port, int(c.VC)
	}
	return out, false
}

func (n *Network) allocFlow() int32 {
	if n.free >= 0 {
		i := n.free
		n.free = n.flows[i].id
		return i
	}
	if len(n.flows) == cap(n.flows) {
		n.growFlows()
	}
	n.flows = append(n.flows, flowRec{})
	n.fmark = append(n.fmark, 0)
	n.flevel = append(n.flevel, 0)
	n.bneck = append(n.bneck, -1)
	n.hpos = append(n.hpos, -1)
	return int32(len(n.flows) - 1)
}

// growFlows doubles the room of the flow slots and of their per-slot
// arrays at once. append's own growth, by a quarter once a slice is
// large, copies the records five times as often: at 65,536 ranks, where
// a quarter of a million flows start at one instant, 0.23 GB of copies
// the collector must catch up with, which raised the run's peak. The
// new arrays are advised as huge pages before they are written (see
// withRoom).
func (n *Network) growFlows() {
	c := max(2*cap(n.flows), 64)
	n.flows = withRoom(n.flows, c)
	n.fmark = withRoom(n.fmark, c)
	n.flevel = withRoom(n.flevel, c)
	n.bneck = withRoom(n.bneck, c)
	n.hpos = withRoom(n.hpos, c)
}

func (n *Network) freeFlow(i int32) {
	f := &n.flows[i]
	*f = flowRec{boff: f.boff, bcap: f.bcap, id: n.free, path: -1}
	n.free = i
}

// Send starts message m's flow: it waits its route latency, then shares.
func (n *Network) Send(m netmodel.Message) {
	now := n.h.Now()
	n.smp.event(now)
	n.inFlight++
	n.flying += m.Bytes
	n.smp.injected += m.Bytes
	if m.Src == m.Dst && n.loopback < 0 && !n.cfg.SelfRoute {
		arg := m.Bytes << 1
		if m.NotifyInjected {
			arg |= 1
		}
		n.h.Schedule(now, evLocal, m.ID, arg)
		return
	}
	fi := n.allocFlow()
	f := &n.flows[fi]
	f.id, f.notify, f.start, f.bytes = m.ID, m.NotifyInjected, now, m.Bytes
	f.seq = n.seq
	n.seq++
	var lat des.Time
	var bound, penalty float64
	f.path = -1
	if p := n.cachedPath(int(m.Src), int(m.Dst)); p != nil {
		f.path = n.routeAt[int(m.Src)*n.topo.NumNodes()+int(m.Dst)] - 1
		// A copy of the path's constraints into the slot's block, with
		// room for activate to lay their places in the links' lists
		// after them (copy: fewer instructions than a loop on CG's
		// torus paths).
		src := n.routeBuf[p.off : p.off+p.n]
		if int(f.bcap) < 2*len(src) {
			n.newBlock(f, len(src))
		}
		f.nl = int32(copy(n.blk.buf[f.boff:], src))
		f.nfwd = p.nfwd
		if !p.ok {
			n.unroutable++
		}
		routed := n.routed
		for _, l := range src[:p.nfwd] {
			routed[l]++
		}
		lat, bound, penalty = p.lat, p.bound, p.penalty
	} else {
		// Routed into scratch, then copied into the slot's block, given
		// once the room activate needs.
		r, ok := n.route(int(m.Src), int(m.Dst), n.scratch[:0])
		if !ok {
			n.unroutable++
			r = r[:0]
		}
		f.nfwd = int32(len(r))
		lat, bound, penalty = n.pathNumbers(r, true)
		if ok && n.cfg.CrossTraffic > 0 {
			r, _ = n.route(int(m.Dst), int(m.Src), r)
		}
		n.scratch = r
		if int(f.bcap) < 2*len(r) {
			n.newBlock(f, len(r))
		}
		f.nl = int32(copy(n.blk.buf[f.boff:], r))
	}
	latF, bwF := 1.0, 1.0
	if n.cfg.Factors != nil {
		latF, bwF = n.cfg.Factors(m.Bytes)
	}
	wait := des.Time(math.Round(float64(lat) * latF))
	if wait == 0 {
		penalty = 1 // SimGrid: a flow without latency starts at penalty 1
	}
	f.penalty, f.w = penalty, 1/penalty
	if n.fatW != nil && !n.sys.fatShare {
		n.noteFatPipes(f)
	}
	if math.IsInf(bound, 1) {
		bound = 0
	}
	f.bound, f.factor = bound, bwF
	f.remain = float64(m.Bytes + n.cfg.Envelope)
	f.finish = des.Never
	n.h.Schedule(now+wait, evActivate, fi, 0)
}

// noteFatPipes turns SimGrid's sharing of fatpipes on (system.fatShare)
// once flows of different penalties use one fatpipe, either way. Until
// then each fatpipe's flows have one penalty, so it fixes each of them
// at its bandwidth, the bound it is anyway (a flow crosses a backbone or
// a FATPIPE host link both ways, route and way back): the bound per flow
// gives the same rates, and the solve stays incremental. Once on, a
// re-solve takes the connected component and the memos rest (what they
// remember was solved the other way).
func (n *Network) noteFatPipes(f *flowRec) {
	for _, l := range n.flinks(f) {
		if !n.links[l].fatpipe {
			continue
		}
		switch w := n.fatW[l]; {
		case w == 0:
			n.fatW[l] = f.w
		case w != f.w:
			n.sys.fatShare = true
			n.sys.memo.off = true
			n.whole.off = true
			return
		}
	}
}

// Handle processes the network's events.
func (n *Network) Handle(e des.Event) {
	now := n.h.Now()
	n.smp.event(now)
	switch e.Kind {
	case evActivate:
		n.activate(e.Obj, now)
	case evSolve:
		n.solve(now)
	case evWake:
		if e.Arg != n.wakeGen {
			return // superseded by an earlier wake
		}
		n.wakeAt = des.Never
		n.complete(now)
	case evLocal:
		n.inFlight--
		n.delivered++
		n.smp.delivered++
		n.bytes += e.Arg >> 1
		n.flying -= e.Arg >> 1
		n.msgLat.Add(0)
		n.smp.msgLat.Add(0)
		if e.Arg&1 == 1 {
			n.h.Injected(e.Obj)
		}
		n.h.Delivered(e.Obj)
	}
}

// activate makes flow fi share its links from now on.
func (n *Network) activate(fi int32, now des.Time) {
	f := &n.flows[fi]
	f.last = now
	if f.nl == 0 || f.remain <= 0 {
		// Nothing to carry (or no route): done once the latency is paid,
		// without joining the links.
		for _, l := range n.flinks(f)[:f.nfwd] {
			n.routed[l]--
		}
		f.nl, f.nfwd = 0, 0
		f.finish = now
		n.heapPush(fi)
		n.wake()
		return
	}
	// The ledger's record of each link before its flows change, then
	// one pass over them: the element, the count of flows and the
	// pending change.
	// The links and their places in one block, side by side (Send gave
	// it the room): a flow's start and end, and the solver, read both,
	// and a slot reused for routes no longer than this one keeps the
	// block.
	links := n.flinks(f)
	pos := n.fpos(f)[:len(links)] // one bounds check here, none in the loop
	nfwd := int(f.nfwd)
	if n.ahead(len(links)) {
		n.accountAhead(links, now)
	}
	led, lks := &n.led, n.links
	buf, nb := led.buf, led.nbuf
	for k, l := range links {
		lk := &lks[l]
		// account's work, inlined and fused into this loop (one pass
		// over the links, no call, the change written into the
		// ledger's batch, which accountAhead made sure has room): a
		// link's record depends on that link alone, and a link listed
		// twice is accounted at its first listing, before it changes;
		// at its second it is accounted at this instant already.
		if now != lk.last {
			buf[nb] = change{t: now, load: lk.load, l: l, fwd: lk.fwd}
			nb++
			lk.last = now
		}
		if k < nfwd {
			lk.fwd++
		}
		// The pool is read anew at every link, as growElems may
		// move it: a copy held across the loop cost more (one more
		// value live across the loop's call).
		e := lk.en
		pos[k] = e
		if lk.ecap == 0 && e < inlineElems {
			lk.inl[e&(inlineElems-1)] = elem{fi, int32(k)} // masked: no bounds check
		} else {
			if e == lk.ecap || lk.ecap == 0 {
				n.growElems(lk) // full: its e elements moved
			}
			n.elp.buf[lk.eoff+e] = elem{fi, int32(k)}
		}
		lk.en = e + 1
		lk.used = true
	}
	led.nbuf = nb
	n.pending = append(n.pending, fi)
	n.flevel[fi] = math.Inf(1)
	n.setBneck(fi, -1)
	n.wholeActivate(fi)
	n.added = append(n.added, fi)
	if !n.solvePending {
		n.solvePending = true
		n.h.Schedule(now, evSolve, 0, 0)
	}
}

// complete finishes the flows due now, re-solves their neighbours and
// reports the deliveries.
func (n *Network) complete(now des.Time) {
	done := n.takeDue(now, n.done[:0])
	for _, fi := range done {
		n.detach(fi, now)
	}
	n.solve(now)
	// Free the slots before the callbacks, which may send again.
	ids := n.ids[:0]
	for _, fi := range done {
		f := &n.flows[fi]
		notify := int32(0)
		if f.notify {
			notify = 1
		}
		ids = append(ids, f.id, notify)
		lat := now - f.start
		n.msgLat.Add(lat)
		n.smp.msgLat.Add(lat)
		n.freeFlow(fi)
	}
	n.done, n.ids = done, ids
	for i := 0; i < len(ids); i += 2 {
		n.inFlight--
		n.delivered++
		n.smp.delivered++
		if ids[i+1] == 1 {
			n.h.Injected(ids[i])
		}
		n.h.Delivered(ids[i])
	}
}

// detach removes flow fi from its links.
func (n *Network) detach(fi int32, now des.Time) {
	f := &n.flows[fi]
	n.bytes += f.bytes
	n.flying -= f.bytes
	n.wholeDetach(fi)
	// Off its links: fixed at none (setBneck, folded into the loop).
	old := n.bneck[fi]
	n.bneck[fi] = -1
	links, pos := n.flinks(f), n.fpos(f)
	pos = pos[:len(links)] // one bounds check here, none in the loop
	if len(links) > 0 {
		n.pending = append(n.pending, fi)
	}
	nfwd, ct, v, routed := int(f.nfwd), n.cfg.CrossTraffic, f.value, n.routed
	lks, flows, fixedAt := n.links, n.flows, n.fixedAt
	// account's work, inlined and fused into this loop (see activate).
	if n.ahead(len(links)) {
		n.accountAhead(links, now)
	}
	led := &n.led
	buf, nb := led.buf, led.nbuf
	blk, elp := n.blk.buf, n.elp.buf
	for k, l := range links {
		lk := &lks[l]
		if now != lk.last {
			buf[nb] = change{t: now, load: lk.load, l: l, fwd: lk.fwd}
			nb++
			lk.last = now
		}
		if l == old {
			fixedAt[l]--
		}
		p := pos[k]
		last := lk.en - 1
		var moved elem
		if lk.ecap == 0 {
			// Both below inlineElems: masked, no bounds check.
			moved = lk.inl[last&(inlineElems-1)]
			lk.inl[p&(inlineElems-1)] = moved
		} else {
			moved = elp[lk.eoff+last]
			elp[lk.eoff+p] = moved
			if last == 0 {
				n.inlineAgain(lk)
			}
		}
		// Its place in the moved element's flow's pos, indexed in
		// the block directly (fewer instructions than slicing pos).
		mf := &flows[moved.f]
		blk[mf.boff+mf.nl+moved.k] = p
		lk.en = last
		c := 1.0
		if k < nfwd {
			lk.fwd--
			routed[l]--
		} else {
			c = ct
		}
		lk.load -= float64(c * v)
		if last == 0 {
			lk.load = 0 // no rounding residue on an idle link
		}
	}
	led.nbuf = nb
}

// accountAhead readies the ledger for the loops over a flow's links
// that write each link's change straight into the ledger's batch (at
// most one per link): when the batch has no room for them all, or
// samples are read at every change (no batches: ahead), it does
// account's work for every link at once, so that those loops find them
// all accounted at this instant. A link's record depends on that link
// alone, so accounting them all before any of them changes records the
// same as accounting each just before it changes; and the loops make
// no call, which keeps their values in registers.
// Its check is inlined at its callers (ahead), the loop is not.
func (n *Network) accountAhead(links []int32, now des.Time) {
	for _, l := range links {
		n.account(l, now)
	}
}

// ahead tells whether the loops over a flow's links must have
// accountAhead do account's work first.
func (n *Network) ahead(k int) bool { return !n.led.room(k) || n.smp.eager }

// coeff is how much of flow f's rate its element k consumes: all of it
// on the route, the crosstraffic share on the way back.
func (n *Network) coeff(f *flowRec, k int) float64 {
	if int32(k) < f.nfwd {
		return 1
	}
	return n.cfg.CrossTraffic
}

// account hands link l's measurements up to now to the ledger, before
// its load or its flows change; with samples, the link is then one the
// next sample measures. Its common cases are inlined into the loops over
// a flow's links that call it: a link accounted at this instant already
// (a flow starting or finishing, then the solve) needs nothing, and a
// change joins the ledger's batch.
func (n *Network) account(l int32, now des.Time) {
	if lk := &n.links[l]; now != lk.last || n.smp.eager {
		n.record(l, now)
	}
}

// record is account's change for the ledger.
func (n *Network) record(l int32, now des.Time) {
	if n.smp.eager {
		n.accountEager(l, now)
		return
	}
	lk := &n.links[l]
	lk.last = now
	if c := (change{t: now, load: lk.load, l: l, fwd: lk.fwd}); !n.led.push(c) {
		n.led.addSlow(c)
	}
}

// accountEager is account when samples are taken and read: every change
// lists its link for the next sample.
func (n *Network) accountEager(l int32, now des.Time) {
	n.smp.activateLink(l)
	lk := &n.links[l]
	if now == lk.last {
		return // accounted at this instant already: nothing to integrate
	}
	lk.last = now
	n.led.add(change{t: now, load: lk.load, l: l, fwd: lk.fwd})
}
