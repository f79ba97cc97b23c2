package platform

import (
	"strings"
	"testing"
)

// FuzzParse: no input makes the reader panic, and a platform it accepts
// has a host for every node.
func FuzzParse(f *testing.F) {
	f.Add(head + `<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="2,2"/></platform>`)
	f.Add(head + smpirunPlatform(2, func(int) string { return "1GBps" }) + "</platform>")
	f.Add(head + `<cluster id="f" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="1us" topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,1"/></platform>`)
	f.Add(head + `<cluster id="b" prefix="h" suffix="" radical="0-3" speed="1Gf" core="2" bw="1GBps" lat="1us" bb_bw="2GBps" bb_lat="2us" bb_sharing_policy="FATPIPE"/></platform>`)
	f.Add(head + `<zone id="s" routing="Cluster"><cabinet id="a" prefix="a" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>` +
		`<cabinet id="b" prefix="b" suffix="" radical="0-1" speed="1Gf" bw="2GBps" lat="1us"/><backbone id="x" bandwidth="1GBps" latency="1us"/></zone></platform>`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(strings.NewReader(s), "f.xml")
		if err == nil && len(p.Hosts) != p.Topology.NumNodes() {
			t.Fatalf("%d hosts for %d nodes", len(p.Hosts), p.Topology.NumNodes())
		}
	})
}

func FuzzHostfile(f *testing.F) {
	f.Add("h0:2\nh1\n")
	f.Fuzz(func(t *testing.T, s string) {
		slots, err := ParseHostfile(strings.NewReader(s), "h")
		if err == nil && len(slots) == 0 {
			t.Fatal("no slots without an error")
		}
	})
}
