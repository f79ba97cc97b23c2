package routing

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/topology"
)

// hopConfig is a packet about to be routed: what a router passes to Route.
type hopConfig struct {
	r, port, vc int
	st          State
}

// walkFirst follows the packet from src to dst along the first choice of
// every hop, calling hop with the hop (its state before Route) and that
// choice, until the packet is ejected or hop returns false. buf has
// capacity a.MaxChoices().
func walkFirst(a Algorithm, src, dst int, buf []Choice, hop func(h hopConfig, c Choice) bool) {
	tp := a.Topology()
	var st State
	a.Init(&st, src, dst)
	r, port := tp.Attach(src)
	vc := 0
	for {
		h := hopConfig{r, port, vc, st}
		buf = a.Route(r, port, vc, &st, buf[:0])
		c := buf[0]
		if !hop(h, c) || c.Flags.Has(Eject) {
			return
		}
		peer := tp.Peer(r, int(c.Port))
		r, port, vc = peer.ID, peer.Port, int(c.VC)
	}
}

// sampleHops walks routes between random node pairs and records every
// router decision along them.
func sampleHops(b *testing.B, a Algorithm, pairs int) []hopConfig {
	tp := a.Topology()
	rng := rand.New(rand.NewPCG(1, 2))
	var out []hopConfig
	buf := make([]Choice, 0, a.MaxChoices())
	for i := 0; i < pairs; i++ {
		src, dst := rng.IntN(tp.NumNodes()), rng.IntN(tp.NumNodes())
		if src == dst {
			continue
		}
		walkFirst(a, src, dst, buf, func(h hopConfig, _ Choice) bool {
			out = append(out, h)
			return true
		})
	}
	if len(out) == 0 {
		b.Fatal("no hops sampled")
	}
	return out
}

type constQueues struct{}

func (constQueues) Occupancy(r, p, vc int) int { return (r + 3*p + 7*vc) & 7 }

// BenchmarkRoute measures one routing decision (one Route call per packet
// hop) on configurations sampled along real routes.
func BenchmarkRoute(b *testing.B) {
	cases := []struct {
		spec, name string
		vcs        int
	}{
		{"torus:8x8", "dor", 2},
		{"torus:8x8", "dor:bubble", 1},
		{"torus:8x8", "dor:bubble", 3},
		{"torus:8x8", "adaptive", 3},
		{"torus:64x32x32", "dor", 2},
		{"torus:64x32x32", "adaptive", 3},
		{"torus:6x6x6", "dor", 2},
		{"mesh:8x8", "minimal:random", 2},
		{"hypercube:10", "dor", 1},
		{"torus:16x16", "valiant", 4},
		{"fattree:k=4,levels=3", "updown", 1},
		{"fattree:k=16,levels=3", "updown:adaptive", 2},
		{"dragonfly:p=2,a=4,h=2", "minimal", 2},
		{"dragonfly:p=4,a=8,h=4", "ugal", 3},
		{"crossbar:64", "minimal", 1},
		{"file:testdata/net.txt", "updown", 1},
		{"file:testdata/net.txt", "minimal:queue", 2},
	}
	for _, c := range cases {
		b.Run(c.spec+"/"+c.name+"/"+string(rune('0'+c.vcs))+"vc", func(b *testing.B) {
			tp, err := topology.Parse(c.spec)
			if err != nil {
				b.Fatal(err)
			}
			a, err := Parse(c.name, tp, Options{VCs: c.vcs, Seed: 1, Queues: constQueues{}})
			if err != nil {
				b.Fatal(err)
			}
			hops := sampleHops(b, a, 256)
			buf := make([]Choice, 0, a.MaxChoices())
			st := new(State) // in the packet model the State lives in the packet
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				h := &hops[i%len(hops)]
				*st = h.st
				buf = a.Route(h.r, h.port, h.vc, st, buf[:0])
			}
		})
	}
}
