package packet

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// uniformRun is what a run of uniform random traffic gave.
type uniformRun struct {
	delivered   map[int32]des.Time
	order       []int32
	hops, tries uint64
	busy        []des.Time
}

// runUniform sends 6 messages of 6 packets from every node of spec to
// random nodes, all at once, after tweak has changed the network, and
// runs them to the end.
func runUniform(t *testing.T, spec, routing string, vcs int, tweak func(*Network)) uniformRun {
	t.Helper()
	return runUniformBuffer(t, spec, routing, vcs, 2, tweak)
}

// runUniformBuffer is runUniform with buffers of buffer packets.
func runUniformBuffer(t *testing.T, spec, routing string, vcs, buffer int, tweak func(*Network)) uniformRun {
	t.Helper()
	topo := parseTopo(t, spec)
	h := newHost(t, Config{Topology: topo, Routing: routing, VCs: vcs, Buffer: buffer,
		PacketSize: 48, Header: 16, RouterDelay: 5 * des.Nanosecond})
	tweak(h.net)
	id := sendUniform(h, topo.NumNodes(), 6, 3)
	h.run()
	if len(h.delivered) != int(id) {
		t.Fatalf("%d of %d delivered", len(h.delivered), id)
	}
	r := uniformRun{delivered: h.delivered, order: h.order, hops: h.net.hops, tries: h.net.tries}
	h.net.syncLanes() // the injection links' state, where lanes keep it
	for _, l := range h.net.links {
		r.busy = append(r.busy, l.busy)
	}
	return r
}

// sendUniform sends rounds messages of 6 packets (48 B) from every one of
// n nodes to nodes drawn by a generator seeded with seed, all at once, and
// returns how many it sent (their IDs are 0 to that count - 1).
func sendUniform(h *testHost, n, rounds int, seed uint64) int32 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	id := int32(0)
	for range rounds {
		for src := range n {
			h.net.Send(netmodel.Message{ID: id, Src: int32(src), Dst: int32(rng.IntN(n)), Bytes: 6 * 48})
			id++
		}
	}
	return id
}

// sameRun fails the test unless runs a (without a change) and b (with
// it) delivered every message at the same time, in the same order, with
// the same hops and link loads.
func sameRun(t *testing.T, change string, a, b uniformRun) {
	t.Helper()
	for id, at := range a.delivered {
		if b.delivered[id] != at {
			t.Fatalf("message %d delivered at %v with %s, %v without", id, b.delivered[id], change, at)
		}
	}
	if !slices.Equal(a.order, b.order) || a.hops != b.hops || !slices.Equal(a.busy, b.busy) {
		t.Fatalf("%s changed the run: hops %d → %d, same order %v, same link busy times %v",
			change, a.hops, b.hops, slices.Equal(a.order, b.order), slices.Equal(a.busy, b.busy))
	}
}

// Holding a waiting packet's choices, when the routing is repeatable,
// only skips routing it again: every message arrives at the same time and
// in the same order as when every wake-up routes again, with the same
// hops and link loads, and fewer routing attempts where packets wait
// (bubble hops on a congested torus).
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
			var runs [2]uniformRun
			for pass, hold := range []bool{false, true} {
				runs[pass] = runUniform(t, tc.spec, tc.routing, tc.vcs, func(n *Network) {
					if !n.repeatable {
						t.Fatalf("%s: routing not repeatable", tc.routing)
					}
					n.repeatable = hold
				})
			}
			sameRun(t, "held choices", runs[0], runs[1])
			if tc.fewer && runs[1].tries >= runs[0].tries || runs[1].tries > runs[0].tries {
				t.Errorf("tries %d with held choices, %d without (fewer: %v)", runs[1].tries, runs[0].tries, tc.fewer)
			}
		})
	}
}

// Adaptive routing in compact form (routing.CompactRouting: ports and a VC
// range, from the hop table where the torus allows) moves every packet as
// the list of choices does: the same deliveries, order, hops, link loads
// and routing attempts, with and without held choices.
func TestCompactRoutingChangesNothing(t *testing.T) {
	cases := []struct {
		name, spec string
		vcs        int
	}{
		{"torus 8x8 (hop table)", "torus:8x8", 3},
		{"torus 6x6", "torus:6x6", 3},
		{"torus 4x4x4 (hop table)", "torus:4x4x4", 4},
		{"mesh 6x6", "mesh:6x6", 2},
		{"hypercube (hop table)", "hypercube:6", 2},
	}
	for _, tc := range cases {
		for _, hold := range []bool{false, true} {
			var runs [2]uniformRun
			for pass, compact := range []bool{false, true} {
				runs[pass] = runUniform(t, tc.spec, "adaptive", tc.vcs, func(n *Network) {
					if n.compact == nil {
						t.Fatalf("%s: adaptive routing not compact", tc.spec)
					}
					if !compact {
						n.compact = nil
					}
					n.repeatable = hold
				})
			}
			sameRun(t, "compact routing", runs[0], runs[1])
			if runs[0].tries != runs[1].tries {
				t.Errorf("%s, held %v: %d tries in compact form, %d from the list", tc.name, hold, runs[1].tries, runs[0].tries)
			}
		}
	}
}

// A message's injection lane, on a node with one per router port, is the
// one towards the first choice of its first hop: from the compact form
// of adaptive routing (laneCompact) the same lane as from the list of
// choices, whatever the credits of the first router's output VCs.
func TestCompactLaneIsTheListsLane(t *testing.T) {
	for _, spec := range []string{"torus:4x4", "torus:6x6", "mesh:4x4", "torus:4x4x4"} {
		n := newHost(t, Config{Topology: parseTopo(t, spec), Routing: "adaptive", VCs: 3}).net
		if n.compact == nil {
			t.Fatalf("%s: adaptive routing not compact", spec)
		}
		compact := n.compact
		rng := rand.New(rand.NewPCG(3, 4))
		N := int32(n.topo.NumNodes())
		differs, lanes := 0, map[int32]bool{}
		for round := range 20 {
			// Credits from none to all on every output VC (round 0:
			// all, the static order).
			for ov := range n.outs {
				if round > 0 {
					n.outs[ov].credits = int32(rng.IntN(int(n.nb) + 1))
				}
			}
			for src := range N {
				for dst := range N {
					if src == dst {
						continue
					}
					n.compact = nil
					want := n.lane(src, dst)
					n.compact = compact
					got := n.lane(src, dst)
					if got != want {
						t.Fatalf("%s, round %d: %d -> %d: lane %d from the compact hop, %d from the list", spec, round, src, dst, got, want)
					}
					if want != n.nodeLane[src] && want != n.nodeLane[src]+1 {
						differs++
					}
					lanes[want-n.nodeLane[src]] = true
				}
			}
		}
		if differs == 0 || len(lanes) < 3 {
			t.Fatalf("%s: lanes used %v, %d past the second: the credits chose nothing", spec, lanes, differs)
		}
	}
}

// Choosing a message's injection lane allocates nothing: the routing
// state it routes lives in the network (a local one escaped to the heap
// through the routing's interface, once per message sent).
func TestLaneAllocatesNothing(t *testing.T) {
	for _, tc := range []struct{ spec, routing string }{{"torus:4x4", "adaptive"}, {"torus:4x4", "dor"}, {"mesh:4x4", "adaptive"}} {
		n := newHost(t, Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: 3}).net
		if n.nodeLane[1]-n.nodeLane[0] < 2 {
			t.Fatalf("%s: one injection lane per node", tc.spec)
		}
		k := int32(0)
		if a := testing.AllocsPerRun(100, func() { k++; n.lane(0, 1+k%15) }); a != 0 {
			t.Errorf("%s %s: %v allocations per lane chosen, want 0", tc.spec, tc.routing, a)
		}
	}
}
