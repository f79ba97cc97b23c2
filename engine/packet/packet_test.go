package packet

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// testHost drives a network on its own kernel, as the replay engine does.
type testHost struct {
	k         *des.Kernel
	net       *Network
	delivered map[int32]des.Time
	injected  map[int32]des.Time
	order     []int32
}

func newHost(t testing.TB, cfg Config) *testHost {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &testHost{k: des.NewKernel(1), net: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	return h
}

func (h *testHost) Now() des.Time { return h.k.Now() }
func (h *testHost) Schedule(at des.Time, kind uint8, obj int32, arg int64) {
	h.k.Schedule(at, kind, obj, arg)
}
func (h *testHost) Rand() *rand.Rand { return h.k.Rand() }
func (h *testHost) Delivered(id int32) {
	if _, dup := h.delivered[id]; dup {
		panic(fmt.Sprintf("message %d delivered twice", id))
	}
	h.delivered[id] = h.k.Now()
	h.order = append(h.order, id)
}
func (h *testHost) Injected(id int32) { h.injected[id] = h.k.Now() }

// run processes every event, then ends the run.
func (h *testHost) run() {
	for {
		e, ok := h.k.Next()
		if !ok {
			h.net.Finish()
			return
		}
		h.net.Handle(e)
	}
}

func parseTopo(t testing.TB, spec string) topology.Topology {
	t.Helper()
	topo, err := topology.Parse(spec)
	if err != nil {
		t.Fatal(err)
	}
	return topo
}

// The zero-load latency of a message equals the cut-through formula
// T0 = Σ packets' wire bytes / b + Σ link latencies + routers × delay.
func TestZeroLoadLatency(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec, routing string
		vcs           int
		src, dst      int
		// links and routers on the route, to check ZeroLoad itself.
		links, routers int
	}{
		{"torus:8x8", "dor", 2, 0, 27, 8, 7},
		{"torus:8x8", "dor:bubble", 1, 9, 0, 4, 3},
		{"torus:8x8", "adaptive", 3, 0, 36, 10, 9},
		{"mesh:4x4x4", "dor", 1, 0, 63, 11, 10},
		{"ring:16", "dor", 2, 3, 12, 9, 8},
		{"hypercube:4", "dor", 1, 0, 15, 6, 5},
		{"crossbar:8", "minimal", 1, 2, 7, 2, 1},
		{"bus:8", "minimal", 1, 2, 7, 3, 1}, // tap, medium, tap
		{"fattree:k=4,levels=3", "updown", 1, 0, 63, 6, 5},
		{"fattree:k=4,levels=3", "updown", 1, 0, 2, 2, 1},
		{"fattree:k=2,levels=4,taper=1", "updown:random", 2, 1, 14, 8, 7},
		{"dragonfly:p=2,a=4,h=2", "minimal", 2, 0, 71, 5, 4},
		{"dragonfly:p=2,a=4,h=2", "minimal", 2, 0, 1, 2, 1},
	}
	sizes := []int64{0, 1, 48, 49, 1000, 4096}
	for _, tc := range tests {
		for _, size := range sizes {
			name := fmt.Sprintf("%s/%s/%dB", tc.spec, tc.routing, size)
			t.Run(name, func(t *testing.T) {
				cfg := Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: tc.vcs, Buffer: 4,
					PacketSize: 48, Header: 16, RouterDelay: 20 * ns}
				h := newHost(t, cfg)
				h.net.Send(netmodel.Message{ID: 7, Src: int32(tc.src), Dst: int32(tc.dst), Bytes: size, NotifyInjected: true})
				h.run()
				got, ok := h.delivered[7]
				if !ok {
					t.Fatalf("not delivered; stall: %v", h.net.Explain())
				}
				// Independent closed form: 10 Gb/s = 800 ps/B, 10 ns links
				// (the bus medium's latency only; its taps have none).
				packets := max((size+47)/48, 1)
				wire := size + 16*packets
				lat := des.Time(tc.links) * 10 * ns
				if strings.HasPrefix(tc.spec, "bus") {
					lat = 10 * ns
				}
				want := des.Time(wire)*800 + lat + des.Time(tc.routers)*20*ns
				if got != want {
					t.Errorf("delivered at %v, want T0 = %v", got, want)
				}
				zl, err := ZeroLoad(h.net.Routing(), tc.src, tc.dst, size, 48, 16, 20*ns)
				if err != nil || zl != want {
					t.Errorf("ZeroLoad = %v (%v), want %v", zl, err, want)
				}
				// The last packet leaves the source after all packets'
				// serialisation on the injection link.
				if inj := h.injected[7]; inj != des.Time(wire)*800 {
					t.Errorf("injected at %v, want %v", inj, des.Time(wire)*800)
				}
				if h.net.InFlight() != 0 || h.net.pktInFlight != 0 {
					t.Errorf("in flight after delivery: %d messages, %d packets", h.net.InFlight(), h.net.pktInFlight)
				}
			})
		}
	}
}

// A single packet's zero-load latency is T0 with the slowest link's
// bandwidth whatever the links, when routers add no delay.
func TestZeroLoadMixedLinks(t *testing.T) {
	topo, err := topology.ParseWith("file:../topology/testdata/net.txt", topology.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for src := 0; src < topo.NumNodes(); src++ {
		for dst := 0; dst < topo.NumNodes(); dst++ {
			h := newHost(t, Config{Topology: topo, Routing: "updown", Header: 8})
			h.net.Send(netmodel.Message{ID: 1, Src: int32(src), Dst: int32(dst), Bytes: 100})
			h.run()
			want, err := ZeroLoad(h.net.Routing(), src, dst, 100, 0, 8, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := h.delivered[1]; got != want {
				t.Errorf("%d → %d: delivered at %v, want %v", src, dst, got, want)
			}
		}
	}
}

// Two packets contending for one link are serialised on it, and the
// buffers they wait in show up in the metrics.
func TestContentionSerialises(t *testing.T) {
	const ns = des.Nanosecond
	topo := parseTopo(t, "crossbar:4")
	var samples []netmodel.Sample
	h := newHost(t, Config{Topology: topo, PacketSize: 0, Header: 0, SamplePeriod: 100 * ns, OnSample: func(s *netmodel.Sample) {
		c := *s
		c.Links = append([]netmodel.LinkSample(nil), s.Links...)
		samples = append(samples, c)
	}})
	// 1000 B at 10 Gb/s = 800 ns per link; nodes 0 and 1 both send to 3.
	h.net.Send(netmodel.Message{ID: 1, Src: 0, Dst: 3, Bytes: 1000})
	h.net.Send(netmodel.Message{ID: 2, Src: 1, Dst: 3, Bytes: 1000})
	h.run()
	// First: 800 (inject) … the head reaches the switch at 10 ns and
	// leaves at once: 10 + 800 + 10 = 820 ns. Second: waits for the
	// ejection link until 810 ns, arrives at 810 + 800 + 10 = 1620 ns.
	if h.delivered[1] != 820*ns || h.delivered[2] != 1620*ns {
		t.Errorf("deliveries at %v and %v, want 820ns and 1620ns", h.delivered[1], h.delivered[2])
	}
	var m netmodel.Metrics
	h.net.Metrics(&m)
	if m.Delivered != 2 || m.Bytes != 2000 || m.Packets != 2 || m.Hops != 4 || m.InFlight != 0 {
		t.Errorf("counters: %+v", m)
	}
	eject := topo.OutLink(0, 3)
	for _, l := range m.Links {
		if topology.LinkID(l.ID) == eject {
			if l.Bytes != 2000 || l.Busy != 1600e-9 || !l.ToNode || l.Class != "terminal" {
				t.Errorf("ejection link: %+v", l)
			}
		}
	}
	if len(samples) == 0 {
		t.Fatal("no samples")
	}
	var ejBusy float64
	for _, s := range samples {
		for _, l := range s.Links {
			if topology.LinkID(l.ID) == eject {
				ejBusy += l.Utilisation * float64(s.Period)
			}
		}
	}
	if math.Abs(ejBusy-float64(1600*ns)) > 1 {
		t.Errorf("samples account %v ps of ejection-link busy time, want 1600 ns", ejBusy)
	}
}

// With one VC and plain dimension order, every node of a ring sending far
// in the same direction fills the ring's buffers in a cycle: the network
// stops, and Stall reports the cycle. Bubble flow control completes the
// same traffic.
func TestRingDeadlockAndBubble(t *testing.T) {
	topo := parseTopo(t, "ring:8")
	for _, tc := range []struct {
		routing  string
		deadlock bool
	}{
		{"dor:none", true},
		{"dor:bubble", false},
	} {
		t.Run(tc.routing, func(t *testing.T) {
			h := newHost(t, Config{Topology: topo, Routing: tc.routing, Buffer: 2, PacketSize: 64, Header: 16})
			for i := 0; i < 8; i++ {
				h.net.Send(netmodel.Message{ID: int32(i), Src: int32(i), Dst: int32((i + 3) % 8), Bytes: 64 * 32})
			}
			h.run()
			st := h.net.Stall()
			if !tc.deadlock {
				if len(h.delivered) != 8 || st != nil {
					t.Fatalf("%d of 8 delivered; stall %+v", len(h.delivered), st)
				}
				return
			}
			if len(h.delivered) == 8 || st == nil {
				t.Fatalf("no deadlock: %d delivered, stall %+v", len(h.delivered), st)
			}
			if len(st.Cycle) != 9 || st.Cycle[0] != st.Cycle[8] || st.FullCount < 8 {
				t.Fatalf("cycle %+v, %d full buffers", st.Cycle, st.FullCount)
			}
			seen := map[int32]bool{}
			for _, b := range st.Cycle[:8] {
				// Every buffer of the cycle is the "from x−" input of
				// a different router, full.
				if b.Port != 1 || b.VC != 0 || b.Packets != 2 || seen[b.Router] {
					t.Errorf("cycle buffer %+v", b)
				}
				seen[b.Router] = true
			}
			lines := strings.Join(h.net.Explain(), "\n")
			for _, want := range []string{"deadlock: a cycle of 8 buffers", "r0.p1/vc0", "waits for room in"} {
				if !strings.Contains(lines, want) {
					t.Errorf("explanation lacks %q:\n%s", want, lines)
				}
			}
		})
	}
}

// The routing oracle sees credits in use.
func TestOccupancyOracle(t *testing.T) {
	h := newHost(t, Config{Topology: parseTopo(t, "ring:4"), Routing: "dor", VCs: 2, Buffer: 3})
	if got := h.net.Occupancy(0, 0, 0); got != 0 {
		t.Fatalf("empty network: occupancy %d", got)
	}
	h.net.outs[0].credits = 1
	if got := h.net.Occupancy(0, 0, 0); got != 2 {
		t.Fatalf("occupancy %d, want 2", got)
	}
	if got := h.net.Occupancy(0, 2, 0); got != 0 {
		t.Fatalf("terminal port occupancy %d, want 0", got)
	}
}

func TestConfigErrors(t *testing.T) {
	torus := parseTopo(t, "torus:4x4")
	tests := []struct {
		cfg  Config
		want string
	}{
		{Config{}, "no topology"},
		{Config{Topology: torus, VCs: 65}, "virtual channels"},
		{Config{Topology: torus, Buffer: -1}, "buffer"},
		{Config{Topology: torus, Routing: "updown"}, "not valid on torus:4x4"},
		{Config{Topology: torus, Routing: "dor", VCs: 1}, "needs at least 2 virtual channels"},
		{Config{Topology: torus, Routing: "dor:bubble", Buffer: 1}, "at least 2 packets"},
		{Config{Topology: torus, PacketSize: -1}, "must not be negative"},
	}
	for _, tc := range tests {
		_, err := New(tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.want)
		}
	}
	n, err := New(Config{Topology: torus})
	if err != nil || n.Routing().Name() != "dor:bubble" || n.Config().Buffer != 4 {
		t.Errorf("defaults: %v %+v", err, n.Config())
	}
}

// Credits limit a stream: with one-packet buffers every packet waits for
// the previous one's credit to come back (a round trip of two link
// latencies plus its serialisation); deep buffers stream at link speed.
func TestCreditBackPressure(t *testing.T) {
	const ns = des.Nanosecond
	topo := parseTopo(t, "crossbar:2,lat=100ns")
	for _, tc := range []struct {
		buffer int
		want   des.Time
	}{
		// 10 packets of 64 B at 800 ps/B: 51.2 ns each.
		{1, 10 * (51200 + 200*ns)}, // n·(ser + 2l)
		{8, 10*51200 + 200*ns},     // n·ser + 2l
	} {
		h := newHost(t, Config{Topology: topo, Buffer: tc.buffer, PacketSize: 64})
		h.net.Send(netmodel.Message{ID: 1, Src: 0, Dst: 1, Bytes: 640})
		h.run()
		if got := h.delivered[1]; got != tc.want {
			t.Errorf("buffer %d: delivered at %v, want %v", tc.buffer, got, tc.want)
		}
		var m netmodel.Metrics
		h.net.Metrics(&m)
		for _, q := range m.Queues {
			if q.Max > int32(tc.buffer) {
				t.Errorf("buffer %d: queue %+v over capacity", tc.buffer, q)
			}
		}
	}
}

// The fat-tree level shares count where routes turn: one message to a
// sibling, one to the other half of the subtree, one across the root.
func TestFatTreeLevelShare(t *testing.T) {
	var share []float64
	h := newHost(t, Config{Topology: parseTopo(t, "fattree:k=2,levels=3"), SamplePeriod: des.Microsecond,
		OnSample: func(s *netmodel.Sample) { share = append(share[:0], s.LevelShare...) }})
	for i, dst := range []int32{1, 2, 4} {
		h.net.Send(netmodel.Message{ID: int32(i), Src: 0, Dst: dst, Bytes: 100})
	}
	h.run()
	var m netmodel.Metrics
	h.net.Metrics(&m)
	for _, got := range [][]float64{m.LevelShare, share} {
		if len(got) != 3 || math.Abs(got[0]-1.0/3) > 1e-9 || math.Abs(got[1]-1.0/3) > 1e-9 || math.Abs(got[2]-1.0/3) > 1e-9 {
			t.Errorf("level shares %v, want a third each", got)
		}
	}
	names := map[string]int{}
	for _, g := range m.Groups {
		names[g.Name] = g.Links
	}
	// 4 leaf switches × 2 up links, the same down; 8 nodes.
	if names["up0"] != 8 || names["down0"] != 8 || names["up1"] != 8 || names["inject"] != 8 || names["eject"] != 8 {
		t.Errorf("groups %v", names)
	}
}

// The samples skip the links and buffers that did nothing in a period;
// what they report must still add up: per link, the bytes and the busy
// time of all samples are the link's totals, per buffer the time-weighted
// occupancies add up to its mean over the run, and a link or buffer idle
// in the last period reports zero there however busy it was before.
func TestSamplesAddUpToTheTotals(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec, routing string
		vcs           int
	}{
		{"torus:4x4", "adaptive", 3},
		{"torus:4x4", "dor", 2},
		{"mesh:3x3x2", "adaptive", 2},
		{"fattree:k=4,levels=2", "updown", 1},
	}
	for _, tc := range tests {
		type qkey struct{ r, p, vc int32 }
		bytes := map[int32]int64{}
		busy := map[int32]float64{}
		area := map[qkey]float64{}
		var last map[int32]float64
		onSample := func(s *netmodel.Sample) {
			last = map[int32]float64{}
			for _, l := range s.Links {
				bytes[l.ID] += l.Bytes
				busy[l.ID] += l.Utilisation * float64(s.Period)
				last[l.ID] = l.Utilisation
			}
			for _, q := range s.Queues {
				area[qkey{q.Router, q.Port, q.VC}] += q.Mean * float64(s.Period)
			}
		}
		h := newHost(t, Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: tc.vcs,
			PacketSize: 64, Header: 16, RouterDelay: 5 * ns, SamplePeriod: 40 * ns, OnSample: onSample})
		// One long stream keeps its route busy to the end; short
		// messages elsewhere leave their links idle long before.
		N := int32(h.net.topo.NumNodes())
		h.net.Send(netmodel.Message{ID: 0, Src: 0, Dst: N - 1, Bytes: 64 * 200})
		for i := int32(1); i < N-1; i++ {
			h.net.Send(netmodel.Message{ID: i, Src: i, Dst: (i * 5) % N, Bytes: 64 * int64(i%3+1)})
		}
		h.run()
		var m netmodel.Metrics
		h.net.Metrics(&m)
		now := float64(h.k.Now())
		idle := 0
		for _, lm := range m.Links {
			if got := bytes[int32(lm.ID)]; got != lm.Bytes {
				t.Errorf("%s %s: link %d: samples carried %d B, the link %d B", tc.spec, tc.routing, lm.ID, got, lm.Bytes)
			}
			if got, want := busy[int32(lm.ID)], lm.Busy*1e12; math.Abs(got-want) > 1e-6*want+1 {
				t.Errorf("%s %s: link %d: samples busy %.0f ps, the link %.0f ps", tc.spec, tc.routing, lm.ID, got, want)
			}
			// Metrics keeps the last sample's figure as a float32.
			if want := float64(float32(last[int32(lm.ID)])); lm.Utilisation != want {
				t.Errorf("%s %s: link %d: last sample's utilisation %v, want %v", tc.spec, tc.routing, lm.ID, lm.Utilisation, want)
			}
			if lm.Bytes > 0 && last[int32(lm.ID)] == 0 {
				idle++
			}
		}
		if idle == 0 {
			t.Errorf("%s %s: no link went idle before the end: the test shows nothing", tc.spec, tc.routing)
		}
		for _, qm := range m.Queues {
			got, want := area[qkey{qm.Router, qm.Port, qm.VC}], qm.Mean*now
			if math.Abs(got-want) > 1e-9*want+1e-3 {
				t.Errorf("%s %s: buffer r%d.p%d/vc%d: samples' occupancy area %g, the buffer's %g", tc.spec, tc.routing, qm.Router, qm.Port, qm.VC, got, want)
			}
		}
	}
}
