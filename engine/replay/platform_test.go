package replay

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

var sgTraces = []string{"pingpong", "ring", "shift", "pairs", "tokens", "coll2"}

// TestPlatformEqualsSettings: the cluster of testdata/simgrid/platform.xml
// read as a platform gives the same run as the same machine set by hand
// (sgConfig), whatever cpu-speed says (the platform's hosts run at 1Gf).
func TestPlatformEqualsSettings(t *testing.T) {
	if _, err := os.Stat(sgDir); err != nil {
		t.Skip("testdata/simgrid absent")
	}
	withPlatform := cfgWith(t, "model", "simgrid", "platform", filepath.Join(sgDir, "platform.xml"),
		"hostfile", filepath.Join(sgDir, "hostfile"), "cpu-speed", "3Gf", "latency", "1ms", "bandwidth", "1Gb/s",
		"coll-alg", "barrier=linear,allreduce=binomial")
	for _, name := range sgTraces {
		tr, err := simgridti.ReadFile(filepath.Join(sgDir, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		_, want := simulate(t, tr, sgConfig(t), Options{})
		_, got := simulate(t, tr, withPlatform, Options{})
		if got.Makespan != want.Makespan {
			t.Errorf("%s: %.12f s with the platform, %.12f s with the settings", name, got.Makespan, want.Makespan)
		}
	}
}

// TestSMPIFactorsAgainstSimGrid replays the committed traces with
// smpirun's default network model (SMPI: CM02 plus SimGrid 3.32's
// factors) and with the simgrid model and factors=smpi.
func TestSMPIFactorsAgainstSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	cfg := sgConfig(t)
	if err := cfg.Set("factors", "smpi"); err != nil {
		t.Fatal(err)
	}
	for _, name := range sgTraces {
		index := filepath.Join(sgDir, name+".txt")
		tr, err := simgridti.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		_, res := simulate(t, tr, cfg, Options{})
		sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: tr.Size(), Cluster: sgCluster,
			Config: []string{"network/crosstraffic:0"}})
		if err != nil {
			t.Fatal(err)
		}
		diff := (res.Makespan - sg.SimulatedTime) / sg.SimulatedTime
		t.Logf("%s: engine %.9f s, SimGrid (SMPI model) %.9f s (%+.4f %%)", name, res.Makespan, sg.SimulatedTime, 100*diff)
		if math.Abs(diff) > 0.005 {
			t.Errorf("%s: differ by %.3f %%", name, 100*diff)
		}
	}
}

func TestPlatformErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	head := `<?xml version='1.0'?>
<platform version="4.1">
`
	star := write("star.xml", head+`<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" sharing_policy="SHARED" loopback_bw="10GBps"/>
</platform>`)
	torus := write("torus.xml", head+`<cluster id="t" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="2,2"/>
</platform>`)
	hosts := write("hosts", "h0:2\nh1\n")
	bad := write("bad.xml", head+`<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" availability_file="a.txt"/>
</platform>`)
	fatBackbone := write("fatbb.xml", head+`<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" bb_bw="1GBps" bb_sharing_policy="FATPIPE"/>
</platform>`)
	limiter := write("limiter.xml", head+`<cluster id="c" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" limiter_link="100MBps"/>
</platform>`)
	sharedTorus := write("storus.xml", head+`<cluster id="t" prefix="h" suffix="" radical="0-3" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="2,2" sharing_policy="SHARED"/>
</platform>`)
	factors := write("factors", "# mine\nbw-factor: 0:0.5;1000:0.9\nlatency 2\n")
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"platform", star, "topology", "torus:4x4"}, `platform: cannot be combined with topology "torus:4x4"`},
		{[]string{"hostfile", hosts}, "hostfile: needs a platform"},
		{[]string{"platform", star, "model", "packet"}, "platform: sharing_policy SHARED (" + star + ":3): the packet model's links have one channel per direction"},
		{[]string{"platform", bad}, "platform: " + bad + `:3: <cluster>: attribute availability_file is not supported by tracesim`},
		{[]string{"platform", fatBackbone, "model", "packet"}, "platform: bb_sharing_policy FATPIPE (" + fatBackbone + ":3): the packet model's backbone carries one packet at a time (SHARED)"},
		{[]string{"platform", fatBackbone, "model", "puppet"}, "platform: the cluster's backbone (" + fatBackbone + ":3) is modelled by the flow, packet and simgrid models, not by the puppet model"},
		{[]string{"platform", star, "model", "loggops"}, "platform: not used by loggops (its L, o, g, G, O replace the platform's links"},
		{[]string{"platform", limiter, "model", "puppet"}, "platform: limiter_link (" + limiter + ":3) is modelled by the flow and simgrid models, not by the puppet model"},
		{[]string{"platform", sharedTorus}, "platform: sharing_policy SHARED (" + sharedTorus + ":3) on cluster t: TORUS 2,2"},
		{[]string{"platform", star, "placement", "block:2"}, "platform: cannot be combined with placement"},
		{[]string{"platform", filepath.Join(dir, "none.xml")}, "platform file " + filepath.Join(dir, "none.xml") + ": no such file or directory"},
		{[]string{"factors", factors}, "factors: " + factors + `:3: unknown key "latency" (expected bw-factor or lat-factor)`},
	} {
		cfg := Default()
		cfg.Model = ModelSimGrid
		var err error
		for i := 0; i < len(c.kv) && err == nil; i += 2 {
			err = cfg.Set(c.kv[i], c.kv[i+1])
		}
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant %s", c.kv, err, c.want)
		}
	}
	// What those refuse, the others model.
	for _, kv := range [][]string{
		{"platform", fatBackbone, "model", "simgrid"}, {"platform", fatBackbone, "model", "flow"},
		{"platform", sharedTorus, "model", "simgrid", "crosstraffic", "0"}, {"platform", sharedTorus, "model", "flow"},
	} {
		cfg := Default()
		var err error
		for i := 0; i < len(kv) && err == nil; i += 2 {
			err = cfg.Set(kv[i], kv[i+1])
		}
		if err == nil {
			err = cfg.Validate()
		}
		if err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
	// Two ranks on one host with a loopback link: not modelled.
	cfg := cfgWith(t, "model", "simgrid", "platform", star, "hostfile", hosts)
	if _, err := cfg.Machine(3, nil); err == nil || !strings.Contains(err.Error(), "hostfile: ranks 0 and 1 share host h0: messages over a loopback link ("+star+":3) are not modelled") {
		t.Errorf("shared host: %v", err)
	}
	// The hostfile's placement: h3, h1, then around again.
	cfg = cfgWith(t, "model", "simgrid", "platform", torus, "hostfile", write("h2", "h3\nh1\n"), "model", "packet")
	m, err := cfg.Machine(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.NodeOf; len(got) != 2 || got[0] != 3 || got[1] != 1 {
		t.Errorf("placement %v, want [3 1]", got)
	}
	if _, err := cfg.Machine(3, nil); err == nil || !strings.Contains(err.Error(), "hostfile: ranks 0 and 2 share host h3: messages within a host of cluster t: TORUS 2,2") {
		t.Errorf("shared torus host: %v", err)
	}
}

func TestFactorsFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("smpi/bw-factor = 0:0.5;1000:0.9 # comment\nlat-factor 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := cfgWith(t, "factors", p)
	bw, lat, err := cfg.SizeFactors()
	if err != nil {
		t.Fatal(err)
	}
	if bw.At(1000) != 0.5 || bw.At(1001) != 0.9 || lat.At(0) != 3 {
		t.Errorf("bw %v lat %v", bw, lat)
	}
}

// TestRoutedClustersAgainstSimGrid: messages one at a time between hosts
// of SimGrid TORUS and FAT_TREE clusters, read with --platform, under the
// simgrid model (route latency = links on the route × lat, no contention)
// and under smpirun -replay (CM02, without and with crosstraffic): the
// routes have as many links in both, so the makespans agree. On a star
// whose links are SHARED (the explicit star's default) or across a SHARED
// backbone a message alone gets 1/1.05 of the link with crosstraffic: its
// own way back loads it too; so it does of its hosts' limiter links.
func TestRoutedClustersAgainstSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	for _, c := range []struct {
		name, attrs string
		a, b        int
		// extra is the links SimGrid's routes of the 8 messages have
		// beyond the shortest paths the engine takes (SimGrid's
		// dragonfly quirk below).
		extra int
	}{
		{"torus 4x4 far", `topology="TORUS" topo_parameters="4,4"`, 0, 10, 0},
		{"torus 4x4 wrap", `topology="TORUS" topo_parameters="4,4"`, 1, 15, 0},
		{"torus 2x2x4", `topology="TORUS" topo_parameters="2,2,4"`, 3, 12, 0},
		{"fat tree across", `topology="FAT_TREE" topo_parameters="2;4,4;1,4;1,1"`, 0, 13, 0},
		{"fat tree leaf", `topology="FAT_TREE" topo_parameters="2;4,4;1,4;1,1"`, 4, 6, 0},
		{"tapered fat tree", `topology="FAT_TREE" topo_parameters="2;4,4;1,2;1,1"`, 2, 11, 0},
		{"star", ``, 3, 9, 0},
		{"star SHARED", `sharing_policy="SHARED"`, 3, 9, 0},
		{"explicit star", "explicit", 3, 9, 0},
		{"star backbone", `bb_bw="100MBps" bb_lat="20us"`, 3, 9, 0},
		{"star fast backbone", `bb_bw="1GBps" bb_lat="1ms"`, 3, 9, 0},
		{"star FATPIPE backbone", `bb_bw="100MBps" bb_lat="20us" bb_sharing_policy="FATPIPE"`, 3, 9, 0},
		{"star SHARED backbone", `sharing_policy="SHARED" bb_bw="200MBps" bb_lat="20us"`, 3, 9, 0},
		{"star limiter", `limiter_link="50MBps"`, 3, 9, 0},
		{"star limiter and backbone", `limiter_link="100MBps" bb_bw="90MBps"`, 3, 9, 0},
		{"torus limiter", `topology="TORUS" topo_parameters="4,4" limiter_link="50MBps"`, 0, 10, 0},
		// DRAGONFLY 2,1;2,1;2,1;2: hosts 0 and 15 are group 0 chassis 0
		// blade 0 and group 1 chassis 1 blade 1 (green, blue, black);
		// 0 and 7 share a group (green, then black).
		{"dragonfly across groups", `topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;2"`, 0, 15, 0},
		// Within a group, after a green hop SimGrid 3.32 believes itself
		// in chassis 0 (DragonflyZone::get_local_route): from chassis 1
		// to another blade of chassis 1 it adds a black link from
		// chassis 0 (one link more, each message); from chassis 1 to
		// chassis 0 it leaves out the black link (one less on the way
		// back from 7 to 0). Its routes there are not paths; the engine
		// takes the shortest ones.
		{"dragonfly in a group", `topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;2"`, 0, 7, -4},
		{"dragonfly same chassis", `topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;2"`, 5, 6, 8},
		{"dragonfly double links", `topology="DRAGONFLY" topo_parameters="2,2;2,3;2,2;2"`, 2, 13, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			plat := filepath.Join(dir, "p.xml")
			body := `  <cluster id="c" prefix="host" suffix="" radical="0-15" speed="1Gf" bw="125MBps" lat="50us" ` + c.attrs + `/>`
			if c.attrs == "explicit" {
				body = explicitStar(16)
			}
			xml := `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
` + body + `
</platform>
`
			var hosts, index strings.Builder
			for r := 0; r < 16; r++ {
				fmt.Fprintf(&hosts, "host%d\n", r)
				var body string
				switch r {
				case c.a:
					for _, n := range []int{8, 4096, 70000, 1 << 20} {
						body += fmt.Sprintf("%d send %d 0 %d 6\n%d recv %d 0 %d 6\n", r, c.b, n, r, c.b, n)
					}
				case c.b:
					for _, n := range []int{8, 4096, 70000, 1 << 20} {
						body += fmt.Sprintf("%d recv %d 0 %d 6\n%d send %d 0 %d 6\n", r, c.a, n, r, c.a, n)
					}
				}
				name := fmt.Sprintf("r%d.txt", r)
				if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("%d init\n%s%d finalize\n", r, body, r)), 0o644); err != nil {
					t.Fatal(err)
				}
				index.WriteString(name + "\n")
			}
			hostfile := filepath.Join(dir, "hosts")
			idx := filepath.Join(dir, "index.txt")
			for path, text := range map[string]string{plat: xml, hostfile: hosts.String(), idx: index.String()} {
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			tr, err := simgridti.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			for _, ct := range []string{"0", "0.05"} {
				on := map[string]string{"0": "0", "0.05": "1"}[ct] // SimGrid's is a switch for 0.05
				_, res := simulate(t, tr, cfgWith(t, "model", "simgrid", "platform", plat, "hostfile", hostfile, "crosstraffic", ct), Options{})
				sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: idx, Ranks: 16, Platform: plat, Hostfile: hostfile,
					Config: []string{"network/model:CM02", "network/crosstraffic:" + on}})
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s, hosts %d and %d, crosstraffic %s: engine %.9f s, SimGrid %.6f s", c.name, c.a, c.b, ct, res.Makespan, sg.SimulatedTime)
				// 50 µs per extra link.
				if d := math.Abs(res.Makespan + float64(c.extra)*50e-6 - sg.SimulatedTime); d > 1e-6 {
					t.Errorf("crosstraffic %s: engine %.9f s, SimGrid %.6f s", ct, res.Makespan, sg.SimulatedTime)
				}
			}
		})
	}
}

// TestConfigFilePaths: a configuration file's platform, hostfile and
// factors file are read from its directory.
func TestConfigFilePaths(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "machine")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"p.xml":       `<platform version="4.1"><cluster id="c" prefix="h" suffix="" radical="0-1" speed="2Gf" bw="1GBps" lat="1us"/></platform>`,
		"hosts":       "h1\nh0\n",
		"f":           "lat-factor 2\n",
		"config.toml": "model = \"simgrid\"\n[simgrid]\nplatform = \"p.xml\"\nhostfile = \"hosts\"\nfactors = \"f\"\n",
	} {
		if err := os.WriteFile(filepath.Join(sub, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg := Default()
	if err := cfg.LoadFile(filepath.Join(sub, "config.toml")); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	if cfg.Platform != filepath.Join(sub, "p.xml") || cfg.Hostfile != filepath.Join(sub, "hosts") || cfg.Factors != filepath.Join(sub, "f") {
		t.Errorf("paths %q %q %q", cfg.Platform, cfg.Hostfile, cfg.Factors)
	}
	m, err := cfg.Machine(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m.NodeOf[0] != 1 || m.NodeOf[1] != 0 {
		t.Errorf("placement %v, want [1 0]", m.NodeOf)
	}
}

// explicitStar is a star of explicit hosts, 125 MBps, 50 µs links and
// loopbacks, one symmetrical route for every pair.
func explicitStar(n int) string {
	var b strings.Builder
	b.WriteString(`<zone id="AS0" routing="Full">` + "\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "<host id=\"host%d\" speed=\"1Gf\"/>\n", i)
		fmt.Fprintf(&b, "<link id=\"loop%d\" bandwidth=\"10GBps\" latency=\"0ms\"/>\n", i)
		fmt.Fprintf(&b, "<link id=\"link%d\" bandwidth=\"125MBps\" latency=\"50us\"/>\n", i)
	}
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if i == j {
				fmt.Fprintf(&b, "<route src=\"host%d\" dst=\"host%d\"><link_ctn id=\"loop%d\"/></route>\n", i, j, i)
			} else {
				fmt.Fprintf(&b, "<route src=\"host%d\" dst=\"host%d\"><link_ctn id=\"link%d\"/><link_ctn id=\"link%d\"/></route>\n", i, j, i, j)
			}
		}
	}
	b.WriteString("</zone>")
	return b.String()
}

// TestPlatformRouting: the packet model's routing is checked against the
// platform's topology.
func TestPlatformRouting(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.xml")
	if err := os.WriteFile(p, []byte(`<platform version="4.1"><cluster id="t" prefix="h" suffix="" radical="0-15" speed="1Gf" bw="1GBps" lat="1us" topology="TORUS" topo_parameters="4,4"/></platform>`), 0o644); err != nil {
		t.Fatal(err)
	}
	dor := cfgWith(t, "model", "packet", "platform", p, "routing", "dor")
	if err := dor.Validate(); err != nil {
		t.Errorf("dor on a torus platform: %v", err)
	}
	// The packet model runs on it: the hosts' terminal links are free,
	// the torus links 1 GB/s, 1 µs.
	tr, err := simgridti.ReadFile(filepath.Join(sgDir, "pingpong.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, res := simulate(t, tr, dor, Options{})
	if !res.Complete || !(res.Makespan > 0.05) || res.Network == nil || res.Network.Spec != "torus:4x4,bw=8Gb/s,lat=1us,nbw=8e+18Tb/s,nlat=0s" {
		t.Errorf("packet model on the platform: complete %v, makespan %g s, network %+v", res.Complete, res.Makespan, res.Network)
	}
	// The flow model follows SimGrid's own TORUS routes: a routing is
	// an error rather than ignored.
	flowDor := cfgWith(t, "model", "flow", "platform", p, "routing", "dor")
	if err := flowDor.Validate(); err == nil || err.Error() != `platform: routing "dor": the flow model follows SimGrid's own routes on cluster t: TORUS 4,4 (torus:4x4) of 16 hosts, 8 Gb/s, 1 µs links (leave routing empty)` {
		t.Errorf("dor under the flow model: %v", err)
	}
	updown := cfgWith(t, "model", "packet", "platform", p, "routing", "updown")
	if err := updown.Validate(); err == nil || !strings.Contains(err.Error(), "updown") {
		t.Errorf("updown on a torus platform: %v", err)
	}
}

// TestSharedHostsAgainstSimGrid: with a hostfile of two slots per host on
// a star cluster, SimGrid sends the messages of two ranks of one host up
// the host's link and down again; the simgrid model follows it.
func TestSharedHostsAgainstSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	dir := t.TempDir()
	hosts := filepath.Join(dir, "hosts")
	for _, c := range []struct {
		trace, hostfile string
	}{
		{"pingpong", "host3:2\n"},
		{"ring", "host0:2\nhost1:2\nhost2:2\nhost3:2\n"},
	} {
		if err := os.WriteFile(hosts, []byte(c.hostfile), 0o644); err != nil {
			t.Fatal(err)
		}
		index := filepath.Join(sgDir, c.trace+".txt")
		tr, err := simgridti.ReadFile(index)
		if err != nil {
			t.Fatal(err)
		}
		cfg := cfgWith(t, "model", "simgrid", "platform", filepath.Join(sgDir, "platform.xml"), "hostfile", hosts,
			"coll-alg", "all=smpi")
		_, res := simulate(t, tr, cfg, Options{})
		// smpirun unrolls HOST:N itself.
		sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: tr.Size(),
			Platform: filepath.Join(sgDir, "platform.xml"), Hostfile: hosts, Config: sgOptions})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s on %q: engine %.9f s, SimGrid %.6f s", c.trace, c.hostfile, res.Makespan, sg.SimulatedTime)
		if d := math.Abs(res.Makespan-sg.SimulatedTime) / sg.SimulatedTime; d > 0.005 {
			t.Errorf("%s: engine %.9f s, SimGrid %.6f s (%.2f %%)", c.trace, res.Makespan, sg.SimulatedTime, 100*d)
		}
	}
}

// TestParseTopologyReadsPlatform: what shows or checks the topology (the
// Machine tab's summary, its routing menu) sees the platform's.
func TestParseTopologyReadsPlatform(t *testing.T) {
	cfg := cfgWith(t, "platform", filepath.Join(sgDir, "platform.xml"))
	tp, err := cfg.ParseTopology()
	if err != nil || tp == nil || tp.Spec() != "crossbar:8,bw=1Gb/s,lat=5us" {
		t.Fatalf("%v, %v", tp, err)
	}
}

// TestBackboneModels: four pairs of hosts send 1 MB each at once across
// a 100 MB/s backbone of 125 MB/s, 5 µs links (20 µs backbone). Every
// model that takes a backbone puts the backbone on the route: the flow
// model shares it (4 MB at 100/1.05 MB/s with SimGrid's crosstraffic,
// 100 MB/s without), the packet model serializes the packets on it, the
// simgrid model (no contention) gives each message the backbone alone;
// the flow and packet models report it as the link group "backbone",
// which carried every byte.
func TestBackboneModels(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "p.xml")
	xml := `<?xml version='1.0'?>
<platform version="4.1">
  <cluster id="c" prefix="host" suffix="" radical="0-7" speed="1Gf" bw="125MBps" lat="5us" bb_bw="100MBps" bb_lat="20us"/>
</platform>
`
	var index strings.Builder
	for r := range 8 {
		act := fmt.Sprintf("%d send %d 0 1000000\n", r, r+4)
		if r >= 4 {
			act = fmt.Sprintf("%d recv %d 0 1000000\n", r, r-4)
		}
		name := fmt.Sprintf("r%d.txt", r)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(fmt.Sprintf("%d init\n%s%d finalize\n", r, act, r)), 0o644); err != nil {
			t.Fatal(err)
		}
		index.WriteString(name + "\n")
	}
	idx := filepath.Join(dir, "index.txt")
	for path, text := range map[string]string{plat: xml, idx: index.String()} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr, err := simgridti.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	const bytes = 4 * 1_000_016 // with the envelope
	for _, c := range []struct {
		model, crosstraffic string
		want                float64 // s
		group               bool
	}{
		{"flow", "0.05", 30e-6 + bytes*1.05/100e6, true},
		{"flow", "0", 30e-6 + bytes/100e6, true},
		// Packets: the first one's latency, then the backbone busy.
		{"packet", "0", 30e-6 + bytes/100e6, true},
		{"simgrid", "0", 30e-6 + bytes/4/100e6, false},
	} {
		t.Run(c.model+"/"+c.crosstraffic, func(t *testing.T) {
			_, res := simulate(t, tr, cfgWith(t, "model", c.model, "platform", plat, "crosstraffic", c.crosstraffic, "envelope", "16"), Options{})
			if d := math.Abs(res.Makespan-c.want) / c.want; d > 0.002 {
				t.Errorf("makespan %.9f s, want %.9f s", res.Makespan, c.want)
			}
			if !c.group {
				return
			}
			var found bool
			for _, g := range res.Network.Groups {
				if g.Name == "backbone" {
					found = true
					if g.Links != 1 || g.Bytes < bytes-4*16 || g.MeanUtilisation < 0.9 {
						t.Errorf("backbone group %+v: want 1 link, %d bytes, nearly full", g, bytes)
					}
				}
			}
			if !found {
				t.Errorf("no backbone group in %+v", res.Network.Groups)
			}
			var classes []string
			for _, l := range res.Network.Links {
				if l.Class != "terminal" {
					classes = append(classes, l.Class)
				}
			}
			if len(classes) != 1 || classes[0] != "backbone" {
				t.Errorf("router links of classes %v, want the backbone", classes)
			}
		})
	}
}

// TestHostSpeeds: on a platform whose hosts run at different speeds (two
// cabinets of 1 and 4 Gflop/s) each rank computes at its host's speed:
// 2 Gflop take 2 s on a-0, 0.5 s on b-0, and the overflow error names
// the host's speed.
func TestHostSpeeds(t *testing.T) {
	dir := t.TempDir()
	plat := filepath.Join(dir, "p.xml")
	xml := `<?xml version='1.0'?>
<platform version="4.1">
  <zone id="s" routing="Cluster">
    <cabinet id="a" prefix="a-" suffix="" radical="0" speed="1Gf" bw="125MBps" lat="5us"/>
    <cabinet id="b" prefix="b-" suffix="" radical="0" speed="4Gf" bw="125MBps" lat="5us"/>
  </zone>
</platform>
`
	if err := os.WriteFile(plat, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newProg(t, 2)
	p.work(0, 2e9)
	p.work(1, 2e9)
	_, res := simulate(t, p.trace(), cfgWith(t, "model", "flow", "platform", plat), Options{})
	if got := []float64{res.Ranks[0].Finish, res.Ranks[1].Finish}; !near(got[0], 2) || !near(got[1], 0.5) {
		t.Errorf("ranks end at %v, want 2 s and 0.5 s", got)
	}
	p = newProg(t, 2)
	p.work(1, 1e30)
	s, err := New(p.trace(), cfgWith(t, "model", "flow", "platform", plat), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "compute of 1e+18 Tf at 4 Gf/s lasts") {
		t.Errorf("overflow: %v", err)
	}
}
