package replay

import (
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/engine/flow"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/packet"
	"github.com/tracesim/tracesim/engine/placement"
	"github.com/tracesim/tracesim/engine/platform"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// Machine is what a configuration builds for a run of a given number of
// ranks: the network's topology (nil for the complete graph of the
// analytic models), the node of every rank, and the network model.
type Machine struct {
	// Topology is the parsed topology, or nil.
	Topology topology.Topology
	// NodeOf places rank r on node NodeOf[r].
	NodeOf []int
	// Nodes is the number of nodes of the network.
	Nodes int
	// Network is the network model serving those nodes.
	Network netmodel.Network
	// Distance, when set, replaces the topology's distances for the
	// analytic models (a platform's routes within a host).
	Distance netmodel.Distance
}

// topologyOptions gives the topology's links the configured bandwidth and
// latency where the spec says nothing.
func (c *Config) topologyOptions() topology.Options {
	opt := topology.Options{Open: c.Open}
	if c.PerByte > 0 {
		lat := c.LinkLatency
		if c.Model == ModelFlow {
			// The flow model's links are SimGrid's: --latency each.
			lat = c.Latency
		}
		opt.Link = &topology.LinkProps{Bandwidth: linkBandwidth(c.PerByte), Latency: int64(lat)}
	}
	return opt
}

// linkBandwidth is the bandwidth in bytes per second of links of perByte
// picoseconds per byte: the rate the bandwidth setting prints for it
// (1.5GB/s, kept as 666.666667 ps per byte, gives 1.5e9, not
// 1e12/666.666667 = 1.4999999992e9), so that the topology a run prints
// says what the user typed. A per-byte time the setting did not round (a
// platform's) gives 1e12/perByte exactly.
func linkBandwidth(perByte float64) float64 {
	if r, err := units.ParseRate(formatBandwidth(perByte)); err == nil && r > 0 && perByteOf(r) == perByteOf(1e12/perByte) {
		return r
	}
	return 1e12 / perByte
}

// flowVCs is the number of virtual channels the flow model builds its
// routing with, whatever the vcs setting (the packet model's): flows use
// none, so the setting must not change a flow's route or make a routing
// invalid (vcs 1 left a dragonfly no default routing). Default's 2 keeps
// the default routings (dor on tori, minimal on dragonflies);
// flow.RoutingVCs raises it where a named routing needs more.
const flowVCs = 2

// ParseTopology parses the configured topology, or reads the platform
// file's; nil when neither is set.
func (c *Config) ParseTopology() (topology.Topology, error) {
	if c.Platform != "" {
		p, _, err := c.LoadPlatform()
		if err != nil {
			return nil, err
		}
		return p.Topology, nil
	}
	if strings.TrimSpace(c.Topology) == "" {
		return nil, nil
	}
	return topology.ParseWith(c.Topology, c.topologyOptions())
}

// validateMachine checks the topology, routing and placement settings.
func (c *Config) validateMachine() error {
	packetModel := c.Model == ModelPacket
	switch {
	case packetModel && (c.VCs < 1 || c.VCs > routing.MaxVCs):
		return fmt.Errorf("vcs: %d virtual channels (expected 1 to %d)", c.VCs, routing.MaxVCs)
	case packetModel && (c.Buffer < 1 || c.Buffer > packet.MaxBuffer):
		return fmt.Errorf("buffer: %d packets (expected 1 to %d)", c.Buffer, packet.MaxBuffer)
	case c.Placement != "" && len(c.Map) > 0:
		return fmt.Errorf("placement: cannot be combined with map: both place every rank")
	case c.Placement != "" && c.RanksPerNode != 1:
		return fmt.Errorf("placement: cannot be combined with ranks-per-node %d (use placement block:%d)", c.RanksPerNode, c.RanksPerNode)
	case c.Model == ModelPacket && c.PerByte == 0:
		return fmt.Errorf("bandwidth: the packet model needs a finite bandwidth")
	}
	if err := c.validatePlatform(); err != nil {
		return err
	}
	// The errors of the three packages name the setting already
	// (topology "torus:0x8": …, routing "x" is not valid …, placement …).
	t, err := c.ParseTopology()
	if err != nil {
		return err
	}
	if !c.Model.Measured() || c.Routing == "" {
		return nil
	}
	if t == nil {
		// The packet model's default network: a crossbar, whatever size.
		t, _ = topology.Parse("crossbar:2")
	}
	vcs := c.VCs
	if c.Model == ModelFlow {
		vcs = flow.RoutingVCs(t, c.Routing, flowVCs)
	}
	if _, err := routing.Parse(c.Routing, t, routing.Options{VCs: vcs}); err != nil {
		return err
	}
	return nil
}

// Machine builds the topology, the placement and the network of a run of
// ranks ranks. Without a topology the analytic models see the complete
// graph of the nodes the placement uses and the packet and flow models a
// crossbar of them (for the flow model, SimGrid's star cluster); with one, ranks are placed on its nodes (Placement, else
// RanksPerNode ranks per node in rank order, or Map) and the analytic
// models use its distances (Topology.Hops) unless Hops is set. OnSample
// receives the packet and flow models' metrics samples (nil: none). c must be
// valid (Validate).
func (c *Config) Machine(ranks int, onSample func(*netmodel.Sample)) (*Machine, error) {
	m := &Machine{}
	t, err := c.ParseTopology()
	if err != nil {
		return nil, err
	}
	plat, slots, err := c.LoadPlatform()
	if err != nil {
		return nil, err
	}
	if plat != nil {
		t = plat.Topology
	}
	m.Topology = t
	nodes := c.Nodes(ranks)
	if t != nil {
		nodes = t.NumNodes()
	} else if c.Placement != "" {
		nodes = ranks
	}
	var p *placement.Placement
	switch {
	case plat != nil:
		nodeOf, err := plat.Place(slots, ranks)
		if err != nil {
			return nil, err
		}
		if err := sharedHosts(plat, nodeOf, c.Model); err != nil {
			return nil, err
		}
		switch {
		case plat.Routes != nil:
			m.Distance = explicitRoutes{plat.Routes}
		case plat.Topology.Kind() == topology.KindCrossbar:
			m.Distance = starRoutes{t: t, oneLink: plat.Sharing != platform.SplitDuplex}
		}
		p, err = placement.Map(ranks, nodes, nodeOf)
		if err != nil {
			return nil, err
		}
	case c.Placement != "":
		p, err = placement.ParseWith(c.Placement, ranks, nodes, placement.Options{Open: c.Open, Seed: &c.Seed})
	case t == nil:
		// The engine's own placement, on as many nodes as it needs.
	case len(c.Map) > 0:
		p, err = placement.Map(ranks, nodes, c.Map)
	default:
		p, err = placement.Block(ranks, nodes, c.RanksPerNode)
	}
	if err != nil {
		return nil, err
	}
	if p != nil {
		m.NodeOf = p.NodeOf()
	} else {
		m.NodeOf = make([]int, ranks)
		for r := range m.NodeOf {
			m.NodeOf[r] = c.NodeOf(r)
		}
	}
	if t == nil && p != nil {
		nodes = 0
		for _, n := range m.NodeOf {
			nodes = max(nodes, n+1)
		}
	}
	m.Nodes = nodes
	if !c.Model.Measured() {
		var dist netmodel.Distance
		if t != nil {
			dist = t
		}
		if m.Distance != nil {
			dist = m.Distance
		}
		m.Network = c.Network(nodes, dist)
		return m, nil
	}
	if t == nil {
		t, err = topology.ParseWith(fmt.Sprintf("crossbar:%d", nodes), c.topologyOptions())
		if err != nil {
			return nil, err
		}
		m.Topology = t
	}
	if c.Model == ModelFlow {
		fc := flow.Config{
			Topology: t, Routing: c.Routing, VCs: flowVCs, Envelope: c.Envelope,
			CrossTraffic: c.CrossTraffic, TCPGamma: float64(c.TCPGamma), WeightS: float64(c.WeightS),
			SamplePeriod: c.SamplePeriod, OnSample: onSample, Seed: c.Seed,
		}
		bw, lat, err := c.SizeFactors()
		if err != nil {
			return nil, err
		}
		if bw != nil || lat != nil {
			env := c.Envelope
			// SMPI looks the factors up at the size with its envelope.
			fc.Factors = func(bytes int64) (float64, float64) {
				return lat.At(bytes + env), bw.At(bytes + env)
			}
		}
		if plat != nil {
			platformFlow(&fc, plat)
		}
		fn, err := flow.New(fc)
		if err != nil {
			return nil, err
		}
		m.Network = fn
		return m, nil
	}
	pn, err := packet.New(packet.Config{
		Topology: t, Routing: c.Routing, VCs: c.VCs, Buffer: c.Buffer,
		PacketSize: c.PacketSize, Header: c.Header, RouterDelay: c.RouterDelay,
		WaitThreshold: c.WaitThreshold, SamplePeriod: c.SamplePeriod, OnSample: onSample, Seed: c.Seed,
	})
	if err != nil {
		return nil, err
	}
	m.Network = pn
	return m, nil
}
