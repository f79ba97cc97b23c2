package netmodel

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

const us = des.Microsecond

// The worked cases of models.md: i = 10 µs, t1 = 0.1 µs/B.
func TestPuppetWorkedCases(t *testing.T) {
	base := Puppet{Startup: 10 * us, PerByte: 0.1 * float64(us)}
	with := func(f func(p *Puppet)) *Puppet { p := base; f(&p); return &p }
	tests := []struct {
		name string
		got  des.Time
		want des.Time
	}{
		{"t(1000) p=256", with(func(p *Puppet) { p.PacketSize = 256 }).Link(1000), 140 * us},
		{"t(1000) p=inf", base.Link(1000), 110 * us},
		{"store-and-forward d=3", with(func(p *Puppet) {}).Latency(1000, 3), 330 * us},
		{"cut-through h=8 d=3", with(func(p *Puppet) { p.Switching = CutThrough; p.Header = 8 }).Latency(1000, 3), 142400 * des.Nanosecond},
		{"circuit c=8 d=3", with(func(p *Puppet) { p.Switching = Circuit; p.Header = 8 }).Latency(1000, 3), 142400 * des.Nanosecond},
		{"wormhole f=2 d=3", with(func(p *Puppet) { p.Switching = Wormhole; p.Flit = 2 }).Latency(1000, 3), 5120400 * des.Nanosecond},
		{"wormhole f=2 d=3 i=0", with(func(p *Puppet) { p.Switching = Wormhole; p.Flit = 2; p.Startup = 0 }).Latency(1000, 3), 100400 * des.Nanosecond},
		{"ethernet fit t(1000)", (&Puppet{Startup: 1449848 * des.Nanosecond, PerByte: 1008644}).Link(1000), 2458492 * des.Nanosecond},
		{"same node", base.Latency(1000, 0), 0},
		{"empty message pays one packet", with(func(p *Puppet) { p.PacketSize = 256 }).Link(0), 10 * us},
		{"wormhole empty message pays one flit", with(func(p *Puppet) { p.Switching = Wormhole; p.Flit = 2 }).Latency(0, 1), 10200 * des.Nanosecond},
		{"occupancy store-and-forward", base.Occupancy(1000), 110 * us},
		{"occupancy wormhole", with(func(p *Puppet) { p.Switching = Wormhole; p.Flit = 2 }).Occupancy(4), 2 * 10200 * des.Nanosecond},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestLogGOPSByHand(t *testing.T) {
	// The defaults of models.md: L 2.5 µs, o 1.5 µs, g 1 µs, G 6 ns/B, O 0.
	m := &LogGOPS{L: 2500 * des.Nanosecond, Overhead: 1500 * des.Nanosecond, Gap: us, PerByteGap: 6000}
	tests := []struct {
		name      string
		got, want des.Time
	}{
		{"latency", m.Latency(1000, 5), 2500 * des.Nanosecond},
		{"send overhead O=0", m.SendOverhead(1000), 1500 * des.Nanosecond},
		// o + max(999·O, 999·G) = 1.5 µs + 5.994 µs
		{"recv overhead", m.RecvOverhead(1000), 7494 * des.Nanosecond},
		// g + 999·G = 1 µs + 5.994 µs
		{"occupancy", m.Occupancy(1000), 6994 * des.Nanosecond},
		{"one byte", m.Occupancy(1), us},
		{"zero bytes", m.RecvOverhead(0), 1500 * des.Nanosecond},
	}
	for _, tc := range tests {
		if tc.got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	m.PerByteOverhead = 10000 // O = 10 ns/B > G
	if got, want := m.RecvOverhead(101), 1500*des.Nanosecond+100*10*des.Nanosecond; got != want {
		t.Errorf("recv overhead with O > G: got %v, want %v", got, want)
	}
	if got, want := m.SendOverhead(101), 2500*des.Nanosecond; got != want {
		t.Errorf("send overhead with O: got %v, want %v", got, want)
	}
}

func TestCM02(t *testing.T) {
	// 125 MB/s = 8 ns/B, 5 µs links: 2·5 µs + (1000+16)·8 ns.
	m := &CM02{LinkLatency: 5 * us, PerByte: 8000, Envelope: 16}
	if got, want := m.Latency(1000, 1), 10*us+8128*des.Nanosecond; got != want {
		t.Errorf("latency: got %v, want %v", got, want)
	}
	if got, want := m.Latency(1000, 7), m.Latency(1000, 1); got != want {
		t.Errorf("a star ignores the distance: got %v, want %v", got, want)
	}
}

// fakeHost records the callbacks of a network.
type fakeHost struct {
	k         *des.Kernel
	net       Network
	delivered map[int32]des.Time
	injected  map[int32]des.Time
}

func newFakeHost(n Network) *fakeHost {
	h := &fakeHost{k: des.NewKernel(1), net: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	return h
}

func (h *fakeHost) Now() des.Time { return h.k.Now() }
func (h *fakeHost) Schedule(at des.Time, kind uint8, obj int32, arg int64) {
	h.k.Schedule(at, kind, obj, arg)
}
func (h *fakeHost) Rand() *rand.Rand   { return h.k.Rand() }
func (h *fakeHost) Delivered(id int32) { h.delivered[id] = h.k.Now() }
func (h *fakeHost) Injected(id int32)  { h.injected[id] = h.k.Now() }
func (h *fakeHost) run() {
	for {
		e, ok := h.k.Next()
		if !ok {
			return
		}
		h.net.Handle(e)
	}
}

func TestAnalyticNetwork(t *testing.T) {
	p := &Puppet{Startup: 10 * us, PerByte: 0.1 * float64(us)} // t(1000) = 110 µs
	tests := []struct {
		name          string
		serialize     bool
		msgs          []Message
		wantDelivered map[int32]des.Time
		wantInjected  map[int32]des.Time
	}{
		{
			name:          "contention-free: two messages from one node overlap",
			msgs:          []Message{{ID: 1, Src: 0, Dst: 1, Bytes: 1000}, {ID: 2, Src: 0, Dst: 2, Bytes: 1000, NotifyInjected: true}},
			wantDelivered: map[int32]des.Time{1: 110 * us, 2: 110 * us},
			wantInjected:  map[int32]des.Time{2: 110 * us},
		},
		{
			name:          "serialised: the second waits for the port",
			serialize:     true,
			msgs:          []Message{{ID: 1, Src: 0, Dst: 1, Bytes: 1000, NotifyInjected: true}, {ID: 2, Src: 0, Dst: 2, Bytes: 1000, NotifyInjected: true}},
			wantDelivered: map[int32]des.Time{1: 110 * us, 2: 220 * us},
			wantInjected:  map[int32]des.Time{1: 110 * us, 2: 220 * us},
		},
		{
			name:          "same node is free",
			serialize:     true,
			msgs:          []Message{{ID: 5, Src: 3, Dst: 3, Bytes: 1 << 20, NotifyInjected: true}},
			wantDelivered: map[int32]des.Time{5: 0},
			wantInjected:  map[int32]des.Time{5: 0},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAnalytic(p, Complete{}, 4, tc.serialize)
			h := newFakeHost(a)
			for _, m := range tc.msgs {
				a.Send(m)
			}
			if a.InFlight() != len(tc.msgs) {
				t.Fatalf("in flight %d, want %d", a.InFlight(), len(tc.msgs))
			}
			var before Metrics
			a.Metrics(&before)
			wantBytes := int64(0)
			for _, m := range tc.msgs {
				wantBytes += m.Bytes
			}
			if before.BytesInFlight != wantBytes {
				t.Fatalf("%d bytes in flight before delivery, want %d", before.BytesInFlight, wantBytes)
			}
			h.run()
			for id, want := range tc.wantDelivered {
				if got, ok := h.delivered[id]; !ok || got != want {
					t.Errorf("message %d delivered at %v (%v), want %v", id, got, ok, want)
				}
			}
			if len(h.injected) != len(tc.wantInjected) {
				t.Errorf("injected callbacks %v, want %v", h.injected, tc.wantInjected)
			}
			for id, want := range tc.wantInjected {
				if got := h.injected[id]; got != want {
					t.Errorf("message %d injected at %v, want %v", id, got, want)
				}
			}
			var m Metrics
			a.Metrics(&m)
			if m.InFlight != 0 || m.BytesInFlight != 0 || m.Delivered != uint64(len(tc.msgs)) {
				t.Errorf("metrics %+v", m)
			}
		})
	}
}

func TestLogGOPSNetworkSerialisesByItself(t *testing.T) {
	m := &LogGOPS{L: 2 * us, Gap: 3 * us}
	a := NewAnalytic(m, Complete{}, 2, false)
	h := newFakeHost(a)
	a.Send(Message{ID: 1, Src: 0, Dst: 1, Bytes: 1})
	a.Send(Message{ID: 2, Src: 0, Dst: 1, Bytes: 1})
	h.run()
	if h.delivered[1] != 2*us || h.delivered[2] != 5*us {
		t.Errorf("delivered %v, want 1 at 2µs and 2 at 5µs", h.delivered)
	}
	if a.SendOverhead(1) != 0 || a.RecvOverhead(1) != 0 {
		t.Errorf("overheads of a LogGOPS model without o")
	}
}

func TestParseSwitching(t *testing.T) {
	for _, s := range []Switching{StoreAndForward, CutThrough, Circuit, Wormhole} {
		got, err := ParseSwitching(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSwitching(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseSwitching("teleport"); err == nil {
		t.Error("ParseSwitching accepted nonsense")
	}
	if got := (Complete{Fixed: 3}).Hops(0, 1); got != 3 {
		t.Errorf("fixed hops: %d", got)
	}
}

// lineDist is the distance of a line of nodes; it counts its calls.
type lineDist struct{ calls int }

func (d *lineDist) Hops(src, dst int) int {
	d.calls++
	if src > dst {
		return src - dst
	}
	return dst - src
}

// TestAnalyticHopTable checks that the analytic network's hop table
// gives the distance's hops, asks the distance once per pair of a small
// world, and asks it every time for nodes beyond the table.
func TestAnalyticHopTable(t *testing.T) {
	for _, tc := range []struct {
		name      string
		nodes     int
		src, dst  int
		want      int
		wantCalls int // calls to the distance after three lookups
	}{
		{"small world", 8, 1, 6, 5, 1},
		{"same node", 8, 3, 3, 0, 1},
		{"node past the hint", 8, 2, 9, 7, 3},
		{"world too large for a table", hopTabNodes + 1, 0, hopTabNodes, hopTabNodes, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &lineDist{}
			a := NewAnalytic(&CM02{LinkLatency: 5 * us, PerByte: 8000, Envelope: 16}, d, tc.nodes, false)
			for range 3 {
				if got := a.hopsOf(tc.src, tc.dst); got != tc.want {
					t.Fatalf("hops %d -> %d = %d, want %d", tc.src, tc.dst, got, tc.want)
				}
			}
			if d.calls != tc.wantCalls {
				t.Errorf("distance asked %d times, want %d", d.calls, tc.wantCalls)
			}
		})
	}
}

// countingModel counts the Latency calls of the model it wraps.
type countingModel struct {
	Model
	calls int
}

func (c *countingModel) Latency(s int64, d int) des.Time {
	c.calls++
	return c.Model.Latency(s, d)
}

// TestAnalyticLatencyCache: every message arrives at its send time plus
// the model's latency for its size and distance, whichever pairs share
// a cache slot (more pairs than slots, sent in two orders, over a line
// of nodes past the hop table), and a pair sent again is not asked of
// the model again while its slot holds it.
func TestAnalyticLatencyCache(t *testing.T) {
	factors, err := ParseSizeFactors("0:1.5;1024:1.2;65536:0.97")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		model Model
	}{
		{"puppet", &Puppet{Startup: 10 * us, PerByte: 0.1 * float64(us), Switching: Wormhole, Flit: 8}},
		{"simgrid star", &CM02{LinkLatency: 5 * us, PerByte: 8000, Envelope: 16}},
		{"simgrid routed, factors, TCP gamma", &CM02{LinkLatency: 5 * us, PerByte: 8000, Envelope: 16, Routed: true, BwFactor: factors, LatFactor: factors, TCPGamma: 4 << 20}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const nodes = hopTabNodes + 44
			sizes := []int64{0, 1, 7, 8, 1000, 1023, 1024, 4096, 65535, 65536, 1 << 20, 3 << 20}
			var msgs []Message
			for _, s := range sizes {
				for dst := 1; dst < nodes; dst += 7 {
					msgs = append(msgs, Message{Src: 0, Dst: int32(dst), Bytes: s})
				}
			}
			if len(msgs) <= 2*latSlots {
				t.Fatalf("%d pairs: too few to share slots", len(msgs))
			}
			// The second pass, in the other order, meets every pair after
			// others took its slot.
			for i := len(msgs) - 1; i >= 0; i-- {
				msgs = append(msgs, msgs[i])
			}
			a := NewAnalytic(tc.model, &lineDist{}, nodes, false)
			h := newFakeHost(a)
			for i := range msgs {
				msgs[i].ID = int32(i)
				a.Send(msgs[i])
			}
			h.run()
			for _, m := range msgs {
				if got, want := h.delivered[m.ID], tc.model.Latency(m.Bytes, int(m.Dst)); got != want {
					t.Fatalf("%d B over %d hops arrived at %v, want %v", m.Bytes, m.Dst, got, want)
				}
			}
			// Repeated pairs come from the cache.
			cm := &countingModel{Model: tc.model}
			a = NewAnalytic(cm, &lineDist{}, nodes, false)
			newFakeHost(a)
			for range 100 {
				for _, m := range []Message{{Src: 0, Dst: 1, Bytes: 1000}, {Src: 0, Dst: 3, Bytes: 1000}, {Src: 2, Dst: 3, Bytes: 8}} {
					a.Send(m)
				}
			}
			if cm.calls != 3 {
				t.Errorf("the model was asked %d latencies for 3 pairs sent 100 times", cm.calls)
			}
		})
	}
}
