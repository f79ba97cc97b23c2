package packet

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// Holding a waiting packet's choices, when the routing is repeatable,
// only skips tries that would fail: every message arrives at the same
// time and in the same order as when every wake-up routes again, with
// the same hops and link loads, and fewer routing attempts where
// packets wait (bubble hops on a congested torus).
func TestHeldChoicesChangeNothing(t *testing.T) {
	cases := []struct {
		name, spec, routing string
		vcs                 int
		fewer               bool // the held choices save tries
	}{
		{"torus adaptive", "torus:8x8", "adaptive", 3, true},
		{"torus dor", "torus:8x8", "dor", 2, false},
		{"mesh adaptive", "mesh:6x6", "adaptive", 2, false},
		{"torus bubble", "torus:8x8", "dor:bubble", 2, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var delivered [2]map[int32]des.Time
			var order [2][]int32
			var hops, tries [2]uint64
			var busy [2][]des.Time
			for pass, hold := range []bool{false, true} {
				topo := parseTopo(t, tc.spec)
				h := newHost(t, Config{Topology: topo, Routing: tc.routing, VCs: tc.vcs, Buffer: 2,
					PacketSize: 48, Header: 16, RouterDelay: 5 * des.Nanosecond})
				if !h.net.repeatable {
					t.Fatalf("%s: routing not repeatable", tc.routing)
				}
				h.net.repeatable = hold
				rng := rand.New(rand.NewPCG(3, 4))
				N := topo.NumNodes()
				id := int32(0)
				for range 6 {
					for src := range N {
						h.net.Send(netmodel.Message{ID: id, Src: int32(src), Dst: int32(rng.IntN(N)), Bytes: 6 * 48})
						id++
					}
				}
				h.run()
				if len(h.delivered) != int(id) {
					t.Fatalf("hold %v: %d of %d delivered", hold, len(h.delivered), id)
				}
				delivered[pass], order[pass] = h.delivered, h.order
				hops[pass], tries[pass] = h.net.hops, h.net.tries
				for _, l := range h.net.links {
					busy[pass] = append(busy[pass], l.busy)
				}
			}
			for id, at := range delivered[0] {
				if delivered[1][id] != at {
					t.Fatalf("message %d delivered at %v with held choices, %v without", id, delivered[1][id], at)
				}
			}
			if !slices.Equal(order[0], order[1]) || hops[0] != hops[1] || !slices.Equal(busy[0], busy[1]) {
				t.Fatalf("held choices changed the run: hops %d → %d, same order %v, same link busy times %v",
					hops[0], hops[1], slices.Equal(order[0], order[1]), slices.Equal(busy[0], busy[1]))
			}
			if tc.fewer && tries[1] >= tries[0] || tries[1] > tries[0] {
				t.Errorf("tries %d with held choices, %d without (fewer: %v)", tries[1], tries[0], tc.fewer)
			}
		})
	}
}
