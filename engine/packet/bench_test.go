package packet

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// BenchmarkPacketHops drives the network alone with uniform random traffic
// (every node sends messages of 8 packets of 64 B to random nodes, all
// offered at once) and reports packet hops (link traversals, injection and
// ejection included) per second of wall time, and kernel events and
// routing attempts per hop (which, unlike the wall time, do not depend on
// the load of the machine).
// One op is one whole run.
func BenchmarkPacketHops(b *testing.B) {
	cases := []struct {
		name, spec, routing string
		vcs                 int
		// msgs is the number of messages per node (0: 16); the large
		// tori send fewer, for a run of the same length.
		msgs int
	}{
		{"torus16x16-dor", "torus:16x16", "dor", 2, 0},
		{"torus16x16-adaptive", "torus:16x16", "adaptive", 3, 0},
		{"fattree-k8-l3", "fattree:k=8,levels=3", "updown", 1, 0},
		{"dragonfly-p4a8h4", "dragonfly:p=4,a=8,h=4", "minimal", 2, 0},
		{"torus32x32-dor", "torus:32x32", "dor", 2, 4},
		{"torus32x32-adaptive", "torus:32x32", "adaptive", 3, 4},
		{"torus16x16x16-adaptive", "torus:16x16x16", "adaptive", 3, 1},
		// One router of N ports, the default of sim --model packet: the
		// same work per hop at every size (two hops a packet), so that
		// what changes with N is the memory the hops touch (issue #19,
		// per-event spread across rank counts).
		{"crossbar64", "crossbar:64", "", 2, 64},
		{"crossbar4096", "crossbar:4096", "", 2, 4},
		{"crossbar65536", "crossbar:65536", "", 2, 1},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			topo := parseTopo(b, tc.spec)
			var hops, events, tries uint64
			var wall, cpu time.Duration
			b.ReportAllocs()
			for range b.N {
				h := newHost(b, Config{Topology: topo, Routing: tc.routing, VCs: tc.vcs, Buffer: 4,
					PacketSize: 48, Header: 16, RouterDelay: 5 * des.Nanosecond})
				rng := rand.New(rand.NewPCG(1, 2))
				N := topo.NumNodes()
				id := int32(0)
				msgs := tc.msgs
				if msgs == 0 {
					msgs = 16
				}
				for range msgs {
					for src := range N {
						h.net.Send(netmodel.Message{ID: id, Src: int32(src), Dst: int32(rng.IntN(N)), Bytes: 8 * 48})
						id++
					}
				}
				start, cpu0 := time.Now(), processCPU(b)
				h.run()
				wall += time.Since(start)
				cpu += processCPU(b) - cpu0
				if len(h.delivered) != int(id) {
					b.Fatalf("%d of %d delivered", len(h.delivered), id)
				}
				hops += h.net.hops
				events += h.k.Events()
				tries += h.net.tries
			}
			b.ReportMetric(float64(hops)/float64(b.N), "hops/op")
			b.ReportMetric(float64(hops)/wall.Seconds(), "hops/s")
			b.ReportMetric(float64(hops)/cpu.Seconds(), "hops/cpu-s")
			b.ReportMetric(float64(events)/float64(hops), "events/hop")
			b.ReportMetric(float64(tries)/float64(hops), "tries/hop")
		})
	}
}

// processCPU returns the user and system CPU time the process has used.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkMetrics builds the end-of-run metrics (every link, buffer and
// network interface) of a crossbar that carried one message per node,
// the default network of sim --model packet at 64, 4,096 and 65,536
// ranks: the replay asks for them at its start, at the end of a run and
// for the results (issue #19, per-event spread across rank counts).
func BenchmarkMetrics(b *testing.B) {
	for _, spec := range []string{"crossbar:64", "crossbar:4096", "crossbar:65536"} {
		b.Run(spec, func(b *testing.B) {
			topo := parseTopo(b, spec)
			h := newHost(b, Config{Topology: topo, VCs: 2, Buffer: 4, Header: 16, RouterDelay: 5 * des.Nanosecond})
			N := topo.NumNodes()
			for src := range N {
				h.net.Send(netmodel.Message{ID: int32(src), Src: int32(src), Dst: int32((src + 1) % N), Bytes: 64})
			}
			h.run()
			b.ReportAllocs()
			for range b.N {
				var m netmodel.Metrics
				h.net.Metrics(&m)
				if len(m.Links) != topo.NumLinks() {
					b.Fatalf("%d links measured, want %d", len(m.Links), topo.NumLinks())
				}
			}
		})
	}
}
