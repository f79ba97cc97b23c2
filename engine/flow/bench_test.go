package flow

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// BenchmarkAlltoall starts the 4,032 flows of a 64-node alltoall at once
// (64 KiB each) and runs them to completion: every start and every
// finish re-solves the flows connected to it. It reports flows and solver
// events per second of one core.
func BenchmarkAlltoall(b *testing.B) {
	for _, spec := range []string{"crossbar:64", "torus:8x8", "fattree:k=8,levels=2"} {
		b.Run(spec, func(b *testing.B) {
			lp := topology.LinkProps{Bandwidth: 1.25e9, Latency: 1_000_000}
			tp, err := topology.ParseWith(spec, topology.Options{Link: &lp})
			if err != nil {
				b.Fatal(err)
			}
			N := int32(tp.NumNodes())
			var flows, events uint64
			b.ReportAllocs()
			for b.Loop() {
				n, err := New(Config{Topology: tp, CrossTraffic: 0.05, Envelope: 16})
				if err != nil {
					b.Fatal(err)
				}
				h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
				n.Attach(h)
				id := int32(0)
				for s := range N {
					for d := 1; d < int(N); d++ {
						n.Send(netmodel.Message{ID: id, Src: s, Dst: (s + int32(d)) % N, Bytes: 64 << 10})
						id++
					}
				}
				for {
					e, ok := h.k.Next()
					if !ok {
						break
					}
					n.Handle(e)
				}
				if len(h.delivered) != int(id) {
					b.Fatalf("%d of %d flows delivered", len(h.delivered), id)
				}
				flows += uint64(id)
				events += h.k.Events()
			}
			b.ReportMetric(float64(flows)/b.Elapsed().Seconds(), "flows/s")
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(flows)/float64(b.N), "flows/op")
		})
	}
}
