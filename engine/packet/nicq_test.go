package packet

import (
	"testing"

	"github.com/tracesim/tracesim/engine/netmodel"
)

// A node's interface reports the packets and payload bytes of its queued
// messages not yet injected, and the most packets it ever had queued:
// with one credit per lane, a message's first packet leaves at its send
// and the rest waits. The crossbar keeps a node's figures in its one
// lane; the torus drives several lanes per node and keeps them apart.
func TestNICQueuesCountWhatIsNotInjected(t *testing.T) {
	for _, spec := range []string{"crossbar:4", "torus:2x2"} {
		h := newHost(t, Config{Topology: parseTopo(t, spec), Buffer: 1, PacketSize: 100, Header: 16})
		sends := []netmodel.Message{
			{ID: 1, Src: 0, Dst: 1, Bytes: 250},  // 3 packets: 100 + 100 + 50, the first injected
			{ID: 2, Src: 0, Dst: 1, Bytes: 1000}, // 10 packets behind it
			{ID: 3, Src: 2, Dst: 3, Bytes: 0},    // one empty packet, injected
			{ID: 4, Src: 2, Dst: 3, Bytes: 64},   // one packet behind it
			{ID: 5, Src: 3, Dst: 3, Bytes: 500},  // through memory: never queued
		}
		for _, m := range sends {
			h.net.Send(m)
		}
		want := []netmodel.NICMetric{
			{Node: 0, Queued: 12, Max: 12, QueuedBytes: 1150},
			{Node: 1},
			{Node: 2, Queued: 1, Max: 1, QueuedBytes: 64},
			{Node: 3},
		}
		check := func(when string) {
			t.Helper()
			var m netmodel.Metrics
			h.net.Metrics(&m)
			if len(m.NICs) != len(want) {
				t.Fatalf("%s %s: %d NICs, want %d", spec, when, len(m.NICs), len(want))
			}
			for i, w := range want {
				if m.NICs[i] != w {
					t.Errorf("%s %s: NIC %d = %+v, want %+v", spec, when, i, m.NICs[i], w)
				}
			}
		}
		check("after the sends")
		// Run until node 0 has injected message 1 whole: 1,000 bytes of
		// message 2 left, in 10 packets.
		for h.net.nics[h.net.lane(0, 1)].qhead >= 0 && h.net.msgs[h.net.nics[h.net.lane(0, 1)].qhead].id == 1 {
			e, ok := h.k.Next()
			if !ok {
				t.Fatalf("%s: ran dry before message 1 left", spec)
			}
			h.net.Handle(e)
		}
		want[0].Queued, want[0].QueuedBytes = 10, 1000
		want[2].Queued, want[2].QueuedBytes = 0, 0
		check("once message 1 has left")
		h.run()
		want[0].Queued, want[0].QueuedBytes = 0, 0
		check("at the end")
	}
}
