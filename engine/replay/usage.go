package replay

import "strings"

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
