package packet

import (
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// A node alone on its router drives every port of the router at once: on
// a torus, messages to the four neighbours leave together and each arrives
// at its zero-load time (one message's time), where a single injection
// queue would send them one after another (makespan about 4×).
func TestLanesDriveEveryPort(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec, routing string
		vcs           int
		src           int32
		dsts          []int32
	}{
		{"torus:4x4", "dor", 2, 5, []int32{4, 6, 1, 9}},
		{"torus:4x4", "adaptive", 3, 5, []int32{4, 6, 1, 9}},
		{"mesh:4x4x4", "dor", 1, 21, []int32{20, 22, 17, 25, 5, 37}},
		{"ring:8", "dor", 2, 3, []int32{2, 4}},
		{"hypercube:3", "dor", 1, 0, []int32{1, 2, 4}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s", tc.spec, tc.routing), func(t *testing.T) {
			cfg := Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: tc.vcs,
				PacketSize: 256, Header: 16, RouterDelay: 5 * ns}
			h := newHost(t, cfg)
			const size = 16384
			for i, d := range tc.dsts {
				h.net.Send(netmodel.Message{ID: int32(i), Src: tc.src, Dst: d, Bytes: size})
			}
			h.run()
			var makespan des.Time
			for i, d := range tc.dsts {
				want, err := ZeroLoad(h.net.Routing(), int(tc.src), int(d), size, 256, 16, 5*ns)
				if err != nil {
					t.Fatal(err)
				}
				got, ok := h.delivered[int32(i)]
				if !ok {
					t.Fatalf("message to %d not delivered; stall: %v", d, h.net.Explain())
				}
				if got != want {
					t.Errorf("message to node %d delivered at %v, want its zero-load time %v", d, got, want)
				}
				makespan = max(makespan, got)
			}
			t.Logf("makespan %v for %d messages", makespan, len(tc.dsts))
		})
	}
}

// A message held up towards one direction (its first link is busy with
// traffic crossing the router) does not delay a message issued after it
// to another direction: that one arrives at its zero-load time.
func TestLanesBlockedMessageDoesNotBlockOthers(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec      string
		vcs       int
		transit   [2]int32 // long message crossing src's router
		src       int32
		held, tgt int32 // src's messages: held towards transit's direction, then to tgt
	}{
		// torus:8x8, node = x + 8y: 4 → 7 crosses 5 and 6 in +x; 5 then
		// sends to 6 (+x, behind the transit) and to 13 (+y).
		{"torus:8x8", 2, [2]int32{4, 7}, 5, 6, 13},
		{"mesh:8x8", 1, [2]int32{4, 7}, 5, 6, 13},
		{"ring:16", 2, [2]int32{2, 6}, 3, 5, 1},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			cfg := Config{Topology: parseTopo(t, tc.spec), Routing: "dor", VCs: tc.vcs,
				PacketSize: 256, Header: 16, RouterDelay: 5 * ns}
			h := newHost(t, cfg)
			h.net.Send(netmodel.Message{ID: 0, Src: tc.transit[0], Dst: tc.transit[1], Bytes: 1 << 20})
			h.k.Schedule(100*ns, 200, 0, 0) // let the transit reach src's router
			for {
				e, ok := h.k.Next()
				if !ok {
					t.Fatal("ran dry before the second sends")
				}
				if e.Kind == 200 {
					break
				}
				h.net.Handle(e)
			}
			h.net.Send(netmodel.Message{ID: 1, Src: tc.src, Dst: tc.held, Bytes: 65536})
			h.net.Send(netmodel.Message{ID: 2, Src: tc.src, Dst: tc.tgt, Bytes: 4096})
			h.run()
			want, err := ZeroLoad(h.net.Routing(), int(tc.src), int(tc.tgt), 4096, 256, 16, 5*ns)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.delivered[2]; got != 100*ns+want {
				t.Errorf("message to node %d delivered at %v, want 100ns + its zero-load time = %v (the message to node %d arrives at %v)",
					tc.tgt, got, 100*ns+want, tc.held, h.delivered[1])
			}
			if h.delivered[1] <= h.delivered[2] {
				t.Errorf("held message delivered at %v, not after the other at %v", h.delivered[1], h.delivered[2])
			}
		})
	}
}

// A node with one link into the network (a fat tree's, a crossbar's) has
// one injection lane: its messages to different destinations still share
// its injection link, one after the other.
func TestOneLinkNodeSerialises(t *testing.T) {
	for _, spec := range []string{"fattree:k=4,levels=2", "crossbar:4", "dragonfly:p=2,a=4,h=2"} {
		t.Run(spec, func(t *testing.T) {
			h := newHost(t, Config{Topology: parseTopo(t, spec), VCs: 2})
			h.net.Send(netmodel.Message{ID: 0, Src: 0, Dst: 1, Bytes: 10000})
			h.net.Send(netmodel.Message{ID: 1, Src: 0, Dst: 3, Bytes: 10000})
			h.run()
			one, err := ZeroLoad(h.net.Routing(), 0, 3, 10000, 0, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			// 10 Gb/s: 10000 B take 8 µs on the injection link.
			if want := one + 8*des.Microsecond; h.delivered[1] != want {
				t.Errorf("second message delivered at %v, want %v (after the first's 8µs on the shared injection link)", h.delivered[1], want)
			}
		})
	}
}

// A stalled lane is named in the stall report after its router, the
// terminal port it stands for and the port it feeds, so a node's lanes
// are told apart.
func TestLaneInStallReport(t *testing.T) {
	h := newHost(t, Config{Topology: parseTopo(t, "ring:8"), Routing: "dor:none", VCs: 1, Buffer: 2, PacketSize: 64})
	for i := int32(0); i < 8; i++ {
		h.net.Send(netmodel.Message{ID: i, Src: i, Dst: (i + 3) % 8, Bytes: 4096})
	}
	h.run()
	lines := h.net.Explain()
	want := map[string]bool{
		"512 packets wait for buffer space; 16 of 40 input buffers (2 packets each) are full": false,
		"node 0's interface holds 60 packets waiting for room in r0.p2>p0 (2/2)":              false,
		"node 3's interface holds 60 packets waiting for room in r3.p2>p0 (2/2)":              false,
	}
	for _, l := range lines {
		if _, ok := want[l]; ok {
			want[l] = true
		}
	}
	for l, seen := range want {
		if !seen {
			t.Errorf("stall report lacks %q; it says:\n%s", l, strings.Join(lines, "\n"))
		}
	}
}
