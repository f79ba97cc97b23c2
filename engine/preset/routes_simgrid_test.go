package preset

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
)

// routedZone writes a zone of eight 1 Gflop/s hosts h0…h7 with the given
// routing and body (routers, links, routes) as a platform file.
func routedZone(routing, body string) string {
	var b strings.Builder
	b.WriteString("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n<platform version=\"4.1\">\n")
	fmt.Fprintf(&b, "  <zone id=\"z\" routing=%q>\n", routing)
	for h := range 8 {
		fmt.Fprintf(&b, "    <host id=\"h%d\" speed=\"1Gf\"/>\n", h)
	}
	b.WriteString(body)
	b.WriteString("  </zone>\n</platform>\n")
	return b.String()
}

// route writes a route through the links given as "ID" or "ID:UP".
func route(src, dst string, sym bool, links ...string) string {
	s := fmt.Sprintf("    <route src=%q dst=%q", src, dst)
	if !sym {
		s += ` symmetrical="NO"`
	}
	s += ">"
	for _, l := range links {
		id, dir, ok := strings.Cut(l, ":")
		if ok {
			s += fmt.Sprintf("<link_ctn id=%q direction=%q/>", id, dir)
		} else {
			s += fmt.Sprintf("<link_ctn id=%q/>", id)
		}
	}
	return s + "</route>\n"
}

func link(id, bw, lat, sharing string) string {
	s := fmt.Sprintf("    <link id=%q bandwidth=%q latency=%q", id, bw, lat)
	if sharing != "" {
		s += fmt.Sprintf(" sharing_policy=%q", sharing)
	}
	return s + "/>\n"
}

// routedPlatforms are explicit zones whose routes are not a star's, each
// a shape SimGrid routes its own way.
func routedPlatforms() []struct{ name, xml string } {
	var out []struct{ name, xml string }
	add := func(name, xml string) { out = append(out, struct{ name, xml string }{name, xml}) }

	// A line of four routers, two hosts on each (Floyd): routes of 2
	// to 5 links, the line's links slower than the hosts'.
	var b strings.Builder
	for r := range 4 {
		fmt.Fprintf(&b, "    <router id=\"r%d\"/>\n", r)
	}
	for h := range 8 {
		b.WriteString(link(fmt.Sprintf("l%d", h), "125MBps", "5us", ""))
	}
	for r := range 3 {
		b.WriteString(link(fmt.Sprintf("x%d", r), "100MBps", "10us", ""))
	}
	for h := range 8 {
		b.WriteString(route(fmt.Sprintf("h%d", h), fmt.Sprintf("r%d", h/2), true, fmt.Sprintf("l%d", h)))
	}
	for r := range 3 {
		b.WriteString(route(fmt.Sprintf("r%d", r), fmt.Sprintf("r%d", r+1), true, fmt.Sprintf("x%d", r)))
	}
	add("line of routers (Floyd)", routedZone("Floyd", b.String()))

	// A ring of eight routers, one host each, links of different
	// speeds: opposite hosts are as far either way, and the way
	// SimGrid's Floyd and Dijkstra break the tie decides the links.
	ring := func() string {
		var b strings.Builder
		for r := range 8 {
			fmt.Fprintf(&b, "    <router id=\"r%d\"/>\n", r)
		}
		for h := range 8 {
			b.WriteString(link(fmt.Sprintf("l%d", h), "125MBps", "5us", ""))
			b.WriteString(link(fmt.Sprintf("x%d", h), fmt.Sprintf("%dMBps", 50+25*h), fmt.Sprintf("%dus", 2+h), ""))
		}
		for h := range 8 {
			b.WriteString(route(fmt.Sprintf("h%d", h), fmt.Sprintf("r%d", h), true, fmt.Sprintf("l%d", h)))
			b.WriteString(route(fmt.Sprintf("r%d", h), fmt.Sprintf("r%d", (h+1)%8), true, fmt.Sprintf("x%d", h)))
		}
		return b.String()
	}
	add("ring (Floyd)", routedZone("Floyd", ring()))
	add("ring (Dijkstra)", routedZone("Dijkstra", ring()))

	// Two leaf switches of four hosts under a root, each leaf's uplink
	// SHARED and slower than its hosts' links, declared in an order
	// Dijkstra numbers differently from Floyd.
	b.Reset()
	b.WriteString("    <router id=\"root\"/>\n    <router id=\"leaf0\"/>\n    <router id=\"leaf1\"/>\n")
	for h := range 8 {
		b.WriteString(link(fmt.Sprintf("l%d", h), "125MBps", "5us", ""))
	}
	b.WriteString(link("up0", "200MBps", "20us", "SHARED"))
	b.WriteString(link("up1", "150MBps", "20us", "SHARED"))
	b.WriteString(route("leaf1", "root", true, "up1"))
	b.WriteString(route("root", "leaf0", true, "up0"))
	for h := range 8 {
		b.WriteString(route(fmt.Sprintf("h%d", h), fmt.Sprintf("leaf%d", h/4), true, fmt.Sprintf("l%d", h)))
	}
	add("two-level tree, shared uplinks (Floyd)", routedZone("Floyd", b.String()))
	add("two-level tree, shared uplinks (Dijkstra)", routedZone("Dijkstra", b.String()))

	// Asymmetric routes (Full, symmetrical="NO"): from a lower host to a
	// higher one over backbone "fast", back over "slow", with each
	// host's SPLITDUPLEX link up then the destination's down.
	b.Reset()
	for h := range 8 {
		b.WriteString(link(fmt.Sprintf("l%d", h), "125MBps", "5us", "SPLITDUPLEX"))
	}
	b.WriteString(link("fast", "500MBps", "10us", ""))
	b.WriteString(link("slow", "80MBps", "40us", "FATPIPE"))
	for s := range 8 {
		for d := range 8 {
			if s == d {
				continue
			}
			bb := "fast"
			if s > d {
				bb = "slow"
			}
			b.WriteString(route(fmt.Sprintf("h%d", s), fmt.Sprintf("h%d", d), false, fmt.Sprintf("l%d:UP", s), bb, fmt.Sprintf("l%d:DOWN", d)))
		}
	}
	add("asymmetric, SPLITDUPLEX and FATPIPE (Full)", routedZone("Full", b.String()))

	// SPLITDUPLEX links of mixed bandwidths under two routers (Floyd):
	// a host's link UP towards its router, the routers' link UP from
	// r0 to r1; the way back DOWN.
	b.Reset()
	b.WriteString("    <router id=\"r0\"/>\n    <router id=\"r1\"/>\n")
	for h := range 8 {
		b.WriteString(link(fmt.Sprintf("l%d", h), fmt.Sprintf("%dMBps", 100+50*(h%3)), "5us", "SPLITDUPLEX"))
	}
	b.WriteString(link("mid", "150MBps", "15us", "SPLITDUPLEX"))
	for h := range 8 {
		b.WriteString(route(fmt.Sprintf("h%d", h), fmt.Sprintf("r%d", h%2), true, fmt.Sprintf("l%d:UP", h)))
	}
	b.WriteString(route("r0", "r1", true, "mid:UP"))
	add("SPLITDUPLEX, mixed bandwidths (Floyd)", routedZone("Floyd", b.String()))

	// A Full zone of multi-link routes: hosts in pairs on four switches
	// joined in a chain, each route listing every link.
	b.Reset()
	for h := range 8 {
		b.WriteString(link(fmt.Sprintf("l%d", h), "125MBps", "5us", ""))
	}
	for s := range 3 {
		b.WriteString(link(fmt.Sprintf("c%d", s), "250MBps", "8us", ""))
	}
	for s := range 8 {
		for d := s + 1; d < 8; d++ {
			links := []string{fmt.Sprintf("l%d", s)}
			for c := s / 2; c < d/2; c++ {
				links = append(links, fmt.Sprintf("c%d", c))
			}
			links = append(links, fmt.Sprintf("l%d", d))
			b.WriteString(route(fmt.Sprintf("h%d", s), fmt.Sprintf("h%d", d), true, links...))
		}
	}
	add("chain of switches, multi-link routes (Full)", routedZone("Full", b.String()))
	return out
}

// tokenWalk: a message of 8 B, then of 1000 B, 65536 B and 1 MB,
// passes from rank to rank along 0, 4, 0, 5, 1, 5, 6, 2, 6, 3, 7, 3, 0
// (on the ring the pairs 0–4, 5–1, 6–2 and 3–7 are as far either way,
// and SimGrid's Floyd and Dijkstra break the tie differently between 5
// and 1 and between 6 and 2): one message at a time, so no link is
// shared.
func tokenWalk(r int) []string {
	path := []int{0, 4, 0, 5, 1, 5, 6, 2, 6, 3, 7, 3, 0}
	var out []string
	for _, n := range []int{8, 1000, 65536, 1000000} {
		for i := 0; i+1 < len(path); i++ {
			switch r {
			case path[i]:
				out = append(out, fmt.Sprintf("send %d 0 %d", path[i+1], n))
			case path[i+1]:
				out = append(out, fmt.Sprintf("recv %d 0 %d", path[i], n))
			}
		}
	}
	return out
}

// TestExplicitRoutesAgainstSimGrid replays programs on explicit zones
// whose routes are not a star's (routedPlatforms: Floyd and Dijkstra
// zones of routers, a ring whose ties the routing breaks, a tree with
// SHARED uplinks, asymmetric Full routes over SPLITDUPLEX and FATPIPE
// links, SPLITDUPLEX links of mixed bandwidths, multi-link Full routes)
// with smpirun -replay and the presets (sgModes): one message at a time
// (tokenWalk) within 0.01 %, four pairs at once and random programs
// within 1 %. Ranks i on host hi; the random program also with two ranks
// a host, whose messages within a host cross SimGrid's loopback link.
func TestExplicitRoutesAgainstSimGrid(t *testing.T) {
	needSmpirun(t)
	programs := []struct {
		name    string
		perHost int
		actions func(int) []string
		tol     float64
	}{
		{"token walk", 1, tokenWalk, 1e-4},
		{"4 pairs", 1, fourPairs, 1e-2},
		{"random", 1, randomActions(31, 8), 1e-2},
		{"random, 2 ranks a host", 2, randomActions(32, 16), 1e-2},
	}
	worst := map[bool]float64{}
	for pi, p := range routedPlatforms() {
		dir := t.TempDir()
		platform := filepath.Join(dir, fmt.Sprintf("routes%d.xml", pi))
		if err := os.WriteFile(platform, []byte(p.xml), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, prog := range programs {
			ranks := 8 * prog.perHost
			index, err := simgrid.WriteRanks(dir, fmt.Sprintf("p%d", pi), ranks, prog.actions)
			if err != nil {
				t.Fatal(err)
			}
			var hf strings.Builder
			for h := range 8 {
				if prog.perHost > 1 {
					fmt.Fprintf(&hf, "h%d:%d\n", h, prog.perHost)
				} else {
					fmt.Fprintf(&hf, "h%d\n", h)
				}
			}
			hostfile := filepath.Join(dir, "hostfile")
			if err := os.WriteFile(hostfile, []byte(hf.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, m := range sgModes {
				t.Run(p.name+"/"+prog.name+"/"+m.name, func(t *testing.T) {
					res, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: ranks, Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true})
					if err != nil {
						t.Fatal(err)
					}
					sg := res.SimulatedTime
					ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
					d := math.Abs(ours-sg) / sg
					worst[prog.tol < 1e-3] = max(worst[prog.tol < 1e-3], d)
					t.Logf("SimGrid %.9f s, ours %.9f s (%+.5f %%)", sg, ours, 100*(ours-sg)/sg)
					if d > prog.tol {
						t.Errorf("ours %.9f s, SimGrid %.9f s: %+.4f %%, above %g %%", ours, sg, 100*(ours-sg)/sg, 100*prog.tol)
					}
				})
			}
		}
	}
	t.Logf("worst: %.6f %% alone, %.6f %% sharing links", 100*worst[true], 100*worst[false])
}

// TestExplicitRoutesPinned checks, where smpirun is not installed too,
// three cases of TestExplicitRoutesAgainstSimGrid against the makespans
// smpirun -replay 3.32 gave: the token walk on the Dijkstra ring (its tie
// broken SimGrid's way), four pairs over the tree's SHARED uplinks, and a
// random program on the asymmetric SPLITDUPLEX and FATPIPE routes.
func TestExplicitRoutesPinned(t *testing.T) {
	platforms := map[string]string{}
	for _, p := range routedPlatforms() {
		platforms[p.name] = p.xml
	}
	for _, c := range []struct {
		platform, program string
		actions           func(int) []string
		sg                [3]float64 // per sgModes
	}{
		{"ring (Dijkstra)", "token walk", tokenWalk, [3]float64{0.207744202, 0.201131232, 0.228798138}},
		{"two-level tree, shared uplinks (Floyd)", "4 pairs", fourPairs, [3]float64{0.028050448, 0.026717093, 0.030347915}},
		{"asymmetric, SPLITDUPLEX and FATPIPE (Full)", "random", randomActions(31, 8), [3]float64{0.069186806, 0.068979539, 0.074077952}},
	} {
		dir := t.TempDir()
		platform := filepath.Join(dir, "routes.xml")
		if err := os.WriteFile(platform, []byte(platforms[c.platform]), 0o644); err != nil {
			t.Fatal(err)
		}
		index, err := simgrid.WriteRanks(dir, "p", 8, c.actions)
		if err != nil {
			t.Fatal(err)
		}
		hostfile := filepath.Join(dir, "hostfile")
		if err := os.WriteFile(hostfile, []byte("h0\nh1\nh2\nh3\nh4\nh5\nh6\nh7\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for i, m := range sgModes {
			ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
			if d := (ours - c.sg[i]) / c.sg[i]; math.Abs(d) > 1e-6 {
				t.Errorf("%s, %s, %s: ours %.9f s, smpirun %.9f s (%+.5f %%)", c.platform, c.program, m.name, ours, c.sg[i], 100*d)
			}
		}
	}
}

// TestExplicitStarSharedHost: two ranks on one host of an explicit star
// (a Full zone of hosts, private links and two-link routes, no route from
// a host to itself) exchange 1 MB each way. SimGrid routes them over its
// implicit loopback link (10 GBps, no latency, FATPIPE): 200 µs under
// CM02, where the engine sent them up the host's link and down again
// (16.81 ms). Against smpirun when installed, else its makespans.
func TestExplicitStarSharedHost(t *testing.T) {
	dir := t.TempDir()
	platform := filepath.Join(dir, "star.xml")
	xml := `<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="h0" speed="1Gf"/><host id="h1" speed="1Gf"/>
    <link id="l0" bandwidth="125MBps" latency="5us"/><link id="l1" bandwidth="125MBps" latency="5us"/>
    <route src="h0" dst="h1"><link_ctn id="l0"/><link_ctn id="l1"/></route>
  </zone>
</platform>
`
	if err := os.WriteFile(platform, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	hostfile := filepath.Join(dir, "hostfile")
	if err := os.WriteFile(hostfile, []byte("h0:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	index, err := simgrid.WriteRanks(dir, "pp", 2, func(r int) []string {
		if r == 0 {
			return []string{"send 1 0 1000000", "recv 1 0 1000000"}
		}
		return []string{"recv 0 0 1000000", "send 0 0 1000000"}
	})
	if err != nil {
		t.Fatal(err)
	}
	_, haveSmpirun := simgrid.Path()
	for i, m := range sgModes {
		sg := []float64{0.0002000032, 0.0002000032, 0.00021261239}[i]
		if haveSmpirun == nil && !testing.Short() {
			res, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: 2, Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true})
			if err != nil {
				t.Fatal(err)
			}
			sg = res.SimulatedTime
		}
		ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
		t.Logf("%s: SimGrid %.12f s, ours %.12f s", m.name, sg, ours)
		if d := (ours - sg) / sg; math.Abs(d) > 1e-5 {
			t.Errorf("%s: ours %.9f s, SimGrid %.9f s: %+.4f %%", m.name, ours, sg, 100*d)
		}
	}
}
