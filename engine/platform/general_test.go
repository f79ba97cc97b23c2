package platform

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

// ringZone is a zone of n hosts, each on its own router by link lI,
// the routers in a ring of links xI (router I to router I+1).
func ringZone(routing string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<zone id="z" routing=%q>`+"\n", routing)
	for h := range n {
		fmt.Fprintf(&b, `<host id="h%d" speed="1Gf"/>`, h)
	}
	for r := range n {
		fmt.Fprintf(&b, `<router id="r%d"/>`, r)
	}
	for h := range n {
		fmt.Fprintf(&b, `<link id="l%d" bandwidth="1GBps" latency="1us"/><link id="x%d" bandwidth="%dMBps" latency="2us"/>`, h, h, 100*(h+1))
	}
	for h := range n {
		fmt.Fprintf(&b, `<route src="h%d" dst="r%d"><link_ctn id="l%d"/></route><route src="r%d" dst="r%d"><link_ctn id="x%d"/></route>`+"\n", h, h, h, h, (h+1)%n, h)
	}
	return b.String() + "</zone>"
}

// TestExplicitRoutes: zones whose routes are not a star's keep SimGrid
// 3.32's routes link for link: Floyd and Dijkstra break the ties of a
// ring of eight routers their own ways (TestExplicitRoutesAgainstSimGrid
// replays these pairs with smpirun: the other way round is 7 to 9 %
// off), symmetrical="NO" routes stay one way, a symmetrical route's way
// back takes each SPLITDUPLEX link's other direction in reverse order,
// and a host without a route to itself gets SimGrid's loopback link.
func TestExplicitRoutes(t *testing.T) {
	for _, c := range []struct {
		name, xml string
		routes    map[[2]int]string
		summary   string
	}{
		{"ring Floyd", ringZone("Floyd", 8), map[[2]int]string{
			{0, 4}: "l0 x0 x1 x2 x3 l4", {4, 0}: "l4 x3 x2 x1 x0 l0",
			{5, 1}: "l5 x4 x3 x2 x1 l1", {6, 2}: "l6 x5 x4 x3 x2 l2", {3, 7}: "l3 x2 x1 x0 x7 l7",
			{1, 2}: "l1 x1 l2", {0, 7}: "l0 x7 l7", {3, 3}: "__loopback__",
		}, "zone z: 8 hosts, 8 routers, 16 links on routing=Floyd routes"},
		{"ring Dijkstra", ringZone("Dijkstra", 8), map[[2]int]string{
			{0, 4}: "l0 x0 x1 x2 x3 l4", {4, 0}: "l4 x3 x2 x1 x0 l0",
			{5, 1}: "l5 x5 x6 x7 x0 l1", {6, 2}: "l6 x6 x7 x0 x1 l2", {3, 7}: "l3 x2 x1 x0 x7 l7",
			{1, 2}: "l1 x1 l2", {0, 7}: "l0 x7 l7", {3, 3}: "__loopback__",
		}, "zone z: 8 hosts, 8 routers, 16 links on routing=Dijkstra routes"},
		{"asymmetric Full", `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="la" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/><link id="lb" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/>
  <link id="fast" bandwidth="10GBps"/><link id="slow" bandwidth="1GBps" sharing_policy="FATPIPE"/>
  <route src="a" dst="b" symmetrical="NO"><link_ctn id="la" direction="UP"/><link_ctn id="fast"/><link_ctn id="lb" direction="DOWN"/></route>
  <route src="b" dst="a" symmetrical="NO"><link_ctn id="lb" direction="UP"/><link_ctn id="slow"/><link_ctn id="la" direction="DOWN"/></route>
  <route src="a" dst="a"><link_ctn id="la" direction="UP"/><link_ctn id="la" direction="DOWN"/></route>
</zone>`, map[[2]int]string{
			{0, 1}: "la_UP fast lb_DOWN", {1, 0}: "lb_UP slow la_DOWN",
			{0, 0}: "la_UP la_DOWN", {1, 1}: "__loopback__",
		}, "zone z: 2 hosts, 6 links on routing=Full routes"},
		// The audit's first rejected shape: two hosts, one link.
		{"two hosts, one link (Floyd)", `<zone id="z" routing="Floyd">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="l" bandwidth="125MBps" latency="50us"/>
  <route src="a" dst="b"><link_ctn id="l"/></route>
</zone>`, map[[2]int]string{
			{0, 1}: "l", {1, 0}: "l", {0, 0}: "__loopback__",
		}, "zone z: 2 hosts, 1 link on routing=Floyd routes of 1 Gb/s, 50 µs"},
		{"SPLITDUPLEX way back", `<zone id="z" routing="Floyd">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><router id="r"/>
  <link id="la" bandwidth="1GBps" sharing_policy="SPLITDUPLEX"/><link id="lb" bandwidth="2GBps" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="r"><link_ctn id="la" direction="UP"/></route>
  <route src="r" dst="b"><link_ctn id="lb" direction="DOWN"/></route>
</zone>`, map[[2]int]string{
			{0, 1}: "la_UP lb_DOWN", {1, 0}: "lb_UP la_DOWN",
		}, "zone z: 2 hosts, 1 router, 4 links on routing=Floyd routes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseString(t, c.xml)
			if err != nil {
				t.Fatal(err)
			}
			if p.Routes == nil {
				t.Fatalf("no routes: %s", p.Summary)
			}
			if p.Summary != c.summary {
				t.Errorf("summary %q, want %q", p.Summary, c.summary)
			}
			for pair, want := range c.routes {
				if got := strings.Join(p.Routes.Names(pair[0], pair[1]), " "); got != want {
					t.Errorf("%s to %s: %s, want %s", p.Hosts[pair[0]], p.Hosts[pair[1]], got, want)
				}
			}
		})
	}
}

// TestExplicitRouteChannels: the hops a route gives join routers of the
// graph by a channel of the bandwidth and latency of the link SimGrid
// names, FATPIPE channels listed, each link's channel its own.
func TestExplicitRouteChannels(t *testing.T) {
	p, err := parseString(t, `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <link id="la" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
  <link id="lb" bandwidth="2GBps" latency="2us"/>
  <link id="lc" bandwidth="3GBps" latency="3us" sharing_policy="FATPIPE"/>
  <link id="bb" bandwidth="4GBps" latency="4us"/>
  <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="bb"/><link_ctn id="lb"/></route>
  <route src="a" dst="c"><link_ctn id="la" direction="UP"/><link_ctn id="bb"/><link_ctn id="lc"/></route>
  <route src="b" dst="c"><link_ctn id="lb"/><link_ctn id="lc"/></route>
</zone>`)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Topology
	want := map[string]topology.LinkProps{
		"la_UP": {Bandwidth: 1e9, Latency: 1e6}, "la_DOWN": {Bandwidth: 1e9, Latency: 1e6},
		"lb": {Bandwidth: 2e9, Latency: 2e6}, "lc": {Bandwidth: 3e9, Latency: 3e6}, "bb": {Bandwidth: 4e9, Latency: 4e6},
		"__loopback__": {Bandwidth: LoopbackBandwidth},
	}
	channelOf := map[string]topology.LinkID{}
	var fat []topology.LinkID
	for s := range 3 {
		for d := range 3 {
			names := p.Routes.Names(s, d)
			hops := p.Hops(s, d, nil)
			if len(hops) != 2*len(names) {
				t.Fatalf("%d to %d: hops %v for links %v", s, d, hops, names)
			}
			for i, name := range names {
				a, b := hops[2*i], hops[2*i+1]
				id := topology.NoLink
				for port := 0; port < g.NumPorts(a); port++ {
					if pr := g.Peer(a, port); pr.Kind == topology.PeerRouter && pr.ID == b {
						id = g.OutLink(a, port)
					}
				}
				if id == topology.NoLink {
					t.Fatalf("%d to %d: no channel from router %d to %d for %s", s, d, a, b, name)
				}
				if got := g.Link(id).Props; got != want[name] {
					t.Errorf("%s: channel %d is %+v, want %+v", name, id, got, want[name])
				}
				if prev, seen := channelOf[name]; seen && prev != id {
					t.Errorf("%s: channels %d and %d", name, prev, id)
				}
				channelOf[name] = id
				if name == "lc" || name == "__loopback__" {
					fat = append(fat, id)
				}
			}
		}
	}
	if channelOf["la_UP"] == channelOf["la_DOWN"] || g.Link(channelOf["la_UP"]).Reverse != channelOf["la_DOWN"] {
		t.Errorf("la's directions: channels %d and %d", channelOf["la_UP"], channelOf["la_DOWN"])
	}
	slices.Sort(fat)
	if fat = slices.Compact(fat); !slices.Equal(fat, p.Routes.FatPipes) {
		t.Errorf("fatpipes %v, want %v", p.Routes.FatPipes, fat)
	}
	// The hosts' own links cost nothing: SimGrid's hosts have none.
	for h := range 3 {
		if in := g.Link(g.InjectLink(h)).Props; in.Bandwidth != FreeBandwidth || in.Latency != 0 {
			t.Errorf("host %d's link: %+v", h, in)
		}
	}
	if p.Uniform || p.Routes.Shared != true || p.Routes.Links != 5 {
		t.Errorf("uniform %v shared %v links %d", p.Uniform, p.Routes.Shared, p.Routes.Links)
	}
}

func TestExplicitRouteErrors(t *testing.T) {
	hosts := `<host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <link id="la" bandwidth="1GBps"/><link id="lb" bandwidth="1GBps"/><link id="lc" bandwidth="1GBps"/>
`
	for _, c := range []struct{ name, xml, want string }{
		{"unknown point", `<zone id="z" routing="Floyd">` + hosts + `  <route src="a" dst="x"><link_ctn id="la"/></route>
</zone>`, `p.xml:6: <route>: "x" is neither a host nor a router of zone "z"`},
		{"no path", `<zone id="z" routing="Floyd">` + hosts + `  <router id="r"/><route src="a" dst="r"><link_ctn id="la"/></route><route src="b" dst="r"><link_ctn id="lb"/></route>
</zone>`, `p.xml:4: <zone>: no route from "a" to "c" under routing=Floyd`},
		{"host in no route", `<zone id="z" routing="Dijkstra">` + hosts + `  <router id="r"/><route src="a" dst="r"><link_ctn id="la"/></route><route src="b" dst="r"><link_ctn id="lb"/></route>
</zone>`, `p.xml:4: <host>: host "c" is in no route: SimGrid's Dijkstra routing cannot reach it`},
		{"symmetrical route to itself", `<zone id="z" routing="Floyd">` + hosts + `  <route src="a" dst="a"><link_ctn id="la"/></route>
</zone>`, `p.xml:6: <route>: the route from "a" to itself is symmetrical: under routing=Floyd SimGrid 3.32 adds its reverse and aborts`},
		{"link twice", `<zone id="z" routing="Full">` + hosts + `  <route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/><link_ctn id="la"/></route>
  <route src="a" dst="c"><link_ctn id="la"/><link_ctn id="lc"/></route><route src="b" dst="c"><link_ctn id="lb"/><link_ctn id="lc"/></route>
</zone>`, `p.xml:4: <zone>: the route from "a" to "b" crosses link la twice: not modelled`},
		{"router declared twice", `<zone id="z" routing="Floyd">` + hosts + `  <router id="a"/>
</zone>`, `p.xml:6: <router>: "a" is already declared on line 4`},
		{"router in a cabinet zone", `<zone id="z" routing="Cluster"><router id="r"/><cabinet id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/></zone>`,
			`p.xml:4: <router>: routers in a zone of cabinets are not modelled`},
		{"bypass route", `<zone id="z" routing="Floyd">` + hosts + `  <bypassRoute src="a" dst="b"><link_ctn id="la"/></bypassRoute>
</zone>`, `p.xml:6: <bypassRoute>: element not supported by tracesim`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseString(t, c.xml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant it to contain %s", err, c.want)
			}
		})
	}
}
