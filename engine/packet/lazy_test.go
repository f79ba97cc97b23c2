package packet

import (
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// Without OnSample the samples are taken lazily (only the last one's
// figures are ever seen, in Metrics); they are the same numbers as the
// samples taken period by period, whenever Metrics is asked — between
// events mid-run, right after a sample, and at the end.
func TestLazySamplesMatchEager(t *testing.T) {
	const ns = des.Nanosecond
	tests := []struct {
		spec, routing string
		vcs           int
		period        des.Time
		every         int // Metrics every so many events
	}{
		{"torus:4x4", "adaptive", 3, 40 * ns, 7},
		{"torus:4x4", "dor", 2, 40 * ns, 1},
		{"torus:4x4", "adaptive", 3, 3 * des.Microsecond, 5},
		{"mesh:3x3x2", "adaptive", 2, 25 * ns, 3},
		{"fattree:k=4,levels=2", "updown", 1, 40 * ns, 11},
		{"bus:6", "", 1, 30 * ns, 2},
		{"crossbar:5", "", 2, 100 * ns, 1},
	}
	for _, tc := range tests {
		name := fmt.Sprintf("%s %s period %v", tc.spec, tc.routing, tc.period)
		cfg := Config{Topology: parseTopo(t, tc.spec), Routing: tc.routing, VCs: tc.vcs,
			PacketSize: 64, Header: 16, RouterDelay: 5 * ns, SamplePeriod: tc.period}
		lazy := newHost(t, cfg)
		cfg.OnSample = func(*netmodel.Sample) {}
		eager := newHost(t, cfg)
		if !lazy.net.smp.lazy || eager.net.smp.lazy {
			t.Fatalf("%s: lazy sampler %v and %v, want true and false", name, lazy.net.smp.lazy, eager.net.smp.lazy)
		}
		N := int32(lazy.net.topo.NumNodes())
		for _, h := range []*testHost{lazy, eager} {
			for i := int32(0); i < 3*N; i++ {
				h.net.Send(netmodel.Message{ID: i, Src: i % N, Dst: (i*7 + 3) % N, Bytes: 64 * int64(i%5+1)})
			}
		}
		compared, busy := 0, 0
		compare := func(at string) {
			var ml, me netmodel.Metrics
			lazy.net.Metrics(&ml)
			eager.net.Metrics(&me)
			compared++
			for i, le := range me.Links {
				if ll := ml.Links[i]; ll.Utilisation != le.Utilisation {
					t.Fatalf("%s, %s: link %d: lazy utilisation %v, eager %v", name, at, le.ID, ll.Utilisation, le.Utilisation)
				}
				if le.Utilisation > 0 {
					busy++
				}
			}
			for i, qe := range me.Queues {
				if ql := ml.Queues[i]; ql.SampleMean != qe.SampleMean || ql.SampleMax != qe.SampleMax {
					t.Fatalf("%s, %s: queue %d/%d/%d: lazy sample mean %v max %d, eager %v max %d", name, at,
						qe.Router, qe.Port, qe.VC, ql.SampleMean, ql.SampleMax, qe.SampleMean, qe.SampleMax)
				}
			}
			if ml.LastSample != me.LastSample {
				t.Fatalf("%s, %s: last sample lazy %v, eager %v", name, at, ml.LastSample, me.LastSample)
			}
		}
		for ev := 0; ; ev++ {
			el, okl := lazy.k.Next()
			ee, oke := eager.k.Next()
			if okl != oke || el != ee {
				t.Fatalf("%s: event %d: lazy %v %v, eager %v %v", name, ev, el, okl, ee, oke)
			}
			if !okl {
				break
			}
			lazy.net.Handle(el)
			eager.net.Handle(ee)
			if ev%tc.every == 0 {
				compare(fmt.Sprintf("after event %d at %v", ev, el.At))
			}
		}
		lazy.net.Finish()
		eager.net.Finish()
		compare("at the end")
		if busy == 0 {
			t.Errorf("%s: no link was ever busy in a sample (%d comparisons): the test shows nothing", name, compared)
		}
	}
}
