package topology

import (
	"strconv"
	"strings"
	"testing"
)

func TestGraphFile(t *testing.T) {
	topo := mustParse(t, "file:testdata/net.txt")
	g := topo.(*Graph)
	if g.NumRouters() != 6 || g.NumNodes() != 9 {
		t.Fatalf("routers %d nodes %d", g.NumRouters(), g.NumNodes())
	}
	if g.RouterName(5) != "spine" || g.NodeName(4) != "n4" || g.RouterName(2) != "s2" {
		t.Errorf("names: %s %s %s", g.RouterName(5), g.NodeName(4), g.RouterName(2))
	}
	// s0: links to s1, s4 (line "link s4 s0"), s2 (chord), spine, then n0..n2.
	wantPeers := []string{"r1", "r4", "r2", "r5", "n0", "n1", "n2"}
	if g.NumPorts(0) != len(wantPeers) {
		t.Fatalf("s0 has %d ports", g.NumPorts(0))
	}
	for p, w := range wantPeers {
		peer := g.Peer(0, p)
		got := map[PeerKind]string{PeerRouter: "r", PeerNode: "n"}[peer.Kind] + strconv.Itoa(peer.ID)
		if got != w {
			t.Errorf("s0 port %d leads to %s; want %s", p, got, w)
		}
	}
	props := func(r, p int) LinkProps { return g.Link(g.OutLink(r, p)).Props }
	tests := []struct {
		name string
		got  LinkProps
		want LinkProps
	}{
		{"ring link s0→s1", props(0, 0), LinkProps{1.25e9, 50_000}},
		{"chord s0→s2", props(0, 2), LinkProps{5e9, 50_000}},
		{"spine link s0→spine", props(0, 3), LinkProps{1.25e9, 200_000}},
		{"spine link spine→s0", props(5, 0), LinkProps{1.25e9, 200_000}},
		{"eject s0→n0", props(0, 4), LinkProps{3.125e9, 5_000}},
		{"inject n0", g.Link(g.InjectLink(0)).Props, LinkProps{3.125e9, 5_000}},
		{"slow node n4", g.Link(g.InjectLink(4)).Props, LinkProps{1.25e8, 5_000}},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %+v; want %+v", tt.name, tt.got, tt.want)
		}
	}
	if d := g.Distance(5, 0); d != 1 {
		t.Errorf("Distance(spine, s0) = %d", d)
	}
	if d := g.Distance(0, 5); d != -1 {
		t.Errorf("Distance to the node-less spine = %d; want -1", d)
	}
}

func TestGraphErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       string
	}{
		{"unknown keyword", "router a\nswitchh b\n", "g.txt:2:1: unknown keyword \"switchh\" (expected default, router, node or link)"},
		{"unknown router", "router a\nnode n a\nlink a  b\n", "g.txt:3:9: unknown router \"b\""},
		{"node as router", "router a\nnode n a\nlink a n\n", "g.txt:3:8: \"n\" is a node, expected a router"},
		{"duplicate", "router a b\nrouter b\n", "g.txt:2:8: \"b\" is already declared as a router"},
		{"duplicate node", "router a\nnode a a\n", "g.txt:2:6: \"a\" is already declared as a router"},
		{"self link", "router a\nlink a a\n", "g.txt:2:8: link from \"a\" to itself"},
		{"bad bw", "router a b\nlink a b bw=fast\n", "g.txt:2:13: bw: "},
		{"zero bw", "router a b\nlink a b bw=0\n", "g.txt:2:13: bw: bandwidth must be positive"},
		{"bad lat", "router a b\nlink a b lat=3ly\n", "g.txt:2:14: lat: "},
		{"junk", "router a b\nlink a b fast\n", "g.txt:2:10: unexpected \"fast\" (expected bw=RATE or lat=DURATION)"},
		{"unknown prop", "router a b\nlink a b speed=1\n", "g.txt:2:10: unknown property \"speed\""},
		{"twice", "router a b\nlink a b bw=1 bw=2\n", "g.txt:2:15: bw given twice"},
		{"missing args", "router a\nnode n\n", "g.txt:2:5: node: expected NAME ROUTER"},
		{"link args", "router a\nlink a\n", "g.txt:2:5: link: expected ROUTER ROUTER"},
		{"empty router", "router\n", "g.txt:1:7: router: expected one or more router names"},
		{"two defaults", "default bw=1\n# c\ndefault lat=1ns\n", "g.txt:3:1: second 'default' line (the first is on line 1)"},
		{"empty default", "default\n", "g.txt:1:1: default: expected bw=RATE"},
		{"bad range", "router s[3-1]\n", "g.txt:1:9: malformed range \"[3-1]\""},
		{"unclosed range", "router s[0-3\n", "g.txt:1:9: malformed range in \"s[0-3\""},
		{"two ranges", "router a[0-1] b[0-1]\nlink a[0-1] b[0-1]\n", "g.txt:2:13: link: at most one side may be a range"},
		{"no routers", "# nothing\n", "g.txt: no routers"},
		{"no nodes", "router a\n", "g.txt: no nodes"},
		{"disconnected", "router a b\nrouter c\nnode n a\nlink a b\n", "g.txt:2:1: router \"c\" is not connected to router \"a\""},
		{"weird name", "router a=b\n", "g.txt:1:8: \"a=b\" is not a name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseGraph(strings.NewReader(tt.text), "g.txt", Options{})
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("error %v; want prefix %q", err, tt.want)
			}
		})
	}
}

func TestGraphDefaultsFromOptions(t *testing.T) {
	link := LinkProps{Bandwidth: 2e9, Latency: 1}
	text := "router a b\nnode x a\nnode y b lat=9ns\nlink a b\n"
	g, err := ParseGraph(strings.NewReader(text), "t", Options{Link: &link})
	if err != nil {
		t.Fatal(err)
	}
	if p := g.Link(g.OutLink(0, 1)).Props; p != link {
		t.Errorf("router link %+v; want %+v", p, link)
	}
	if p := g.Link(g.InjectLink(1)).Props; p != (LinkProps{2e9, 9000}) {
		t.Errorf("node y %+v", p)
	}
	if g.RouterHops(0, 1) != 1 || g.Hops(0, 1) != 3 {
		t.Errorf("hops %d/%d", g.RouterHops(0, 1), g.Hops(0, 1))
	}
}

func FuzzParseGraph(f *testing.F) {
	f.Add("router a b\nnode n[0-3] a\nlink a b bw=1Gb/s lat=1us\n")
	f.Add("default bw=1 lat=0\ndefault node bw=2\nrouter s[0-9]\nlink s0 s[1-9]\nnode x s5\n")
	f.Add("router a\nnode n a\n# comment\n")
	f.Add("router s[0-99999999]\n")
	f.Fuzz(func(t *testing.T, text string) {
		g, err := ParseGraph(strings.NewReader(text), "fuzz", Options{})
		if err != nil {
			return
		}
		for n := 0; n < g.NumNodes(); n++ {
			for m := 0; m < g.NumNodes(); m++ {
				if h := g.RouterHops(n, m); h < 0 || h > g.NumRouters() {
					t.Fatalf("RouterHops(%d, %d) = %d", n, m, h)
				}
			}
		}
		for id := 0; id < g.NumLinks(); id++ {
			if l := g.Link(LinkID(id)); !l.Valid || g.Link(l.Reverse).Reverse != LinkID(id) {
				t.Fatalf("link %d: %+v", id, l)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, s := range append(smallSpecs, "torus:8x8,bw=1Gb/s,lat=1us,c=2", "fattree:k=4,levels=3,taper=0.5/0.25,taperby=count", "mesh:4xx4", "torus:0x8") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(strings.TrimSpace(strings.ToLower(spec)), "file") || strings.HasPrefix(strings.TrimSpace(strings.ToLower(spec)), "custom") {
			return // no file system access from the fuzzer
		}
		topo, err := Parse(spec)
		if err != nil {
			return
		}
		if topo.NumNodes() > 1<<12 {
			return
		}
		again, err := Parse(topo.Spec())
		if err != nil || again.Spec() != topo.Spec() || again.NumLinks() != topo.NumLinks() {
			t.Fatalf("%q → %q does not round-trip: %v", spec, topo.Spec(), err)
		}
		for n := 0; n < topo.NumNodes(); n++ {
			r, p := topo.Attach(n)
			if topo.Peer(r, p) != (Peer{Kind: PeerNode, ID: n}) {
				t.Fatalf("%q: node %d attach mismatch", spec, n)
			}
		}
	})
}
