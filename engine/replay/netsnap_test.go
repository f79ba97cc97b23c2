package replay

import (
	"context"
	"reflect"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt"
)

// cloneNet copies m's lists, so that a later change to the snapshot's
// lists shows against the copy.
func cloneNet(m netmodel.Metrics) netmodel.Metrics {
	m.Links, m.Queues, m.NICs = slices.Clone(m.Links), slices.Clone(m.Queues), slices.Clone(m.NICs)
	m.Groups, m.LevelShare = slices.Clone(m.Groups), slices.Clone(m.LevelShare)
	return m
}

// crossingTraffic is 16 ranks each sending six 4,000-byte messages to
// six others and receiving six: enough to load a 4×4 torus's links and
// queues unevenly.
func crossingTraffic(t *testing.T) *tracefmt.Trace {
	p := newProg(t, 16)
	for r := 0; r < 16; r++ {
		for i := 0; i < 6; i++ {
			p.send(r, (r+5+i)%16, 0, 4000)
			p.recv(r, (r+11-i+32)%16, 0, 4000)
		}
	}
	return p.trace()
}

// TestResultsReuseTheLastSnapshot checks that Results takes the
// network's measurements from the latest snapshot when nothing ran since
// (one build fewer at the end of every run), that they equal a fresh
// measurement, and that the snapshot a caller holds is left unchanged.
func TestResultsReuseTheLastSnapshot(t *testing.T) {
	tr := crossingTraffic(t)
	for _, tc := range []struct {
		name string
		cfg  []string
	}{
		{"packet", []string{"model", "packet", "topology", "torus:4x4", "packet-size", "256B"}},
		{"packet sampled", []string{"model", "packet", "topology", "torus:4x4", "packet-size", "256B", "sample-period", "1us"}},
		{"flow", []string{"model", "flow", "topology", "torus:4x4"}},
		{"flow sampled", []string{"model", "flow", "topology", "fattree:k=4,levels=2", "sample-period", "1us"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tr, cfgWith(t, tc.cfg...), Options{})
			if err != nil {
				t.Fatal(err)
			}
			// fresh returns the results with the network measured again.
			fresh := func() Results {
				held := s.netSnap
				s.netSnap = nil
				defer func() { s.netSnap = held }()
				return s.Results()
			}
			check := func(stage string, wantBuilds int) {
				t.Helper()
				sn := s.snap.Load() // not Snapshot, which asks for one more
				before := cloneNet(sn.Net)
				builds := s.netBuilds
				got := s.Results()
				if n := s.netBuilds - builds; n != 0 {
					t.Errorf("%s: Results measured the network %d times, want 0 (the snapshot is current)", stage, n)
				}
				if s.netBuilds != wantBuilds {
					t.Errorf("%s: %d measurements in all, want %d", stage, s.netBuilds, wantBuilds)
				}
				if !reflect.DeepEqual(sn.Net, before) {
					t.Errorf("%s: Results changed the snapshot's measurements", stage)
				}
				want := fresh()
				got.Wall, want.Wall = 0, 0
				if got.Network == nil || (stage == "at the end" && len(got.Network.Links) == 0) {
					t.Fatalf("%s: no network measurements: %+v", stage, got.Network)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s: results from the snapshot differ from a fresh measurement:\n got %+v\nwant %+v", stage, got.Network, want.Network)
				}
				if !reflect.DeepEqual(sn.Net, before) {
					t.Errorf("%s: a fresh measurement changed the snapshot's measurements", stage)
				}
			}
			check("at start", 1) // New published the first snapshot
			if err := s.RunUntil(context.Background(), des.Time(10_000_000)); err != nil {
				t.Fatal(err)
			}
			if s.Done() {
				t.Fatal("the run ended before the mid point")
			}
			check("mid-run", 3) // and fresh measured once, RunUntil published once
			s.Step()
			check("after a step", 5)
			if err := s.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			check("at the end", 7)
			if r := s.Results(); !r.Complete {
				t.Fatalf("incomplete: %+v", r.Deadlock)
			}
		})
	}
}

// TestNoNetSnapshotsMeasuresOnce checks that a run whose snapshots carry
// no network measurements measures the network once, in Results, with
// the same results as a run that measures at every snapshot; and that
// OnSample overrides it (a measurement hands over the samples due).
func TestNoNetSnapshotsMeasuresOnce(t *testing.T) {
	tr := crossingTraffic(t)
	for _, model := range []string{"packet", "flow"} {
		t.Run(model, func(t *testing.T) {
			cfg := cfgWith(t, "model", model, "topology", "torus:4x4", "sample-period", "1us")
			run := func(o Options) (Results, *Sim) { return runResults(t, tr, cfg, o) }
			want, s := run(Options{})
			if s.netBuilds != 2 {
				t.Errorf("with snapshots: %d measurements, want 2 (start, end)", s.netBuilds)
			}
			got, s := run(Options{NoNetSnapshots: true})
			if s.netBuilds != 1 {
				t.Errorf("without: %d measurements, want 1", s.netBuilds)
			}
			if sn := s.Snapshot(); sn.Net.Topology != nil || len(sn.Net.Links) != 0 {
				t.Errorf("without: the snapshot holds measurements: %+v", sn.Net)
			}
			if got.Network == nil || len(got.Network.Links) == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("results differ:\n got %+v\nwant %+v", got.Network, want.Network)
			}
			samples := 0
			_, s = run(Options{NoNetSnapshots: true, OnSample: func(*netmodel.Sample) { samples++ }})
			if s.netBuilds != 2 || samples == 0 {
				t.Errorf("with OnSample: %d measurements (want 2: start, end), %d samples", s.netBuilds, samples)
			}
		})
	}
}

// TestNoRankStatus: a run told that nobody reads its snapshots' rank
// statuses builds none (a list of every rank at New and at the end of
// the run), and its results are those of a run that builds them.
func TestNoRankStatus(t *testing.T) {
	tr := crossingTraffic(t)
	for _, model := range []string{"loggops", "packet"} {
		t.Run(model, func(t *testing.T) {
			cfg := cfgWith(t, "model", model, "topology", "torus:4x4")
			run := func(o Options) (Results, *Sim) { return runResults(t, tr, cfg, o) }
			want, s := run(Options{})
			if n := len(s.Snapshot().Ranks); n != len(tr.Ranks) {
				t.Fatalf("with statuses: %d in the snapshot, want %d", n, len(tr.Ranks))
			}
			got, s := run(Options{NoRankStatus: true})
			if sn := s.Snapshot(); sn.Ranks != nil || !sn.Done {
				t.Errorf("without: the snapshot holds %d statuses (done %v), want none (done)", len(sn.Ranks), sn.Done)
			}
			if got.Makespan == 0 || !reflect.DeepEqual(got, want) {
				t.Errorf("results differ:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// runResults runs tr on cfg with o to its end and returns its results
// without the host's times (which differ between runs) and the Sim.
func runResults(t *testing.T, tr *tracefmt.Trace, cfg Config, o Options) (Results, *Sim) {
	t.Helper()
	s, err := New(tr, cfg, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := s.Results()
	r.Wall, r.EventsPerSec, r.TraceEventsPerSec = 0, 0, 0 // host time
	return r, s
}
