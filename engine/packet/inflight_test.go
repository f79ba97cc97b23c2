package packet

import (
	"testing"

	"github.com/tracesim/tracesim/engine/netmodel"
)

// TestBytesInFlight checks the payload in flight the metrics report
// after every event: the bytes of the messages sent and not yet
// delivered (packets of a message still in the network count with it).
func TestBytesInFlight(t *testing.T) {
	tests := []struct {
		name string
		msgs []netmodel.Message
	}{
		{"one packet", []netmodel.Message{{ID: 1, Src: 0, Dst: 3, Bytes: 1000}}},
		{"many packets, two sources", []netmodel.Message{{ID: 1, Src: 0, Dst: 3, Bytes: 64 << 10}, {ID: 2, Src: 1, Dst: 3, Bytes: 8}}},
		{"loopback beside the network", []netmodel.Message{{ID: 1, Src: 2, Dst: 2, Bytes: 4096}, {ID: 2, Src: 0, Dst: 1, Bytes: 10_000}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHost(t, Config{Topology: parseTopo(t, "crossbar:4")})
			bytes := map[int32]int64{}
			for _, m := range tc.msgs {
				h.net.Send(m)
				bytes[m.ID] = m.Bytes
			}
			check := func() {
				t.Helper()
				want := int64(0)
				for id, b := range bytes {
					if _, done := h.delivered[id]; !done {
						want += b
					}
				}
				var m netmodel.Metrics
				h.net.Metrics(&m)
				if m.BytesInFlight != want {
					t.Fatalf("at %v: %d bytes in flight, want %d", h.k.Now(), m.BytesInFlight, want)
				}
			}
			check()
			for {
				e, ok := h.k.Next()
				if !ok {
					break
				}
				h.net.Handle(e)
				check()
			}
			if len(h.delivered) != len(tc.msgs) {
				t.Fatalf("%d of %d messages delivered", len(h.delivered), len(tc.msgs))
			}
		})
	}
}
