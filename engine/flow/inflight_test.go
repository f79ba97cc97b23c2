package flow

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// TestBytesInFlight checks the payload in flight the metrics report
// after every event: the bytes of the messages sent and not yet
// delivered, whatever their sizes and whether they cross the network or
// stay on a node.
func TestBytesInFlight(t *testing.T) {
	tests := []struct {
		name  string
		sends []send
	}{
		{"one message", []send{{0, 0, 1, 1 << 20}}},
		{"sizes 8 B to 4 MiB sharing a link", []send{{0, 0, 1, 8}, {0, 0, 2, 4 << 20}, {des.Millisecond, 0, 3, 64 << 10}}},
		{"loopback beside the network", []send{{0, 2, 2, 1000}, {0, 1, 3, 250_000}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n, err := New(Config{Topology: star(t, 4)})
			if err != nil {
				t.Fatal(err)
			}
			h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
			n.Attach(h)
			const evSend = 200
			for i, s := range tc.sends {
				h.k.Schedule(s.at, evSend, int32(i), 0)
			}
			sent := map[int32]bool{}
			peak := int64(0)
			for {
				e, ok := h.k.Next()
				if !ok {
					break
				}
				if e.Kind == evSend {
					s := tc.sends[e.Obj]
					sent[e.Obj] = true
					n.Send(netmodel.Message{ID: e.Obj, Src: s.src, Dst: s.dst, Bytes: s.bytes})
				} else {
					n.Handle(e)
				}
				want := int64(0)
				for id := range sent {
					if _, done := h.delivered[id]; !done {
						want += tc.sends[id].bytes
					}
				}
				var m netmodel.Metrics
				n.Metrics(&m)
				if m.BytesInFlight != want {
					t.Fatalf("at %v: %d bytes in flight, want %d", h.k.Now(), m.BytesInFlight, want)
				}
				peak = max(peak, want)
			}
			if peak == 0 {
				t.Fatal("no bytes were ever in flight")
			}
		})
	}
}
