package netmodel

import (
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// Metrics is what a network reports in the engine's snapshots and, at the
// end of a run, in its results (the "network" object of `tracesim sim
// --json`). Analytic networks fill the first four counters only; the
// packet-level model (engine/packet) fills everything.
//
// Times are in seconds. A snapshot's Metrics is immutable once published:
// the slices are fresh for every call of Network.Metrics, and Topology and
// Layout are shared read-only values.
type Metrics struct {
	// Delivered counts the messages delivered so far, Bytes their
	// payload.
	Delivered uint64 `json:"delivered"`
	Bytes     int64  `json:"bytes"`
	// InFlight is the number of messages sent and not yet delivered,
	// BytesInFlight their payload (what the Simulate tab charts: a
	// count of messages says little when sizes range from 8 B to 8 MiB).
	InFlight      int   `json:"in_flight"`
	BytesInFlight int64 `json:"bytes_in_flight"`

	// Topology is the network the links and queues belong to; it is
	// immutable and safe for concurrent use (Link, Coords, Layout). Nil
	// for networks without a topology.
	Topology topology.Topology `json:"-"`
	// Layout is the drawing geometry of the routers, computed once per
	// run and shared by every snapshot (read-only).
	Layout *Layout `json:"-"`
	// Spec and Routing name the topology and the routing algorithm;
	// VCs is the number of virtual channels per port and Buffer the
	// capacity of each virtual channel's input buffer, in packets.
	Spec    string `json:"topology,omitempty"`
	Routing string `json:"routing,omitempty"`
	VCs     int    `json:"vcs,omitempty"`
	Buffer  int    `json:"buffer_packets,omitempty"`

	// Time is the simulated time of the measurement.
	Time float64 `json:"time_s"`
	// SamplePeriod is the metrics period (0: no periodic samples);
	// LastSample is the end of the latest sample period, to which the
	// per-period fields (LinkMetric.Utilisation, QueueMetric.SampleMean
	// and SampleMax, GroupMetric.Utilisation) refer.
	SamplePeriod float64 `json:"sample_period_s"`
	LastSample   float64 `json:"last_sample_s"`
	// Packets counts the packets delivered, PacketsInFlight those
	// created and not yet delivered, Hops the links crossed by packets
	// (injection and ejection links included).
	Packets         uint64 `json:"packets"`
	PacketsInFlight int    `json:"packets_in_flight"`
	Hops            uint64 `json:"packet_hops"`
	// PacketLatency is from a packet's creation at its source network
	// interface to the arrival of its tail at the destination;
	// MessageLatency from Send to the arrival of a message's last
	// packet.
	PacketLatency  LatencySummary `json:"packet_latency"`
	MessageLatency LatencySummary `json:"message_latency"`
	// LongWaits counts the packets that waited in a router's input
	// buffer longer than WaitThreshold beyond the router delay (hot
	// spots; per buffer in QueueMetric.LongWaits).
	WaitThreshold float64 `json:"wait_threshold_s"`
	LongWaits     uint64  `json:"long_waits"`
	// LevelShare, for fat trees, is the share of the injected bytes
	// whose route climbed to each switch level: LevelShare[l] for
	// routes whose highest switch is at level l (0: the leaf switch).
	LevelShare []float64 `json:"level_share,omitempty"`
	// Groups aggregates the links by kind and direction: "x+", "x-",
	// "y+", … for grids, "up0", "down1", … for fat trees, "local" and
	// "global" for dragonflies, and "inject" and "eject" (terminal
	// links) everywhere.
	Groups []GroupMetric `json:"groups,omitempty"`
	// Links has one entry per valid link id and direction, in id order.
	Links []LinkMetric `json:"links,omitempty"`
	// Queues has one entry per router input port and virtual channel, in
	// (router, port, VC) order.
	Queues []QueueMetric `json:"queues,omitempty"`
	// NICs has one entry per node: its injection queue.
	NICs []NICMetric `json:"nics,omitempty"`
}

// LatencySummary summarises latencies in seconds.
type LatencySummary struct {
	Count uint64  `json:"count"`
	Mean  float64 `json:"mean_s"`
	Max   float64 `json:"max_s"`
}

// Layout is the drawing geometry of a topology's routers, for heatmaps:
// the topology's Layout (style, dimension sizes, wraparound) plus every
// router's coordinates.
type Layout struct {
	topology.Layout
	// Stride is the number of coordinates per router.
	Stride int
	// Coords holds router r's coordinates at [r·Stride, (r+1)·Stride):
	// grid coordinates (x first) for rings, meshes, tori and hypercubes,
	// [level, index] for fat trees, [group, index] for dragonflies,
	// [router] otherwise.
	Coords []int32
}

// NewLayout computes t's drawing geometry: its Layout and every router's
// coordinates.
func NewLayout(t topology.Topology) *Layout {
	lay := &Layout{Layout: t.Layout()}
	var buf []int
	R := t.NumRouters()
	for r := 0; r < R; r++ {
		buf = t.Coords(r, buf[:0])
		if r == 0 {
			lay.Stride = len(buf)
			lay.Coords = make([]int32, 0, R*len(buf))
		}
		for _, c := range buf {
			lay.Coords = append(lay.Coords, int32(c))
		}
	}
	return lay
}

// RouterCoords returns router r's coordinates (a view into Coords).
func (l *Layout) RouterCoords(r int) []int32 {
	return l.Coords[r*l.Stride : (r+1)*l.Stride]
}

// LinkMetric measures one direction of one link.
type LinkMetric struct {
	// ID is the link's id in Metrics.Topology (topology.LinkID).
	ID int32 `json:"id"`
	// From and To are the link's ends: router numbers, or node numbers
	// when FromNode or ToNode is set (terminal links).
	From     int32 `json:"from"`
	To       int32 `json:"to"`
	FromNode bool  `json:"from_node,omitempty"`
	ToNode   bool  `json:"to_node,omitempty"`
	// Class is the topology's link class ("terminal", "network", "up",
	// "down", "local", "global", "medium"; a crossbar's medium is
	// "backbone"); Level is the dimension of a
	// grid link or the lower level of a fat-tree link; Dir is the
	// direction of a grid link along its dimension (+1, −1, or 0 for
	// the single link of a dimension of size 2).
	Class string `json:"class"`
	Level int32  `json:"level"`
	Dir   int8   `json:"dir"`
	// Bytes and Packets are what the link carried so far, headers
	// included.
	Bytes   int64  `json:"bytes"`
	Packets uint64 `json:"packets"`
	// Busy is the time the link spent transmitting so far.
	Busy float64 `json:"busy_s"`
	// Utilisation is the busy fraction over the last sample period (over
	// the whole run when there are no samples); MeanUtilisation over the
	// whole run.
	Utilisation     float64 `json:"utilisation"`
	MeanUtilisation float64 `json:"mean_utilisation"`
	// Flows is the number of flows crossing the link now, and
	// MeanFlows its time average over the last sample period (over the
	// run without samples): the flow model's measure of sharing.
	Flows     int32   `json:"flows,omitempty"`
	MeanFlows float64 `json:"mean_flows,omitempty"`
}

// QueueMetric measures one input buffer: a router port's virtual
// channel.
type QueueMetric struct {
	Router int32 `json:"router"`
	Port   int32 `json:"port"`
	VC     int32 `json:"vc"`
	// Capacity is the buffer's size in packets.
	Capacity int32 `json:"capacity"`
	// Cur and Max are occupancies in packets; Mean is the time-weighted
	// mean over the run. SampleMean and SampleMax cover the last sample
	// period.
	Cur        int32   `json:"cur"`
	Max        int32   `json:"max"`
	Mean       float64 `json:"mean"`
	SampleMean float64 `json:"sample_mean"`
	SampleMax  int32   `json:"sample_max"`
	// LongWaits counts the packets that waited here longer than the
	// threshold.
	LongWaits uint64 `json:"long_waits"`
}

// NICMetric measures one node's network interface.
type NICMetric struct {
	Node int32 `json:"node"`
	// Queued is the number of packets waiting to be injected (messages
	// handed to the network whose packets have not entered it), Max its
	// maximum; QueuedBytes their payload.
	Queued      int64 `json:"queued"`
	Max         int64 `json:"max"`
	QueuedBytes int64 `json:"queued_bytes"`
}

// GroupMetric aggregates a group of links (see Metrics.Groups).
type GroupMetric struct {
	Name  string `json:"name"`
	Links int    `json:"links"`
	Bytes int64  `json:"bytes"`
	// Utilisation is the mean over the group's links over the last
	// sample period, MeanUtilisation over the run.
	Utilisation     float64 `json:"utilisation"`
	MeanUtilisation float64 `json:"mean_utilisation"`
}

// Sample is one period of a network's metrics, handed to the sample
// callback for every period in which the network carried traffic (at the
// network's first event after the period, or when the run ends). The
// callback runs on the simulation goroutine and must not keep the Sample
// or its slices, which are reused.
type Sample struct {
	// Measures says which of the fields below the network measures; the
	// others are zero because the model has nothing to count there, not
	// because nothing happened, and writers of samples leave them out.
	Measures Measures
	// Time is the end of the period, Period its length.
	Time   des.Time
	Period des.Time
	// Delivered and Packets count the messages and packets delivered
	// during the period, InjectedBytes the payload that entered the
	// network; their latencies are summarised.
	Delivered      uint64
	Packets        uint64
	InjectedBytes  int64
	MessageLatency LatencySummary
	PacketLatency  LatencySummary
	// PacketsInFlight is the number of packets in the network at Time.
	PacketsInFlight int
	// LongWaits counts the packets that left a buffer during the period
	// after waiting longer than the threshold.
	LongWaits uint64
	// Utilisation is the mean busy fraction of the router-to-router
	// links (the flow model: of every link on a topology without router
	// links, such as its star), MaxUtilisation the largest of any link.
	Utilisation    float64
	MaxUtilisation float64
	// LevelShare is, for fat trees, the share of the bytes delivered in
	// the period per highest level reached (see Metrics.LevelShare).
	LevelShare []float64
	// Groups has every link group (see Metrics.Groups).
	Groups []GroupSample
	// Links lists the links that were busy during the period.
	Links []LinkSample
	// Queues lists the buffers that held a packet during the period.
	Queues []QueueSample
}

// Measures says what a network measures beyond what every measured
// network does (messages delivered and their latency, injected bytes,
// link and group bytes and utilisation): the packet model counts packets
// and buffers, the flow model the flows on each link.
type Measures uint8

// What a network measures.
const (
	// MeasurePackets: Sample.Packets, PacketsInFlight, PacketLatency and
	// LongWaits.
	MeasurePackets Measures = 1 << iota
	// MeasureQueues: Sample.Queues (router input buffers).
	MeasureQueues
	// MeasureFlows: LinkSample.Flows.
	MeasureFlows
)

// Measurer is implemented by networks that take periodic samples, to say
// what their samples measure (before the first one: the size of an
// output depends on it).
type Measurer interface {
	Measures() Measures
}

// GroupSample is one link group over one sample period.
type GroupSample struct {
	Name        string
	Bytes       int64
	Utilisation float64
}

// LinkSample is one link over one sample period.
type LinkSample struct {
	ID          int32
	Bytes       int64
	Utilisation float64
	// Flows is the time-mean number of flows on the link during the
	// period (flow model).
	Flows float64
}

// QueueSample is one buffer over one sample period: its occupancy at the
// end, its maximum and its time-weighted mean.
type QueueSample struct {
	Router, Port, VC int32
	Cur, Max         int32
	Mean             float64
}

// Finisher is implemented by networks that measure over time: the engine
// calls Finish once, when the run has ended, so that the last
// measurements (the last sample period) are taken.
type Finisher interface {
	Finish()
}

// Idler is implemented by networks whose state can stay constant for many
// sample periods without an event (the flow model: a flow carries on at
// its rate until something changes). When the engine stops at time t
// with no event before it, SampleUntil measures the periods that ended by
// t, so that a view paused in the middle of a long transfer sees it.
type Idler interface {
	SampleUntil(t des.Time)
}

// Staller is implemented by networks that can stall: when messages are in
// flight and nothing moves, Stall describes the buffers involved. The
// engine puts it in its deadlock report.
type Staller interface {
	Stall() *Stall
}

// Stall describes a network that stopped delivering while packets wait.
type Stall struct {
	// Waiting counts the packets that wait for buffer space (in routers
	// and network interfaces).
	Waiting int `json:"waiting_packets"`
	// Full lists the full input buffers (at most 256; FullCount counts
	// them all).
	Full      []Buffer `json:"full_buffers"`
	FullCount int      `json:"full_count"`
	// Cycle is a cycle of buffers whose head packets each wait for the
	// next buffer, the first repeated at the end; empty when the waits
	// do not form one.
	Cycle []Buffer `json:"cycle"`
}

// Buffer names one input buffer of a router.
type Buffer struct {
	Router int32 `json:"router"`
	Port   int32 `json:"port"`
	VC     int32 `json:"vc"`
	// Packets is the occupancy and Capacity the size, in packets.
	Packets  int32 `json:"packets"`
	Capacity int32 `json:"capacity"`
	// Name is "r3.p0/vc1"; Where says where it is in words ("router 3
	// at (3,0), port 0 (x+, from router 4), VC 1").
	Name  string `json:"name"`
	Where string `json:"where"`
}

// LatencyAcc accumulates latencies into a LatencySummary.
type LatencyAcc struct {
	n   uint64
	sum float64
	max des.Time
}

// Add counts one latency.
func (a *LatencyAcc) Add(t des.Time) {
	a.n++
	a.sum += float64(t)
	a.max = max(a.max, t)
}

// Summary returns the count, mean and maximum in seconds.
func (a *LatencyAcc) Summary() LatencySummary {
	if a.n == 0 {
		return LatencySummary{}
	}
	return LatencySummary{Count: a.n, Mean: a.sum / float64(a.n) / 1e12, Max: a.max.Seconds()}
}

// Ticker measures the sample period that ends at the given time; with
// span, everything since its previous sample, which may be many periods
// (see SampleClock).
type Ticker interface {
	Tick(end des.Time, span bool)
}

// maxQuiet is how many periods in a row with messages in flight but no
// network event (a message that takes hours to cross a slow link) Flush
// measures one by one; a longer stretch gets one sample, its average.
const maxQuiet = 1000

// SampleClock divides simulated time into the sample periods of a network
// that measures itself without events of its own: its state only changes
// at its events, so the sample of a period that ended at T can be taken at
// the network's first event after T, from the state it was in at T.
// Periods in which the network had no event and no message in flight are
// skipped.
type SampleClock struct {
	// Period is the length of a period; 0 disables the samples.
	Period des.Time
	next   des.Time
	dirty  bool
}

// NewSampleClock returns a clock of the given period (0: none).
func NewSampleClock(period des.Time) SampleClock {
	return SampleClock{Period: period, next: period}
}

// Flush measures (t.Tick) every period that ended at or before now, before
// the network changes at now; busy says whether messages are in flight.
//
// A stretch of more than maxQuiet periods without an event is measured as
// one sample spanning it, so that the number of samples stays bounded by
// the events rather than by the simulated time.
func (c *SampleClock) Flush(now des.Time, busy bool, t Ticker) {
	for c.Period > 0 && c.next <= now {
		if !c.dirty && !busy {
			c.next = (now/c.Period + 1) * c.Period
			return
		}
		if !c.dirty && (now-c.next)/c.Period >= maxQuiet {
			end := now / c.Period * c.Period
			t.Tick(end, true)
			c.next = end + c.Period
			return
		}
		t.Tick(c.next, false)
		c.dirty = false
		c.next += c.Period
	}
}

// Event flushes the finished periods and marks the current one active:
// the network calls it at each of its events.
func (c *SampleClock) Event(now des.Time, busy bool, t Ticker) {
	if c.Period > 0 {
		c.Flush(now, busy, t)
		c.dirty = true
	}
}

// Finish measures the last period once the simulation has ended at now:
// nothing changes afterwards.
func (c *SampleClock) Finish(now des.Time, busy bool, t Ticker) {
	c.Flush(now, busy, t)
	if c.Period > 0 && (c.dirty || busy) {
		t.Tick(c.next, false)
		c.dirty = false
		c.next += c.Period
	}
}
