package packet

import (
	"testing"
	"unsafe"

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

// TestInFlightTablesDoNotMove sends four messages from every node at once
// (a stencil's halo) on networks of several sizes: the message and packet
// tables must hold them all where they were first put, without growing
// by doubling (each growth copied the tables onto fresh pages and left
// the old copy to the collector: 14 % of the peak resident size of a
// 65,536-rank packet replay). Every message must still arrive.
func TestInFlightTablesDoNotMove(t *testing.T) {
	for _, spec := range []string{"crossbar:64", "torus:16x16", "crossbar:4096"} {
		t.Run(spec, func(t *testing.T) {
			topo := parseTopo(t, spec)
			h := newHost(t, Config{Topology: topo, PacketSize: 1024, Header: 16})
			N := topo.NumNodes()
			id := int32(0)
			var msg0, pkt0 *byte
			for k := 1; k <= 4; k++ {
				for src := range N {
					h.net.Send(netmodel.Message{ID: id, Src: int32(src), Dst: int32((src + k) % N), Bytes: 4096})
					id++
					if msg0 == nil {
						msg0 = (*byte)(unsafe.Pointer(&h.net.msgs[0]))
						pkt0 = (*byte)(unsafe.Pointer(&h.net.pk[0]))
					}
				}
			}
			h.run()
			if got := (*byte)(unsafe.Pointer(&h.net.msgs[0])); got != msg0 {
				t.Errorf("the message table moved while %d messages were in flight", id)
			}
			if got := (*byte)(unsafe.Pointer(&h.net.pk[0])); got != pkt0 {
				t.Errorf("the packet table moved (%d packets in flight at most)", len(h.net.pk))
			}
			if len(h.delivered) != int(id) {
				t.Fatalf("%d of %d messages delivered", len(h.delivered), id)
			}
		})
	}
}

// TestPacketPayloads sends one message at a time across a crossbar (two
// links: injection and ejection) and checks the bytes and packets the
// links carried: every packet but the last carries PacketSize bytes of
// payload, the last the rest, each with its header; an empty message
// is one header-only packet, and PacketSize 0 sends the message whole.
func TestPacketPayloads(t *testing.T) {
	tests := []struct {
		bytes, size      int64
		packets, perLink int64
	}{
		{130, 64, 3, 130 + 3*16},
		{128, 64, 2, 128 + 2*16},
		{129, 64, 3, 129 + 3*16},
		{1, 64, 1, 1 + 16},
		{0, 64, 1, 16},
		{63, 64, 1, 63 + 16},
		{1000, 0, 1, 1000 + 16},
		{1000, 7, 143, 1000 + 143*16},
	}
	for _, tc := range tests {
		h := newHost(t, Config{Topology: parseTopo(t, "crossbar:2"), PacketSize: tc.size, Header: 16})
		h.net.Send(netmodel.Message{ID: 0, Src: 0, Dst: 1, Bytes: tc.bytes})
		h.run()
		var m netmodel.Metrics
		h.net.Metrics(&m)
		var bytes, packets int64
		for _, l := range m.Links {
			bytes += l.Bytes
			packets += int64(l.Packets)
		}
		if bytes != 2*tc.perLink || packets != 2*tc.packets {
			t.Errorf("%d bytes in packets of %d: links carried %d bytes in %d packets, want %d in %d",
				tc.bytes, tc.size, bytes, packets, 2*tc.perLink, 2*tc.packets)
		}
	}
}

// TestInjectionBySource sends one message from node 1 to node 2 and
// checks that it entered the network by node 1's own link: of the links
// leaving nodes, node 1's alone carried it, on networks with one
// injection lane per node (crossbar, fat tree) and with several (torus).
func TestInjectionBySource(t *testing.T) {
	for _, spec := range []string{"crossbar:8", "fattree:k=4,levels=2", "torus:4x4"} {
		h := newHost(t, Config{Topology: parseTopo(t, spec), PacketSize: 64, Header: 16})
		h.net.Send(netmodel.Message{ID: 0, Src: 1, Dst: 2, Bytes: 200})
		h.run()
		var m netmodel.Metrics
		h.net.Metrics(&m)
		for _, l := range m.Links {
			if !l.FromNode {
				continue
			}
			want := int64(0)
			if l.From == 1 {
				want = 200 + 4*16
			}
			if l.Bytes != want {
				t.Errorf("%s: the link from node %d carried %d bytes, want %d", spec, l.From, l.Bytes, want)
			}
		}
	}
}
