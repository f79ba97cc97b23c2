package machine

import (
	"fmt"

	"github.com/tracesim/tracesim/engine/replay"
)

// Preset is a named machine: settings applied on top of replay.Default.
type Preset struct {
	Name        string
	Description string
	// Settings are key/value pairs in the order they are applied.
	Settings [][2]string
}

// Presets returns the machines the preset menu offers, the default first.
// It builds a fresh slice on every call: nothing is shared between
// sessions.
func Presets() []Preset {
	return []Preset{
		{Name: "default", Description: "flow model: 10 Gb/s, 1 µs links shared by max-min fairness, star"},
		{
			Name:        "INSEE 8×8 torus, 3 VC adaptive",
			Description: "INSEE's router study: 48 B packets + 16 B headers, 4-packet buffers, 32 Gb/s, 1 ns links and routers",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "torus:8x8"}, {"vcs", "3"}, {"routing", "adaptive"},
				{"packet-size", "48B"}, {"header", "16B"}, {"buffer", "4"}, {"bandwidth", "32Gb/s"},
				{"link-latency", "1ns"}, {"router-delay", "1ns"},
			},
		},
		{
			Name:        "8×8 torus, DOR, 2 VC",
			Description: "dimension order with dateline VCs, 256 B packets, 10 Gb/s",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "torus:8x8"}, {"vcs", "2"}, {"routing", "dor"},
				{"packet-size", "256B"},
			},
		},
		{
			Name:        "4×4 torus, DOR, 2 VC",
			Description: "a 16-node torus for small traces, 256 B packets, 10 Gb/s",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "torus:4x4"}, {"vcs", "2"}, {"routing", "dor"},
				{"packet-size", "256B"},
			},
		},
		{
			Name:        "fat tree k=4",
			Description: "4-ary 3-tree (64 nodes), up/down routing, 256 B packets, 10 Gb/s",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "fattree:k=4,levels=3"}, {"routing", "updown"},
				{"packet-size", "256B"},
			},
		},
		{
			Name:        "dragonfly p=2,a=4,h=2",
			Description: "72 nodes in 9 groups, minimal routing, 256 B packets",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "dragonfly:p=2,a=4,h=2"}, {"routing", "minimal"},
				{"packet-size", "256B"},
			},
		},
		{
			Name:        "1996 Ethernet bus",
			Description: "PUPPET's fit of a shared Ethernet: store-and-forward, start-up 1449.848 µs, 1.008644 µs per byte",
			Settings: [][2]string{
				{"model", "puppet"}, {"switching", "store-and-forward"},
				{"startup", "1449.848us"}, {"per-byte", "1.008644us"}, {"hops", "1"},
			},
		},
		{
			Name:        "SimGrid cluster 125 MB/s",
			Description: "SimGrid's CM02 star cluster: 5 µs, 125 MB/s, 1 Gflop/s hosts",
			Settings: [][2]string{
				{"model", "simgrid"}, {"latency", "5us"}, {"bandwidth", "125MB/s"}, {"cpu-speed", "1Gf"},
			},
		},
	}
}

// Config returns the preset's configuration.
func (p Preset) Config() (replay.Config, error) {
	c := replay.Default()
	for _, kv := range p.Settings {
		if err := c.Set(kv[0], kv[1]); err != nil {
			return c, fmt.Errorf("preset %q: %w", p.Name, err)
		}
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("preset %q: %w", p.Name, err)
	}
	return c, nil
}
