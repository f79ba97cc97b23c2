package packet

import (
	"testing"
	"unsafe"

	"github.com/tracesim/tracesim/engine/des"
)

// A node's first injection lane feeds its router's terminal buffer; only
// its other lanes (one per direction on a direct network) get a port and
// buffers of their own, after the routers' ports.
func TestLanePortsBeyondTheFirst(t *testing.T) {
	tests := []struct {
		spec  string
		lanes int
	}{
		{"crossbar:64", 64},
		{"torus:4x4", 16 * 5},
		{"torus:4x4x4", 64 * 7},
		{"fattree:k=4,levels=2", 16},
	}
	for _, tc := range tests {
		topo := parseTopo(t, tc.spec)
		n, err := New(Config{Topology: topo, VCs: 2})
		if err != nil {
			t.Fatal(err)
		}
		N := topo.NumNodes()
		ports := 0
		for r := range topo.NumRouters() {
			ports += topo.NumPorts(r)
		}
		if len(n.nics) != tc.lanes {
			t.Fatalf("%s: %d lanes, want %d", tc.spec, len(n.nics), tc.lanes)
		}
		want := ports + tc.lanes - N
		if len(n.ports) != want || len(n.ins) != 2*want {
			t.Errorf("%s: %d ports and %d buffers, want %d and %d", tc.spec, len(n.ports), len(n.ins), want, 2*want)
		}
		// Every lane has a buffer of its own, at its router.
		seen := map[int32]int{}
		for l := range n.nics {
			c := &n.nics[l]
			if prev, dup := seen[c.iv]; dup {
				t.Errorf("%s: lanes %d and %d share buffer %d", tc.spec, prev, l, c.iv)
			}
			seen[c.iv] = l
			r, _ := topo.Attach(int(c.node))
			if got := n.ports[c.iv/n.nv].router; got != int32(r) {
				t.Errorf("%s: lane %d of node %d injects at router %d, want %d", tc.spec, l, c.node, got, r)
			}
		}
	}
}

// waited marks exactly the ports with waiters, after every event of a
// congested run (adaptive routing, one-packet-deep credits short).
func TestWaitedMarksThePortsWithWaiters(t *testing.T) {
	topo := parseTopo(t, "torus:4x4")
	h := newHost(t, Config{Topology: topo, Routing: "adaptive", VCs: 3, Buffer: 2, PacketSize: 48, Header: 16,
		RouterDelay: 5 * des.Nanosecond})
	id := sendUniform(h, topo.NumNodes(), 8, 3)
	n := h.net
	marked, events := 0, 0
	check := func() {
		t.Helper()
		for og := range n.waiters {
			bit := n.waited[og>>6]&(1<<uint(og&63)) != 0
			if bit != (len(n.waiters[og]) > 0) {
				t.Fatalf("at %v: port %d has %d waiters, marked %v", h.k.Now(), og, len(n.waiters[og]), bit)
			}
			if bit {
				marked++
			}
		}
	}
	for {
		e, ok := h.k.Next()
		if !ok {
			break
		}
		n.Handle(e)
		events++
		check()
	}
	if len(h.delivered) != int(id) {
		t.Fatalf("%d of %d delivered", len(h.delivered), id)
	}
	if marked == 0 {
		t.Fatalf("no port had waiters in %d events: the run does not test the marks", events)
	}
}

// A credit goes back over the link leaving the buffer's port, with that
// link's latency: the shortcut for networks whose links all have the
// same (sameLat) gives the times the general path gives, and networks
// with several latencies take the general path. Back-pressure (buffers
// of 2 packets, 6-packet messages) makes the deliveries depend on it.
func TestCreditLatencyShortcut(t *testing.T) {
	for _, tc := range []struct {
		spec string
		same des.Time // the shortcut's latency, -1: none
	}{
		{"torus:4x4,lat=20ns,nlat=20ns", 20 * des.Nanosecond},
		{"torus:4x4,lat=20ns,nlat=3ns", -1},
		{"mesh:4x2,lat=7ns,nlat=50ns", -1},
	} {
		topo := parseTopo(t, tc.spec)
		run := func(general bool) map[int32]des.Time {
			h := newHost(t, Config{Topology: topo, Routing: "adaptive", VCs: 3, Buffer: 2, PacketSize: 48, Header: 16,
				RouterDelay: 5 * des.Nanosecond})
			if h.net.sameLat != tc.same {
				t.Fatalf("%s: common latency %v, want %v", tc.spec, h.net.sameLat, tc.same)
			}
			if general {
				h.net.sameLat = -1
			}
			id := sendUniform(h, topo.NumNodes(), 6, 5)
			h.run()
			if len(h.delivered) != int(id) {
				t.Fatalf("%s: %d of %d delivered", tc.spec, len(h.delivered), id)
			}
			return h.delivered
		}
		fast, general := run(false), run(true)
		for id, at := range general {
			if fast[id] != at {
				t.Fatalf("%s: message %d delivered at %v, by each link's latency at %v", tc.spec, id, fast[id], at)
			}
		}
	}
}

// The records a hop reads are one cache line each (their tables start
// page-aligned), so that none of them straddles two lines; a port is a
// quarter of one.
func TestHopRecordsAreOneCacheLine(t *testing.T) {
	if size := unsafe.Sizeof(port{}); 64%size != 0 {
		t.Errorf("port is %d bytes, not a divisor of 64", size)
	}
	for _, tc := range []struct {
		name string
		size uintptr
	}{
		{"link", unsafe.Sizeof(link{})},
		{"inBuf", unsafe.Sizeof(inBuf{})},
		{"pkt", unsafe.Sizeof(pkt{})},
		{"msg", unsafe.Sizeof(msg{})},
	} {
		if tc.size != 64 {
			t.Errorf("%s is %d bytes, want 64", tc.name, tc.size)
		}
	}
	// A lane is two lines: what a departure's credit touches in the
	// first, with the ring of its pending credits.
	if size := unsafe.Sizeof(nic{}); size != 128 {
		t.Errorf("nic is %d bytes, want 128", size)
	}
	if off := unsafe.Offsetof(nic{}.node); off != 64 {
		t.Errorf("nic's second line starts at byte %d, want 64", off)
	}
}
