// Package preset names complete simulated machines: the Machine tab's
// preset menu and `tracesim sim --preset NAME` read the same table, so
// that every preset works from the command line too.
package preset

import (
	"fmt"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
)

// Preset is a named machine: settings applied on top of replay.Default.
type Preset struct {
	// Key is the command-line name (`--preset KEY`).
	Key string
	// Name is the title the Machine tab lists and records runs under.
	Name        string
	Description string
	// Settings are key/value pairs in the order they are applied.
	Settings [][2]string
}

// smpirun lists the settings `smpirun -replay` implies under SimGrid's
// CM02 network model (docs/platform.md): max-min link sharing with 5 %
// crosstraffic, sends below 65536 B detached, a transfer started once
// both sides are posted, wildcard receives matched as messages arrive,
// SMPI's collective algorithms, its 16-byte envelope and 4 MiB TCP
// window, and the given factors and weight-S ("none" and 0 for CM02,
// "smpi" and 8775 for smpirun's default model).
func smpirun(factors, weightS string) [][2]string {
	return [][2]string{
		{"model", "flow"}, {"crosstraffic", "0.05"},
		{"send", "auto"}, {"eager-threshold", "64KiB"}, {"eager-start", "match"}, {"handshake", "none"},
		{"any-source", "free"}, {"collectives", "expand"}, {"coll-alg", "all=smpi"},
		{"envelope", "16B"}, {"tcp-gamma", "4MiB"}, {"factors", factors}, {"weight-s", weightS},
	}
}

// All returns the presets, the default first. It builds a fresh slice on
// every call: nothing is shared between sessions.
func All() []Preset {
	return []Preset{
		{Key: "default", Name: "default", Description: "flow model: 10 Gb/s, 1 µs links shared by max-min fairness, star"},
		{
			Key: "insee-torus", Name: "INSEE 8×8 torus, 3 VC adaptive",
			Description: "INSEE's router study: 48 B packets + 16 B headers, 4-packet buffers, 32 Gb/s, 1 ns links and routers",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "torus:8x8"}, {"vcs", "3"}, {"routing", "adaptive"},
				{"packet-size", "48B"}, {"header", "16B"}, {"buffer", "4"}, {"bandwidth", "32Gb/s"},
				{"link-latency", "1ns"}, {"router-delay", "1ns"},
			},
		},
		{
			Key: "torus-8x8", Name: "8×8 torus, DOR, 2 VC",
			Description: "dimension order with dateline VCs, 256 B packets, 10 Gb/s",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "torus:8x8"}, {"vcs", "2"}, {"routing", "dor"},
				{"packet-size", "256B"},
			},
		},
		{
			Key: "torus-4x4", Name: "4×4 torus, DOR, 2 VC",
			Description: "a 16-node torus for small traces, 256 B packets, 10 Gb/s",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "torus:4x4"}, {"vcs", "2"}, {"routing", "dor"},
				{"packet-size", "256B"},
			},
		},
		{
			Key: "fattree-k4", Name: "fat tree k=4",
			Description: "4-ary 3-tree (64 nodes), up/down routing, 256 B packets, 10 Gb/s",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "fattree:k=4,levels=3"}, {"routing", "updown"},
				{"packet-size", "256B"},
			},
		},
		{
			Key: "dragonfly", Name: "dragonfly p=2,a=4,h=2",
			Description: "72 nodes in 9 groups, minimal routing, 256 B packets",
			Settings: [][2]string{
				{"model", "packet"}, {"topology", "dragonfly:p=2,a=4,h=2"}, {"routing", "minimal"},
				{"packet-size", "256B"},
			},
		},
		{
			Key: "ethernet-1996", Name: "1996 Ethernet bus",
			Description: "PUPPET's fit of a shared Ethernet: store-and-forward, start-up 1449.848 µs, 1.008644 µs per byte",
			Settings: [][2]string{
				{"model", "puppet"}, {"switching", "store-and-forward"},
				{"startup", "1449.848us"}, {"per-byte", "1.008644us"}, {"hops", "1"},
			},
		},
		{
			Key: "simgrid-cluster", Name: "SimGrid cluster 1 Gb/s",
			Description: "SimGrid's CM02 star cluster without contention: 5 µs, 1 Gb/s (SimGrid's 125MBps), 1 Gf/s hosts",
			Settings: [][2]string{
				{"model", "simgrid"}, {"latency", "5us"}, {"bandwidth", "1Gb/s"}, {"cpu-speed", "1Gf"},
			},
		},
		{
			Key: "simgrid", Name: "SimGrid smpirun -replay (CM02)",
			Description: "what smpirun -replay --cfg=network/model:CM02 does: flow model, 5 % crosstraffic, detached sends below 64 KiB, SMPI's collectives",
			Settings:    smpirun("none", "0"),
		},
		{
			Key: "smpi", Name: "SimGrid smpirun -replay (SMPI)",
			Description: "smpirun's default model: the simgrid preset plus SimGrid 3.32's size-dependent bandwidth and latency factors and weight-S 8775",
			Settings:    smpirun("smpi", "8775"),
		},
	}
}

// Keys returns the command-line names of the presets.
func Keys() []string {
	all := All()
	out := make([]string, len(all))
	for i, p := range all {
		out[i] = p.Key
	}
	return out
}

// Lookup returns the preset with the given key or name (either case).
func Lookup(name string) (Preset, error) {
	for _, p := range All() {
		if strings.EqualFold(p.Key, name) || strings.EqualFold(p.Name, name) {
			return p, nil
		}
	}
	return Preset{}, fmt.Errorf("unknown preset %q (expected one of %s)", name, strings.Join(Keys(), ", "))
}

// Apply sets the preset's settings on c, in order. Settings c had that
// the preset does not name are kept.
func (p Preset) Apply(c *replay.Config) error {
	for _, kv := range p.Settings {
		if err := c.Set(kv[0], kv[1]); err != nil {
			return fmt.Errorf("preset %q: %w", p.Key, err)
		}
	}
	return nil
}

// Config returns the preset's configuration: replay.Default with the
// preset applied, validated.
func (p Preset) Config() (replay.Config, error) {
	c := replay.Default()
	if err := p.Apply(&c); err != nil {
		return c, err
	}
	if err := c.Validate(); err != nil {
		return c, fmt.Errorf("preset %q: %w", p.Key, err)
	}
	return c, nil
}
