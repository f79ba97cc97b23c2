package routing_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
)

// A packet model's per-hop loop: Init at the source, then Route at every
// router, take the first choice the downstream buffer accepts, cross the
// link, repeat until a choice ejects.
func Example() {
	topo, _ := topology.Parse("torus:4x4")
	alg, _ := routing.Parse("dor", topo, routing.Options{VCs: 2})

	var st routing.State
	src, dst := 3, 13 // (3,0) → (1,3): X+ across the wraparound, then Y−
	alg.Init(&st, src, dst)
	r, port := topo.Attach(src)
	vc := 0
	buf := make([]routing.Choice, 0, alg.MaxChoices())
	for {
		buf = alg.Route(r, port, vc, &st, buf[:0])
		c := buf[0] // a real router takes the first choice with room downstream
		fmt.Printf("router %2d: port %d VC %d %v (link %d)\n", r, c.Port, c.VC, c.Flags, topo.OutLink(r, int(c.Port)))
		if c.Flags.Has(routing.Eject) {
			break
		}
		peer := topo.Peer(r, int(c.Port))
		r, port, vc = peer.ID, peer.Port, int(c.VC)
	}
	// Output:
	// router  3: port 0 VC 1 - (link 15)
	// router  0: port 0 VC 1 - (link 0)
	// router  1: port 3 VC 1 - (link 8)
	// router 13: port 4 VC 0 eject (link 69)
}

func ExampleDependencyGraph() {
	topo, _ := topology.Parse("ring:4")
	plain, _ := routing.Parse("dor:none", topo, routing.Options{VCs: 1})
	g, _ := routing.DependencyGraph(plain)
	fmt.Println("dor:none:", routing.FormatCycle(topo, g.Cycle()))

	dateline, _ := routing.Parse("dor", topo, routing.Options{VCs: 2})
	g, _ = routing.DependencyGraph(dateline)
	fmt.Println("dor with dateline VCs, cycle:", g.Cycle() != nil)
	// Output:
	// dor:none: r0.p0/vc0 → r1.p0/vc0 → r2.p0/vc0 → r3.p0/vc0
	// dor with dateline VCs, cycle: false
}

func FuzzParse(f *testing.F) {
	specs := []string{"torus:4x4", "mesh:3x3", "ring:5", "hypercube:3", "fattree:k=2,levels=3", "dragonfly:p=1,a=2,h=1", "crossbar:3", "bus:3"}
	f.Add("dor", uint8(0), uint8(2))
	f.Add("valiant:bubble", uint8(0), uint8(2))
	f.Add("updown:rr", uint8(4), uint8(1))
	f.Add("ugal", uint8(5), uint8(3))
	f.Fuzz(func(t *testing.T, name string, which, vcs uint8) {
		topo, err := topology.Parse(specs[int(which)%len(specs)])
		if err != nil {
			t.Fatal(err)
		}
		alg, err := routing.Parse(name, topo, routing.Options{VCs: int(vcs) % 8})
		if err != nil {
			if !strings.Contains(err.Error(), "routing") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		for dst := 0; dst < topo.NumNodes(); dst++ {
			if _, err := routing.Path(alg, 0, dst); err != nil {
				t.Fatalf("%s on %s: %v", name, topo.Spec(), err)
			}
		}
	})
}
