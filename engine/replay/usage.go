package replay

import (
	"strings"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/placement"
	"github.com/tracesim/tracesim/engine/platform"
	"github.com/tracesim/tracesim/engine/routing"
)

// readers lists the network models whose answer a model-specific setting
// can change, read off the models' code (TestReadersChangeTheAnswer runs
// each model with each setting changed); settings not listed are read by
// every model (or depend on the mode, the trace or the collectives).
// Unused adds the settings that a model reads only in some
// configurations.
func readers(key string) []ModelKind {
	switch key {
	case "topology":
		// The analytic models see only its distances: puppet reads
		// them, loggops's L and the simgrid model's star route (2
		// links; a platform's routes) do not.
		return []ModelKind{ModelPuppet, ModelPacket, ModelFlow}
	case "routing", "sample-period":
		return []ModelKind{ModelPacket, ModelFlow}
	case "vcs", "buffer", "router-delay", "wait-threshold", "link-latency":
		// Flows use no virtual channels (the flow model builds its
		// routing with as many as the routing needs).
		return []ModelKind{ModelPacket}
	case "packet-size", "header":
		return []ModelKind{ModelPacket, ModelPuppet}
	case "crosstraffic":
		// The simgrid model's only on some platforms (Unused).
		return []ModelKind{ModelFlow, ModelSimGrid}
	case "weight-s":
		return []ModelKind{ModelFlow}
	case "envelope", "factors", "tcp-gamma":
		return []ModelKind{ModelSimGrid, ModelFlow}
	case "latency":
		// The packet model takes a --latency given by hand as its
		// links' latency (ByHand).
		return []ModelKind{ModelSimGrid, ModelFlow, ModelPacket}
	case "bandwidth", "per-byte":
		// LogGOPS's G is its bandwidth.
		return []ModelKind{ModelPuppet, ModelSimGrid, ModelPacket, ModelFlow}
	case "hops":
		return []ModelKind{ModelPuppet}
	case "switching", "startup", "flit":
		return []ModelKind{ModelPuppet}
	case "L", "o", "g", "G", "O", "S":
		return []ModelKind{ModelLogGOPS}
	case "platform", "hostfile":
		// LogGOPS's parameters are its whole network: of a platform it
		// would take only the hosts' speed (validatePlatform).
		return []ModelKind{ModelPuppet, ModelSimGrid, ModelPacket, ModelFlow}
	}
	return nil
}

// platformReplaces says what of a platform replaces the setting named key
// (Resolve: "hosts", "links"), or "" when nothing does: with a platform
// such a setting changes nothing, whatever the model.
func platformReplaces(key string) string {
	switch key {
	case "cpu-speed", "cores":
		return "hosts"
	case "bandwidth", "per-byte", "latency", "link-latency":
		return "links"
	}
	return ""
}

// usage is what Unused knows of the platform a configuration names,
// recorded by Validate: the file read and whether the simgrid model reads
// crosstraffic on it.
type usage struct {
	platform string
	// simgridCross: SHARED host links (on a star the message's own
	// crosstraffic shares them; elsewhere crosstraffic must be 0), a
	// limiter link or a SHARED backbone.
	simgridCross bool
}

// recordUsage records what Unused needs to know of platform p.
func (c *Config) recordUsage(p *platform.Platform) {
	c.usage = usage{platform: c.Platform,
		simgridCross: p.Sharing == platform.Shared || p.Limiter > 0 || p.Backbone != nil && p.BackboneSharing == platform.Shared}
}

// Unused says why the setting named key has no effect on a simulation of
// c ("not used by puppet (read by packet, flow)", "not used by analytic
// collectives", "not used with a platform (its links give it)"), or ""
// when it may have one. It errs on the side of "": a setting it does not
// know of, or that every model reads, counts as used, and so does one
// whose use depends on a platform file that Validate has not read into c
// yet.
func Unused(c *Config, key string) string {
	if ms := readers(key); len(ms) > 0 {
		names := make([]string, 0, len(ms))
		read := false
		for _, m := range ms {
			read = read || m == c.Model
			names = append(names, modelName(m))
		}
		if !read {
			return "not used by " + modelName(c.Model) + " (read by " + strings.Join(names, ", ") + ")"
		}
	}
	if what := platformReplaces(key); what != "" && c.Platform != "" {
		return "not used with a platform (its " + what + " give it)"
	}
	switch {
	case key == "coll-alg" && c.Collectives == CollAnalytic:
		return "not used by analytic collectives"
	case key == "coll-factor" && c.Collectives == CollExpand:
		return "not used by expanded collectives"
	case c.Model == ModelPuppet && key == "header" && c.Switching != netmodel.CutThrough && c.Switching != netmodel.Circuit:
		return "not used by puppet's " + c.Switching.String() + " switching (read by cut-through and circuit)"
	case c.Model == ModelPuppet && key == "flit" && c.Switching != netmodel.Wormhole:
		return "not used by puppet's " + c.Switching.String() + " switching (read by wormhole)"
	case c.Model == ModelLogGOPS && key == "eager-threshold" && c.S > 0:
		return "not used by loggops while S is set (S is its eager limit)"
	case c.Model == ModelSimGrid && key == "crosstraffic":
		if c.Platform == "" {
			return "not used by simgrid without a platform (read on SHARED links, limiters and SHARED backbones)"
		}
		if c.usage.platform == c.Platform && !c.usage.simgridCross {
			return "not used by simgrid on this platform (read on SHARED links, limiters and SHARED backbones)"
		}
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
