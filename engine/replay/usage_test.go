package replay

import "testing"

// TestUnused: what the Machine tab greys and the CLI rejects, for each
// model, and "" for settings every model reads.
func TestUnused(t *testing.T) {
	for _, tc := range []struct {
		model ModelKind
		key   string
		want  string
	}{
		{ModelPuppet, "routing", "not used by puppet (read by packet, flow)"},
		{ModelFlow, "routing", ""},
		{ModelPacket, "routing", ""},
		{ModelLogGOPS, "factors", "not used by loggops (read by simgrid, flow)"},
		{ModelFlow, "factors", ""},
		{ModelSimGrid, "tcp-gamma", ""},
		{ModelSimGrid, "crosstraffic", "not used by simgrid (read by flow)"},
		{ModelFlow, "buffer", "not used by flow (read by packet)"},
		{ModelPacket, "latency", ""},
		{ModelPuppet, "latency", "not used by puppet (read by simgrid, flow, packet)"},
		{ModelFlow, "hops", "not used by flow (read by puppet, loggops, simgrid)"},
		{ModelPuppet, "L", "not used by puppet (read by loggops)"},
		{ModelPuppet, "bandwidth", ""},
		{ModelPuppet, "eager-threshold", ""},
	} {
		c := Default()
		c.Model = tc.model
		if got := Unused(&c, tc.key); got != tc.want {
			t.Errorf("%s under %s: %q, want %q", tc.key, modelName(tc.model), got, tc.want)
		}
	}
	c := Default()
	c.Collectives = CollAnalytic
	if got := Unused(&c, "coll-alg"); got != "not used by analytic collectives" {
		t.Errorf("coll-alg under analytic collectives: %q", got)
	}
}
