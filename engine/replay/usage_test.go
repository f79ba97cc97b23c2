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
		{ModelSimGrid, "crosstraffic", "not used by simgrid without a platform (read on SHARED links, limiters and SHARED backbones)"},
		{ModelPacket, "crosstraffic", "not used by packet (read by flow, simgrid)"},
		{ModelLogGOPS, "topology", "not used by loggops (read by puppet, packet, flow)"},
		{ModelSimGrid, "topology", "not used by simgrid (read by puppet, packet, flow)"},
		{ModelLogGOPS, "bandwidth", "not used by loggops (read by puppet, simgrid, packet, flow)"},
		{ModelLogGOPS, "platform", "not used by loggops (read by puppet, simgrid, packet, flow)"},
		{ModelSimGrid, "hops", "not used by simgrid (read by puppet)"},
		{ModelFlow, "vcs", "not used by flow (read by packet)"},
		{ModelPuppet, "header", ""},
		{ModelPuppet, "flit", "not used by puppet's cut-through switching (read by wormhole)"},
		{ModelFlow, "buffer", "not used by flow (read by packet)"},
		{ModelPacket, "latency", ""},
		{ModelPuppet, "latency", "not used by puppet (read by simgrid, flow, packet)"},
		{ModelFlow, "hops", "not used by flow (read by puppet)"},
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

// TestUnusedDependsOnTheConfiguration: settings a model reads only in
// some configurations — crosstraffic under the simgrid model on a
// platform whose links it loads (known once Validate has read the
// platform), PUPPET's header and flit by switching, the eager threshold
// under LogGOPS's S, and what a platform replaces.
func TestUnusedDependsOnTheConfiguration(t *testing.T) {
	plat := readersPlatforms(t)
	for _, tc := range []struct {
		name string
		kv   []string
		key  string
		want string
	}{
		{"simgrid, SHARED star", []string{"model", "simgrid", "platform", plat["star-shared"]}, "crosstraffic", ""},
		{"simgrid, SHARED torus, crosstraffic 0", []string{"model", "simgrid", "platform", plat["torus-shared"], "crosstraffic", "0"}, "crosstraffic", ""},
		{"simgrid, SPLITDUPLEX star", []string{"model", "simgrid", "platform", plat["star"]}, "crosstraffic",
			"not used by simgrid on this platform (read on SHARED links, limiters and SHARED backbones)"},
		{"flow, SPLITDUPLEX star", []string{"model", "flow", "platform", plat["star"]}, "crosstraffic", ""},
		{"puppet store-and-forward", []string{"model", "puppet", "switching", "store-and-forward"}, "header",
			"not used by puppet's store-and-forward switching (read by cut-through and circuit)"},
		{"puppet circuit", []string{"model", "puppet", "switching", "circuit"}, "header", ""},
		{"puppet wormhole", []string{"model", "puppet", "switching", "wormhole"}, "flit", ""},
		{"loggops with S", []string{"model", "loggops", "S", "1KiB"}, "eager-threshold", "not used by loggops while S is set (S is its eager limit)"},
		{"loggops without S", []string{"model", "loggops"}, "eager-threshold", ""},
		{"platform bandwidth", []string{"model", "flow", "platform", plat["star"]}, "bandwidth", "not used with a platform (its links give it)"},
		{"platform cores", []string{"model", "simgrid", "platform", plat["star"]}, "cores", "not used with a platform (its hosts give it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			for i := 0; i < len(tc.kv); i += 2 {
				if err := c.Set(tc.kv[i], tc.kv[i+1]); err != nil {
					t.Fatal(err)
				}
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := Unused(&c, tc.key); got != tc.want {
				t.Errorf("%s: %q, want %q", tc.key, got, tc.want)
			}
		})
	}
	// Before Validate has read the platform, crosstraffic under the
	// simgrid model counts as used (a sweep's axis, a lesson's check).
	c := Default()
	c.Model, c.Platform = ModelSimGrid, plat["star"]
	if got := Unused(&c, "crosstraffic"); got != "" {
		t.Errorf("crosstraffic before the platform is read: %q", got)
	}
}
