package flow

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"unsafe"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// host drives a network alone: it records when each message arrives.
type host struct {
	k         *des.Kernel
	n         *Network
	delivered map[int32]des.Time
	injected  map[int32]des.Time
	order     []int32 // the messages, in the order delivered
}

func (h *host) Now() des.Time { return h.k.Now() }
func (h *host) Schedule(at des.Time, kind uint8, obj int32, arg int64) {
	h.k.Schedule(at, kind, obj, arg)
}
func (h *host) Rand() *rand.Rand { return h.k.Rand() }
func (h *host) Delivered(id int32) {
	h.delivered[id] = h.k.Now()
	h.order = append(h.order, id)
}
func (h *host) Injected(id int32) { h.injected[id] = h.k.Now() }

// send is one message: sent at At.
type send struct {
	at       des.Time
	src, dst int32
	bytes    int64
}

// run sends the messages (id = index) and runs the network until it is
// idle.
func run(t *testing.T, cfg Config, sends []send) (*host, *Network) {
	t.Helper()
	return runSolver(t, cfg, sends, false)
}

// runSolver is run, with the reference solver (solveref_test.go) when ref
// is set.
func runSolver(t *testing.T, cfg Config, sends []send, ref bool) (*host, *Network) {
	t.Helper()
	return runSetup(t, cfg, sends, func(n *Network) {
		if ref {
			n.solveWith = n.solveRef
		}
	})
}

// runSetup is run, with setup applied to the network before the first
// message.
func runSetup(t *testing.T, cfg Config, sends []send, setup func(*Network)) (*host, *Network) {
	t.Helper()
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	setup(n)
	h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	const evSend = 200
	for i, s := range sends {
		h.k.Schedule(s.at, evSend, int32(i), 0)
	}
	for {
		e, ok := h.k.Next()
		if !ok {
			break
		}
		if e.Kind == evSend {
			s := sends[e.Obj]
			n.Send(netmodel.Message{ID: e.Obj, Src: s.src, Dst: s.dst, Bytes: s.bytes, NotifyInjected: true})
			continue
		}
		n.Handle(e)
	}
	if n.InFlight() != 0 {
		t.Fatalf("%d messages still in flight", n.InFlight())
	}
	return h, n
}

// star is SimGrid's star cluster of the comparison: 125 MB/s, 5 µs links.
func star(t *testing.T, nodes int) topology.Topology {
	t.Helper()
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: 5_000_000}
	tp, err := topology.ParseWith("crossbar:"+strconv.Itoa(nodes), topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func TestFlowTimes(t *testing.T) {
	const bw, L = 125e6, 5e-6 // B/s, s per link
	const S = 1_000_000       // bytes
	sec := func(s float64) des.Time { return des.Time(math.Ceil(s * 1e12)) }
	tests := []struct {
		name  string
		cfg   Config
		sends []send
		want  []float64 // arrival times in seconds
	}{
		{"alone: 2·lat + (bytes+envelope)/bw", Config{Envelope: 16},
			[]send{{0, 0, 1, S}}, []float64{2*L + (S+16)/bw}},
		{"two flows from one host share its up-link", Config{},
			[]send{{0, 0, 1, S}, {0, 0, 2, S}}, []float64{2*L + 2*S/bw, 2*L + 2*S/bw}},
		{"incast: three flows into one down-link", Config{},
			[]send{{0, 1, 0, S}, {0, 2, 0, S}, {0, 3, 0, S}}, []float64{2*L + 3*S/bw, 2*L + 3*S/bw, 2*L + 3*S/bw}},
		{"a flow finishing speeds up the other", Config{},
			[]send{{0, 0, 1, S / 2}, {0, 0, 2, S}},
			// Both at bw/2 until the first has carried S/2 (after S/bw),
			// then the second alone carries its other S/2.
			[]float64{2*L + S/bw, 2*L + S/bw + S/2/bw}},
		{"crosstraffic: opposite flows load each other's links by 5 %", Config{CrossTraffic: 0.05},
			[]send{{0, 0, 1, S}, {0, 1, 0, S}}, []float64{2*L + 1.05*S/bw, 2*L + 1.05*S/bw}},
		{"no crosstraffic: opposite flows do not meet", Config{},
			[]send{{0, 0, 1, S}, {0, 1, 0, S}}, []float64{2*L + S/bw, 2*L + S/bw}},
		{"empty message without envelope: the latency only", Config{},
			[]send{{0, 0, 1, 0}, {0, 2, 1, S}}, []float64{2 * L, 2*L + S/bw}},
		{"same node: at once", Config{Envelope: 16},
			[]send{{sec(1e-3), 2, 2, S}}, []float64{1e-3}},
		{"SMPI factors: latency ×2, rate ×0.5", Config{Factors: func(int64) (float64, float64) { return 2, 0.5 }},
			[]send{{0, 0, 1, S}}, []float64{2*2*L + S/(0.5*bw)}},
		{"TCP gamma bounds the rate by gamma/(2·latency)", Config{TCPGamma: 1000},
			[]send{{0, 0, 1, S}}, []float64{2*L + S/(1000/(2*2*L))}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Topology = star(t, 4)
			h, _ := run(t, tc.cfg, tc.sends)
			for i, w := range tc.want {
				got := h.delivered[int32(i)]
				if d := math.Abs(got.Seconds() - w); d > 1e-11 {
					t.Errorf("message %d arrives at %.12f s, want %.12f s", i, got.Seconds(), w)
				}
				if h.injected[int32(i)] != got {
					t.Errorf("message %d injected at %v, delivered at %v: a flow's last byte leaves when it arrives", i, h.injected[int32(i)], got)
				}
			}
		})
	}
}

// TestCM02Weights checks CM02's sharing: on ring:4 with equal links, the
// flow 0→1 (3 links, latency 3L) and 0→2 (4 links, 4L) share node 0's
// injection link and the link r0→r1 in the ratio 4:3 — rates inversely
// proportional to route latency.
func TestCM02Weights(t *testing.T) {
	const bw = 1e9
	const Lps = 1_000_000 // 1 µs per link
	lp := topology.LinkProps{Bandwidth: bw, Latency: Lps}
	tp, err := topology.ParseWith("ring:4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	const SA, SB = 100_000, 1_000_000
	h, _ := run(t, Config{Topology: tp}, []send{{0, 0, 1, SA}, {0, 0, 2, SB}})
	L := 1e-6
	// A alone from 3L to 4L, then A at 4/7 and B at 3/7 of bw.
	tA := 4*L + (SA-bw*L)/(bw*4/7)
	doneB := (tA - 4*L) * bw * 3 / 7
	tB := tA + (SB-doneB)/bw
	for i, w := range []float64{tA, tB} {
		if got := h.delivered[int32(i)].Seconds(); math.Abs(got-w) > 1e-11 {
			t.Errorf("flow %d arrives at %.12f s, want %.12f s", i, got, w)
		}
	}
}

// TestIncremental checks that a change re-solves only the flows connected
// to it: flows on disjoint links keep their completion times exactly.
func TestIncremental(t *testing.T) {
	tp := star(t, 8)
	n, err := New(Config{Topology: tp})
	if err != nil {
		t.Fatal(err)
	}
	h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	n.Send(netmodel.Message{ID: 0, Src: 0, Dst: 1, Bytes: 1 << 20})
	n.Send(netmodel.Message{ID: 1, Src: 2, Dst: 3, Bytes: 1 << 20})
	n.Send(netmodel.Message{ID: 2, Src: 4, Dst: 5, Bytes: 1 << 20})
	for h.k.Pending() > 0 && len(n.heap) < 3 {
		e, _ := h.k.Next()
		n.Handle(e)
	}
	before := n.flows[1].finish
	// A new flow into node 3 shares only flow 1's down-link.
	n.Send(netmodel.Message{ID: 3, Src: 6, Dst: 3, Bytes: 1 << 20})
	solved := 0
	for h.k.Pending() > 0 && len(n.heap) < 4 {
		e, _ := h.k.Next()
		n.Handle(e)
		solved++
	}
	if n.flows[0].finish != n.flows[2].finish || n.flows[1].finish <= before {
		t.Errorf("finishes %v %v %v (flow 1 was %v): flow 1 should slow down, flows 0 and 2 keep theirs", n.flows[0].finish, n.flows[1].finish, n.flows[2].finish, before)
	}
	// The last solve saw only flows 1 and 3 and their four links.
	if n.epoch == 0 || n.fmark[0] == n.epoch || n.fmark[2] == n.epoch || n.fmark[1] != n.epoch {
		t.Errorf("the last solve marked flows 0..3 as %d %d %d %d (epoch %d): only 1 and 3 are connected to the change",
			n.fmark[0], n.fmark[1], n.fmark[2], n.fmark[3], n.epoch)
	}
}

func TestMetrics(t *testing.T) {
	var samples []netmodel.Sample
	cfg := Config{Topology: star(t, 4), SamplePeriod: 2 * des.Millisecond, OnSample: func(s *netmodel.Sample) {
		c := *s
		c.Links = append([]netmodel.LinkSample(nil), s.Links...)
		c.Groups = append([]netmodel.GroupSample(nil), s.Groups...)
		samples = append(samples, c)
	}}
	// Two flows out of node 0 for 8 ms (1 MB at 125 MB/s).
	h, n := run(t, cfg, []send{{0, 0, 1, 500_000}, {0, 0, 2, 500_000}})
	n.Finish()
	var m netmodel.Metrics
	n.Metrics(&m)
	if m.Delivered != 2 || m.Bytes != 1_000_000 || m.Topology == nil || m.Layout == nil {
		t.Fatalf("metrics %+v", m)
	}
	end := h.k.Now().Seconds()
	up0 := n.topo.InjectLink(0)
	var got *netmodel.LinkMetric
	for i := range m.Links {
		if m.Links[i].ID == int32(up0) {
			got = &m.Links[i]
		}
	}
	if got == nil || got.Bytes != 1_000_000 || math.Abs(got.Busy-8e-3) > 1e-9 || math.Abs(got.MeanUtilisation-8e-3/end) > 1e-9 {
		t.Fatalf("node 0's up-link: %+v; want 1 MB, busy 8 ms, mean utilisation %.6f", got, 8e-3/end)
	}
	// The periods [0,2), [2,4), [4,6), [6,8) ms see the up-link full
	// with two flows (after 10 µs of latency in the first).
	if len(samples) < 4 {
		t.Fatalf("%d samples, want ≥ 4", len(samples))
	}
	s := samples[1]
	var ls *netmodel.LinkSample
	for i := range s.Links {
		if s.Links[i].ID == int32(up0) {
			ls = &s.Links[i]
		}
	}
	if ls == nil || math.Abs(ls.Utilisation-1) > 1e-9 || math.Abs(ls.Flows-2) > 1e-9 || ls.Bytes != 250_000 {
		t.Errorf("sample at %v: node 0's up-link %+v; want utilisation 1, 2 flows, 250000 B", s.Time, ls)
	}
	if g := s.Groups[netmodel.GroupInject]; g.Name != "inject" || math.Abs(g.Utilisation-0.25) > 1e-9 {
		t.Errorf("inject group %+v; want utilisation 0.25 (one of four up-links full)", g)
	}
	// The crossbar has no router links: the network's utilisation is
	// that of all eight node links, of which one up-link is full and two
	// down-links half full.
	if math.Abs(s.Utilisation-2.0/8) > 1e-9 {
		t.Errorf("network utilisation %.6f, want 0.25", s.Utilisation)
	}
}

// TestAdaptiveRouting checks that an adaptive routing chooses a flow's
// path when it starts from the flows already on the links: on a 4×4 torus
// a second flow from node 0 to node 5 (one hop in x and one in y) avoids
// the first hop of a flow already sharing, while dimension order sends
// both the same way.
func TestAdaptiveRouting(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 1e9, Latency: 1000}
	tp, err := topology.ParseWith("torus:4x4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		routing string
		same    bool
		// together sends the second flow at the same instant, while the
		// first is still in its latency phase: it counts as a load.
		together bool
	}{{"adaptive", false, false}, {"adaptive", false, true}, {"dor", true, false}, {"dor", true, true}} {
		t.Run(fmt.Sprintf("%s/together=%v", tc.routing, tc.together), func(t *testing.T) {
			n, err := New(Config{Topology: tp, Routing: tc.routing})
			if err != nil {
				t.Fatal(err)
			}
			h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
			n.Attach(h)
			n.Send(netmodel.Message{ID: 0, Src: 0, Dst: 5, Bytes: 1 << 20})
			for !tc.together && h.k.Pending() > 0 && len(n.heap) == 0 {
				e, _ := h.k.Next()
				n.Handle(e)
			}
			n.Send(netmodel.Message{ID: 1, Src: 0, Dst: 5, Bytes: 1 << 20})
			a, b := n.flinks(&n.flows[0]), n.flinks(&n.flows[1])
			if len(a) != 4 || len(b) != 4 {
				t.Fatalf("routes %v and %v: want inject, two router links, eject", a, b)
			}
			if same := a[1] == b[1]; same != tc.same {
				t.Errorf("first router links %d and %d: same %v, want %v", a[1], b[1], same, tc.same)
			}
		})
	}
}

// TestMaxMinProperties checks the solver on random sets of flows on
// small tori and rings, with and without crosstraffic: every link's
// capacity holds, and every flow is either at its bound or has a
// bottleneck — a saturated link on which no flow has a higher level
// (rate × sharing penalty), the condition that characterises weighted
// max-min fairness.
func TestMaxMinProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	shared := 0 // flows held below their bound by a shared link
	for trial := range 60 {
		spec := []string{"torus:3x3", "ring:6", "fattree:k=4,levels=2", "crossbar:5"}[trial%4]
		lp := topology.LinkProps{Bandwidth: 1e9, Latency: 1000 * int64(1+trial%3)}
		tp, err := topology.ParseWith(spec, topology.Options{Link: &lp})
		if err != nil {
			t.Fatal(err)
		}
		cross := []float64{0, 0.05, 0.5}[trial%3]
		n, err := New(Config{Topology: tp, CrossTraffic: cross})
		if err != nil {
			t.Fatal(err)
		}
		h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
		n.Attach(h)
		N := tp.NumNodes()
		flows := 2 + rng.IntN(12)
		for i := range flows {
			src := rng.IntN(N)
			dst := (src + 1 + rng.IntN(N-1)) % N
			n.Send(netmodel.Message{ID: int32(i), Src: int32(src), Dst: int32(dst), Bytes: 1 << 30})
		}
		for h.k.Pending() > 0 && len(n.heap) < flows {
			e, _ := h.k.Next()
			n.Handle(e)
		}
		// Let the last activations be solved.
		for h.k.Pending() > 0 && h.k.NextTime() == h.k.Now() {
			e, _ := h.k.Next()
			n.Handle(e)
		}
		if len(n.heap) != flows {
			t.Fatalf("trial %d: %d of %d flows sharing", trial, len(n.heap), flows)
		}
		used := make([]float64, len(n.links))
		for fi := range n.flows[:flows] {
			f := &n.flows[fi]
			for k, l := range n.flinks(f) {
				used[l] += n.coeff(f, k) * f.value
			}
		}
		for l := range n.links {
			if used[l] > n.links[l].cap*(1+1e-9) {
				t.Errorf("trial %d (%s): link %d carries %.6g B/s over its %.6g", trial, spec, l, used[l], n.links[l].cap)
			}
		}
		for fi := range n.flows[:flows] {
			f := &n.flows[fi]
			if f.bound > 0 && f.value >= f.bound*(1-1e-9) {
				continue
			}
			level := f.value * f.penalty
			bottleneck := false
			for _, l := range n.flinks(f) {
				if used[l] < n.links[l].cap*(1-1e-9) {
					continue
				}
				highest := true
				for _, e := range n.elems(&n.links[l]) {
					g := &n.flows[e.f]
					if g.value*g.penalty > level*(1+1e-9) {
						highest = false
					}
				}
				if highest {
					bottleneck = true
				}
			}
			if !bottleneck {
				t.Errorf("trial %d (%s, crosstraffic %g): flow %d at %.6g B/s (penalty %g) has no bottleneck", trial, spec, cross, fi, f.value, f.penalty)
			}
			shared++
		}
	}
	if shared < 100 {
		t.Errorf("only %d flows were limited by sharing: the trials test little", shared)
	}
	t.Logf("%d flows limited by a shared link", shared)
}

// TestInjectionLanes: a torus node sending to its four neighbours at once
// drives its four router ports at full bandwidth each (one injection lane
// per port, as the packet model), and the metrics show the lanes as the
// node's injection link: its bytes and flows are the four lanes'.
func TestInjectionLanes(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: 1_000_000} // 1 µs
	tp, err := topology.ParseWith("torus:4x4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	for _, one := range []bool{false, true} {
		var samples []netmodel.Sample
		cfg := Config{Topology: tp, Routing: "dor", VCs: 2, OneInjectionLink: one, SamplePeriod: 500 * des.Microsecond,
			OnSample: func(s *netmodel.Sample) {
				c := *s
				c.Links = append([]netmodel.LinkSample(nil), s.Links...)
				c.Groups = append([]netmodel.GroupSample(nil), s.Groups...)
				samples = append(samples, c)
			}}
		// 250 kB from node 5 to each neighbour: 2 ms at 125 MB/s.
		var sends []send
		for _, d := range []int32{6, 4, 9, 1} {
			sends = append(sends, send{0, 5, d, 250_000})
		}
		h, n := run(t, cfg, sends)
		// Route: injection link, one router link, ejection link: 3 µs.
		want := 2*des.Millisecond + 3*des.Microsecond
		if one {
			want = 8*des.Millisecond + 3*des.Microsecond // the four share one link
		}
		for i := range sends {
			if got := h.delivered[int32(i)]; got != want {
				t.Errorf("one injection link %v: message to %d delivered at %v, want %v", one, sends[i].dst, got, want)
			}
		}
		n.Finish()
		var m netmodel.Metrics
		n.Metrics(&m)
		inj := int32(tp.InjectLink(5))
		var lm *netmodel.LinkMetric
		for i := range m.Links {
			if m.Links[i].ID == inj {
				lm = &m.Links[i]
			}
		}
		if lm == nil || lm.Bytes != 1_000_000 {
			t.Fatalf("one injection link %v: node 5's injection link %+v; want 1 MB", one, lm)
		}
		// The period [0.5, 1) ms: four flows; 4 × 62.5 kB through the
		// lanes, 62.5 kB through the one link (full either way).
		s := samples[1]
		var ls *netmodel.LinkSample
		for i := range s.Links {
			if s.Links[i].ID == inj {
				ls = &s.Links[i]
			}
		}
		wantBytes := int64(250_000)
		if one {
			wantBytes = 62_500
		}
		if ls == nil || math.Abs(ls.Flows-4) > 1e-9 || ls.Bytes != wantBytes || math.Abs(ls.Utilisation-1) > 1e-9 {
			t.Errorf("one injection link %v: sample at %v: node 5's injection link %+v; want 4 flows, %d B, utilisation 1", one, s.Time, ls, wantBytes)
		}
		// One of the 16 injection links full, however many lanes fill it.
		if g := s.Groups[netmodel.GroupInject]; math.Abs(g.Utilisation-1.0/16) > 1e-9 {
			t.Errorf("one injection link %v: inject group %+v; want utilisation 1/16", one, g)
		}
	}
}

// TestSampleUntil: a flow carries on for many sample periods without an
// event; when the engine stops in the middle (a paused live view),
// SampleUntil measures the periods that ended by then, each with the
// flow's link full.
func TestSampleUntil(t *testing.T) {
	var samples []netmodel.Sample
	cfg := Config{Topology: star(t, 2), SamplePeriod: des.Millisecond, OnSample: func(s *netmodel.Sample) {
		c := *s
		c.Links = append([]netmodel.LinkSample(nil), s.Links...)
		samples = append(samples, c)
	}}
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	n.Send(netmodel.Message{ID: 0, Src: 0, Dst: 1, Bytes: 1_250_000}) // 10 ms at 125 MB/s
	const pause = 4*des.Millisecond + 500*des.Microsecond
	for h.k.Pending() > 0 && h.k.NextTime() <= pause {
		e, _ := h.k.Next()
		n.Handle(e)
	}
	if len(samples) != 0 {
		t.Fatalf("%d samples before the pause: the flow has no events after it starts", len(samples))
	}
	n.SampleUntil(pause)
	up := int32(n.topo.InjectLink(0))
	if len(samples) != 4 {
		t.Fatalf("%d samples by %v, want the 4 periods that ended", len(samples), pause)
	}
	for i, s := range samples[1:] { // the first period pays the 10 µs latency
		var ls *netmodel.LinkSample
		for k := range s.Links {
			if s.Links[k].ID == up {
				ls = &s.Links[k]
			}
		}
		if s.Time != des.Time(i+2)*des.Millisecond || ls == nil || math.Abs(ls.Utilisation-1) > 1e-9 || ls.Bytes != 125_000 {
			t.Errorf("sample at %v: node 0's link %+v; want full, 125000 B per period", s.Time, ls)
		}
	}
}

// TestMetricsWithoutListener: a network whose samples no one reads
// (OnSample nil, as `tracesim sim` without --metrics-out) measures only
// what Metrics reports, and reports exactly what it reports with a
// listener: each link's last-period utilisation and flows.
func TestMetricsWithoutListener(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: 1_000_000}
	torus, err := topology.ParseWith("torus:4x4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	var sends []send
	for i := range 300 {
		src, dst := rng.Int32N(16), rng.Int32N(16)
		sends = append(sends, send{des.Time(i) * 7 * des.Microsecond, src, dst, 1000 + rng.Int64N(40_000)})
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"star", Config{Topology: star(t, 16), CrossTraffic: 0.05}},
		{"torus lanes", Config{Topology: torus, Routing: "dor", VCs: 2, CrossTraffic: 0.05}},
	} {
		var got [2]netmodel.Metrics
		samples := 0
		for k, listen := range []bool{false, true} {
			cfg := tc.cfg
			cfg.SamplePeriod = 10 * des.Microsecond
			if listen {
				cfg.OnSample = func(*netmodel.Sample) { samples++ }
			}
			_, n := run(t, cfg, sends)
			n.Finish()
			n.Metrics(&got[k])
		}
		if samples < 100 {
			t.Fatalf("%s: %d samples, want the run to span ≥ 100 periods", tc.name, samples)
		}
		without, with := got[0], got[1]
		if without.LastSample != with.LastSample || len(without.Links) != len(with.Links) {
			t.Fatalf("%s: last sample %v, %d links without a listener; %v, %d with", tc.name,
				without.LastSample, len(without.Links), with.LastSample, len(with.Links))
		}
		busy := 0
		for i, a := range without.Links {
			b := with.Links[i]
			if a != b {
				t.Errorf("%s: link %d without a listener %+v, with %+v", tc.name, a.ID, a, b)
			}
			if a.Utilisation > 0 {
				busy++
			}
		}
		if busy == 0 {
			t.Errorf("%s: no link busy in the last period: the comparison shows nothing", tc.name)
		}
	}
}

// TestLinkRecordSize: a link's record is one cache line, so that the
// solver and the network touch one line per link they visit (on a
// 4,096-node crossbar the 8,192 links then take 512 KiB rather than
// 768 KiB, and no record straddles two lines).
func TestLinkRecordSize(t *testing.T) {
	if got := unsafe.Sizeof(link{}); got != 64 {
		t.Fatalf("link record is %d bytes, want 64", got)
	}
}

// TestFlowRecordSize: a flow's record and its uses of links are what a
// network holds per message in flight (at 65,536 ranks a quarter of a
// million at once): the record keeps its places in the links' lists in
// its links' block and no field read by no one, and an element no
// coefficient (coeff derives it).
func TestFlowRecordSize(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want uintptr
	}{
		{"flowRec", unsafe.Sizeof(flowRec{}), 128},
		{"elem", unsafe.Sizeof(elem{}), 8},
	} {
		if c.got != c.want {
			t.Errorf("%s is %d bytes, want %d", c.name, c.got, c.want)
		}
	}
}
