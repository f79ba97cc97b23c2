package topology

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/userfile"
)

// smallSpecs covers every kind with instances small enough for exhaustive
// checks.
var smallSpecs = []string{
	"ring:2", "ring:5", "ring:16",
	"mesh:4x4", "mesh:3x5", "mesh:4x4x4", "mesh:2x3",
	"torus:8x8", "torus:5x3", "torus:4x4x4", "torus:2x4", "torus:4x4,c=2",
	"hypercube:1", "hypercube:4", "hypercube:6",
	"crossbar:1", "crossbar:8", "bus:8",
	"fattree:k=2,levels=1", "fattree:k=4,levels=3", "fattree:k=3,levels=3", "fattree:k=2,levels=4",
	"fattree:k=4,levels=3,taper=0.5,taperby=count", "fattree:k=4,levels=3,taper=0.25/0.5,taperby=count",
	"dragonfly:p=2,a=4,h=2", "dragonfly:p=1,a=2,h=1", "dragonfly:p=3,a=3,h=3", "dragonfly:p=1,a=1,h=3",
}

func mustParse(t testing.TB, spec string) Topology {
	t.Helper()
	topo, err := Parse(spec)
	if err != nil {
		t.Fatalf("Parse(%q): %v", spec, err)
	}
	return topo
}

// validLinks counts link ids with Valid set.
func validLinks(topo Topology) int {
	n := 0
	for id := 0; id < topo.NumLinks(); id++ {
		if topo.Link(LinkID(id)).Valid {
			n++
		}
	}
	return n
}

func TestCounts(t *testing.T) {
	tests := []struct {
		spec             string
		nodes, routers   int
		undirectedNet    int // router-to-router links (bus: the medium counts 1)
		maxPorts         int
		distinctPortSets bool
	}{
		{"ring:16", 16, 16, 16, 3, false},
		{"ring:2", 2, 2, 1, 2, false},
		{"mesh:4x4x4", 64, 64, 3 * 3 * 16, 7, false},
		{"mesh:3x5", 15, 15, 2*5 + 4*3, 5, false},
		{"torus:8x8", 64, 64, 2 * 64, 5, false},
		{"torus:16x16x8", 2048, 2048, 3 * 2048, 7, false},
		{"torus:4x4,c=2", 32, 16, 2 * 16, 6, false},
		{"torus:2x4", 8, 8, 4 + 8, 4, false},
		{"hypercube:6", 64, 64, 6 * 32, 7, false},
		{"crossbar:64", 64, 1, 0, 64, false},
		{"bus:8", 8, 1, 0, 8, false},
		{"fattree:k=4,levels=3", 64, 48, 16*4 + 16*4, 8, true},
		{"fattree:k=3,levels=2", 9, 6, 9, 6, true},
		{"fattree:k=4,levels=3,taper=0.5,taperby=count", 64, 16 + 8 + 4, 16*2 + 8*2, 6, true},
		{"dragonfly:p=2,a=4,h=2", 72, 36, 9*6 + 9*8/2, 3 + 2 + 2, false},
		{"dragonfly:p=1,a=1,h=3", 4, 4, 4 * 3 / 2, 4, false},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			topo := mustParse(t, tt.spec)
			if topo.NumNodes() != tt.nodes || topo.NumRouters() != tt.routers {
				t.Fatalf("nodes, routers = %d, %d; want %d, %d", topo.NumNodes(), topo.NumRouters(), tt.nodes, tt.routers)
			}
			want := 2*tt.undirectedNet + 2*tt.nodes
			if topo.Kind() == KindBus {
				want++ // the medium
			}
			if got := validLinks(topo); got != want {
				t.Errorf("valid directed links = %d; want %d", got, want)
			}
			maxPorts, connected := 0, 0
			for r := 0; r < topo.NumRouters(); r++ {
				maxPorts = max(maxPorts, topo.NumPorts(r))
				for p := 0; p < topo.NumPorts(r); p++ {
					if topo.Peer(r, p).Kind == PeerRouter {
						connected++
					}
				}
			}
			if maxPorts != tt.maxPorts {
				t.Errorf("max ports = %d; want %d", maxPorts, tt.maxPorts)
			}
			if connected != 2*tt.undirectedNet {
				t.Errorf("connected router ports = %d; want %d", connected, 2*tt.undirectedNet)
			}
		})
	}
}

// TestSymmetry checks that every port's peer points back, that link ids
// are unique, reversible and described consistently, and that every node
// is attached where its router says.
func TestSymmetry(t *testing.T) {
	for _, spec := range smallSpecs {
		t.Run(spec, func(t *testing.T) {
			topo := mustParse(t, spec)
			seen := make(map[LinkID]bool)
			nodeSeen := make([]int, topo.NumNodes())
			for r := 0; r < topo.NumRouters(); r++ {
				for p := 0; p < topo.NumPorts(r); p++ {
					peer := topo.Peer(r, p)
					id := topo.OutLink(r, p)
					if peer.Kind == PeerNone {
						if id != NoLink {
							t.Errorf("r%d.p%d leads nowhere but has link %d", r, p, id)
						}
						continue
					}
					if id < 0 || int(id) >= topo.NumLinks() || seen[id] {
						t.Fatalf("r%d.p%d: link id %d out of range or duplicated", r, p, id)
					}
					seen[id] = true
					l := topo.Link(id)
					if !l.Valid || l.From != (Peer{Kind: PeerRouter, ID: r, Port: p}) || l.To != peer {
						t.Errorf("Link(%d) = %+v; want from r%d.p%d to %v", id, l, r, p, peer)
					}
					if !(l.Props.Bandwidth > 0) || l.Props.Latency < 0 {
						t.Errorf("Link(%d) has props %+v", id, l.Props)
					}
					switch peer.Kind {
					case PeerRouter:
						back := topo.Peer(peer.ID, peer.Port)
						if back != (Peer{Kind: PeerRouter, ID: r, Port: p}) {
							t.Errorf("r%d.p%d → %v → %v; want back to r%d.p%d", r, p, peer, back, r, p)
						}
						if rev := topo.OutLink(peer.ID, peer.Port); l.Reverse != rev || topo.Link(rev).Reverse != id {
							t.Errorf("link %d reverse %d, OutLink of peer %d", id, l.Reverse, rev)
						}
						if l.Class == ClassTerminal || l.Class == ClassNone {
							t.Errorf("router link %d has class %v", id, l.Class)
						}
					case PeerNode:
						nodeSeen[peer.ID]++
						ar, ap := topo.Attach(peer.ID)
						if ar != r || ap != p {
							t.Errorf("r%d.p%d leads to n%d, which attaches to r%d.p%d", r, p, peer.ID, ar, ap)
						}
						inj := topo.InjectLink(peer.ID)
						if l.Reverse != inj || topo.Link(inj).Reverse != id || l.Class != ClassTerminal {
							t.Errorf("eject %d / inject %d not paired", id, inj)
						}
					}
				}
			}
			for n, c := range nodeSeen {
				if c != 1 {
					t.Errorf("node %d appears on %d ports", n, c)
				}
				inj := topo.InjectLink(n)
				if seen[inj] {
					t.Errorf("inject link %d of node %d collides with a router link", inj, n)
				}
				seen[inj] = true
				l := topo.Link(inj)
				if !l.Valid || l.From != (Peer{Kind: PeerNode, ID: n}) {
					t.Errorf("InjectLink(%d) = %+v", n, l)
				}
			}
			if m := topo.Medium(0); m != NoLink {
				seen[m] = true
				if topo.Link(m).Class != ClassMedium {
					t.Errorf("medium %d has class %v", m, topo.Link(m).Class)
				}
			}
			if len(seen) != validLinks(topo) {
				t.Errorf("enumerated %d links, %d valid ids", len(seen), validLinks(topo))
			}
			// Out-of-range queries are harmless.
			if topo.Peer(-1, 0).Kind != PeerNone || topo.Peer(topo.NumRouters(), 0).Kind != PeerNone ||
				topo.Peer(0, topo.NumPorts(0)).Kind != PeerNone || topo.Link(-5).Valid || topo.Link(LinkID(topo.NumLinks())).Valid ||
				topo.InjectLink(topo.NumNodes()) != NoLink {
				t.Error("out-of-range query returned something")
			}
		})
	}
}

// bfsRouters returns router distances from src over router-to-router links.
func bfsRouters(topo Topology, src int) []int {
	dist := make([]int, topo.NumRouters())
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	queue := []int{src}
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		for p := 0; p < topo.NumPorts(r); p++ {
			if q := topo.Peer(r, p); q.Kind == PeerRouter && dist[q.ID] < 0 {
				dist[q.ID] = dist[r] + 1
				queue = append(queue, q.ID)
			}
		}
	}
	return dist
}

func TestHopsAgainstBFS(t *testing.T) {
	for _, spec := range append(smallSpecs, "file:testdata/net.txt") {
		t.Run(spec, func(t *testing.T) {
			topo := mustParse(t, spec)
			dists := make([][]int, topo.NumRouters())
			for n := 0; n < topo.NumNodes(); n++ {
				r, _ := topo.Attach(n)
				if dists[r] == nil {
					dists[r] = bfsRouters(topo, r)
				}
			}
			for a := 0; a < topo.NumNodes(); a++ {
				ra, _ := topo.Attach(a)
				for b := 0; b < topo.NumNodes(); b++ {
					rb, _ := topo.Attach(b)
					want := dists[ra][rb]
					if got := topo.RouterHops(a, b); got != want {
						t.Fatalf("RouterHops(%d, %d) = %d; BFS says %d", a, b, got, want)
					}
					if got, want := PathLinks(topo, a, b), map[bool]int{true: 0, false: want + 2}[a == b]; got != want {
						t.Fatalf("PathLinks(%d, %d) = %d; want %d", a, b, got, want)
					}
					h := topo.Hops(a, b)
					switch {
					case a == b:
						if h != 0 {
							t.Fatalf("Hops(%d, %d) = %d; want 0", a, b, h)
						}
					case topo.Kind() == KindBus:
						if h != 1 {
							t.Fatalf("bus Hops = %d; want 1", h)
						}
					case topo.Kind().Direct():
						if h != max(1, want) {
							t.Fatalf("Hops(%d, %d) = %d; want %d", a, b, h, max(1, want))
						}
					default:
						if h != want+2 {
							t.Fatalf("Hops(%d, %d) = %d; want %d", a, b, h, want+2)
						}
					}
				}
			}
		})
	}
}

func TestLargeTorus(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	topo := mustParse(t, "torus:64x32x32")
	runtime.ReadMemStats(&after)
	if topo.NumNodes() != 65536 || topo.NumLinks() != 65536*7+65536 {
		t.Fatalf("nodes %d, links %d", topo.NumNodes(), topo.NumLinks())
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<10 {
		t.Errorf("building torus:64x32x32 allocated %d bytes; want well under 16 KiB (implicit coordinates)", alloc)
	}
	// Distances from one router to all 65,536 against a BFS.
	dist := bfsRouters(topo, 12345)
	for n := 0; n < topo.NumNodes(); n++ {
		if got := topo.RouterHops(12345, n); got != dist[n] {
			t.Fatalf("RouterHops(12345, %d) = %d; BFS %d", n, got, dist[n])
		}
	}
	g := topo.(*Grid)
	if max := 32 + 16 + 16; dist[g.RouterAt([]int{32 + 12345%64, (12345/64 + 16) % 32, (12345/2048 + 16) % 32})] != max {
		t.Errorf("antipode not at distance %d", max)
	}
}

func TestGridCoords(t *testing.T) {
	for _, spec := range []string{"torus:8x8", "mesh:3x5x2", "torus:16x16x8", "hypercube:5", "ring:7"} {
		topo := mustParse(t, spec)
		g := topo.(*Grid)
		lay := topo.Layout()
		if lay.Style != LayoutGrid || len(lay.Dims) != g.NumDims() {
			t.Fatalf("%s: layout %+v", spec, lay)
		}
		var buf []int
		for r := 0; r < topo.NumRouters(); r++ {
			buf = topo.Coords(r, buf[:0])
			if g.RouterAt(buf) != r {
				t.Fatalf("%s: RouterAt(Coords(%d) = %v) = %d", spec, r, buf, g.RouterAt(buf))
			}
			for p := 0; p < g.NetPorts(); p++ {
				d, dir, _ := g.PortDim(p)
				peer := topo.Peer(r, p)
				if peer.Kind != PeerRouter {
					continue
				}
				delta := g.Coord(peer.ID, d) - g.Coord(r, d)
				k := g.Size(d)
				wrapped := g.IsWrapLink(r, p)
				switch {
				case dir == 0 && (delta == 1 || delta == -1):
				case dir == +1 && (delta == 1 || (wrapped && delta == 1-k)):
				case dir == -1 && (delta == -1 || (wrapped && delta == k-1)):
				default:
					t.Fatalf("%s: r%d port %d (dim %d dir %d) reaches r%d, delta %d", spec, r, p, d, dir, peer.ID, delta)
				}
				if wrapped != (lay.Wrap[d] && (delta == 1-k || delta == k-1)) {
					t.Fatalf("%s: r%d port %d wrap %v, delta %d", spec, r, p, wrapped, delta)
				}
				for e := 0; e < g.NumDims(); e++ {
					if e != d && g.Coord(peer.ID, e) != g.Coord(r, e) {
						t.Fatalf("%s: port %d changes dimension %d", spec, p, e)
					}
				}
			}
		}
	}
}

func TestFatTreeStructure(t *testing.T) {
	topo := mustParse(t, "fattree:k=4,levels=3,taper=0.5,bw=8Gb/s")
	ft := topo.(*FatTree)
	lay := topo.Layout()
	if lay.Style != LayoutLevels || fmt.Sprint(lay.Dims) != "[16 16 16]" {
		t.Fatalf("layout %+v", lay)
	}
	perLevel := map[int]int{}
	var buf []int
	for r := 0; r < topo.NumRouters(); r++ {
		buf = topo.Coords(r, buf[:0])
		perLevel[buf[0]]++
		if ft.Switch(buf[0], buf[1]) != r {
			t.Fatalf("Switch(Coords(%d)) = %d", r, ft.Switch(buf[0], buf[1]))
		}
	}
	if perLevel[0] != 16 || perLevel[1] != 16 || perLevel[2] != 16 {
		t.Errorf("switches per level %v", perLevel)
	}
	// Bandwidth tapering: 8 Gb/s = 1e9 B/s at the terminals, halved per level.
	wantBW := map[LinkClass]map[int]float64{ClassUp: {0: 0.5e9, 1: 0.25e9}, ClassDown: {0: 0.5e9, 1: 0.25e9}}
	for id := 0; id < topo.NumLinks(); id++ {
		l := topo.Link(LinkID(id))
		switch l.Class {
		case ClassTerminal:
			if l.Props.Bandwidth != 1e9 {
				t.Fatalf("terminal link %d bandwidth %g", id, l.Props.Bandwidth)
			}
		case ClassUp, ClassDown:
			if l.Props.Bandwidth != wantBW[l.Class][l.Level] {
				t.Fatalf("%v link %d at level %d bandwidth %g; want %g", l.Class, id, l.Level, l.Props.Bandwidth, wantBW[l.Class][l.Level])
			}
			lf, _ := ft.Level(l.From.ID)
			lt, _ := ft.Level(l.To.ID)
			if (l.Class == ClassUp && (lt != lf+1 || l.Level != lf)) || (l.Class == ClassDown && (lt != lf-1 || l.Level != lt)) {
				t.Fatalf("%v link %d from level %d to %d, Level %d", l.Class, id, lf, lt, l.Level)
			}
		default:
			t.Fatalf("unexpected class %v", l.Class)
		}
	}
	// Ancestors: a switch at level l is above exactly k^(l+1) nodes, and
	// DownPort leads to a switch that is also an ancestor.
	for r := 0; r < topo.NumRouters(); r++ {
		l, _ := ft.Level(r)
		below := 0
		for n := 0; n < topo.NumNodes(); n++ {
			if !ft.IsAncestor(r, n) {
				continue
			}
			below++
			peer := topo.Peer(r, ft.DownPort(l, n))
			if (l == 0 && peer != Peer{Kind: PeerNode, ID: n}) || (l > 0 && !ft.IsAncestor(peer.ID, n)) {
				t.Fatalf("switch %d DownPort towards %d leads to %v", r, n, peer)
			}
		}
		if want := int(math.Pow(4, float64(l+1))); below != want {
			t.Errorf("switch %d at level %d is above %d nodes; want %d", r, l, below, want)
		}
	}
}

func TestDragonflyStructure(t *testing.T) {
	topo := mustParse(t, "dragonfly:p=2,a=4,h=2,gbw=1Gb/s,glat=100ns")
	d := topo.(*Dragonfly)
	g := d.Groups()
	// Exactly one global link between every pair of groups.
	pairs := map[[2]int]int{}
	for r := 0; r < topo.NumRouters(); r++ {
		G, _ := d.GroupOf(r)
		for p := 0; p < topo.NumPorts(r); p++ {
			peer := topo.Peer(r, p)
			l := topo.Link(topo.OutLink(r, p))
			G2 := -1
			if peer.Kind == PeerRouter {
				G2, _ = d.GroupOf(peer.ID)
			}
			switch {
			case d.IsGlobalPort(p):
				if G2 == G || l.Class != ClassGlobal || l.Props.Bandwidth != 1.25e8 || l.Props.Latency != 100_000 {
					t.Fatalf("global port r%d.p%d → group %d, link %+v", r, p, G2, l)
				}
				pairs[[2]int{G, G2}]++
			case d.IsTerminalPort(p):
				if peer.Kind != PeerNode || l.Class != ClassTerminal {
					t.Fatalf("terminal port r%d.p%d → %v", r, p, peer)
				}
			default:
				if G2 != G || l.Class != ClassLocal || l.Props != DefaultLink {
					t.Fatalf("local port r%d.p%d → group %d, %+v", r, p, G2, l)
				}
			}
		}
	}
	for a := 0; a < g; a++ {
		for b := 0; b < g; b++ {
			if want := map[bool]int{true: 0, false: 1}[a == b]; pairs[[2]int{a, b}] != want {
				t.Errorf("groups %d→%d joined by %d global links; want %d", a, b, pairs[[2]int{a, b}], want)
			}
			if a != b {
				i, p := d.Gateway(a, b)
				peer := topo.Peer(a*4+i, p)
				if G2, _ := d.GroupOf(peer.ID); G2 != b {
					t.Errorf("Gateway(%d, %d) leads to group %d", a, b, G2)
				}
			}
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec   string
		offset int
		want   string
	}{
		{"torus:0x8", 6, "dimension 1 is 0, expected an integer ≥ 2"},
		{"mesh:4xx4", 7, "empty dimension 2"},
		{"mesh:4x4x", 9, "empty dimension 3"},
		{"torus:8xa", 8, `dimension 2: "a" is not an integer`},
		{"tree:4", 0, `unknown topology kind "tree" (expected one of ring, mesh, torus, hypercube, crossbar, bus, fattree, dragonfly, file)`},
		{"", 0, "expected a topology kind"},
		{"torus", 5, "expected ':'"},
		{"ring:1", 5, "ring size is 1, expected an integer ≥ 2"},
		{"hypercube:0", 10, "hypercube dimension is 0"},
		{"hypercube:25", 10, "from 1 to 24"},
		{"crossbar:0", 9, "crossbar size is 0"},
		{"bus:-3", 4, "bus size is -3"},
		{"torus:8x8,", 10, "empty parameter"},
		{"torus:8x8,c=0", 12, "c is 0"},
		{"torus:8x8,foo=1", 10, `unknown parameter "foo" for torus (expected one of c, bw, lat, nbw, nlat)`},
		{"torus:8x8,bw=fast", 13, "bw:"},
		{"torus:8x8,bw=0", 13, "bandwidth must be positive"},
		{"torus:8x8,lat=-1ns", 14, "lat:"},
		{"torus:8x8,bw=1Gb/s,bw=2Gb/s", 19, `parameter "bw" given twice`},
		{"torus:8x8,4", 10, `unexpected value "4"`},
		{"torus:640x320x320", 6, "above the limit"},
		{"torus:k=4", 6, "expected the dimensions first"},
		{"fattree:k=1,levels=2", 10, "k is 1, expected an integer from 2"},
		{"fattree:levels=3", 16, "missing parameter k=N"},
		{"fattree:k=4", 11, "missing parameter levels=N"},
		{"fattree:k=4,levels=3,taper=0", 27, `taper: "0" is not a factor in (0, 1]`},
		{"fattree:k=4,levels=3,taper=0.5/2", 31, `taper: "2" is not a factor`},
		{"fattree:k=4,levels=3,taper=0.5/0.5/0.5", 27, "3 factors for 2 level boundaries"},
		{"fattree:k=4,levels=3,taperby=area", 29, `taperby: "area"`},
		{"fattree:k=64,levels=5", 0, "more than"},
		{"fattree:k=4,levels=3,gbw=1Gb/s", 21, `unknown parameter "gbw" for fattree`},
		{"dragonfly:p=2,a=4", 17, "missing parameter h=N"},
		{"dragonfly:p=0,a=4,h=2", 12, "p is 0"},
		{"dragonfly:p=2,a=4,h=2,k=3", 22, `unknown parameter "k"`},
		{"dragonfly:p=64,a=1024,h=1024", 0, "above the limits"},
		{"crossbar:8,nbw=1Gb/s", 11, `unknown parameter "nbw" for crossbar (expected one of bw, lat, bbbw, bblat)`},
		{"crossbar:8,bbbw=0", 16, "bbbw: bandwidth must be positive"},
		{"crossbar:8,bbbw=1Gb/s,bbbw=2Gb/s", 22, `parameter "bbbw" given twice`},
		{"crossbar:8,bblat=-1us", 17, "bblat"},
		{"bus:8,bbbw=1Gb/s", 6, `unknown parameter "bbbw" for bus (expected one of bw, lat)`},
		{"file:", 5, "expected a file name"},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			_, err := Parse(tt.spec)
			if err == nil {
				t.Fatalf("Parse(%q) succeeded; want error containing %q", tt.spec, tt.want)
			}
			se, ok := err.(*SpecError)
			if !ok {
				t.Fatalf("error %v is %T, want *SpecError", err, err)
			}
			if se.Offset != tt.offset || !strings.Contains(se.Msg, tt.want) {
				t.Errorf("error %q (offset %d); want offset %d and %q", err, se.Offset, tt.offset, tt.want)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.spec)) {
				t.Errorf("error %q does not quote the spec", err)
			}
		})
	}
}

func TestSpecRoundTrip(t *testing.T) {
	tests := []struct{ in, canonical string }{
		{"torus:8x8", "torus:8x8"},
		{" Torus:8x8 , bw=1Gb/s ", "torus:8x8,bw=1Gb/s"},
		{"torus:8x8,lat=10ns", "torus:8x8"},
		{"mesh:4x4x4,c=2,bw=100Mb/s,lat=1.5us,nbw=1GB/s", "mesh:4x4x4,c=2,bw=100Mb/s,lat=1.5us,nbw=8Gb/s"},
		{"ring:16", "ring:16"},
		{"hypercube:6", "hypercube:6"},
		{"crossbar:64,bw=12.5MB/s", "crossbar:64,bw=100Mb/s"},
		{"bus:8,lat=1ms", "bus:8,lat=1ms"},
		{"crossbar:8,bbbw=100Gb/s", "crossbar:8,bbbw=100Gb/s"},
		{"crossbar:8,bblat=2us", "crossbar:8,bbbw=10Gb/s,bblat=2us"},
		{"crossbar:8,bblat=2us,bw=40Gb/s", "crossbar:8,bw=40Gb/s,bbbw=40Gb/s,bblat=2us"},
		{"crossbar:8,bblat=2us,bw=1Gb/s,bbbw=40Gb/s", "crossbar:8,bw=1Gb/s,bbbw=40Gb/s,bblat=2us"},
		{"fattree:k=4,levels=3", "fattree:k=4,levels=3"},
		{"fattree:k=4,levels=3,taper=0.5", "fattree:k=4,levels=3,taper=0.5"},
		{"fattree:k=4,levels=3,taper=0.5/0.5", "fattree:k=4,levels=3,taper=0.5"},
		{"fattree:k=4,levels=4,taper=1/0.75/0.5,taperby=count", "fattree:k=4,levels=4,taper=1/0.75/0.5,taperby=count"},
		{"fattree:levels=3,k=4,taper=1", "fattree:k=4,levels=3"},
		{"dragonfly:h=2,a=4,p=2,glat=1us", "dragonfly:p=2,a=4,h=2,glat=1us"},
		{"torus:8x8,bw=3B/s", "torus:8x8,bw=24b/s"},
		{"torus:8x8,bw=0.3B/s", "torus:8x8,bw=2.4b/s"},
		{"torus:8x8,bw=1.23456GB/s", "torus:8x8,bw=9.87648Gb/s"},
		{"torus:8x8,bw=1GiB/s", "torus:8x8,bw=8.589934592Gb/s"},
		{"torus:8x8,lat=0", "torus:8x8,lat=0s"},
		{"torus:8x8,lat=1500ps", "torus:8x8,lat=1.5ns"},
	}
	for _, tt := range tests {
		topo := mustParse(t, tt.in)
		if got := topo.Spec(); got != tt.canonical {
			t.Errorf("Parse(%q).Spec() = %q; want %q", tt.in, got, tt.canonical)
			continue
		}
		again := mustParse(t, tt.canonical)
		if again.Spec() != tt.canonical {
			t.Errorf("round trip of %q gives %q", tt.canonical, again.Spec())
		}
		for id := 0; id < topo.NumLinks(); id++ {
			if a, b := topo.Link(LinkID(id)), again.Link(LinkID(id)); a != b {
				t.Fatalf("%s: link %d differs after round trip: %+v vs %+v", tt.in, id, a, b)
			}
		}
	}
}

func TestOptionsDefaults(t *testing.T) {
	link := LinkProps{Bandwidth: 5e9, Latency: 7}
	term := LinkProps{Bandwidth: 1e9, Latency: 3}
	tests := []struct {
		spec           string
		opt            Options
		network, termL LinkProps
	}{
		{"torus:4x4", Options{}, DefaultLink, DefaultLink},
		{"torus:4x4", Options{Link: &link}, link, link},
		{"torus:4x4", Options{Link: &link, Terminal: &term}, link, term},
		{"torus:4x4,bw=1GB/s", Options{Link: &link, Terminal: &term}, LinkProps{1e9, 7}, term},
		{"torus:4x4,nlat=2ns", Options{Link: &link}, link, LinkProps{5e9, 2000}},
		{"crossbar:4", Options{Link: &link, Terminal: &term}, term, term},
	}
	for _, tt := range tests {
		topo, err := ParseWith(tt.spec, tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		for id := 0; id < topo.NumLinks(); id++ {
			l := topo.Link(LinkID(id))
			want := tt.network
			if l.Class == ClassTerminal {
				want = tt.termL
			}
			if l.Valid && l.Props != want {
				t.Errorf("%s %+v: link %d (%v) has %+v; want %+v", tt.spec, tt.opt, id, l.Class, l.Props, want)
				break
			}
		}
	}
}

func TestWithOverrides(t *testing.T) {
	base := mustParse(t, "torus:4x4")
	slow := LinkProps{Bandwidth: 1e6, Latency: 1e9}
	id := base.OutLink(5, 0)
	over, err := WithOverrides(base, map[LinkID]LinkProps{id: slow})
	if err != nil {
		t.Fatal(err)
	}
	if over.Link(id).Props != slow || base.Link(id).Props == slow {
		t.Errorf("override not applied to the copy only: %+v / %+v", over.Link(id).Props, base.Link(id).Props)
	}
	if over.Link(id+1).Props != DefaultLink {
		t.Errorf("neighbouring link changed")
	}
	if got := Overrides(over); len(got) != 1 || got[id] != slow {
		t.Errorf("Overrides = %v", got)
	}
	for _, bad := range []map[LinkID]LinkProps{
		{LinkID(base.NumLinks()): slow},
		{id: {Bandwidth: 0}},
		{id: {Bandwidth: 1, Latency: -1}},
	} {
		if _, err := WithOverrides(base, bad); err == nil {
			t.Errorf("WithOverrides(%v) accepted", bad)
		}
	}
	// Mesh boundary ids are not links.
	mesh := mustParse(t, "mesh:3x3")
	g := mesh.(*Grid)
	hole := LinkID(2*mesh.NumPorts(0) + g.PortOf(0, +1)) // router (2,0) towards x+1
	if _, err := WithOverrides(mesh, map[LinkID]LinkProps{hole: slow}); err == nil {
		t.Error("override of a mesh boundary id accepted")
	}
	for _, spec := range []string{"fattree:k=2,levels=2", "dragonfly:p=1,a=2,h=1", "bus:3", "file:testdata/net.txt"} {
		topo := mustParse(t, spec)
		o, err := WithOverrides(topo, map[LinkID]LinkProps{0: slow})
		if err != nil || o.Link(0).Props != slow || topo.Link(0).Props == slow {
			t.Errorf("%s: override: %v", spec, err)
		}
	}
}

func TestStarAndBus(t *testing.T) {
	bus := mustParse(t, "bus:4,bw=100Mb/s,lat=5us")
	m := bus.Medium(0)
	if m != 8 || bus.Link(m).Props != (LinkProps{12.5e6, 5e6}) {
		t.Errorf("medium %d props %+v", m, bus.Link(m).Props)
	}
	if tap := bus.Link(bus.InjectLink(2)).Props; tap != (LinkProps{12.5e6, 0}) {
		t.Errorf("bus tap props %+v", tap)
	}
	xb := mustParse(t, "crossbar:4,bw=100Mb/s,lat=5us")
	if xb.Medium(0) != NoLink || xb.Link(xb.InjectLink(2)).Props != (LinkProps{12.5e6, 5e6}) {
		t.Errorf("crossbar medium %d props %+v", xb.Medium(0), xb.Link(xb.InjectLink(2)).Props)
	}
	if _, ok := xb.(*Star).Backbone(); ok || xb.NumLinks() != 8 {
		t.Errorf("crossbar without a backbone: %d links, backbone %v", xb.NumLinks(), ok)
	}
	// A backbone: the medium, with its own properties; the terminal
	// links keep theirs (unlike a bus's taps); still two hops apart.
	bb := mustParse(t, "crossbar:4,bw=100Mb/s,lat=5us,bbbw=1Gb/s,bblat=20us")
	m = bb.Medium(0)
	if m != 8 || bb.NumLinks() != 9 || bb.Link(m).Props != (LinkProps{125e6, 20e6}) || bb.Link(m).Class != ClassMedium || bb.Link(m).Reverse != NoLink {
		t.Errorf("backbone %d of %d links: %+v", m, bb.NumLinks(), bb.Link(m))
	}
	if tap := bb.Link(bb.InjectLink(2)).Props; tap != (LinkProps{12.5e6, 5e6}) {
		t.Errorf("terminal link under a backbone %+v", tap)
	}
	if p, ok := bb.(*Star).Backbone(); !ok || p != (LinkProps{125e6, 20e6}) || bb.Hops(0, 3) != 2 || bb.Kind() != KindCrossbar {
		t.Errorf("Backbone() %+v %v, hops %d, kind %v", p, ok, bb.Hops(0, 3), bb.Kind())
	}
	o, err := WithOverrides(bb, map[LinkID]LinkProps{8: {1e9, 0}})
	if err != nil || o.Link(8).Props != (LinkProps{1e9, 0}) {
		t.Errorf("backbone override: %v %+v", err, o.Link(8).Props)
	}
	if p, _ := o.(*Star).Backbone(); p != (LinkProps{1e9, 0}) {
		t.Errorf("Backbone() after an override %+v", p)
	}
}

func TestFileSpec(t *testing.T) {
	topo, err := ParseWith("file:net.txt", Options{Open: userfile.Dir("testdata")})
	if err != nil {
		t.Fatal(err)
	}
	if topo.Kind() != KindCustom || topo.Spec() != "file:net.txt" {
		t.Errorf("kind %v spec %q", topo.Kind(), topo.Spec())
	}
	_, err = Parse("file:testdata/does-not-exist.txt")
	if err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	if err := os.WriteFile(bad, []byte("router a\nnode n a\nlink a b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Parse("file:" + bad)
	if err == nil || !strings.Contains(err.Error(), "bad.txt:3:8: unknown router \"b\"") {
		t.Errorf("bad file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestKinds(t *testing.T) {
	if len(Kinds()) != len(Examples()) {
		t.Fatal("Kinds and Examples disagree")
	}
	for i, k := range Kinds() {
		ex := Examples()[i]
		if !strings.HasPrefix(ex, k.String()+":") {
			t.Errorf("example %q is not of kind %v", ex, k)
		}
		if k == KindCustom {
			continue
		}
		topo := mustParse(t, ex)
		if topo.Kind() != k {
			t.Errorf("%q parsed as %v", ex, topo.Kind())
		}
	}
}

func TestSummary(t *testing.T) {
	tests := map[string]string{
		"torus:8x8":             "torus 8×8: 64 routers, 64 nodes, 128 router links",
		"mesh:4x4x4":            "mesh 4×4×4: 64 routers, 64 nodes, 144 router links",
		"hypercube:3":           "hypercube:3: 8 routers, 8 nodes, 12 router links",
		"fattree:k=4,levels=3":  "fattree:k=4,levels=3: 48 routers, 64 nodes, 128 router links",
		"bus:8":                 "bus:8: 1 router, 8 nodes, 0 router links",
		"dragonfly:p=2,a=4,h=2": "dragonfly:p=2,a=4,h=2: 36 routers, 72 nodes, 90 router links",
	}
	for spec, want := range tests {
		if got := Summary(mustParse(t, spec)); got != want {
			t.Errorf("Summary(%s) = %q; want %q", spec, got, want)
		}
	}
}

// TestSpecRoundTripAnyRate prints topologies whose links carry rates no
// short decimal holds (a bandwidth kept as a per-byte time, a platform's
// GiB/s) and parses the printed spec back: every link must come back
// bit-identical, and the spec must state rates in bits per second.
func TestSpecRoundTripAnyRate(t *testing.T) {
	odd := []float64{1e12 / 810.005184, 1 << 30, 0.3, 1e12 / 3, 12345.678901234567, 1e12 / 8000}
	for _, spec := range []string{"crossbar:3", "torus:4x4", "fattree:k=4,levels=2", "dragonfly:p=2,a=4,h=2"} {
		for i, bw := range odd {
			link := LinkProps{Bandwidth: bw, Latency: 1_500 + int64(i)}
			term := LinkProps{Bandwidth: odd[(i+1)%len(odd)], Latency: 999}
			topo, err := ParseWith(spec, Options{Link: &link, Terminal: &term})
			if err != nil {
				t.Fatal(err)
			}
			printed := topo.Spec()
			if strings.Contains(printed, "B/s") || !strings.Contains(printed, "b/s") {
				t.Errorf("%s at %v B/s prints %q: want rates in bits per second", spec, bw, printed)
			}
			again := mustParse(t, printed)
			for id := 0; id < topo.NumLinks(); id++ {
				if a, b := topo.Link(LinkID(id)), again.Link(LinkID(id)); a != b {
					t.Fatalf("%s: link %d is %+v, %+v after printing %q and parsing it back", spec, id, a, b, printed)
				}
			}
		}
	}
}
