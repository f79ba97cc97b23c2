package replay

import (
	"strings"

	"github.com/tracesim/tracesim/engine/placement"
	"github.com/tracesim/tracesim/engine/routing"
)

// readers lists the network models that read each model-specific
// setting; settings not listed are read by every model (or depend on the
// mode, the trace or the collectives).
func readers(key string) []ModelKind {
	switch key {
	case "routing", "vcs", "sample-period":
		return []ModelKind{ModelPacket, ModelFlow}
	case "buffer", "router-delay", "wait-threshold", "link-latency":
		return []ModelKind{ModelPacket}
	case "packet-size", "header":
		return []ModelKind{ModelPacket, ModelPuppet}
	case "crosstraffic", "weight-s":
		return []ModelKind{ModelFlow}
	case "envelope", "factors", "tcp-gamma":
		return []ModelKind{ModelSimGrid, ModelFlow}
	case "latency":
		// The packet model takes a given --latency as its links'
		// latency (cmd/tracesim).
		return []ModelKind{ModelSimGrid, ModelFlow, ModelPacket}
	case "hops":
		return []ModelKind{ModelPuppet, ModelLogGOPS, ModelSimGrid}
	case "switching", "startup", "flit":
		return []ModelKind{ModelPuppet}
	case "L", "o", "g", "G", "O", "S":
		return []ModelKind{ModelLogGOPS}
	}
	return nil
}

// Unused says why the setting named key has no effect on a simulation of
// c ("not used by puppet (read by packet and flow)", "not used by
// analytic collectives"), or "" when it may have one. It errs on the side
// of "": a setting it does not know of, or that every model reads, counts
// as used.
func Unused(c *Config, key string) string {
	if ms := readers(key); len(ms) > 0 {
		names := make([]string, 0, len(ms))
		for _, m := range ms {
			if m == c.Model {
				return ""
			}
			names = append(names, modelName(m))
		}
		return "not used by " + modelName(c.Model) + " (read by " + strings.Join(names, ", ") + ")"
	}
	switch {
	case key == "coll-alg" && c.Collectives == CollAnalytic:
		return "not used by analytic collectives"
	case key == "coll-factor" && c.Collectives == CollExpand:
		return "not used by expanded collectives"
	}
	return ""
}

// modelName returns the model's name as the "model" setting writes it.
func modelName(m ModelKind) string { return (&Config{Model: m}).modelName() }

// SeedUnused says why a simulation of c is the same for every seed, or
// returns "" when the seed may change it. The seed is drawn from by a
// random placement that names no seed= of its own and, under the packet
// and flow models, by a random routing (routing.Random: Valiant, UGAL,
// the ":random" orders); nothing else in a simulation is random.
func SeedUnused(c *Config) string {
	if c.Placement != "" && c.Platform == "" && placement.TakesRunSeed(c.Placement) {
		return ""
	}
	if (c.Model == ModelPacket || c.Model == ModelFlow) && routing.Random(c.Routing) {
		return ""
	}
	return "nothing in this machine is random (a random placement without seed=, or valiant, ugal or a :random routing under the packet or flow model, draws from the seed)"
}
