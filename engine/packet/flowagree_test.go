package packet

import (
	"math"

	"fmt"
	"github.com/tracesim/tracesim/engine/flow"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/routing"
	"github.com/tracesim/tracesim/engine/topology"
)

// flowZeroLoad is the flow model's time for a lone message (engine/flow
// without SimGrid's factors; TestZeroLoadAgreesWithFlow checks the model
// itself gives it): the sum of its route's link latencies plus its size
// over the route's slowest link. The route is the same one: the source's
// injection link, then the links the routing takes.
func flowZeroLoad(t *testing.T, alg routing.Algorithm, src, dst int, bytes int64) (des.Time, int) {
	t.Helper()
	hops, err := routing.Path(alg, src, dst)
	if err != nil {
		t.Fatal(err)
	}
	topo := alg.Topology()
	links := []topology.LinkID{topo.InjectLink(src)}
	for _, h := range hops {
		links = append(links, h.Link)
	}
	var lat des.Time
	bw := 0.0
	for i, id := range links {
		l := topo.Link(id)
		lat += des.Time(l.Props.Latency)
		if i == 0 || l.Props.Bandwidth < bw {
			bw = l.Props.Bandwidth
		}
	}
	return lat + des.FromPS(float64(bytes)*1e12/bw), len(hops)
}

// At zero load (one message in the network) the packet model agrees with
// the flow model. Without headers and router delay they are equal to the
// picosecond, whatever the packet size: cut-through pipelines the packets
// so that only the serialisation on one link counts, as a flow's. With
// them the packet model is later by exactly what they add — packets ×
// header / bandwidth plus routers × delay — which the flow model leaves
// out (for 256 B packets with 16 B headers, 6.25 % of the serialisation).
func TestZeroLoadAgreesWithFlow(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec, routing string
		vcs           int
		src, dst      int
	}{
		{"torus:8x8", "dor", 2, 0, 27},
		{"torus:8x8", "dor", 2, 9, 10},
		{"mesh:4x4x4", "dor", 1, 0, 63},
		{"ring:16", "dor", 2, 3, 12},
		{"hypercube:4", "dor", 1, 0, 15},
		{"crossbar:8", "minimal", 1, 2, 7},
		{"fattree:k=4,levels=3", "updown", 1, 0, 63},
		{"dragonfly:p=2,a=4,h=2", "minimal", 2, 0, 71},
	}
	sizes := []int64{1, 1000, 65536, 1 << 20}
	packetSizes := []int64{0, 256, 4096}
	for _, tc := range tests {
		for _, size := range sizes {
			for _, ps := range packetSizes {
				for _, extra := range []bool{false, true} {
					name := fmt.Sprintf("%s/%dB/p%d/header+delay=%v", tc.spec, size, ps, extra)
					t.Run(name, func(t *testing.T) {
						cfg := Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: tc.vcs, PacketSize: ps}
						if extra {
							cfg.Header, cfg.RouterDelay = 16, 20*ns
						}
						h := newHost(t, cfg)
						h.net.Send(netmodel.Message{ID: 1, Src: int32(tc.src), Dst: int32(tc.dst), Bytes: size})
						h.run()
						got, ok := h.delivered[1]
						if !ok {
							t.Fatalf("not delivered: %v", h.net.Explain())
						}
						flow, routers := flowZeroLoad(t, h.net.Routing(), tc.src, tc.dst, size)
						if real := flowModelTime(t, cfg, tc.src, tc.dst, size); real != flow {
							t.Fatalf("the flow model delivers at %v, the formula says %v", real, flow)
						}
						var want des.Time
						if extra {
							packets := int64(1)
							if ps > 0 {
								packets = (size + ps - 1) / ps
							}
							// 10 Gb/s: 800 ps a byte.
							want = des.Time(packets*16*800) + des.Time(routers)*20*ns
						}
						if got-flow != want {
							t.Errorf("packet model %v, flow model %v: packet − flow = %v, want %v", got, flow, got-flow, want)
						}
					})
				}
			}
		}
	}
}

// flowModelTime is the flow model's delivery time of a lone message on
// the packet configuration's topology and routing (no envelope, no
// crosstraffic: the flow model's own defaults).
func flowModelTime(t *testing.T, cfg Config, src, dst int, bytes int64) des.Time {
	t.Helper()
	fn, err := flow.New(flow.Config{Topology: cfg.Topology, Routing: cfg.Routing, VCs: cfg.VCs})
	if err != nil {
		t.Fatal(err)
	}
	h := &testHost{k: des.NewKernel(1), delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	fn.Attach(h)
	fn.Send(netmodel.Message{ID: 1, Src: int32(src), Dst: int32(dst), Bytes: bytes})
	runKernel(h.k, fn)
	return h.delivered[1]
}

// runKernel processes every event of k with network n until none is left
// (testHost.run for a network of another model).
func runKernel(k *des.Kernel, n netmodel.Network) {
	for {
		e, ok := k.Next()
		if !ok {
			return
		}
		n.Handle(e)
	}
}

// TestFlowAgreesWithPacketOnDirectNetworks: messages sent at once from
// one node arrive at the same instants in the packet model (no headers,
// no router delay) and in the flow model when their routes share no
// link: both give a node alone on its router one injection lane per
// router port, so a torus, mesh, ring or hypercube node drives all of its
// ports at once. Where they share a link (two messages leaving by one
// port, or a node that shares its router and so has one injection link:
// crossbar, fat tree, dragonfly) the packet model sends them one after
// the other and the flow model side by side: the last arrives at the same
// time within 1 %.
func TestFlowAgreesWithPacketOnDirectNetworks(t *testing.T) {
	tests := []struct {
		spec, routing string
		vcs           int
		src           int
		dsts          []int
		disjoint      bool
	}{
		{"torus:4x4", "dor", 2, 5, []int{6}, true},
		{"torus:4x4", "dor", 2, 5, []int{6, 4, 9, 1}, true},  // the four neighbours
		{"torus:4x4", "dor", 2, 5, []int{14, 8, 9, 1}, true}, // +x, −x, +y, −y first
		{"torus:8x8", "dor", 2, 0, []int{27, 7, 8, 56}, true},
		{"torus:8x8", "dor", 2, 0, []int{27, 1, 8, 56, 7}, false}, // 27 and 1 leave by +x
		{"mesh:4x4x4", "dor", 1, 21, []int{22, 20, 25, 17, 37, 5}, true},
		{"ring:16", "dor", 2, 3, []int{12, 4}, true},
		{"ring:16", "dor", 2, 3, []int{12, 0}, false},
		{"hypercube:4", "dor", 1, 0, []int{1, 2, 4, 8}, true},
		{"hypercube:4", "dor", 1, 0, []int{15, 6, 12}, true},
		{"crossbar:8", "minimal", 1, 2, []int{7, 3, 5}, false},
		{"fattree:k=4,levels=3", "updown", 1, 0, []int{63, 5, 17}, false},
		{"dragonfly:p=2,a=4,h=2", "minimal", 2, 0, []int{71, 3, 40}, false},
	}
	for _, tc := range tests {
		for _, size := range []int64{1000, 65536, 1 << 20} {
			t.Run(fmt.Sprintf("%s/%d→%v/%dB", tc.spec, tc.src, tc.dsts, size), func(t *testing.T) {
				topo := parseTopo(t, tc.spec)
				ph := newHost(t, Config{Topology: topo, Routing: tc.routing, VCs: tc.vcs})
				fn, err := flow.New(flow.Config{Topology: topo, Routing: tc.routing, VCs: tc.vcs})
				if err != nil {
					t.Fatal(err)
				}
				// The flow network's own host: testHost's net stays nil.
				fh := &testHost{k: des.NewKernel(1), delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
				fn.Attach(fh)
				for i, d := range tc.dsts {
					m := netmodel.Message{ID: int32(i), Src: int32(tc.src), Dst: int32(d), Bytes: size}
					ph.net.Send(m)
					fn.Send(m)
				}
				ph.run()
				runKernel(fh.k, fn)
				var pLast, fLast des.Time
				for i, d := range tc.dsts {
					p, f := ph.delivered[int32(i)], fh.delivered[int32(i)]
					if p == 0 || f == 0 {
						t.Fatalf("message %d→%d: delivered at %v by the packet model, %v by the flow model", tc.src, d, p, f)
					}
					if tc.disjoint && p != f {
						t.Errorf("message %d→%d: packet model %v, flow model %v", tc.src, d, p, f)
					}
					pLast, fLast = max(pLast, p), max(fLast, f)
				}
				if d := math.Abs(float64(fLast-pLast)) / float64(pLast); d > 0.01 {
					t.Errorf("last message: packet model %v, flow model %v (%+.2f %%)", pLast, fLast, 100*float64(fLast-pLast)/float64(pLast))
				}
			})
		}
	}
}
