package topology

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkBuild measures the cost of building large topologies; B/op is
// the memory a topology keeps (plus parsing garbage).
func BenchmarkBuild(b *testing.B) {
	for _, spec := range []string{"torus:64x32x32", "torus:8x8", "hypercube:16", "fattree:k=32,levels=3", "dragonfly:p=8,a=16,h=8", "crossbar:65536"} {
		b.Run(spec, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Parse(spec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkHop measures what the packet model asks the topology at every
// hop: the peer of the chosen port and the link id to charge.
func BenchmarkHop(b *testing.B) {
	for _, spec := range []string{"torus:64x32x32", "torus:6x6x6", "fattree:k=16,levels=3", "dragonfly:p=4,a=8,h=4", "file:testdata/net.txt"} {
		b.Run(spec, func(b *testing.B) {
			topo, err := Parse(spec)
			if err != nil {
				b.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			type rp struct{ r, p int }
			qs := make([]rp, 4096)
			for i := range qs {
				r := rng.IntN(topo.NumRouters())
				qs[i] = rp{r, rng.IntN(topo.NumPorts(r))}
			}
			b.ReportAllocs()
			b.ResetTimer()
			sink := 0
			for i := 0; i < b.N; i++ {
				q := qs[i&4095]
				sink += topo.Peer(q.r, q.p).ID + int(topo.OutLink(q.r, q.p))
			}
			_ = sink
		})
	}
}

// BenchmarkRouterHops measures the distance query of the analytic models.
func BenchmarkRouterHops(b *testing.B) {
	for _, spec := range []string{"torus:64x32x32", "torus:6x6x6", "fattree:k=16,levels=3", "dragonfly:p=4,a=8,h=4", "file:testdata/net.txt"} {
		b.Run(spec, func(b *testing.B) {
			topo, err := Parse(spec)
			if err != nil {
				b.Fatal(err)
			}
			n := topo.NumNodes()
			b.ReportAllocs()
			b.ResetTimer()
			sink := 0
			for i := 0; i < b.N; i++ {
				sink += topo.Hops((i*7919)%n, (i*104729)%n)
			}
			_ = sink
		})
	}
}
