package flow

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

// TestStarRoutes: on a crossbar of more nodes than the path cache takes,
// a flow's route is its node's injection link then the destination's
// ejection link, read from two per-node tables, and it is the route the
// routing and topology interfaces give hop by hop, both ways (the way
// back is the cross-traffic's), limiters, shared links and a shared medium
// (a bus's, a crossbar's backbone) between the two included. The tables
// are not built where that shortcut would not hold or the cache serves: a
// torus, a crossbar of few nodes, a platform's hops.
func TestStarRoutes(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 1.25e9, Latency: 1_000_000}
	for _, tc := range []struct {
		spec    string
		limiter float64
		sharing Sharing
		hops    bool
		star    bool
	}{
		{"crossbar:1100", 0, SplitDuplex, false, true},
		{"crossbar:1100", 2e9, SplitDuplex, false, true},
		{"crossbar:1100", 0, Shared, false, true},
		{"crossbar:1100", 0, SplitDuplex, true, false},
		{"crossbar:1024", 0, SplitDuplex, false, false},
		{"bus:1100", 0, SplitDuplex, false, true},
		{"crossbar:1100,bbbw=10Gb/s,bblat=2us", 0, SplitDuplex, false, true},
		{"crossbar:1100,bbbw=10Gb/s", 2e9, Shared, false, true},
		{"torus:16x16x8", 0, SplitDuplex, false, false},
	} {
		t.Run(fmt.Sprintf("%s/limiter %v/sharing %v/hops %v", tc.spec, tc.limiter, tc.sharing, tc.hops), func(t *testing.T) {
			tp, err := topology.ParseWith(tc.spec, topology.Options{Link: &lp})
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Topology: tp, CrossTraffic: 0.05, Limiter: tc.limiter, Sharing: tc.sharing}
			if tc.hops {
				cfg.Hops = func(src, dst int, buf []int) []int { return append(buf, 0, 0) }
			}
			n, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := n.starInj != nil; got != tc.star {
				t.Fatalf("per-node routes %v, want %v", got, tc.star)
			}
			if !tc.star {
				return
			}
			slow, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			slow.starInj, slow.starEj = nil, nil
			N := tp.NumNodes()
			for src := 0; src < N; src += 7 {
				for _, dst := range []int{(src + 1) % N, (src + 33) % N, (src * 31) % N, N - 1 - src%N} {
					if dst == src {
						continue
					}
					got, gok := n.route(src, dst, nil)
					want, wok := slow.route(src, dst, nil)
					if gok != wok || !slices.Equal(got, want) {
						t.Fatalf("route %d → %d: %v (%v), want %v (%v)", src, dst, got, gok, want, wok)
					}
					links := 2 + 2*min(int(tc.limiter), 1)
					if m := tp.Medium(0); m != topology.NoLink {
						links++
						if got[len(got)/2] != int32(m) {
							t.Fatalf("route %d → %d: %v: want the medium %d between the injection and ejection links", src, dst, got, m)
						}
					}
					if len(got) != links {
						t.Fatalf("route %d → %d: %v: want an injection and an ejection link", src, dst, got)
					}
				}
			}
		})
	}
}
