package flow

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// TestCachedPaths: where routes are fixed (dimension order, a platform's
// Hops), every pair's cached path is the route and the way back that
// route computes, with the latency, bound and penalty worked out from
// them (limiters, of latency 0, included); a crossbar's routes are
// fixed whatever the routing's name; where routes are not fixed
// (adaptive, Valiant, minimal on a torus), nothing is cached and Send
// routes every flow.
func TestCachedPaths(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 1.25e9, Latency: 1_000_000}
	ring := func(src, dst int, buf []int) []int {
		// Router src to dst the long way round a 6-ring: fixed, not
		// shortest.
		for r := src; r != dst; r = (r + 5) % 6 {
			buf = append(buf, r, (r+5)%6)
		}
		return buf
	}
	for _, tc := range []struct {
		spec, routing string
		hops          func(src, dst int, buf []int) []int
		fixed         bool
		limiter       float64
	}{
		{"torus:4x4x4", "", nil, true, 2e9},
		{"torus:4x4x4", "", nil, true, 0},
		{"torus:4x4", "dor:bubble", nil, true, 2e9},
		{"mesh:4x3", "dor", nil, true, 0},
		{"torus:4x4", "adaptive", nil, false, 2e9},
		{"torus:4x4", "valiant", nil, false, 2e9},
		{"torus:4x4", "minimal:random", nil, false, 2e9},
		{"ring:6", "", ring, true, 2e9},
		{"ring:6", "", ring, true, 0},
		{"crossbar:8", "", nil, true, 2e9},
		{"crossbar:8", "minimal", nil, true, 0},
	} {
		t.Run(fmt.Sprintf("%s/%s/limiter %v", tc.spec, tc.routing, tc.limiter), func(t *testing.T) {
			tp, err := topology.ParseWith(tc.spec, topology.Options{Link: &lp})
			if err != nil {
				t.Fatal(err)
			}
			n, err := New(Config{Topology: tp, Routing: tc.routing, Hops: tc.hops, CrossTraffic: 0.05,
				TCPGamma: 4194304, WeightS: 8775, Limiter: tc.limiter})
			if err != nil {
				t.Fatal(err)
			}
			if n.fixedRoutes != tc.fixed {
				t.Fatalf("fixed routes %v, want %v", n.fixedRoutes, tc.fixed)
			}
			N := tp.NumNodes()
			limiters := 0 // on a route, of latency 0
			if tc.limiter > 0 {
				limiters = 2
			}
			for src := range N {
				for dst := range N {
					p := n.cachedPath(src, dst)
					if !tc.fixed {
						if p != nil {
							t.Fatalf("%d→%d: a path cached with routing %s", src, dst, n.alg.Name())
						}
						continue
					}
					fwd, ok := n.route(src, dst, nil)
					want, _ := n.route(dst, src, slices.Clone(fwd))
					got := n.routeBuf[p.off : p.off+p.n]
					if !ok || !p.ok || int(p.nfwd) != len(fwd) || !slices.Equal(got, want) {
						t.Fatalf("%d→%d: cached %v (route %d, ok %v), want %v (route %d, ok %v)", src, dst, got, p.nfwd, p.ok, want, len(fwd), ok)
					}
					lim := limiters
					if src == dst && lim > 0 {
						lim = 1 // a node's limiter is in its route to itself once
					}
					lat, bound, pen := n.pathNumbers(fwd, false)
					if p.lat != lat || p.bound != bound || p.penalty != pen || lat != des.Time(len(fwd)-lim)*1_000_000 {
						t.Fatalf("%d→%d: cached latency %v bound %v penalty %v, want %v %v %v", src, dst, p.lat, p.bound, p.penalty, lat, bound, pen)
					}
					if again := n.cachedPath(src, dst); again != p {
						t.Fatalf("%d→%d: computed twice", src, dst)
					}
				}
			}
		})
	}
}
