package platform

import (
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
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
	// Explicit routes that are not a star's: Floyd and Dijkstra zones of
	// routers, multi-link and asymmetric Full routes, SPLITDUPLEX
	// directions, FATPIPE links, a route to itself.
	f.Add(head + ringZone("Floyd", 4) + "</platform>")
	f.Add(head + ringZone("DijkstraCache", 3) + "</platform>")
	f.Add(head + `<zone id="z" routing="Full"><host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>` +
		`<link id="la" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/><link id="lb" bandwidth="1GBps" latency="1us"/><link id="f" bandwidth="2GBps" sharing_policy="FATPIPE"/>` +
		`<route src="a" dst="b" symmetrical="NO"><link_ctn id="la" direction="UP"/><link_ctn id="f"/><link_ctn id="lb"/></route>` +
		`<route src="b" dst="a" symmetrical="NO"><link_ctn id="lb"/><link_ctn id="la" direction="DOWN"/></route>` +
		`<route src="a" dst="a"><link_ctn id="la" direction="UP"/></route></zone></platform>`)
	f.Add(head + `<zone id="z" routing="Dijkstra"><host id="a" speed="1Gf"/><host id="b" speed="2Gf"/><router id="r"/><router id="s"/>` +
		`<link id="la" bandwidth="1GBps"/><link id="lb" bandwidth="1GBps"/><link id="rs" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>` +
		`<route src="a" dst="r"><link_ctn id="la"/></route><route src="s" dst="b"><link_ctn id="lb"/></route>` +
		`<route src="r" dst="s"><link_ctn id="rs" direction="DOWN"/></route>` +
		`<route src="b" dst="b" symmetrical="NO"><link_ctn id="lb"/></route></zone></platform>`)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(strings.NewReader(s), "f.xml")
		if err != nil {
			return
		}
		g := p.Topology
		if len(p.Hosts) != g.NumNodes() {
			t.Fatalf("%d hosts for %d nodes", len(p.Hosts), g.NumNodes())
		}
		if p.Routes == nil || len(p.Hosts) > 16 {
			return
		}
		// Every hop of an explicit route is a channel of the graph.
		for src := range p.Hosts {
			for dst := range p.Hosts {
				hops := p.Hops(src, dst, nil)
				if len(hops) != 2*p.Routes.Len(src, dst) || len(hops) == 0 {
					t.Fatalf("%d to %d: hops %v for %d links", src, dst, hops, p.Routes.Len(src, dst))
				}
				for i := 0; i < len(hops); i += 2 {
					found := false
					for port := 0; port < g.NumPorts(hops[i]); port++ {
						pr := g.Peer(hops[i], port)
						found = found || pr.Kind == topology.PeerRouter && pr.ID == hops[i+1]
					}
					if !found {
						t.Fatalf("%d to %d: no channel from router %d to %d", src, dst, hops[i], hops[i+1])
					}
				}
			}
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
