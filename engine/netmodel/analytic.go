package netmodel

import (
	"fmt"
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// Model is an analytic, contention-free network model: the time a
// message takes depends only on its size and its distance.
type Model interface {
	// Name returns the model's name.
	Name() string
	// Latency is the time from the moment a message starts leaving its
	// source until its destination has it, over hops links (hops ≥ 1).
	Latency(bytes int64, hops int) des.Time
	// Occupancy is how long a message keeps its source's injection port
	// busy: the gap before the next message can start when injections
	// are serialised.
	Occupancy(bytes int64) des.Time
	// Serialized reports whether the model queues the messages leaving
	// one node behind each other (LogGOPS's g and G) even when the engine
	// does not ask for it.
	Serialized() bool
}

// Analytic is the Network of an analytic Model: each message costs one
// delivery event (two when its injection must be reported). Messages
// between ranks on the same node take no time.
type Analytic struct {
	model     Model
	dist      Distance
	serialize bool
	h         Host
	// nicFree is when each node's injection port is next free, for the
	// nodes that have sent so far: it grows on demand, as a topology of
	// millions of nodes may carry the messages of a few ranks.
	nicFree []des.Time
	// hops caches dist's hops between the nodes of a small world (up to
	// hopTabNodes), filled as pairs first talk: a message costs one load
	// rather than the topology's coordinate arithmetic. hopUnknown marks
	// a pair not yet seen.
	hops     []uint16
	hopNodes int
	// lat caches the model's Latency by message size and hops (see
	// latency).
	lat       [latSlots]latEntry
	inFlight  int
	delivered uint64
	bytes     int64
	// flying is the payload of the messages in flight.
	flying int64
}

// Event kinds of the analytic network.
const (
	evDeliver uint8 = iota
	evInjected
)

// hopTabNodes bounds the worlds whose hops Analytic caches: the table
// holds nodes² entries (128 KiB at the bound).
const hopTabNodes = 256

const hopUnknown = math.MaxUint16

// latSlots is the number of (size, hops) pairs whose latency Analytic
// keeps (a power of two; 6 KiB).
const latSlots = 256

// latEntry is one cached latency; hops 0 marks an empty slot (latency is
// asked for routes of at least one hop only).
type latEntry struct {
	bytes int64
	hops  int
	t     des.Time
}

// latency returns the model's Latency(bytes, hops) for hops ≥ 1, from a
// direct-mapped cache of the pairs last asked for. A Model's latency is a
// function of its two arguments (its parameters are fixed once the
// network is built), so the cache returns what the model would; a trace's
// messages take few sizes over few distances (the 256-rank SimGrid
// stencil on its 16×16 torus: a handful), and a hit costs a hash and a
// compare instead of the model's route, factors and rounding (CM02:
// four calls).
func (a *Analytic) latency(bytes int64, hops int) des.Time {
	h := (uint64(bytes)*0x9e3779b97f4a7c15 + uint64(hops)*0xff51afd7ed558ccd) >> 56
	e := &a.lat[h&(latSlots-1)]
	if e.bytes == bytes && e.hops == hops {
		return e.t
	}
	t := a.model.Latency(bytes, hops)
	*e = latEntry{bytes: bytes, hops: hops, t: t}
	return t
}

// NewAnalytic returns a network of nodes nodes (a hint: the per-node state
// grows with the nodes that send) driven by model over the
// distances dist. serialize makes every node's messages leave one after
// the other (each holding the port for the model's Occupancy), as the
// engine's inject mode needs; models that serialise by themselves do it
// regardless.
func NewAnalytic(model Model, dist Distance, nodes int, serialize bool) *Analytic {
	a := &Analytic{
		model: model, dist: dist,
		serialize: serialize || model.Serialized(),
		nicFree:   make([]des.Time, 0, min(max(nodes, 0), 1024)),
	}
	if nodes > 0 && nodes <= hopTabNodes {
		a.hopNodes = nodes
		a.hops = make([]uint16, nodes*nodes)
		for i := range a.hops {
			a.hops[i] = hopUnknown
		}
	}
	return a
}

// hopsOf returns the hops from node src to node dst.
func (a *Analytic) hopsOf(src, dst int) int {
	if uint(src) >= uint(a.hopNodes) || uint(dst) >= uint(a.hopNodes) {
		return a.dist.Hops(src, dst)
	}
	p := &a.hops[src*a.hopNodes+dst]
	if *p == hopUnknown {
		h := a.dist.Hops(src, dst)
		if h < 0 || h >= hopUnknown {
			return h // not worth a table entry
		}
		*p = uint16(h)
	}
	return int(*p)
}

// Name returns the model's name.
func (a *Analytic) Name() string { return a.model.Name() }

// Model returns the analytic model.
func (a *Analytic) Model() Model { return a.model }

// Attach connects the network to the engine.
func (a *Analytic) Attach(h Host) { a.h = h }

// Send computes m's injection and arrival times and schedules them.
func (a *Analytic) Send(m Message) {
	now := a.h.Now()
	start := now
	hops := a.hopsOf(int(m.Src), int(m.Dst))
	var occ des.Time
	// The occupancy matters only to a serialised port or a reported
	// injection: a contention-free model's message skips computing it.
	if hops > 0 && (a.serialize || m.NotifyInjected) {
		occ = a.model.Occupancy(m.Bytes)
		if a.serialize {
			if n := int(m.Src) + 1; n > len(a.nicFree) {
				a.nicFree = append(a.nicFree, make([]des.Time, n-len(a.nicFree))...)
			}
			start = max(now, a.nicFree[m.Src])
			a.nicFree[m.Src] = des.Add(start, occ)
		}
	}
	arrive := start
	if hops > 0 {
		arrive = des.Add(arrive, a.latency(m.Bytes, hops))
	}
	a.inFlight++
	a.flying += m.Bytes
	if m.NotifyInjected {
		a.h.Schedule(des.Add(start, occ), evInjected, m.ID, 0)
	}
	a.h.Schedule(arrive, evDeliver, m.ID, m.Bytes)
}

// Handle delivers a message or reports its injection.
func (a *Analytic) Handle(e des.Event) {
	switch e.Kind {
	case evDeliver:
		a.inFlight--
		a.delivered++
		a.bytes += e.Arg
		a.flying -= e.Arg
		a.h.Delivered(e.Obj)
	case evInjected:
		a.h.Injected(e.Obj)
	}
}

// InFlight returns the number of messages not yet delivered.
func (a *Analytic) InFlight() int { return a.inFlight }

// Metrics reports the delivery counters.
func (a *Analytic) Metrics(m *Metrics) {
	m.Delivered = a.delivered
	m.Bytes = a.bytes
	m.InFlight, m.BytesInFlight = a.inFlight, a.flying
	if a.h != nil {
		m.Time = a.h.Now().Seconds()
	}
}

// Explain returns nothing: an analytic network always delivers.
func (a *Analytic) Explain() []string { return nil }

// SendOverhead returns the model's sender CPU overhead, if it has one.
func (a *Analytic) SendOverhead(bytes int64) des.Time {
	if o, ok := a.model.(Overheads); ok {
		return o.SendOverhead(bytes)
	}
	return 0
}

// RecvOverhead returns the model's receiver CPU overhead, if it has one.
func (a *Analytic) RecvOverhead(bytes int64) des.Time {
	if o, ok := a.model.(Overheads); ok {
		return o.RecvOverhead(bytes)
	}
	return 0
}

// Estimate returns the time of one message of the given size between
// neighbours: its one-hop latency plus the models' CPU overheads.
func (a *Analytic) Estimate(bytes int64) des.Time {
	return des.Add(des.Add(a.model.Latency(bytes, 1), a.SendOverhead(bytes)), a.RecvOverhead(bytes))
}

// perByte returns n bytes × t picoseconds per byte, rounded to the nearest
// picosecond, or des.Never past the end of simulated time: the models'
// times add and multiply with des.Add and des.Mul, so a message too slow
// to fit ends at des.Never, which the kernel refuses (the run stops with
// an error) instead of wrapping.
func perByte(n int64, t float64) des.Time {
	if n <= 0 || t == 0 {
		return 0
	}
	return des.FromPS(float64(n) * t)
}

// ceilDiv returns ⌈a/b⌉ for a ≥ 0, b > 0.
func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }

// Switching is a PUPPET switching technique.
type Switching uint8

// Switching techniques (PUPPET thesis, Table 3.1).
const (
	StoreAndForward Switching = iota
	CutThrough
	Circuit
	Wormhole
)

var switchingNames = [...]string{
	StoreAndForward: "store-and-forward",
	CutThrough:      "cut-through",
	Circuit:         "circuit",
	Wormhole:        "wormhole",
}

// String returns the technique's name as the --switching flag spells it.
func (s Switching) String() string {
	if int(s) < len(switchingNames) {
		return switchingNames[s]
	}
	return fmt.Sprintf("switching(%d)", uint8(s))
}

// ParseSwitching returns the technique named s (also "saf", "packet",
// "vct").
func ParseSwitching(s string) (Switching, error) {
	switch s {
	case "store-and-forward", "saf", "packet":
		return StoreAndForward, nil
	case "cut-through", "vct", "virtual-cut-through":
		return CutThrough, nil
	case "circuit":
		return Circuit, nil
	case "wormhole":
		return Wormhole, nil
	}
	return 0, fmt.Errorf("unknown switching %q (expected store-and-forward, cut-through, circuit or wormhole)", s)
}

// Puppet is the network model of the PUPPET thesis (Barry, 1996). A link
// carries k bytes in t(k) = i·⌈k/p⌉ + k·t1 (i + k·t1 without packets);
// over d links a message of s bytes takes, without contention,
// store-and-forward d·t(s), virtual cut-through d·t(h) + t(s), circuit
// switching d·t(c) + t(s) with the control packet c = h, and wormhole
// (d − 1 + ⌈s/f⌉)·t(f). A message of 0 bytes still pays for one packet
// and one flit.
type Puppet struct {
	Switching Switching
	// Startup is i, the start-up time per packet.
	Startup des.Time
	// PerByte is t1 in picoseconds per byte.
	PerByte float64
	// PacketSize is p in bytes; 0 means unpacketised (p = ∞).
	PacketSize int64
	// Header is h, the header of cut-through and the control packet of
	// circuit switching, in bytes.
	Header int64
	// Flit is f, the flit size of wormhole switching, in bytes.
	Flit int64
}

// Name returns "puppet".
func (p *Puppet) Name() string { return "puppet" }

// Link returns t(k), the time one link takes to carry k bytes.
func (p *Puppet) Link(k int64) des.Time {
	packets := int64(1)
	if p.PacketSize > 0 && k > 0 {
		packets = ceilDiv(k, p.PacketSize)
	}
	return des.Add(des.Mul(packets, p.Startup), perByte(k, p.PerByte))
}

// Latency returns the no-contention latency of Table 3.1.
func (p *Puppet) Latency(s int64, d int) des.Time {
	if d <= 0 {
		return 0
	}
	D := int64(d)
	switch p.Switching {
	case CutThrough, Circuit:
		return des.Add(des.Mul(D, p.Link(p.Header)), p.Link(s))
	case Wormhole:
		f := max(p.Flit, 1)
		flits := max(ceilDiv(s, f), 1)
		return des.Mul(D-1+flits, p.Link(f))
	}
	return des.Mul(D, p.Link(s))
}

// Occupancy is the time the message holds the first link.
func (p *Puppet) Occupancy(s int64) des.Time {
	if p.Switching == Wormhole {
		f := max(p.Flit, 1)
		return des.Mul(max(ceilDiv(s, f), 1), p.Link(f))
	}
	return p.Link(s)
}

// Serialized returns false: PUPPET ignores contention.
func (p *Puppet) Serialized() bool { return false }

// LogGOPS is the LogGOPS model (Hoefler et al., as in LogGOPSim): per
// message of s bytes the sender's CPU is busy o + (s−1)·O, its network
// interface g + (s−1)·G, the first byte arrives L after the message
// leaves, and the receiver's CPU is busy o + max((s−1)·O, (s−1)·G) once
// the message has arrived, which covers the time the rest of the bytes
// take to stream in. Messages leaving one node are serialised by g and
// G. S, the eager limit, is applied by the engine.
type LogGOPS struct {
	// L is the latency, Overhead o and Gap g.
	L, Overhead, Gap des.Time
	// PerByteGap is G and PerByteOverhead O, in picoseconds per byte.
	PerByteGap, PerByteOverhead float64
}

// Name returns "loggops".
func (l *LogGOPS) Name() string { return "loggops" }

func (l *LogGOPS) rest(s int64) int64 { return max(s-1, 0) }

// Latency returns L, the first byte's flight, whatever the distance.
func (l *LogGOPS) Latency(s int64, d int) des.Time { return l.L }

// Occupancy returns g + (s−1)·G.
func (l *LogGOPS) Occupancy(s int64) des.Time {
	return des.Add(l.Gap, perByte(l.rest(s), l.PerByteGap))
}

// Serialized returns true: g and G gap successive messages.
func (l *LogGOPS) Serialized() bool { return true }

// SendOverhead returns o + (s−1)·O.
func (l *LogGOPS) SendOverhead(s int64) des.Time {
	return des.Add(l.Overhead, perByte(l.rest(s), l.PerByteOverhead))
}

// RecvOverhead returns o + max((s−1)·O, (s−1)·G).
func (l *LogGOPS) RecvOverhead(s int64) des.Time {
	return des.Add(l.Overhead, max(perByte(l.rest(s), l.PerByteOverhead), perByte(l.rest(s), l.PerByteGap)))
}

// CM02 is SimGrid's CM02 network model on a star cluster (each host a
// private link of bandwidth Bandwidth and latency Latency to one switch)
// without contention: a message between two hosts crosses two links and
// takes 2·Latency + (s + Envelope)/Bandwidth; SMPI adds a 16-byte
// envelope to every message. With SMPI's size-dependent factors (the
// default "SMPI" network model of smpirun) the latency is multiplied by
// LatFactor and the bandwidth by BwFactor, both looked up at s + Envelope.
type CM02 struct {
	LinkLatency des.Time
	// PerByte is 1/bandwidth, in picoseconds per byte.
	PerByte  float64
	Envelope int64
	// BwFactor and LatFactor are SMPI's correction factors; nil is 1.
	BwFactor, LatFactor SizeFactors
	// TCPGamma is SimGrid's network/TCP-gamma, the largest TCP window in
	// bytes: a flow's rate is at most TCPGamma/(2·route latency) (before
	// the latency factor); 0 is no bound.
	TCPGamma float64
	// Routed takes a route of d links of LinkLatency each (the distance
	// the topology gives) instead of the star's two: SimGrid's TORUS and
	// FAT_TREE clusters without contention.
	Routed bool
	// CrossTraffic is the share of a message's rate that crosses its
	// route backwards (SimGrid's network/crosstraffic); it loads the
	// links the message crosses both ways: the hosts' links when
	// SharedLinks (SHARED: one link both ways, on a star) and a SHARED
	// backbone. A message alone then gets 1/(1 + CrossTraffic) of such a
	// link.
	CrossTraffic float64
	SharedLinks  bool
	// Backbone, when set, is a link every message between hosts crosses
	// besides the hosts' links (a SimGrid cluster's bb_bw and bb_lat).
	Backbone *Backbone
	// LimiterPerByte, when positive, is 1/bandwidth (ps per byte) of
	// the limiter link of every host (SimGrid's limiter_link: SHARED, no
	// latency): a message crosses its source's and destination's, which
	// its own crosstraffic crosses too.
	LimiterPerByte float64
}

// Backbone is a star's backbone link as CM02 sees it.
type Backbone struct {
	Latency des.Time
	// PerByte is 1/bandwidth, in picoseconds per byte.
	PerByte float64
	// Shared: one capacity for both directions (SHARED); otherwise each
	// message is bounded by the bandwidth alone (FATPIPE).
	Shared bool
}

// Name returns "simgrid".
func (c *CM02) Name() string { return "simgrid" }

// Latency returns 2·lat·latfactor + (s + envelope)/(bw·bwfactor); the
// distance does not matter on a star.
func (c *CM02) Latency(s int64, d int) des.Time {
	lat := c.route(d)
	if c.LatFactor != nil {
		lat = des.Time(math.Round(float64(lat) * c.LatFactor.At(s+c.Envelope)))
	}
	return des.Add(lat, c.transfer(s, d))
}

// route is the latency of a route between nodes at distance d.
func (c *CM02) route(d int) des.Time {
	lat := des.Mul(2, c.LinkLatency)
	if c.Routed {
		lat = des.Mul(int64(d), c.LinkLatency)
	}
	if c.Backbone != nil && d > 0 {
		lat = des.Add(lat, c.Backbone.Latency)
	}
	return lat
}

// Occupancy returns (s + envelope)/(rate·bwfactor), the rate being the
// bandwidth or, when lower, TCPGamma/(2·route latency) on a star.
func (c *CM02) Occupancy(s int64) des.Time { return c.transfer(s, 2) }

func (c *CM02) transfer(s int64, d int) des.Time {
	ps := c.PerByte
	if c.SharedLinks {
		ps *= 1 + c.CrossTraffic
	}
	if c.LimiterPerByte > 0 {
		ps = max(ps, c.LimiterPerByte*(1+c.CrossTraffic))
	}
	if bb := c.Backbone; bb != nil && d > 0 {
		b := bb.PerByte
		if bb.Shared {
			b *= 1 + c.CrossTraffic
		}
		ps = max(ps, b)
	}
	if r := c.route(d); c.TCPGamma > 0 && r > 0 {
		// The window bound in picoseconds per byte: 2·route/gamma.
		ps = max(ps, float64(2*r)/c.TCPGamma)
	}
	if c.BwFactor != nil {
		ps /= c.BwFactor.At(s + c.Envelope)
	}
	return perByte(s+c.Envelope, ps)
}

// Serialized returns false: SimGrid shares links rather than queueing.
func (c *CM02) Serialized() bool { return false }

// Hops returns the hops from node src to node dst (0 within a node,
// where a message takes no time).
func (a *Analytic) Hops(src, dst int) int { return a.hopsOf(src, dst) }

// Serializes reports whether a node's messages leave one after the other
// (the engine's inject mode, or a model such as LogGOPS): when it does
// not, a message sent at t from src reaches dst at t + Latency(bytes,
// hops) whatever else is in flight, which is what lets the engine
// compute a collective's messages in bulk.
func (a *Analytic) Serializes() bool { return a.serialize }

// Credit counts n messages of bytes in total as delivered, for messages
// whose times the engine computed without Send (a collective computed in
// bulk), so that Metrics counts them as Send would have.
func (a *Analytic) Credit(n uint64, bytes int64) {
	a.delivered += n
	a.bytes += bytes
}
