package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// TestLazyMetricsMidRun: Metrics asked for in the middle of a run (links
// changed since the last sample, periods skipped while idle, quiet
// stretches measured as one span) reports the same last-period
// utilisation and flows per link whether or not a listener reads the
// samples, at every one of the instants it is asked.
func TestLazyMetricsMidRun(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: 1_000_000}
	torus, err := topology.ParseWith("torus:4x4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	var sends []send
	at := des.Time(0)
	for range 400 {
		// Bursts, idle gaps longer than a period and quiet stretches of
		// more than maxQuiet periods with a slow message in flight.
		switch rng.IntN(20) {
		case 0:
			at += 30 * des.Microsecond
		case 1:
			at += 15 * des.Millisecond
		default:
			at += des.Time(rng.IntN(3000)) * des.Nanosecond
		}
		src, dst := rng.Int32N(16), rng.Int32N(16)
		sends = append(sends, send{at, src, dst, 100 + rng.Int64N(60_000)})
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"star", Config{Topology: star(t, 16), CrossTraffic: 0.05}},
		{"torus lanes", Config{Topology: torus, Routing: "dor", VCs: 2, CrossTraffic: 0.05}},
		{"torus one link", Config{Topology: torus, Routing: "dor", VCs: 2, OneInjectionLink: true}},
	} {
		var got [2][]netmodel.Metrics
		for k, listen := range []bool{false, true} {
			cfg := tc.cfg
			cfg.SamplePeriod = 10 * des.Microsecond
			if listen {
				cfg.OnSample = func(*netmodel.Sample) {}
			}
			n, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
			n.Attach(h)
			const evSend, evLook = 200, 201
			for i, s := range sends {
				h.k.Schedule(s.at, evSend, int32(i), 0)
				if i%7 == 0 {
					// Also between events, not only at a send.
					h.k.Schedule(s.at+des.Time(i%5)*3*des.Microsecond, evLook, 0, 0)
				}
			}
			for {
				e, ok := h.k.Next()
				if !ok {
					break
				}
				switch e.Kind {
				case evSend:
					s := sends[e.Obj]
					n.Send(netmodel.Message{ID: e.Obj, Src: s.src, Dst: s.dst, Bytes: s.bytes})
				case evLook:
					var m netmodel.Metrics
					n.Metrics(&m)
					got[k] = append(got[k], m)
				default:
					n.Handle(e)
				}
			}
			n.Finish()
			var m netmodel.Metrics
			n.Metrics(&m)
			got[k] = append(got[k], m)
		}
		busy := 0
		for i, without := range got[0] {
			with := got[1][i]
			if without.LastSample != with.LastSample || len(without.Links) != len(with.Links) {
				t.Fatalf("%s, look %d: last sample %v, %d links without a listener; %v, %d with", tc.name, i,
					without.LastSample, len(without.Links), with.LastSample, len(with.Links))
			}
			for j, a := range without.Links {
				if b := with.Links[j]; a != b {
					t.Fatalf("%s, look %d at %v s: link %d without a listener %+v, with %+v", tc.name, i, without.Time, a.ID, a, b)
				}
				if a.Utilisation > 0 {
					busy++
				}
			}
		}
		if busy < len(got[0]) {
			t.Errorf("%s: %d busy links over %d looks: the comparison shows little", tc.name, busy, len(got[0]))
		}
	}
}
