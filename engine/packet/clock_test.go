package packet

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// An event inside the sample period the last event marked active skips
// the sample clock (sampler.marked). The samples, read period by period,
// and the metrics are the same as when every event goes through the
// clock: bursts of traffic separated by quiet stretches (where periods
// end with nothing in flight), and Metrics asked between events (which
// flushes the clock).
func TestSampleClockSkipChangesNoSample(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec, routing string
		vcs           int
		period        des.Time
		every         int // Metrics every so many events (0: never)
	}{
		{"torus:4x4", "adaptive", 3, 40 * ns, 0},
		{"torus:4x4", "adaptive", 3, 40 * ns, 5},
		{"torus:4x4", "dor", 2, 300 * ns, 1},
		{"fattree:k=4,levels=2", "updown", 1, 25 * ns, 3},
		{"crossbar:5", "", 2, 100 * ns, 0},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s %s period %v every %d", tc.spec, tc.routing, tc.period, tc.every)
		run := func(throughClock bool) ([]netmodel.Sample, netmodel.Metrics, int) {
			var samples []netmodel.Sample
			cfg := Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: tc.vcs,
				PacketSize: 64, Header: 16, RouterDelay: 5 * ns, SamplePeriod: tc.period,
				OnSample: func(s *netmodel.Sample) {
					c := *s
					c.Links, c.Queues = slices.Clone(s.Links), slices.Clone(s.Queues)
					c.Groups, c.LevelShare = slices.Clone(s.Groups), slices.Clone(s.LevelShare)
					samples = append(samples, c)
				}}
			h := newHost(t, cfg)
			N := int32(h.net.topo.NumNodes())
			events, skipped := 0, 0
			id := int32(0)
			for burst := range 4 {
				for i := int32(0); i < 2*N; i++ {
					h.net.Send(netmodel.Message{ID: id, Src: i % N, Dst: (i*5 + int32(burst) + 1) % N, Bytes: 64 * int64(i%4+1)})
					id++
				}
				for {
					e, ok := h.k.Next()
					if !ok {
						break
					}
					if throughClock {
						h.net.smp.marked = 0
					} else if e.At < h.net.smp.marked {
						skipped++
					}
					h.net.Handle(e)
					if events++; tc.every > 0 && events%tc.every == 0 {
						var m netmodel.Metrics
						h.net.Metrics(&m)
					}
				}
				// A quiet stretch of several periods, ended by an event
				// that changes nothing in the network.
				h.k.Schedule(h.k.Now()+7*tc.period+tc.period/3, 255, 0, 0)
				e, _ := h.k.Next()
				h.net.Handle(e)
			}
			h.net.Finish()
			var m netmodel.Metrics
			h.net.Metrics(&m)
			return samples, m, skipped
		}
		want, wantM, _ := run(true)
		got, gotM, skipped := run(false)
		if skipped == 0 {
			t.Fatalf("%s: no event skipped the clock", name)
		}
		if len(want) < 8 {
			t.Fatalf("%s: only %d samples", name, len(want))
		}
		if len(got) != len(want) {
			t.Fatalf("%s: %d samples, want %d", name, len(got), len(want))
		}
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: sample %d at %v:\n%+v\nwant\n%+v", name, i, want[i].Time, got[i], want[i])
			}
		}
		gotM.Layout, wantM.Layout = nil, nil
		if !reflect.DeepEqual(gotM, wantM) {
			t.Fatalf("%s: metrics differ:\n%+v\nwant\n%+v", name, gotM, wantM)
		}
	}
}

// Metrics allocates its lists at their length: at 65,536 nodes they are
// tens of megabytes, and the queues were sized for every input buffer,
// the injection lanes' included, twice what is listed on a crossbar and
// more on a torus.
func TestMetricsListsAtLength(t *testing.T) {
	tests := []struct {
		spec               string
		vcs                int
		links, queues, nic int
	}{
		// A 4×4 torus: 64 router-to-router links and 16 each way to the
		// nodes; 16 routers × 5 ports (4 + the terminal), × 3 VCs.
		{"torus:4x4", 3, 96, 240, 16},
		// One router of 8 ports, × 2 VCs.
		{"crossbar:8", 2, 16, 16, 8},
	}
	for _, tc := range tests {
		h := newHost(t, Config{Topology: parseTopo(t, tc.spec), VCs: tc.vcs})
		h.net.Send(netmodel.Message{ID: 1, Src: 0, Dst: 3, Bytes: 100})
		h.run()
		var m netmodel.Metrics
		h.net.Metrics(&m)
		if len(m.Links) != tc.links || len(m.Queues) != tc.queues || len(m.NICs) != tc.nic {
			t.Errorf("%s: %d links, %d queues, %d NICs, want %d, %d, %d", tc.spec, len(m.Links), len(m.Queues), len(m.NICs), tc.links, tc.queues, tc.nic)
		}
		if cap(m.Links) != len(m.Links) || cap(m.Queues) != len(m.Queues) {
			t.Errorf("%s: room for %d links and %d queues, %d and %d listed", tc.spec, cap(m.Links), cap(m.Queues), len(m.Links), len(m.Queues))
		}
	}
}
