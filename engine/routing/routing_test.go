package routing

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

func topo(t testing.TB, spec string) topology.Topology {
	t.Helper()
	tp, err := topology.Parse(spec)
	if err != nil {
		t.Fatalf("topology %q: %v", spec, err)
	}
	return tp
}

func alg(t testing.TB, spec, name string, vcs int) Algorithm {
	t.Helper()
	a, err := Parse(name, topo(t, spec), Options{VCs: vcs, Seed: 1})
	if err != nil {
		t.Fatalf("Parse(%q on %s, %d VCs): %v", name, spec, vcs, err)
	}
	return a
}

// fakeQueues is a settable Queues.
type fakeQueues map[[3]int]int

func (q fakeQueues) Occupancy(r, p, vc int) int { return q[[3]int{r, p, vc}] }

// smallTopologies have one instance of every kind for exhaustive checks.
var smallTopologies = []string{
	"ring:7", "ring:8", "mesh:4x3", "mesh:3x3x3", "torus:4x4", "torus:5x3", "torus:4x4x2", "torus:4x4,c=2",
	"hypercube:4", "crossbar:6", "bus:5",
	"fattree:k=3,levels=3", "fattree:k=4,levels=2", "fattree:k=4,levels=3,taper=0.5,taperby=count",
	"dragonfly:p=2,a=4,h=2", "dragonfly:p=1,a=3,h=1", "dragonfly:p=1,a=1,h=2",
	"file:testdata/net.txt", "file:testdata/ring6.txt",
}

// distanceTo is the hop count of a minimal route for routing name from
// router r to router t.
func distanceTo(tp topology.Topology, name string, r, t int) int {
	switch tp := tp.(type) {
	case *topology.Grid:
		return tp.RouterDistance(r, t)
	case *topology.Dragonfly:
		return tp.MinimalHops(r, t)
	case *topology.Graph:
		return tp.Distance(r, t)
	case *topology.FatTree:
		// Switch r at level l towards leaf t: down if r is above t, else up
		// to the common level and down again.
		l, _ := tp.Level(r)
		tl, ti := tp.Level(t)
		if tl != 0 {
			panic("not a leaf")
		}
		node := ti * tp.K()
		for L := l; L < tp.Levels(); L++ {
			if upAncestor(tp, r, L, node) {
				return (L - l) + L
			}
		}
	}
	return 0
}

// upAncestor reports whether a switch reachable from r by going up to
// level L is an ancestor of node.
func upAncestor(tp *topology.FatTree, r, L, node int) bool {
	frontier := []int{r}
	l, _ := tp.Level(r)
	for ; l < L; l++ {
		var next []int
		for _, s := range frontier {
			for j := 0; j < tp.NumUp(l); j++ {
				next = append(next, tp.Peer(s, tp.K()+j).ID)
			}
		}
		frontier = next
	}
	for _, s := range frontier {
		if tp.IsAncestor(s, node) {
			return true
		}
	}
	return false
}

// minimalRouting reports whether every route of name on tp is minimal in
// the sense of distanceTo.
func minimalRouting(tp topology.Topology, name string) bool {
	if strings.HasPrefix(name, "valiant") || name == "ugal" {
		return false
	}
	if _, ok := tp.(*topology.Graph); ok && strings.HasPrefix(name, "updown") {
		return false
	}
	return true
}

// TestRoutesExhaustive explores every configuration reachable by any
// candidate of any routing on small instances of every topology: each
// candidate must use a connected port and a VC in range, ejection must
// happen exactly at the destination, and for minimal routings every
// non-ejecting hop must bring the packet one hop closer.
func TestRoutesExhaustive(t *testing.T) {
	for _, spec := range smallTopologies {
		tp := topo(t, spec)
		for _, info := range Available(tp) {
			for _, vcs := range []int{info.MinVCs, info.MinVCs + 1} {
				t.Run(fmt.Sprintf("%s/%s/%dvc", spec, info.Name, vcs), func(t *testing.T) {
					a, err := Parse(info.Name, tp, Options{VCs: vcs, Seed: 7})
					if err != nil {
						t.Fatal(err)
					}
					checkAllRoutes(t, a, minimalRouting(tp, info.Name))
				})
			}
		}
	}
}

func checkAllRoutes(t *testing.T, a Algorithm, minimal bool) {
	tp := a.Topology()
	type config struct {
		r, port, vc int
		st          State
	}
	buf := make([]Choice, 0, a.MaxChoices())
	for src := 0; src < tp.NumNodes(); src++ {
		for dst := 0; dst < tp.NumNodes(); dst++ {
			if src == dst {
				continue
			}
			var starts []State
			if v, ok := a.(variantser); ok {
				v.variants(src, dst, func(st State) { starts = append(starts, st) })
			} else {
				var st State
				a.Init(&st, src, dst)
				starts = append(starts, st)
			}
			dr, _ := tp.Attach(dst)
			for _, st0 := range starts {
				r0, p0 := tp.Attach(src)
				seen := map[config]bool{}
				stack := []config{{r0, p0, 0, st0}}
				ejected := false
				for len(stack) > 0 {
					c := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					if seen[c] {
						continue
					}
					seen[c] = true
					if len(seen) > 100000 {
						t.Fatalf("%d → %d: too many configurations", src, dst)
					}
					st := c.st
					buf = a.Route(c.r, c.port, c.vc, &st, buf[:0])
					if len(buf) == 0 || len(buf) > a.MaxChoices() {
						t.Fatalf("%d → %d at r%d: %d choices (max %d)", src, dst, c.r, len(buf), a.MaxChoices())
					}
					for _, ch := range buf {
						peer := tp.Peer(c.r, int(ch.Port))
						if int(ch.VC) >= a.VCs() {
							t.Fatalf("%d → %d at r%d: VC %d of %d", src, dst, c.r, ch.VC, a.VCs())
						}
						if ch.Flags.Has(Eject) {
							if peer != (topology.Peer{Kind: topology.PeerNode, ID: dst}) {
								t.Fatalf("%d → %d: ejects at r%d.p%d into %v", src, dst, c.r, ch.Port, peer)
							}
							ejected = true
							continue
						}
						if peer.Kind != topology.PeerRouter {
							t.Fatalf("%d → %d at r%d: choice %v leads to %v", src, dst, c.r, ch, peer)
						}
						if minimal {
							if got, want := distanceTo(tp, a.Name(), peer.ID, dr), distanceTo(tp, a.Name(), c.r, dr)-1; got != want {
								t.Fatalf("%d → %d at r%d: choice %v to r%d is at distance %d; want %d", src, dst, c.r, ch, peer.ID, got, want)
							}
						}
						stack = append(stack, config{peer.ID, peer.Port, int(ch.VC), st})
					}
				}
				if !ejected {
					t.Fatalf("%d → %d never ejects", src, dst)
				}
			}
		}
	}
}

// TestPathLengths checks the first-choice path of every routing: minimal
// routings take RouterHops (dragonfly: the local–global–local length),
// Valiant routes are bounded by the two phases.
func TestPathLengths(t *testing.T) {
	for _, spec := range append(smallTopologies, "torus:8x8", "fattree:k=4,levels=3", "dragonfly:p=2,a=4,h=4") {
		tp := topo(t, spec)
		diam := diameter(tp)
		for _, info := range Available(tp) {
			a, err := Parse(info.Name, tp, Options{VCs: info.MinVCs, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			for src := 0; src < tp.NumNodes(); src++ {
				for dst := 0; dst < tp.NumNodes(); dst++ {
					var probe State
					a.Init(&probe, src, dst)
					hops, err := walk(a, probe, src, dst)
					if err != nil {
						t.Fatalf("%s %s: %v", spec, info.Name, err)
					}
					if src == dst {
						if len(hops) != 0 {
							t.Fatalf("%s %s: path to self has %d hops", spec, info.Name, len(hops))
						}
						continue
					}
					n := len(hops) - 1 // router-to-router hops
					ra, _ := tp.Attach(src)
					rb, _ := tp.Attach(dst)
					switch {
					case minimalRouting(tp, info.Name):
						want := tp.RouterHops(src, dst)
						if d, ok := tp.(*topology.Dragonfly); ok {
							want = d.MinimalHops(ra, rb)
						}
						if n != want {
							t.Fatalf("%s %s: %d → %d takes %d hops; want %d", spec, info.Name, src, dst, n, want)
						}
					case info.Name == "updown":
						// up*/down* may be longer than the shortest path, never
						// shorter, and never longer than up to the root and down.
						if n < tp.RouterHops(src, dst) || n > 2*tp.NumRouters() {
							t.Fatalf("%s %s: %d → %d takes %d hops", spec, info.Name, src, dst, n)
						}
					default: // Valiant, UGAL
						bound := 2 * diam
						if _, ok := tp.(*topology.Dragonfly); ok {
							bound = 5
						}
						if n > bound || n < tp.RouterHops(src, dst) {
							t.Fatalf("%s %s: %d → %d takes %d hops; want %d to %d", spec, info.Name, src, dst, n, tp.RouterHops(src, dst), bound)
						}
						if g, ok := tp.(*topology.Grid); ok && ra != rb {
							// Valiant on a grid: exactly DOR to Inter, then to dst.
							want := g.RouterDistance(ra, int(probe.Inter)) + g.RouterDistance(int(probe.Inter), rb)
							if n != want {
								t.Fatalf("%s %s: %d → %d via %d takes %d hops; want %d", spec, info.Name, src, dst, probe.Inter, n, want)
							}
						}
					}
				}
			}
		}
	}
}

func diameter(tp topology.Topology) int {
	d := 0
	for a := 0; a < tp.NumNodes(); a++ {
		for b := 0; b < tp.NumNodes(); b++ {
			d = max(d, tp.RouterHops(a, b))
		}
	}
	return d
}

func TestValiantVisitsIntermediate(t *testing.T) {
	for _, tc := range []struct {
		spec, name string
		vcs        int
	}{{"torus:8x8", "valiant", 4}, {"torus:8x8", "valiant:bubble", 2}, {"mesh:4x4", "valiant", 2}, {"dragonfly:p=1,a=4,h=2", "valiant", 3}} {
		a := alg(t, tc.spec, tc.name, tc.vcs)
		tp := a.Topology()
		for src := 0; src < tp.NumNodes(); src += 3 {
			for dst := 0; dst < tp.NumNodes(); dst += 5 {
				if src == dst {
					continue
				}
				var st State
				a.Init(&st, src, dst)
				if st.Inter < 0 {
					continue
				}
				// Follow the first choice from the Init'ed state.
				r, port := tp.Attach(src)
				vc, visited, phaseVC := 0, false, -1
				buf := make([]Choice, 0, a.MaxChoices())
				for steps := 0; ; steps++ {
					if steps > 100 {
						t.Fatalf("%s: no arrival", tc.spec)
					}
					inter := r == int(st.Inter)
					if d, ok := tp.(*topology.Dragonfly); ok {
						g, _ := d.GroupOf(r)
						inter = g == int(st.Inter)
					}
					visited = visited || inter
					buf = a.Route(r, port, vc, &st, buf[:0])
					c := buf[0]
					if c.Flags.Has(Eject) {
						break
					}
					if !c.Flags.Has(Detour) {
						t.Fatalf("%s: Valiant hop without Detour flag", tc.name)
					}
					if g, ok := tp.(*topology.Grid); ok && tc.name == "valiant" && hasWrap(g) {
						// VC class 0/1 in phase 0, 2/3 in phase 1.
						cls := int(c.VC) * 4 / a.VCs()
						if (st.Phase == 0) != (cls < 2) {
							t.Fatalf("%s: phase %d on VC %d", tc.spec, st.Phase, c.VC)
						}
					}
					if int(c.VC) < phaseVC && isDragonfly(tp) {
						// Dragonfly VCs count global hops; grid dateline
						// classes restart in every dimension.
						t.Fatalf("%s: VC decreased from %d to %d", tc.spec, phaseVC, c.VC)
					}
					phaseVC = int(c.VC)
					peer := tp.Peer(r, int(c.Port))
					r, port, vc = peer.ID, peer.Port, int(c.VC)
				}
				if !visited {
					t.Errorf("%s %s: %d → %d never visits intermediate %d", tc.spec, tc.name, src, dst, st.Inter)
				}
			}
		}
	}
}

func isDragonfly(tp topology.Topology) bool { _, ok := tp.(*topology.Dragonfly); return ok }

func TestDependencyGraph(t *testing.T) {
	tests := []struct {
		spec, name string
		vcs        int
		cyclic     bool
	}{
		{"torus:4x4", "dor:none", 1, true},
		{"ring:8", "dor:none", 1, true},
		{"torus:4x4", "dor", 2, false},
		{"torus:5x3", "dor", 2, false},
		{"torus:4x4x4", "dor", 2, false},
		{"ring:8", "dor", 2, false},
		{"torus:4x4", "dor", 3, false},
		{"torus:4x4", "dor:bubble", 1, true}, // safe by flow control, not by the CDG
		{"mesh:4x4", "dor", 1, false},
		{"mesh:3x3x3", "dor", 1, false},
		{"hypercube:4", "dor", 1, false},
		{"mesh:4x4", "minimal", 1, true},
		{"torus:4x4", "valiant", 4, false},
		{"mesh:4x4", "valiant", 2, false},
		{"fattree:k=4,levels=3", "updown", 1, false},
		{"fattree:k=4,levels=3", "updown:random", 2, false},
		{"fattree:k=3,levels=3,taper=0.5,taperby=count", "updown:adaptive", 1, false},
		{"dragonfly:p=2,a=4,h=2", "minimal", 2, false},
		{"dragonfly:p=1,a=4,h=2", "valiant", 3, false},
		{"dragonfly:p=1,a=4,h=2", "ugal", 3, false},
		{"file:testdata/ring6.txt", "minimal", 1, true},
		{"file:testdata/ring6.txt", "updown", 1, false},
		{"file:testdata/net.txt", "updown:rr", 1, false},
		{"crossbar:8", "minimal", 1, false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/%s/%dvc", tt.spec, tt.name, tt.vcs), func(t *testing.T) {
			a := alg(t, tt.spec, tt.name, tt.vcs)
			g, err := DependencyGraph(a)
			if err != nil {
				t.Fatal(err)
			}
			if g.NumEdges() == 0 {
				t.Fatal("no dependencies recorded")
			}
			cyc := g.Cycle()
			if (cyc != nil) != tt.cyclic {
				t.Fatalf("cycle = %v; want cyclic %v", FormatCycle(a.Topology(), cyc), tt.cyclic)
			}
			if cyc == nil {
				return
			}
			// The cycle is real: consecutive channels are dependencies and
			// each channel ends where the next one starts.
			tp := a.Topology()
			for i, c := range cyc {
				next := cyc[(i+1)%len(cyc)]
				ok := false
				for _, s := range g.Succ[g.index[c]] {
					if g.Channels[s] == next {
						ok = true
					}
				}
				if !ok || tp.Link(c.Link).To.ID != tp.Link(next.Link).From.ID {
					t.Fatalf("cycle step %v → %v is not a dependency", c, next)
				}
			}
			if tt.name == "dor:none" {
				// One VC, dimension order: the cycle is one ring in one
				// direction, k channels long.
				g := tp.(*topology.Grid)
				first := tp.Link(cyc[0].Link)
				for _, c := range cyc {
					l := tp.Link(c.Link)
					_, dir, _ := g.PortDim(l.From.Port)
					_, dir0, _ := g.PortDim(first.From.Port)
					if l.Level != first.Level || dir != dir0 || c.VC != 0 {
						t.Fatalf("cycle %s mixes rings", FormatCycle(tp, cyc))
					}
				}
				if len(cyc) != g.Size(first.Level) {
					t.Errorf("cycle length %d; want ring size %d", len(cyc), g.Size(first.Level))
				}
			}
		})
	}
	// A proven-acyclic graph with an added back edge is reported cyclic.
	a := alg(t, "mesh:3x3", "dor", 1)
	g, _ := DependencyGraph(a)
	if g.Cycle() != nil {
		t.Fatal("mesh DOR cyclic")
	}
	g.Succ[g.Succ[0][0]] = append(g.Succ[g.Succ[0][0]], 0)
	if g.Cycle() == nil {
		t.Error("injected back edge not found")
	}
	if _, err := DependencyGraph(alg(t, "torus:32x32", "dor", 2)); err == nil {
		t.Error("DependencyGraph accepted 1024 nodes")
	}
}

func TestDateline(t *testing.T) {
	a := alg(t, "ring:8", "dor", 2)
	tests := []struct {
		src, dst int
		vcs      []int // VC of each router-to-router hop
		ports    []int
	}{
		{6, 1, []int{0, 1, 1}, []int{0, 0, 0}}, // + direction across the wrap 7→0
		{1, 6, []int{0, 1, 1}, []int{1, 1, 1}}, // − direction across the wrap 0→7
		{1, 3, []int{0, 0}, []int{0, 0}},       // no wrap
		{0, 4, []int{0, 0, 0, 0}, []int{0, 0, 0, 0}},
	}
	for _, tt := range tests {
		hops, err := Path(a, tt.src, tt.dst)
		if err != nil {
			t.Fatal(err)
		}
		var vcs, ports []int
		for _, h := range hops[:len(hops)-1] {
			vcs = append(vcs, h.VC)
			ports = append(ports, h.Port)
		}
		if fmt.Sprint(vcs) != fmt.Sprint(tt.vcs) || fmt.Sprint(ports) != fmt.Sprint(tt.ports) {
			t.Errorf("%d → %d: VCs %v ports %v; want %v %v", tt.src, tt.dst, vcs, ports, tt.vcs, tt.ports)
		}
	}
	// With 4 VCs the classes are {0,1} and {2,3}; every VC of the class is offered.
	a4 := alg(t, "ring:8", "dor", 4)
	var st State
	a4.Init(&st, 6, 1)
	got := a4.Route(7, 1, 0, &st, nil) // at 7, arrived from 6 on VC 0, next hop wraps
	if fmt.Sprint(got) != "[p0/vc2 p0/vc3]" {
		t.Errorf("wrap hop choices %v", got)
	}
	got = a4.Route(0, 1, 3, &st, nil) // at 0 after the wrap on VC 3
	if fmt.Sprint(got) != "[p0/vc2 p0/vc3]" {
		t.Errorf("after-wrap choices %v", got)
	}
}

func TestBubbleFlags(t *testing.T) {
	// torus:4x4, from (0,0) to (2,1): X+, X+, Y+, eject.
	a := alg(t, "torus:4x4", "dor:bubble", 1)
	hops, err := Path(a, 0, 2+1*4)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range hops {
		got = append(got, fmt.Sprintf("r%d:%v", h.Router, Choice{Port: int32(h.Port), VC: uint8(h.VC), Flags: h.Flags}))
	}
	want := "[r0:p0/vc0[bubble] r1:p0/vc0 r2:p2/vc0[bubble] r6:p4/vc0[eject]]"
	if fmt.Sprint(got) != want {
		t.Errorf("path %v; want %s", got, want)
	}
	// Three VCs: continuing on the same ring keeps the VC without a bubble,
	// and offers the others with one.
	a3 := alg(t, "torus:4x4", "dor:bubble", 3)
	var st State
	a3.Init(&st, 0, 2)
	if got := fmt.Sprint(a3.Route(1, 1, 2, &st, nil)); got != "[p0/vc2 p0/vc0[bubble] p0/vc1[bubble]]" {
		t.Errorf("same-ring choices %s", got)
	}
	if got := fmt.Sprint(a3.Route(0, 4, 0, &st, nil)); got != "[p0/vc0[bubble] p0/vc1[bubble] p0/vc2[bubble]]" {
		t.Errorf("injection choices %s", got)
	}
	// A mesh needs no bubbles.
	am := alg(t, "mesh:4x4", "dor", 1)
	hops, _ = Path(am, 0, 6)
	for _, h := range hops {
		if h.Flags.Has(Bubble) {
			t.Errorf("mesh hop %+v has a bubble", h)
		}
	}
}

func TestAdaptive(t *testing.T) {
	tp := topo(t, "torus:8x8")
	q := fakeQueues{}
	a, err := Parse("adaptive", tp, Options{VCs: 3, Queues: q})
	if err != nil {
		t.Fatal(err)
	}
	var st State
	a.Init(&st, 0, 2+3*8) // dx=+2, dy=+3: X+ and Y+ are minimal
	got := fmt.Sprint(a.Route(0, 4, 0, &st, nil))
	if got != "[p0/vc1 p0/vc2 p2/vc1 p2/vc2 p0/vc0[bubble|escape]]" {
		t.Errorf("choices %s", got)
	}
	q[[3]int{0, 0, 1}] = 3
	q[[3]int{0, 0, 2}] = 1
	q[[3]int{0, 2, 2}] = 2
	got = fmt.Sprint(a.Route(0, 4, 0, &st, nil))
	if got != "[p2/vc1 p0/vc2 p2/vc2 p0/vc1 p0/vc0[bubble|escape]]" {
		t.Errorf("queue-ordered choices %s", got)
	}
	// Half-way round an even ring both directions are minimal.
	clear(q)
	a.Init(&st, 0, 4)
	if got := fmt.Sprint(a.Route(0, 4, 0, &st, nil)); got != "[p0/vc1 p0/vc2 p1/vc1 p1/vc2 p0/vc0[bubble|escape]]" {
		t.Errorf("tie choices %s", got)
	}
	// Coming in on the escape VC along X+ and continuing: no bubble.
	a.Init(&st, 0, 3)
	if got := fmt.Sprint(a.Route(1, 1, 0, &st, nil)); !strings.HasSuffix(got, "p0/vc0[escape]]") {
		t.Errorf("escape continuation %s", got)
	}
	// Coming in on an adaptive VC: entering the escape ring needs the bubble.
	if got := fmt.Sprint(a.Route(1, 1, 1, &st, nil)); !strings.HasSuffix(got, "p0/vc0[bubble|escape]]") {
		t.Errorf("escape entry %s", got)
	}
}

func TestPolicies(t *testing.T) {
	tp := topo(t, "fattree:k=4,levels=2")
	// Node 0 to node 15: leaf 0 must go up; 4 up ports.
	firsts := func(name string, q Queues, n int) []int32 {
		a, err := Parse(name, tp, Options{VCs: 1, Seed: 42, Queues: q})
		if err != nil {
			t.Fatal(err)
		}
		var st State
		var out []int32
		for i := 0; i < n; i++ {
			a.Init(&st, 0, 15)
			out = append(out, a.Route(0, 0, 0, &st, nil)[0].Port)
		}
		return out
	}
	if got := firsts("updown", nil, 4); fmt.Sprint(got) != "[7 7 7 7]" { // 15 mod 4 = 3 → port 4+3
		t.Errorf("d-mod-k up ports %v", got)
	}
	if got := firsts("updown:rr", nil, 6); fmt.Sprint(got) != "[4 5 6 7 4 5]" {
		t.Errorf("round-robin up ports %v", got)
	}
	rnd := firsts("updown:random", nil, 200)
	count := map[int32]int{}
	for _, p := range rnd {
		count[p]++
	}
	if len(count) != 4 {
		t.Errorf("random up ports use %d ports: %v", len(count), count)
	}
	for p, c := range count {
		if c < 25 {
			t.Errorf("random port %d chosen %d/200 times", p, c)
		}
	}
	if fmt.Sprint(firsts("updown:random", nil, 50)) != fmt.Sprint(rnd[:50]) {
		t.Error("random choices are not deterministic for a seed")
	}
	if got := firsts("updown:adaptive", fakeQueues{{0, 4, 0}: 2, {0, 5, 0}: 1, {0, 7, 0}: 5}, 1); got[0] != 6 {
		t.Errorf("adaptive up port %d; want the empty port 6", got[0])
	}
}

func TestFatTreeDModK(t *testing.T) {
	// Destination-mod-k sends all traffic for one destination through one
	// top switch.
	tp := topo(t, "fattree:k=4,levels=3")
	ft := tp.(*topology.FatTree)
	a := alg(t, "fattree:k=4,levels=3", "updown", 1)
	for dst := 0; dst < tp.NumNodes(); dst++ {
		tops := map[int]bool{}
		for src := 0; src < tp.NumNodes(); src++ {
			if ft.CommonLevel(src, dst) != 2 {
				continue
			}
			hops, err := Path(a, src, dst)
			if err != nil {
				t.Fatal(err)
			}
			tops[hops[2].Router] = true
		}
		if len(tops) != 1 {
			t.Fatalf("destination %d reached through %d top switches", dst, len(tops))
		}
	}
}

func TestDragonflyVCs(t *testing.T) {
	a := alg(t, "dragonfly:p=1,a=4,h=2", "minimal", 2)
	d := a.Topology().(*topology.Dragonfly)
	for src := 0; src < d.NumNodes(); src++ {
		for dst := 0; dst < d.NumNodes(); dst++ {
			hops, _ := Path(a, src, dst)
			globals := 0
			for _, h := range hops {
				if h.Flags.Has(Eject) {
					break
				}
				if h.VC != globals {
					t.Fatalf("%d → %d: hop %+v on VC %d after %d global hops", src, dst, h, h.VC, globals)
				}
				if d.IsGlobalPort(h.Port) {
					globals++
				}
			}
			if globals > 1 {
				t.Fatalf("minimal route %d → %d takes %d global hops", src, dst, globals)
			}
		}
	}
}

func TestUGAL(t *testing.T) {
	tp := topo(t, "dragonfly:p=1,a=4,h=2")
	q := fakeQueues{}
	a, err := Parse("ugal", tp, Options{VCs: 3, Seed: 5, Queues: q})
	if err != nil {
		t.Fatal(err)
	}
	d := tp.(*topology.Dragonfly)
	src, dst := 0, 20 // group 0 to group 5
	var st State
	a.Init(&st, src, dst)
	first := a.Route(0, d.NumPorts(0)-1, 0, &st, nil)
	if st.Inter != -1 || first[0].Flags.Has(Detour) {
		t.Errorf("empty network: UGAL chose Valiant via %d", st.Inter)
	}
	// Load the minimal first hop heavily: UGAL detours.
	gi, gport := d.Gateway(0, 5)
	minPort := gport
	if gi != 0 {
		minPort = d.LocalPort(0, gi)
	}
	q[[3]int{0, minPort, 0}] = 1000
	detours := 0
	for i := 0; i < 20; i++ {
		a.Init(&st, src, dst)
		first = a.Route(0, d.NumPorts(0)-1, 0, &st, nil)
		if st.Inter >= 0 {
			detours++
			if !first[0].Flags.Has(Detour) || int(first[0].Port) == minPort {
				t.Errorf("loaded minimal port %d: UGAL detours via %d over %v", minPort, st.Inter, first)
			}
		} else if first[0].Flags.Has(Detour) {
			t.Errorf("minimal decision with a Detour choice %v", first)
		}
	}
	if detours == 0 {
		t.Errorf("loaded minimal port %d: UGAL never detoured", minPort)
	}
	// Asking again at the same router does not re-decide.
	inter := st.Inter
	a.Route(0, d.NumPorts(0)-1, 0, &st, nil)
	if st.Inter != inter {
		t.Error("UGAL re-decided on a second call")
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		spec, name string
		vcs        int
		want       string
	}{
		{"torus:8x8", "updown", 1, `routing "updown" is not valid on torus:8x8 (valid: dor, dor:bubble, dor:none, adaptive, minimal, minimal:random, minimal:rr, minimal:queue, valiant, valiant:bubble)`},
		{"torus:8x8", "dor", 1, `routing "dor" on torus:8x8 needs at least 2 virtual channels, have 1; use dor:bubble for one VC`},
		{"torus:8x8", "valiant", 3, "needs at least 4 virtual channels"},
		{"torus:8x8", "adaptive", 1, "needs at least 2 virtual channels"},
		{"mesh:4x4", "dor:bubble", 1, `routing "dor:bubble" is not valid on mesh:4x4 (valid: dor, adaptive,`},
		{"fattree:k=4,levels=3", "dor", 1, "(valid: updown, updown:random, updown:rr, updown:adaptive)"},
		{"dragonfly:p=2,a=4,h=2", "minimal", 1, "needs at least 2 virtual channels"},
		{"dragonfly:p=2,a=4,h=2", "ugal", 2, "needs at least 3"},
		{"crossbar:8", "dor", 1, "(valid: minimal)"},
		{"torus:8x8", "dor", 65, "65 virtual channels (expected 1 to 64)"},
		{"torus:8x8", "dor", -1, "-1 virtual channels"},
		{"torus:8x8", "teleport", 2, `routing "teleport" is not valid`},
	}
	for _, tt := range tests {
		_, err := Parse(tt.name, topo(t, tt.spec), Options{VCs: tt.vcs})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q on %s, %d VCs) = %v; want %q", tt.name, tt.spec, tt.vcs, err, tt.want)
		}
	}
	if _, err := Parse("dor", nil, Options{}); err == nil {
		t.Error("nil topology accepted")
	}
	// Names are case- and space-insensitive; VCs default to 1.
	a, err := Parse(" DOR:Bubble ", topo(t, "torus:4x4"), Options{})
	if err != nil || a.Name() != "dor:bubble" || a.VCs() != 1 {
		t.Errorf("Parse(DOR:Bubble) = %v, %v", a, err)
	}
}

func TestDefaultAndAvailable(t *testing.T) {
	tests := []struct {
		spec string
		vcs  int
		want string
	}{
		{"torus:8x8", 1, "dor:bubble"},
		{"torus:8x8", 2, "dor"},
		{"torus:2x2", 1, "dor"},
		{"mesh:4x4", 1, "dor"},
		{"hypercube:3", 1, "dor"},
		{"fattree:k=4,levels=3", 1, "updown"},
		{"dragonfly:p=2,a=4,h=2", 2, "minimal"},
		{"bus:4", 1, "minimal"},
		{"file:testdata/net.txt", 1, "updown"},
		{"dragonfly:p=2,a=4,h=2", 1, ""},
	}
	for _, tt := range tests {
		tp := topo(t, tt.spec)
		got, err := Default(tp, tt.vcs)
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("Default(%s, %d) = %q, %v; want %q", tt.spec, tt.vcs, got, err, tt.want)
		}
		for _, info := range Available(tp) {
			if info.Summary == "" || info.MinVCs < 1 {
				t.Errorf("%s: incomplete info %+v", tt.spec, info)
			}
			a, err := Parse(info.Name, tp, Options{VCs: info.MinVCs})
			if err != nil || a.Name() != info.Name || a.Topology() != tp || a.MaxChoices() < 1 {
				t.Errorf("%s: Parse(%q) = %v, %v", tt.spec, info.Name, a, err)
			}
		}
	}
}

func TestRouteDoesNotAllocate(t *testing.T) {
	q := fakeQueues{}
	for _, tc := range []struct {
		spec, name string
		vcs        int
	}{
		{"torus:8x8", "dor", 2}, {"torus:8x8", "dor:bubble", 3}, {"torus:8x8", "adaptive", 3},
		{"torus:16x16x8", "minimal:queue", 2}, {"torus:8x8", "valiant", 4}, {"mesh:5x5", "minimal:rr", 1},
		{"fattree:k=4,levels=3", "updown:adaptive", 2}, {"dragonfly:p=2,a=4,h=2", "ugal", 3},
		{"file:testdata/net.txt", "updown:random", 1}, {"file:testdata/net.txt", "minimal:queue", 2},
	} {
		a, err := Parse(tc.name, topo(t, tc.spec), Options{VCs: tc.vcs, Queues: q})
		if err != nil {
			t.Fatal(err)
		}
		tp := a.Topology()
		buf := make([]Choice, 0, a.MaxChoices())
		var st State
		r, p := tp.Attach(0)
		dst := tp.NumNodes() - 1
		allocs := testing.AllocsPerRun(100, func() {
			a.Init(&st, 0, dst)
			buf = a.Route(r, p, 0, &st, buf[:0])
		})
		if allocs != 0 {
			t.Errorf("%s %s: %.1f allocations per Route", tc.spec, tc.name, allocs)
		}
	}
}

func TestFlagsString(t *testing.T) {
	if s := (Bubble | Escape).String(); s != "bubble|escape" {
		t.Errorf("%q", s)
	}
	if s := Flags(0).String(); s != "-" {
		t.Errorf("%q", s)
	}
	if !(Bubble | Eject).Has(Eject) || Bubble.Has(Eject) {
		t.Error("Has")
	}
}

// Only routings whose Route is a function of the packet's position (and,
// for the order, of queue lengths) say they are repeatable: the packet
// model skips asking them again for a waiting packet.
func TestRepeatable(t *testing.T) {
	cases := []struct {
		spec, routing string
		want          bool
	}{
		{"torus:4x4", "dor", true},
		{"torus:4x4", "dor:bubble", true},
		{"torus:4x4", "adaptive", true},
		{"mesh:4x4", "adaptive", true},
		{"torus:4x4", "valiant", false},
		{"torus:4x4", "minimal:random", false},
		{"torus:4x4", "minimal:rr", false},
		{"fattree:k=4,levels=2", "updown", false},
	}
	for _, tc := range cases {
		topo, err := topology.Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		alg, err := Parse(tc.routing, topo, Options{VCs: 4})
		if err != nil {
			t.Fatalf("%s on %s: %v", tc.routing, tc.spec, err)
		}
		r, ok := alg.(Repeatable)
		if got := ok && r.Repeatable(); got != tc.want {
			t.Errorf("%s on %s: repeatable %v, want %v", tc.routing, tc.spec, got, tc.want)
		}
	}
}

// batchQueues is a Queues that also answers in batches (BatchQueues), from
// the same occupancies.
type batchQueues struct{ Queues }

func (q batchQueues) Occupancies(r int, cands []Choice, keys []int32) {
	for i, c := range cands {
		keys[i] = int32(q.Occupancy(r, int(c.Port), int(c.VC)))
	}
}

// A routing that orders by queue length gives the same choices whether
// the queues answer one candidate at a time or a hop's candidates at once
// (the packet model does the latter), at every router on the way to every
// destination, with occupancies that differ from port to port and VC to VC.
func TestBatchQueuesGiveTheSameChoices(t *testing.T) {
	tests := []struct {
		spec, name string
		vcs        int
	}{
		{"torus:4x4", "adaptive", 3},
		{"torus:5x3", "adaptive", 2},
		{"mesh:3x3x3", "adaptive", 2},
		{"torus:4x4x2", "adaptive", 4},
		{"torus:4x4", "minimal:queue", 1},
		{"fattree:k=4,levels=3", "updown:adaptive", 1},
		{"dragonfly:p=2,a=4,h=2", "ugal", 3},
	}
	for _, tc := range tests {
		tp := topo(t, tc.spec)
		q := fakeQueues{}
		for r := 0; r < tp.NumRouters(); r++ {
			for p := 0; p < tp.NumPorts(r); p++ {
				for v := 0; v < tc.vcs; v++ {
					q[[3]int{r, p, v}] = (r*7 + p*3 + v*5) % 4
				}
			}
		}
		one, err := Parse(tc.name, tp, Options{VCs: tc.vcs, Seed: 1, Queues: q})
		if err != nil {
			t.Fatal(err)
		}
		batch, err := Parse(tc.name, tp, Options{VCs: tc.vcs, Seed: 1, Queues: batchQueues{q}})
		if err != nil {
			t.Fatal(err)
		}
		b1 := make([]Choice, 0, one.MaxChoices())
		b2 := make([]Choice, 0, batch.MaxChoices())
		compared := 0
		for src := 0; src < tp.NumNodes(); src++ {
			for dst := 0; dst < tp.NumNodes(); dst++ {
				var s1, s2 State
				one.Init(&s1, src, dst)
				batch.Init(&s2, src, dst)
				for r := 0; r < tp.NumRouters(); r++ {
					for vc := 0; vc < tc.vcs; vc++ {
						in := r % tp.NumPorts(r)
						c1 := one.Route(r, in, vc, &s1, b1[:0])
						c2 := batch.Route(r, in, vc, &s2, b2[:0])
						if !slices.Equal(c1, c2) {
							t.Fatalf("%s %s: node %d → %d at router %d, in port %d VC %d: one at a time %v, batched %v",
								tc.spec, tc.name, src, dst, r, in, vc, c1, c2)
						}
						compared++
					}
				}
			}
		}
		if compared == 0 {
			t.Errorf("%s %s: nothing compared", tc.spec, tc.name)
		}
	}
}

// Adaptive routing on a grid gives the same choices, in the same order, in
// compact form (RouteCompact, expanded by AppendChoices) as Route once
// DeferQueueOrder was called — the packet model scans the compact form —
// at every router, from every input port and VC, to every destination;
// the other grid routings decline.
func TestCompactGivesRouteChoices(t *testing.T) {
	tests := []struct {
		spec, name string
		vcs        int
		// compact: RouteCompact answers; table: from the hop table
		// (every dimension a power of two that wraps or has two routers).
		compact, table bool
	}{
		{"torus:4x4", "adaptive", 3, true, true},
		{"torus:5x3", "adaptive", 2, true, false},
		{"mesh:3x3x3", "adaptive", 2, true, false},
		{"mesh:4x2", "adaptive", 2, true, false},
		{"torus:4x2x2", "adaptive", 4, true, true},
		{"torus:8x2x2", "adaptive", 3, true, true},
		{"torus:4x4,c=2", "adaptive", 3, true, true},
		{"ring:8", "adaptive", 2, true, true},
		{"hypercube:3", "adaptive", 2, true, true},
		{"torus:4x4", "dor", 2, false, false},
		{"torus:4x4", "valiant", 4, false, false},
		{"torus:4x4", "minimal:queue", 1, false, false},
	}
	for _, tc := range tests {
		tp := topo(t, tc.spec)
		a := alg(t, tc.spec, tc.name, tc.vcs)
		if o, ok := a.(QueueOrderer); ok {
			o.DeferQueueOrder()
		}
		if g, ok := a.(*gridAlg); !ok || (g.hops != nil) != tc.table {
			t.Fatalf("%s %s: hop table %v, want %v", tc.spec, tc.name, ok && g.hops != nil, tc.table)
		}
		cr, ok := a.(CompactRouting)
		if !ok {
			t.Fatalf("%s %s: no CompactRouting", tc.spec, tc.name)
		}
		route := make([]Choice, 0, a.MaxChoices())
		var got []Choice
		var h Compact
		compared := 0
		for src := 0; src < tp.NumNodes(); src++ {
			for dst := 0; dst < tp.NumNodes(); dst++ {
				var st State
				a.Init(&st, src, dst)
				for r := 0; r < tp.NumRouters(); r++ {
					for in := 0; in < tp.NumPorts(r); in++ {
						for vc := 0; vc < tc.vcs; vc++ {
							if !cr.RouteCompact(r, in, vc, &st, &h) {
								if tc.compact {
									t.Fatalf("%s %s: node %d → %d at router %d: declined", tc.spec, tc.name, src, dst, r)
								}
								continue
							}
							if !tc.compact {
								t.Fatalf("%s %s: compact form given", tc.spec, tc.name)
							}
							route = a.Route(r, in, vc, &st, route[:0])
							got = h.AppendChoices(got[:0])
							if !slices.Equal(route, got) {
								t.Fatalf("%s %s: node %d → %d at router %d, in port %d VC %d: Route %v, compact %v",
									tc.spec, tc.name, src, dst, r, in, vc, route, got)
							}
							compared++
						}
					}
				}
			}
		}
		if tc.compact && compared == 0 {
			t.Errorf("%s %s: nothing compared", tc.spec, tc.name)
		}
	}
}

// TestRandomFollowsSeed: the routings Random names are those whose
// routes change with the seed. Every packet from every node to every
// other is walked along its first choices, with queues that vary from
// port to port (so that UGAL weighs its Valiant candidate), under seeds
// 1 and 2: the walks differ for a random routing and are the same for
// every other one.
func TestRandomFollowsSeed(t *testing.T) {
	queues := fakeQueues{}
	for r := range 64 {
		for p := range 16 {
			for vc := range 8 {
				queues[[3]int{r, p, vc}] = (r*7 + p*3 + vc) % 5
			}
		}
	}
	walks := func(tp topology.Topology, name string, seed uint64) []Choice {
		a, err := Parse(name, tp, Options{VCs: 4, Seed: seed, Queues: queues})
		if err != nil {
			t.Fatalf("%s on %s: %v", name, tp.Spec(), err)
		}
		var out []Choice
		buf := make([]Choice, 0, a.MaxChoices())
		for src := range tp.NumNodes() {
			for dst := range tp.NumNodes() {
				if src == dst {
					continue
				}
				hops := 0
				walkFirst(a, src, dst, buf, func(_ hopConfig, c Choice) bool {
					out = append(out, c)
					if hops++; hops > 100 {
						t.Fatalf("%s on %s: %d → %d does not arrive", name, tp.Spec(), src, dst)
					}
					return true
				})
			}
		}
		return out
	}
	checked := map[bool]int{}
	for _, spec := range []string{"torus:4x4", "mesh:4x3", "fattree:k=4,levels=2", "dragonfly:p=2,a=4,h=2", "file:testdata/net.txt"} {
		tp := topo(t, spec)
		for _, info := range Available(tp) {
			if info.MinVCs > 4 {
				continue
			}
			differ := !slices.Equal(walks(tp, info.Name, 1), walks(tp, info.Name, 2))
			if differ != Random(info.Name) {
				t.Errorf("%s on %s: routes differ between seeds 1 and 2: %v; Random says %v", info.Name, spec, differ, Random(info.Name))
			}
			checked[differ]++
		}
	}
	if checked[true] < 5 || checked[false] < 10 {
		t.Errorf("checked %d random and %d seed-free routings; expected more of each", checked[true], checked[false])
	}
}
