package platform

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

func TestUnits(t *testing.T) {
	for _, c := range []struct {
		parse func(string) (float64, error)
		in    string
		want  float64
	}{
		{ParseBandwidth, "125MBps", 125e6},
		{ParseBandwidth, "10Gbps", 1.25e9},
		{ParseBandwidth, "1GBps", 1e9},
		{ParseBandwidth, "1kBps", 1000},
		{ParseBandwidth, "1KiBps", 1024},
		{ParseBandwidth, "1MiBps", 1 << 20},
		{ParseBandwidth, "1Gibps", (1 << 30) / 8},
		{ParseBandwidth, "8bps", 1},
		{ParseBandwidth, "100", 100},
		{ParseBandwidth, "1.5e3Bps", 1500},
		{ParseTime, "50us", 50e-6},
		{ParseTime, "1.5ms", 1.5e-3},
		{ParseTime, "10ns", 10e-9},
		{ParseTime, "2m", 120},
		{ParseTime, "1h", 3600},
		{ParseTime, "3", 3},
		{ParseTime, "0", 0},
		{ParseSpeed, "1Gf", 1e9},
		{ParseSpeed, "100Mf", 1e8},
		{ParseSpeed, "1kf", 1e3},
		{ParseSpeed, "1.5gigaflops", 1.5e9},
		{ParseSpeed, "98.095Mf", 98.095e6},
	} {
		got, err := c.parse(c.in)
		if err != nil || math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("%q = %g, %v; want %g", c.in, got, err, c.want)
		}
	}
	for _, c := range []struct {
		parse func(string) (float64, error)
		in    string
		want  string
	}{
		{ParseBandwidth, "1KBps", `unknown unit "KBps"`},
		{ParseBandwidth, "10Gb/s", `unknown unit "Gb/s"`},
		{ParseBandwidth, "fast", `"fast" is not a number`},
		{ParseTime, "5usec", `unknown unit "usec"`},
		{ParseSpeed, "1Gif", `unknown unit "Gif"`},
		{ParseSpeed, "1GF", `unknown unit "GF"`},
	} {
		_, err := c.parse(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want it to contain %s", c.in, err, c.want)
		}
	}
}

const head = `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
`

func parseString(t *testing.T, body string) (*Platform, error) {
	t.Helper()
	return Parse(strings.NewReader(head+body+"\n</platform>\n"), "p.xml")
}

// sameNetwork checks that two topologies have the same links, ends and
// properties.
func sameNetwork(t *testing.T, got, want topology.Topology) {
	t.Helper()
	if got.NumNodes() != want.NumNodes() || got.NumRouters() != want.NumRouters() || got.NumLinks() != want.NumLinks() {
		t.Fatalf("%s: %d nodes %d routers %d links; want %s: %d %d %d", got.Spec(), got.NumNodes(), got.NumRouters(), got.NumLinks(),
			want.Spec(), want.NumNodes(), want.NumRouters(), want.NumLinks())
	}
	for id := 0; id < got.NumLinks(); id++ {
		g, w := got.Link(topology.LinkID(id)), want.Link(topology.LinkID(id))
		if g != w {
			t.Fatalf("link %d: %+v, want %+v", id, g, w)
		}
	}
}

func mustParse(t *testing.T, spec string, opt topology.Options) topology.Topology {
	t.Helper()
	tp, err := topology.ParseWith(spec, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestClusters(t *testing.T) {
	link := topology.LinkProps{Bandwidth: 125e6, Latency: 50_000_000}
	free := topology.LinkProps{Bandwidth: FreeBandwidth}
	for _, c := range []struct {
		name, xml string
		want      topology.Topology
		hosts     []string
		speed     float64
	}{
		{"star", `<zone id="AS0" routing="Full">
  <cluster id="c" prefix="node-" suffix=".simgrid.org" radical="1-2,5,7" speed="1Gf" bw="125MBps" lat="50us"/>
</zone>`, mustParse(t, "crossbar:4", topology.Options{Link: &link, Terminal: &link}),
			[]string{"node-1.simgrid.org", "node-2.simgrid.org", "node-5.simgrid.org", "node-7.simgrid.org"}, 1e9},
		{"torus 4,4", `<cluster id="t" prefix="h" suffix="" radical="0-15" speed="2Gf" bw="1Gbps" lat="50us" topology="TORUS" topo_parameters="4,4"/>`,
			mustParse(t, "torus:4x4", topology.Options{Link: &link, Terminal: &free}), nil, 2e9},
		{"torus 2,1,3", `<cluster id="t" prefix="h" suffix="" radical="0-5" speed="1Gf" bw="1000Mbps" lat="0.05ms" topology="TORUS" topo_parameters="2,1,3"/>`,
			mustParse(t, "torus:2x3", topology.Options{Link: &link, Terminal: &free}), nil, 1e9},
		{"fat tree", `<cluster id="f" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="125MBps" lat="50us" topology="FAT_TREE" topo_parameters="2;4,4;1,4;1,1"/>`,
			mustParse(t, "fattree:k=4,levels=2", topology.Options{Link: &link, Terminal: &link}), nil, 1e9},
		{"tapered fat tree", `<cluster id="f" prefix="h" suffix="" radical="0-63" speed="1Gf" bw="125MBps" lat="50us" topology="FAT_TREE" topo_parameters="3;4,4,4;1,2,1;1,1,1"/>`,
			mustParse(t, "fattree:k=4,levels=3,taper=0.5/0.25,taperby=count", topology.Options{Link: &link, Terminal: &link}), nil, 1e9},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := parseString(t, c.xml)
			if err != nil {
				t.Fatal(err)
			}
			sameNetwork(t, p.Topology, c.want)
			if p.Topology.Spec() != c.want.Spec() {
				t.Errorf("spec %s, want %s", p.Topology.Spec(), c.want.Spec())
			}
			if p.Speed != c.speed || p.Link != link || !p.Uniform {
				t.Errorf("speed %g link %+v uniform %v", p.Speed, p.Link, p.Uniform)
			}
			if c.hosts != nil && strings.Join(p.Hosts, " ") != strings.Join(c.hosts, " ") {
				t.Errorf("hosts %v, want %v", p.Hosts, c.hosts)
			}
			if len(p.Hosts) != c.want.NumNodes() {
				t.Errorf("%d hosts for %d nodes", len(p.Hosts), c.want.NumNodes())
			}
		})
	}
}

// TestTaperedFatTreeShape: SimGrid's FAT_TREE 3;4,4,4;1,2,1;1,1,1 has 16
// leaf switches, 16·2/4 = 8 at level 2 and 8·1/4·… = 2 at the top
// (nodes_by_level = Π up[0..i] · Π down[i+1..]).
func TestTaperedFatTreeShape(t *testing.T) {
	p, err := parseString(t, `<cluster id="f" prefix="h" suffix="" radical="0-63" speed="1Gf" bw="125MBps" lat="50us" topology="FAT_TREE" topo_parameters="3;4,4,4;1,2,1;1,1,1"/>`)
	if err != nil {
		t.Fatal(err)
	}
	ft := p.Topology.(*topology.FatTree)
	var got []int
	for l := 0; l < ft.Levels(); l++ {
		got = append(got, ft.SwitchesAt(l))
	}
	// SimGrid: level 1: 1·4·4 = 16, level 2: 1·2·4 = 8, level 3: 1·2·1 = 2.
	if fmt.Sprint(got) != "[16 8 2]" {
		t.Errorf("switches per level %v, want [16 8 2]", got)
	}
}

func TestClusterOptions(t *testing.T) {
	p, err := parseString(t, `<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="10Gbps" lat="1us"
  sharing_policy="SHARED" limiter_link="2GBps" loopback_bw="100GBps" loopback_lat="10ns" router_id="sw"/>`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sharing != Shared || p.SharingLine != 4 || p.Limiter != 2e9 || p.LimiterLine != 4 {
		t.Errorf("sharing %v line %d limiter %g line %d", p.Sharing, p.SharingLine, p.Limiter, p.LimiterLine)
	}
	if p.Loopback == nil || *p.Loopback != (topology.LinkProps{Bandwidth: 100e9, Latency: 10_000}) {
		t.Errorf("loopback %+v", p.Loopback)
	}
	if p.Summary != "cluster c: star of 4 hosts, 10 Gb/s, 1 µs links" {
		t.Errorf("summary %q", p.Summary)
	}
}

// TestCores: a cluster's core attribute, or its hosts' (all alike), is
// the platform's Cores; 1 when absent.
func TestCores(t *testing.T) {
	p, err := parseString(t, `<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" core="4" bw="125MBps" lat="50us"/>`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Cores != 4 || p.Summary != "cluster c: star of 4 hosts of 4 cores, 1 Gb/s, 50 µs links" {
		t.Errorf("cores %d, summary %q", p.Cores, p.Summary)
	}
	p, err = parseString(t, `<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="50us"/>`)
	if err != nil || p.Cores != 1 {
		t.Errorf("no core attribute: %d cores, %v", p.Cores, err)
	}
	hosts := func(a, b string) string {
		return `<zone id="z" routing="Full">
  <host id="a" speed="1Gf" ` + a + `/>
  <host id="b" speed="1Gf" ` + b + `/>
  <link id="la" bandwidth="1GBps" latency="1us"/>
  <link id="lb" bandwidth="1GBps" latency="1us"/>
  <route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/></route>
</zone>`
	}
	p, err = parseString(t, hosts(`core="8"`, `core="8"`))
	if err != nil || p.Cores != 8 || !strings.Contains(p.Summary, "star of 2 hosts of 8 cores") {
		t.Errorf("explicit hosts: %v, %+v", err, p)
	}
	if _, err = parseString(t, hosts(`core="8"`, ``)); err == nil || !strings.Contains(err.Error(), `<host>: host "b" has core=1, host "a" core=8: hosts of different core counts are not modelled`) {
		t.Errorf("hosts of 8 and 1 cores: %v", err)
	}
}

// TestClusterBackbone: a FLAT cluster's bb_bw, bb_lat and
// bb_sharing_policy (SHARED by default) give a crossbar with a backbone;
// bb_lat="0" or an empty bb_bw, none.
func TestClusterBackbone(t *testing.T) {
	for _, c := range []struct {
		attrs   string
		want    *topology.LinkProps
		sharing Sharing
		spec    string
		summary string
	}{
		{`bb_bw="2.25GBps" bb_lat="500us"`, &topology.LinkProps{Bandwidth: 2.25e9, Latency: 500e6}, Shared,
			"crossbar:4,bw=1Gb/s,lat=50us,bbbw=18Gb/s,bblat=500us", "cluster c: star of 4 hosts, 1 Gb/s, 50 µs links, a 18 Gb/s, 500 µs SHARED backbone"},
		{`bb_bw="10Gbps" bb_sharing_policy="FATPIPE"`, &topology.LinkProps{Bandwidth: 1.25e9}, FatPipe,
			"crossbar:4,bw=1Gb/s,lat=50us,bbbw=10Gb/s", "cluster c: star of 4 hosts, 1 Gb/s, 50 µs links, a 10 Gb/s, 0 s FATPIPE backbone"},
		{`bb_bw="10Gbps" bb_sharing_policy="SHARED"`, &topology.LinkProps{Bandwidth: 1.25e9}, Shared, "crossbar:4,bw=1Gb/s,lat=50us,bbbw=10Gb/s", ""},
		{`bb_lat="0"`, nil, SplitDuplex, "crossbar:4,bw=1Gb/s,lat=50us", "cluster c: star of 4 hosts, 1 Gb/s, 50 µs links"},
		{`bb_bw="" bb_sharing_policy="FATPIPE"`, nil, SplitDuplex, "crossbar:4,bw=1Gb/s,lat=50us", ""},
	} {
		t.Run(c.attrs, func(t *testing.T) {
			p, err := parseString(t, `<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="125MBps" lat="50us" `+c.attrs+`/>`)
			if err != nil {
				t.Fatal(err)
			}
			if (p.Backbone == nil) != (c.want == nil) || c.want != nil && (*p.Backbone != *c.want || p.BackboneSharing != c.sharing || p.BackboneLine != 4) {
				t.Errorf("backbone %+v %v line %d, want %+v %v", p.Backbone, p.BackboneSharing, p.BackboneLine, c.want, c.sharing)
			}
			if p.Topology.Spec() != c.spec || !p.Uniform {
				t.Errorf("topology %s (uniform %v), want %s", p.Topology.Spec(), p.Uniform, c.spec)
			}
			if c.summary != "" && p.Summary != c.summary {
				t.Errorf("summary %q, want %q", p.Summary, c.summary)
			}
		})
	}
}

// smpirunPlatform is a star like the one smpirun writes when given only a
// hostfile: hosts, private links and loopbacks, and a symmetrical route
// for every pair (smpirun 3.32 declares both directions, which SimGrid
// then refuses).
func smpirunPlatform(n int, bw func(i int) string) string {
	var b strings.Builder
	b.WriteString(`<zone id="AS0" routing="Full">` + "\n")
	for i := n; i > 0; i-- {
		fmt.Fprintf(&b, "  <host id=\"host%d\" speed=\"100Mf\"/>\n", i)
		fmt.Fprintf(&b, "  <link id=\"loop%d\" bandwidth=\"50GBps\" latency=\"0ms\"/>\n", i)
		fmt.Fprintf(&b, "  <link id=\"link%d\" bandwidth=\"%s\" latency=\"5us\"/>\n", i, bw(i))
	}
	for i := n; i > 0; i-- {
		for j := i; j > 0; j-- {
			if i == j {
				fmt.Fprintf(&b, "  <route src=\"host%d\" dst=\"host%d\"><link_ctn id=\"loop%d\"/></route>\n", i, j, i)
			} else {
				fmt.Fprintf(&b, "  <route src=\"host%d\" dst=\"host%d\"><link_ctn id=\"link%d\"/><link_ctn id=\"link%d\"/></route>\n", i, j, i, j)
			}
		}
	}
	b.WriteString("</zone>")
	return b.String()
}

func TestExplicitStar(t *testing.T) {
	p, err := parseString(t, smpirunPlatform(3, func(int) string { return "125MBps" }))
	if err != nil {
		t.Fatal(err)
	}
	link := topology.LinkProps{Bandwidth: 125e6, Latency: 5_000_000}
	sameNetwork(t, p.Topology, mustParse(t, "crossbar:3", topology.Options{Link: &link, Terminal: &link}))
	if strings.Join(p.Hosts, ",") != "host3,host2,host1" || p.Speed != 100e6 || p.Sharing != Shared || !p.Uniform {
		t.Errorf("hosts %v speed %g sharing %v uniform %v", p.Hosts, p.Speed, p.Sharing, p.Uniform)
	}
	if p.Loopback == nil || p.Loopback.Bandwidth != 50e9 {
		t.Errorf("loopback %+v", p.Loopback)
	}

	// Host links of different speeds: per-link properties.
	p, err = parseString(t, smpirunPlatform(3, func(i int) string { return fmt.Sprintf("%dMBps", i) }))
	if err != nil {
		t.Fatal(err)
	}
	if p.Uniform {
		t.Error("uniform with links of 3, 2 and 1 MBps")
	}
	for n, want := range []float64{3e6, 2e6, 1e6} {
		r, port := p.Topology.Attach(n)
		in, out := p.Topology.Link(p.Topology.InjectLink(n)), p.Topology.Link(p.Topology.OutLink(r, port))
		if in.Props.Bandwidth != want || out.Props.Bandwidth != want {
			t.Errorf("node %d (%s): links %g and %g B/s, want %g", n, p.Hosts[n], in.Props.Bandwidth, out.Props.Bandwidth, want)
		}
	}
}

func TestSplitDuplexRoutes(t *testing.T) {
	p, err := parseString(t, `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="la" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
  <link id="lb" bandwidth="1GBps" latency="1us" sharing_policy="SPLITDUPLEX"/>
  <route src="a" dst="b"><link_ctn id="la" direction="UP"/><link_ctn id="lb" direction="DOWN"/></route>
</zone>`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Sharing != SplitDuplex || p.Topology.Spec() != "crossbar:2,bw=8Gb/s,lat=1us" {
		t.Errorf("sharing %v spec %s", p.Sharing, p.Topology.Spec())
	}
}

func TestErrors(t *testing.T) {
	cluster := func(extra string) string {
		return `<zone id="z" routing="Full">
  <cluster id="c" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="125MBps" lat="50us" ` + extra + `/>
</zone>`
	}
	for _, c := range []struct{ name, xml, want string }{
		{"dragonfly groups", cluster(`topology="DRAGONFLY" topo_parameters="4,1;1,1;2,1;2"`), "p.xml:5: <cluster>: DRAGONFLY 4,1;1,1;2,1;2: 4 groups but 2 routers per chassis"},
		{"dragonfly size", cluster(`topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;1"`), "p.xml:5: <cluster>: DRAGONFLY 2,1;2,1;2,1;1 has 8 hosts, the radical gives 16"},
		{"backbone latency alone", cluster(`bb_lat="20us"`), `p.xml:5: <cluster>: bb_lat="20us" without bb_bw: SimGrid 3.32 builds a backbone of no bandwidth`},
		{"backbone policy", cluster(`bb_bw="10GBps" bb_sharing_policy="SPLITDUPLEX"`), `p.xml:5: <cluster>: bb_sharing_policy="SPLITDUPLEX" (expected SHARED or FATPIPE)`},
		{"backbone unit", cluster(`bb_bw="10GB"`), `p.xml:5: <cluster>: bb_bw: "10GB": unknown unit "GB" for a bandwidth`},
		{"backbone of a torus", cluster(`topology="TORUS" topo_parameters="4,4" bb_bw="10GBps"`), "p.xml:5: <cluster>: bb_bw: SimGrid 3.32 builds no backbone in a TORUS cluster (it ignores bb_bw and bb_lat there): remove them"},
		{"backbone of a fat tree", cluster(`topology="FAT_TREE" topo_parameters="2;4,4;1,4;1,1" bb_bw="10GBps"`), "builds no backbone in a FAT_TREE cluster"},
		{"backbone of a dragonfly", cluster(`topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;2" bb_bw="10GBps"`), "builds no backbone in a DRAGONFLY cluster"},
		{"unknown attribute", cluster(`availability_file="a.txt"`), "p.xml:5: <cluster>: attribute availability_file is not supported by tracesim"},
		{"no cores", cluster(`core="0"`), `p.xml:5: <cluster>: core="0": expected a number of cores from 1 to 1048576`},
		{"cores not a number", cluster(`core="two"`), `p.xml:5: <cluster>: core="two": expected a number of cores`},
		{"unit", cluster(`loopback_bw="1GB"`), `p.xml:5: <cluster>: loopback_bw: "1GB": unknown unit "GB" for a bandwidth`},
		{"torus size", cluster(`topology="TORUS" topo_parameters="4,3"`), "p.xml:5: <cluster>: TORUS 4,3 has 12 hosts, the radical gives 16"},
		{"fat tree parallel links", cluster(`topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,2"`), "p.xml:5: <cluster>: FAT_TREE 2;4,4;1,2;1,2: 2 parallel links at level 2 are not modelled"},
		{"fat tree two parents", cluster(`topology="FAT_TREE" topo_parameters="2;4,4;2,4;1,1"`), "hosts with 2 parents are not modelled"},
		{"pstates", `<cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf,2Gf" bw="1GBps" lat="1us"/>`, `p.xml:4: <cluster>: speed="1Gf,2Gf": several power states are not modelled`},
		{"prop", `<zone id="z" routing="Full">
  <cluster id="c" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us">
    <prop id="wattage_per_state" value="100:200"/>
  </cluster>
</zone>`, "p.xml:6: <prop>: properties are not modelled (inside <cluster>)"},
		{"config", `<config><prop id="network/model" value="CM02"/></config>`, "p.xml:4: <config>: element not supported by tracesim"},
		{"two clusters", `<cluster id="a" prefix="h" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>
<cluster id="b" prefix="g" suffix="" radical="0-1" speed="1Gf" bw="1GBps" lat="1us"/>`, "p.xml:5: <cluster>: a second network (the first is on line 4)"},
		{"missing route", `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/><host id="c" speed="1Gf"/>
  <link id="la" bandwidth="1GBps"/><link id="lb" bandwidth="1GBps"/>
  <route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/></route>
</zone>`, `p.xml:4: <zone>: no route from "a" to "c"`},
		{"unknown link", `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <route src="a" dst="b">
    <link_ctn id="nope"/>
  </route>
</zone>`, `p.xml:7: <link_ctn>: no link "nope" is declared before this route`},
		{"vivaldi", `<zone id="z" routing="Vivaldi"/>`, `p.xml:4: <zone>: routing="Vivaldi" is not modelled`},
		{"duplicate route", `<zone id="z" routing="Full">
  <host id="a" speed="1Gf"/><host id="b" speed="1Gf"/>
  <link id="la" bandwidth="1GBps"/><link id="lb" bandwidth="1GBps"/>
  <route src="a" dst="b"><link_ctn id="la"/><link_ctn id="lb"/></route>
  <route src="b" dst="a"><link_ctn id="lb"/><link_ctn id="la"/></route>
</zone>`, `p.xml:8: <route>: the route from "b" to "a" already exists (line 7; routes are symmetrical by default)`},
		{"malformed", `<zone id="z" routing="Full">
  <host id="a" speed="1Gf">
</zone>`, "p.xml:6: malformed XML"},
		{"empty", ``, "p.xml: no network"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseString(t, c.xml)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant it to contain %s", err, c.want)
			}
		})
	}
	_, err := Parse(strings.NewReader(`<platform version="3"><cluster/></platform>`), "old.xml")
	if err == nil || err.Error() != `old.xml:1: <platform>: version "3" is not supported (expected 4.1, SimGrid 3.32's format)` {
		t.Errorf("version: %v", err)
	}
}

func TestHostfile(t *testing.T) {
	slots, err := ParseHostfile(strings.NewReader("h2:2\n\nh0\n  h1 \n"), "hosts")
	if err != nil || strings.Join(slots, ",") != "h2,h2,h0,h1" {
		t.Fatalf("slots %v, %v", slots, err)
	}
	p, err := parseString(t, `<cluster id="c" prefix="h" suffix="" radical="0-2,10" speed="1Gf" bw="1GBps" lat="1us"/>`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		slots []string
		ranks int
		want  string
	}{
		{slots, 6, "[2 2 0 1 2 2]"},
		{nil, 5, "[0 1 3 2 0]"}, // h0 h1 h10 h2 by name
		{[]string{"h10"}, 2, "[3 3]"},
	} {
		got, err := p.Place(c.slots, c.ranks)
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("Place(%v, %d) = %v, %v; want %s", c.slots, c.ranks, got, err, c.want)
		}
	}
	if _, err := p.Place([]string{"h3"}, 1); err == nil || !strings.Contains(err.Error(), `host "h3" is not in platform p.xml`) {
		t.Errorf("unknown host: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{"h1:x\n", `hosts:1: "h1:x": expected HOST or HOST:SLOTS`},
		{"\n:3\n", `hosts:2: ":3": no host name before ':'`},
		{"\n\n", "hosts: the hostfile lists no host"},
	} {
		if _, err := ParseHostfile(strings.NewReader(c.in), "hosts"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
}

// TestDragonfly: SimGrid's DRAGONFLY 2,1;2,3;2,2;2 as a graph: 8 routers
// of 2 hosts; green links (2 cables) join the blades of a chassis, black
// ones (3 cables) the same blade of the two chassis, one blue link router
// 1 of group 0 to router 0 of group 1.
func TestDragonfly(t *testing.T) {
	p, err := parseString(t, `<cluster id="d" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="1us" topology="DRAGONFLY" topo_parameters="2,1;2,3;2,2;2"/>`)
	if err != nil {
		t.Fatal(err)
	}
	g := p.Topology.(*topology.Graph)
	if g.NumRouters() != 8 || g.NumNodes() != 16 || p.Summary != "cluster d: DRAGONFLY 2,1;2,3;2,2;2 (a graph of 8 routers) of 16 hosts, 8 Gb/s, 1 µs links" {
		t.Fatalf("%d routers %d nodes, %s", g.NumRouters(), g.NumNodes(), p.Summary)
	}
	// Bandwidth of the link between two routers, 0 when none.
	between := func(a, b int) float64 {
		for port := 0; port < g.NumPorts(a); port++ {
			if pe := g.Peer(a, port); pe.Kind == topology.PeerRouter && pe.ID == b {
				return g.Link(g.OutLink(a, port)).Props.Bandwidth
			}
		}
		return 0
	}
	for _, c := range []struct {
		a, b int
		bw   float64
	}{
		{0, 1, 2e9}, {2, 3, 2e9}, {0, 2, 3e9}, {1, 3, 3e9}, {0, 3, 0}, {1, 4, 1e9}, {0, 4, 0}, {5, 7, 3e9},
	} {
		if got := between(c.a, c.b); got != c.bw {
			t.Errorf("routers %d–%d: %g B/s, want %g", c.a, c.b, got, c.bw)
		}
	}
	for _, c := range []struct{ a, b, hops int }{{0, 1, 0}, {0, 15, 4}, {0, 3, 1}, {2, 9, 1}} {
		if got := g.RouterHops(c.a, c.b); got != c.hops {
			t.Errorf("hosts %d–%d: %d router hops, want %d", c.a, c.b, got, c.hops)
		}
	}
}
