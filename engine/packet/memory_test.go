package packet

import (
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	fn()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// The estimate is close to what New allocates, on every kind of topology.
func TestMemoryEstimateMatchesNew(t *testing.T) {
	for _, spec := range []string{"torus:64x64", "mesh:16x16x8", "ring:4096", "crossbar:4096", "fattree:k=8,levels=3",
		"dragonfly:p=4,a=8,h=4", "hypercube:12", "torus:32x32,c=4"} {
		for _, sampling := range []bool{false, true} {
			topo, err := topology.Parse(spec)
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Topology: topo, VCs: 2, Buffer: 4}
			if sampling {
				cfg.SamplePeriod = 1000
			}
			est := MemoryEstimate(topo, 2, 4, sampling)
			var n *Network
			got := allocated(func() { n, err = New(cfg) })
			if err != nil {
				t.Fatal(err)
			}
			runtime.KeepAlive(n)
			if r := float64(est) / float64(got); r < 0.7 || r > 1.3 {
				t.Errorf("%s (sampling %v): estimate %d B, New allocated %d B (ratio %.2f)", spec, sampling, est, got, r)
			}
		}
	}
}

// A topology too big for the limit is refused with its estimate, quickly
// and without allocating the network; the 64×32×32 torus of the big
// benchmark stays under the default limit.
func TestNewRefusesTopologiesAboveTheMemoryLimit(t *testing.T) {
	tests := []struct {
		spec  string
		limit int64
		want  string // empty: accepted
	}{
		{"torus:4096x4096", 0, "packet: torus:4096x4096 has 16,777,216 nodes, 16,777,216 routers and 100,663,296 links; " +
			"its packet network (2 VCs × 4-packet buffers) would need about 47.04 GiB, above the limit of 3.725 GiB"},
		{"torus:64x32x32", 0, ""},
		{"torus:64x64", 1 << 20, "packet: torus:64x64 has 4,096 nodes, 4,096 routers and 24,576 links; " +
			"its packet network (2 VCs × 4-packet buffers) would need about 11.76 MiB, above the limit of 1 MiB"},
	}
	for _, tc := range tests {
		topo, err := topology.Parse(tc.spec)
		if err != nil {
			t.Fatal(err)
		}
		var n *Network
		got := allocated(func() { n, err = New(Config{Topology: topo, VCs: 2, Buffer: 4, MemoryLimit: tc.limit}) })
		if tc.want == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.spec, err)
			}
			runtime.KeepAlive(n)
			continue
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error\n%v\nwant\n%s", tc.spec, err, tc.want)
		}
		if got > 50<<20 {
			t.Errorf("%s: refusing it allocated %d MB", tc.spec, got>>20)
		}
	}
}

// A run touches only the tables its traffic needs: the output VCs of
// ports towards a node are never written (every port of a crossbar leads
// to one, so its table's pages take no resident memory), nor the wake-up
// times of ports nobody waits for (0 when none is due), and the credits on their way back to
// the lanes stay in the lanes' own records (buffers of up to outRing
// packets), none lost: a lane's credits and those on their way back are
// its buffer's size once every packet has left.
func TestRunTouchesOnlyTheTablesItNeeds(t *testing.T) {
	tests := []struct {
		spec, routing string
		routers       bool // ports towards other routers (all but the crossbar)
	}{
		{"crossbar:64", "", false},
		{"torus:4x4", "adaptive", true},
		{"fattree:k=4,levels=2", "updown:adaptive", true},
		{"dragonfly:p=2,a=4,h=2", "", true},
	}
	for _, tc := range tests {
		h := newHost(t, Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: 3, Buffer: 4, PacketSize: 64})
		n := h.net
		N := int32(n.topo.NumNodes())
		id := int32(0)
		for src := range N {
			for k := int32(1); k <= 4; k++ {
				h.net.Send(netmodel.Message{ID: id, Src: src, Dst: (src + k*5) % N, Bytes: 1024})
				id++
			}
		}
		h.run()
		if len(h.delivered) != int(id) {
			t.Fatalf("%s: %d of %d messages delivered", tc.spec, len(h.delivered), id)
		}
		if n.lanePend != nil {
			t.Errorf("%s: buffers of 4 packets keep their lanes' credits in a table of %d", tc.spec, len(n.lanePend))
		}
		for ln := range n.nics {
			if c := &n.nics[ln]; c.credits+int32(c.count) != n.nb {
				t.Errorf("%s: lane %d has %d credits and %d on their way back, want %d in all", tc.spec, ln, c.credits, c.count, n.nb)
			}
		}
		routerPorts := 0
		for gp := range n.portBase[len(n.portBase)-1] {
			if n.ports[gp].peer >= 0 {
				routerPorts++
				continue
			}
			for ov := gp * n.nv; ov < (gp+1)*n.nv; ov++ {
				if o := n.outs[ov]; o != (outVC{}) {
					t.Fatalf("%s: output VC %d of port %d, towards a node, written (%+v)", tc.spec, ov, gp, o)
				}
			}
		}
		for og, w := range n.wakeAt {
			if w != 0 {
				t.Fatalf("%s: port %d's wake-up time %d after the run (0: none)", tc.spec, og, w)
			}
		}
		if tc.routers != (routerPorts > 0) {
			t.Errorf("%s: %d ports towards a router", tc.spec, routerPorts)
		}
	}
}
