package replay

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/collective"
	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/tracefmt"
)

// Mode is a replay mode (INSEE, seed 000 §4).
type Mode uint8

// Replay modes.
const (
	// Inject replays only the sends, each rank handing its messages to
	// the network as fast as the network accepts them: it measures how
	// fast the network clears the workload.
	Inject Mode = iota
	// Causal replays sends and receives in recorded order; a receive
	// blocks until its message is delivered; computation takes no time.
	Causal
	// Predict is Causal plus the computation: the gaps between MPI calls
	// of a timed trace, or the compute amounts of an untimed one.
	Predict
)

// SendMode forces the completion semantics of every send (PUPPET).
type SendMode uint8

// Send modes.
const (
	// SendAuto follows MPI: sends below the eager threshold are buffered,
	// larger ones use the rendezvous protocol, and synchronous sends
	// (MPI_Ssend) complete when matched.
	SendAuto SendMode = iota
	// SendBuffered completes every send when it is issued.
	SendBuffered
	// SendSynchronous completes every send when its receive completes.
	SendSynchronous
	// SendNoSpace completes every send when its message has arrived.
	SendNoSpace
	// SendRecorded is SendAuto, except that a blocking send of the
	// threshold or more that the recorded run completed before its
	// receive was posted (its MPI buffered it: MPICH and Open MPI over
	// TCP buffer far beyond 64 KiB) is replayed as buffered. A trace
	// that completed then does not deadlock for a protocol its MPI did
	// not use. Untimed and streamed traces record no such times: auto.
	SendRecorded
)

// AnySource says how wildcard receives match (seed 000 §5.2).
type AnySource uint8

// Wildcard policies.
const (
	// AnyRecorded matches a wildcard receive with the sender the trace
	// recorded: always consistent with the trace.
	AnyRecorded AnySource = iota
	// AnyFree lets any sender match; records that become inconsistent
	// with the trace are reported.
	AnyFree
	// AnyAuto is AnyFree for a trace whose wildcard receives carry no
	// recorded sender (tracefmt.AttrUnrecordedSources), else AnyRecorded.
	AnyAuto
)

// resolveAnySource turns AnyAuto into the policy for trace t, and says
// why when it chose AnyFree.
func (c *Config) resolveAnySource(t *tracefmt.Trace) string {
	if c.AnySource != AnyAuto {
		return ""
	}
	n, ok := t.Attr(tracefmt.AttrUnrecordedSources)
	if !ok {
		c.AnySource = AnyRecorded
		return ""
	}
	c.AnySource = AnyFree
	if n == "" {
		return "" // a streamed trace: Sim.settleAnySource tells
	}
	return anyFreeNote(n)
}

// anyFreeNote says why any-source auto chose free for a trace with n
// wildcard receives that record no sender.
func anyFreeNote(n string) string {
	return "any-source free: the trace's " + n + " wildcard receives record no sender (SimGrid -555), so they match whichever message comes first; --any-source recorded replays the senders the reader guessed"
}

// EagerStart says when the data of an eager message starts to move.
type EagerStart uint8

// Eager start policies.
const (
	// EagerAuto is EagerAtMatch for the simgrid model, EagerAtSend
	// otherwise.
	EagerAuto EagerStart = iota
	// EagerAtSend sends eager data when the send is issued, as MPI
	// implementations do.
	EagerAtSend
	// EagerAtMatch starts every transfer when both the send and the
	// receive are posted, as SimGrid's SMPI does.
	EagerAtMatch
)

// Handshake is the control traffic of the rendezvous protocol.
type Handshake uint8

// Rendezvous handshakes.
const (
	// HandshakeNone starts a rendezvous transfer as soon as both sides
	// are posted, with no control messages.
	HandshakeNone Handshake = iota
	// HandshakeRTSCTS sends a request-to-send through the network,
	// answered by a clear-to-send once the receive is posted, before the
	// data.
	HandshakeRTSCTS
)

// ModelKind names a network model.
type ModelKind uint8

// Network models.
const (
	ModelPuppet ModelKind = iota
	ModelLogGOPS
	ModelSimGrid
	// ModelPacket is the packet-level network of engine/packet: virtual
	// cut-through routers on Config.Topology, with contention.
	ModelPacket
	// ModelFlow is the flow-level network of engine/flow: SimGrid CM02's
	// max-min bandwidth sharing on Config.Topology (a star cluster
	// without one).
	ModelFlow
)

// Measured reports whether the model runs on a topology whose links it
// measures (metrics samples, link heatmaps): the packet and flow models.
func (m ModelKind) Measured() bool { return m == ModelPacket || m == ModelFlow }

// CollMode says how collective events are replayed.
type CollMode uint8

// Collective modes.
const (
	// CollExpand expands each collective into point-to-point messages.
	CollExpand CollMode = iota
	// CollAnalytic costs each collective as (latency + size/bandwidth) ×
	// factor after the ranks it depends on have arrived.
	CollAnalytic
)

// CPUFrom says where the computation of a timed trace comes from.
type CPUFrom uint8

// Computation sources.
const (
	// CPUAuto uses the trace's compute events when it has any, else the
	// gaps between MPI calls.
	CPUAuto CPUFrom = iota
	// CPUGaps uses the time between the end of one MPI call and the start
	// of the next.
	CPUGaps
	// CPUEvents uses the compute events only.
	CPUEvents
)

// numCollOps is the number of collective operations tracefmt defines.
const numCollOps = int(tracefmt.OpExscan) + 1

// Config describes the simulated machine and how the trace is replayed.
// Its zero value is not useful: start from Default. Every field has a
// setting (see Settings) with the same name as its command-line flag and
// configuration-file key, except Open.
type Config struct {
	// Open opens the files the configuration names: the graph and map
	// files of "file:" topology and placement specs, and for LoadFile the
	// configuration file itself. It is not a setting (Encode and Decode
	// ignore it). Nil opens them by path from the working directory
	// (userfile.OS); a server sets one confined to its library. Whatever
	// opens them, they must be regular files within the size limits of
	// package userfile.
	Open userfile.Opener

	Mode Mode
	// Seed seeds the simulation's random source.
	Seed uint64

	// CPUSpeed converts work (flops) to time, flops per second.
	CPUSpeed float64
	// CPUScale multiplies every computation time; 0 is an infinitely
	// fast CPU.
	CPUScale float64
	CPUFrom  CPUFrom
	// Cores is the number of cores of each node: up to Cores ranks of a
	// node compute at once at full speed; more share them by processor
	// sharing (SimGrid's multicore hosts).
	Cores int
	// RanksPerNode places ranks k per node in rank order; ranks of one
	// node share its CPU by processor sharing.
	RanksPerNode int
	// Map places rank j on node Map[j mod len(Map)] (PUPPET's "map P1 …
	// Pn"); empty means RanksPerNode.
	Map []int

	Send           SendMode
	EagerThreshold int64
	EagerStart     EagerStart
	Handshake      Handshake
	AnySource      AnySource

	Collectives CollMode
	// CollAlg is the algorithm of each collective operation, indexed by
	// tracefmt.CollOp; Auto picks MPICH's.
	CollAlg    [numCollOps]collective.Algorithm
	CollFactor collective.Factor

	Model ModelKind
	// Hops is the distance between distinct nodes; 0 means the topology's
	// (one hop on the complete graph used until a topology is set).
	Hops      int
	Switching netmodel.Switching
	// Startup is PUPPET's i, per packet.
	Startup des.Time
	// PerByte is the link time per byte in picoseconds (1/bandwidth):
	// PUPPET's t1 and the bandwidth of the simgrid model.
	PerByte float64
	// Latency is the latency of one link (simgrid model).
	Latency des.Time
	// PacketSize is PUPPET's p in bytes, 0 for unpacketised messages.
	PacketSize int64
	Header     int64
	Flit       int64
	// Envelope is added to every message by the simgrid and flow models.
	Envelope int64
	// CrossTraffic is the share of each flow's rate the flow model also
	// puts on its reverse route (SimGrid's network/crosstraffic: 0.05).
	CrossTraffic float64

	// LogGOPS parameters: L, o, g in time; G and O in picoseconds per
	// byte; S the eager limit in bytes (0: EagerThreshold).
	L, O, Gap   des.Time
	G, OPerByte float64
	S           int64

	// Topology is the network's topology spec (engine/topology, e.g.
	// "torus:8x8"): the packet model's network, the analytic models'
	// distances. Empty means the complete graph (a crossbar of the
	// ranks' nodes for the packet model).
	Topology string
	// Routing names the packet model's routing algorithm
	// (engine/routing); empty means the topology's default.
	Routing string
	// Placement is a placement spec (engine/placement, e.g. "block:4",
	// "random:seed=7"); empty means RanksPerNode (or Map).
	Placement string
	// VCs is the number of virtual channels per port and Buffer the
	// capacity of each one's input buffer in packets (packet model).
	VCs    int
	Buffer int
	// RouterDelay is the router pipeline delay, LinkLatency the latency
	// of the topology's links whose spec gives none (packet model; their
	// bandwidth comes from PerByte).
	RouterDelay des.Time
	LinkLatency des.Time
	// SamplePeriod is the period of the packet model's metrics samples
	// (0: none); WaitThreshold the wait in a buffer above which a packet
	// counts as a long wait.
	SamplePeriod  des.Time
	WaitThreshold des.Time

	// Platform is a SimGrid platform file giving the topology, the links
	// and the CPU speed (engine/platform); Hostfile an smpirun hostfile
	// placing the ranks on its hosts. Factors names SMPI's size-dependent
	// bandwidth and latency factors: "none", "smpi" or a file.
	Platform string
	Hostfile string
	Factors  string
	// TCPGamma is SimGrid's network/TCP-gamma in bytes (the simgrid
	// model's rate bound gamma/(2·route latency)); 0 is none.
	TCPGamma int64
	// WeightS is SimGrid's network/weight-S in bytes: the flow model adds
	// WeightS/bandwidth for every link of a message's route to its
	// sharing penalty (SMPI's model: 8775; CM02: 0).
	WeightS int64

	// platformLinks is what the simgrid model needs of the platform's
	// links beyond one bandwidth and latency (set by Resolve, not a
	// setting).
	platformLinks cm02Links
	// nodeSpeeds is each node's CPU speed when a platform's hosts differ
	// (set by Resolve, not a setting); nil: all run at CPUSpeed.
	nodeSpeeds []float64
	// usage is what Unused needs to know of the platform (set by
	// Validate, not a setting).
	usage usage
}

// Default returns the default configuration: predict mode on the flow
// model (links shared by max-min fairness, as SimGrid's CM02) over a star
// of 10 Gb/s, 1 µs links (the topology's links when one is set), one rank
// per node at 1 Gflop/s, MPI send semantics with a 64 KiB eager
// threshold (sends the recorded run buffered replayed buffered:
// SendRecorded), expanded collectives with MPICH's algorithms. PUPPET's
// defaults: cut-through, 1 µs start-up. The packet model's: 2 VCs of 4
// packets, 20 ns routers, 10 ns links, samples every 10 µs, long waits
// above 1 µs.
func Default() Config {
	return Config{
		Mode:           Predict,
		Seed:           1,
		CPUSpeed:       1e9,
		CPUScale:       1,
		RanksPerNode:   1,
		Cores:          1,
		Send:           SendRecorded,
		EagerThreshold: 64 << 10,
		CollFactor:     collective.FactorLog2P,
		Model:          ModelFlow,
		AnySource:      AnyAuto,
		Switching:      netmodel.CutThrough,
		Startup:        des.Microsecond,
		PerByte:        800, // 10 Gb/s
		Latency:        des.Microsecond,
		Header:         16,
		Flit:           8,
		Envelope:       16,
		CrossTraffic:   0.05,
		L:              2500 * des.Nanosecond,
		O:              1500 * des.Nanosecond,
		Gap:            des.Microsecond,
		G:              6000, // 6 ns/B
		VCs:            2,
		Buffer:         4,
		RouterDelay:    20 * des.Nanosecond,
		LinkLatency:    10 * des.Nanosecond,
		SamplePeriod:   10 * des.Microsecond,
		WaitThreshold:  des.Microsecond,
		Factors:        "none",
		TCPGamma:       4194304,
	}
}

// Threshold returns the eager limit in force: LogGOPS's S when the
// LogGOPS model is selected and S is set, else EagerThreshold.
func (c *Config) Threshold() int64 {
	if c.Model == ModelLogGOPS && c.S > 0 {
		return c.S
	}
	return c.EagerThreshold
}

// eagerAtMatch resolves EagerStart.
func (c *Config) eagerAtMatch() bool {
	switch c.EagerStart {
	case EagerAtMatch:
		return true
	case EagerAtSend:
		return false
	}
	return c.Model == ModelSimGrid
}

// Nodes returns the number of nodes the placement uses for ranks ranks.
func (c *Config) Nodes(ranks int) int {
	if len(c.Map) > 0 {
		n := 0
		for _, p := range c.Map {
			n = max(n, p+1)
		}
		return n
	}
	k := max(c.RanksPerNode, 1)
	return (ranks + k - 1) / k
}

// NodeOf returns the node of rank r.
func (c *Config) NodeOf(r int) int {
	if len(c.Map) > 0 {
		return c.Map[r%len(c.Map)]
	}
	return r / max(c.RanksPerNode, 1)
}

// Network builds the analytic network the configuration describes for
// nodes nodes at the distances dist (a topology's; nil means the complete
// graph). Hops, when set, overrides the distances. In inject mode each
// node's messages leave one after the other.
func (c *Config) Network(nodes int, dist netmodel.Distance) netmodel.Network {
	if dist == nil || c.Hops > 0 {
		dist = netmodel.Complete{Fixed: c.Hops}
	}
	return netmodel.NewAnalytic(c.AnalyticModel(), dist, nodes, c.Mode == Inject)
}

// AnalyticModel returns the analytic model of the configuration.
func (c *Config) AnalyticModel() netmodel.Model {
	switch c.Model {
	case ModelLogGOPS:
		return &netmodel.LogGOPS{L: c.L, Overhead: c.O, Gap: c.Gap, PerByteGap: c.G, PerByteOverhead: c.OPerByte}
	case ModelSimGrid:
		// Validate has read the factors file; an error here means it
		// changed since, and the run goes on without factors.
		bw, lat, _ := c.SizeFactors()
		return &netmodel.CM02{LinkLatency: c.Latency, PerByte: c.PerByte, Envelope: c.Envelope, BwFactor: bw, LatFactor: lat, TCPGamma: float64(c.TCPGamma),
			Routed: c.Platform != "", CrossTraffic: c.CrossTraffic, SharedLinks: c.platformLinks.shared, Backbone: c.platformLinks.backbone,
			LimiterPerByte: c.platformLinks.limiterPerByte}
	}
	return &netmodel.Puppet{
		Switching: c.Switching, Startup: c.Startup, PerByte: c.PerByte,
		PacketSize: c.PacketSize, Header: c.Header, Flit: c.Flit,
	}
}

// Validate checks the settings against each other. Its errors name the
// setting (flag and configuration key) at fault.
func (c *Config) Validate() error {
	bad := func(key, format string, args ...any) error {
		return fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...))
	}
	switch {
	case c.Mode > Predict:
		return bad("mode", "unknown mode %d", c.Mode)
	case !(c.CPUSpeed > 0):
		return bad("cpu-speed", "must be positive, got %g flops/s", c.CPUSpeed)
	case !(c.CPUScale >= 0):
		return bad("cpu-scale", "must not be negative, got %g", c.CPUScale)
	case c.Cores < 1:
		return bad("cores", "must be at least 1, got %d", c.Cores)
	case c.RanksPerNode < 1:
		return bad("ranks-per-node", "must be at least 1, got %d", c.RanksPerNode)
	case len(c.Map) > 0 && c.RanksPerNode != 1:
		return bad("map", "cannot be combined with ranks-per-node %d: the map places every rank", c.RanksPerNode)
	case c.EagerThreshold < 0:
		return bad("eager-threshold", "must not be negative")
	case c.Hops < 0:
		return bad("hops", "must not be negative, got %d", c.Hops)
	case !(c.PerByte >= 0):
		return bad("bandwidth", "must be positive")
	case c.PacketSize < 0 || c.Header < 0 || c.Flit < 0 || c.Envelope < 0 || c.S < 0:
		return bad("packet-size", "sizes must not be negative")
	case c.Model == ModelPuppet && c.Switching == netmodel.Wormhole && c.Flit < 1:
		return bad("flit", "wormhole switching needs a flit of at least 1 B")
	case c.Model == ModelSimGrid && c.PerByte == 0:
		return bad("bandwidth", "the simgrid model needs a finite bandwidth")
	case c.Model == ModelFlow && c.PerByte == 0:
		return bad("bandwidth", "the flow model needs a finite bandwidth")
	case !(c.CrossTraffic >= 0) || c.CrossTraffic > 1:
		return bad("crosstraffic", "expected a share from 0 to 1, got %g", c.CrossTraffic)
	}
	for i, p := range c.Map {
		if p < 0 {
			return bad("map", "entry %d is node %d: nodes are numbered from 0", i, p)
		}
	}
	if err := c.validateMachine(); err != nil {
		return err
	}
	if _, _, err := c.SizeFactors(); err != nil {
		return err
	}
	for op, a := range c.CollAlg {
		if !collective.Applicable(tracefmt.CollOp(op), a) {
			var ok []string
			for _, b := range collective.Algorithms(tracefmt.CollOp(op)) {
				ok = append(ok, b.String())
			}
			return bad("coll-alg", "%s cannot use %s (choose %s)", tracefmt.CollOp(op), a, strings.Join(ok, ", "))
		}
	}
	return nil
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
