package packet

import (
	"fmt"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// A lane that has its injection link to itself keeps the link's state
// in its own record (laneLinks), and a departure finds its link by its
// port's index where links are numbered so (linkByPort): the deliveries,
// their order, the hops and every figure Metrics gives of the links —
// bytes, packets, busy time, mean and sampled utilisation, also asked
// mid-run — are those of the network with both turned off.
func TestLaneLinksAndLinkByPortChangeNothing(t *testing.T) {
	const ns = des.Nanosecond
	for _, tc := range []struct {
		spec          string
		period        des.Time
		lanes, byPort bool // laneLinks and linkByPort as New sets them
	}{
		{"crossbar:8", 0, true, true},
		{"crossbar:8", 40 * ns, true, true},
		{"bus:6", 30 * ns, true, true},
		{"fattree:k=4,levels=2", 40 * ns, true, true},
		{"dragonfly:p=2,a=4,h=2", 0, true, true},
		{"dragonfly:p=2,a=4,h=2", 25 * ns, true, true},
		{"torus:4x4", 40 * ns, false, true}, // several lanes share a node's link
	} {
		name := fmt.Sprintf("%s period %v", tc.spec, tc.period)
		var runs [2]struct {
			h       *testHost
			metrics []netmodel.Metrics
		}
		for i := range runs {
			h := newHost(t, Config{Topology: parseTopo(t, tc.spec), VCs: 2, Buffer: 2,
				PacketSize: 48, Header: 16, RouterDelay: 5 * ns, SamplePeriod: tc.period})
			if i == 0 && (h.net.laneLinks != tc.lanes || h.net.linkByPort != tc.byPort) {
				t.Fatalf("%s: laneLinks %v, linkByPort %v; want %v, %v", name,
					h.net.laneLinks, h.net.linkByPort, tc.lanes, tc.byPort)
			}
			if i == 1 {
				h.net.laneLinks, h.net.linkByPort = false, false
			}
			sent := sendUniform(h, h.net.topo.NumNodes(), 6, 5)
			for k := 0; ; k++ {
				e, ok := h.k.Next()
				if !ok {
					break
				}
				h.net.Handle(e)
				if k%97 == 0 {
					var m netmodel.Metrics
					h.net.Metrics(&m)
					runs[i].metrics = append(runs[i].metrics, m)
				}
			}
			h.net.Finish()
			var m netmodel.Metrics
			h.net.Metrics(&m)
			runs[i].metrics = append(runs[i].metrics, m)
			if len(h.delivered) != int(sent) {
				t.Fatalf("%s: %d of %d delivered", name, len(h.delivered), sent)
			}
			runs[i].h = h
		}
		a, b := runs[0], runs[1]
		if !slices.Equal(a.h.order, b.h.order) || a.h.net.hops != b.h.net.hops {
			t.Fatalf("%s: order or hops (%d, %d) differ", name, a.h.net.hops, b.h.net.hops)
		}
		for id, at := range b.h.delivered {
			if a.h.delivered[id] != at {
				t.Fatalf("%s: message %d delivered at %v, %v without", name, id, a.h.delivered[id], at)
			}
		}
		if len(a.metrics) != len(b.metrics) {
			t.Fatalf("%s: %d and %d Metrics", name, len(a.metrics), len(b.metrics))
		}
		injected := int64(0)
		for k := range a.metrics {
			if !slices.Equal(a.metrics[k].Links, b.metrics[k].Links) {
				for j, l := range b.metrics[k].Links {
					if a.metrics[k].Links[j] != l {
						t.Fatalf("%s, Metrics %d: link %d %+v, without %+v", name, k, l.ID, a.metrics[k].Links[j], l)
					}
				}
			}
		}
		for _, l := range a.metrics[len(a.metrics)-1].Links {
			if a.h.net.linkGroup[l.ID] == groupInject {
				injected += l.Bytes
			}
		}
		if injected == 0 {
			t.Fatalf("%s: no bytes on the injection links", name)
		}
	}
}
