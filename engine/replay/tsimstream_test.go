package replay

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// TestTsimSourceReplaysAsInMemory replays generated tsim traces (timed,
// with compute events, MPI_Init and MPI_Finalize, blocking sends the
// recorded run buffered or not) streamed through tsim.Source, with the
// facts ScanFacts finds, and read whole, under several models and
// settings: every number of the results is the same, notes, recorded
// span and parts, deadlocks included, and Snapshot knows the trace's
// events from the start.
func TestTsimSourceReplaysAsInMemory(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for k, o := range []gen.Options{
		// cg's 70,000 B blocking sends: some buffered by the recorded
		// run (--send recorded lists them), a deadlock under rendezvous.
		{Pattern: "cg", Ranks: 8, Iters: 12, Size: 70000, Compute: 1e-4},
		{Pattern: "cg", Ranks: 16, Iters: 5, Compute: -1, Skew: 1e-5},
		{Pattern: "master-worker", Ranks: 8, Iters: 6, Size: 4096, Compute: 1e-4},
		{Pattern: "stencil2d", Ranks: 16, Iters: 6, Size: 100000, Compute: 1e-4},
		{Pattern: "alltoall", Ranks: 8, Iters: 3, Size: 4096, Compute: 1e-4},
		{Pattern: "random-pairs", Ranks: 8, Iters: 12, Size: 1000, Compute: 0},
	} {
		o.Latency, o.Bandwidth = gen.DefaultLatency, gen.DefaultBandwidth
		tr, err := gen.Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		if k == 0 {
			// Compute events that say more than their gaps: --cpu-from
			// auto must see that the trace has them.
			for r := range tr.Ranks {
				ev := tr.Ranks[r].Events
				for i := range ev {
					if e := &ev[i]; e.Kind == tracefmt.KindCompute && !e.Flags.Has(tracefmt.FlagWork) {
						*e = tracefmt.ComputeTime(e.Time, 3*e.Amount())
					}
				}
			}
		}
		p := filepath.Join(dir, o.Pattern+"-"+itoa(o.Ranks)+".tsim")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := tsim.Write(f, tr); err != nil {
			t.Fatal(err)
		}
		f.Close()
		paths = append(paths, p)
	}
	configs := []struct {
		name string
		cfg  Config
	}{
		{"puppet", cfgWith(t)},
		{"simgrid", sgConfig(t)},
		{"flow", flowSGConfig(t, "0.05")},
		{"loggops-gaps", cfgWith(t, "model", "loggops", "o", "1us", "cpu-from", "gaps")},
		{"packet", cfgWith(t, "model", "packet", "topology", "torus:4x4")},
		{"rendezvous", cfgWith(t, "send", "auto", "eager-threshold", "64KiB")},
		{"recorded-small", cfgWith(t, "eager-threshold", "1KiB")},
		{"flow-causal", cfgWith(t, "model", "flow", "topology", "ring:16", "mode", "causal")},
	}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := tsim.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range configs {
			t.Run(filepath.Base(path)+"/"+c.name, func(t *testing.T) {
				ws, err := New(tr, c.cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := ws.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				want := ws.Results()
				if want.Deadlock != nil {
					t.Logf("deadlock: %v", want.Deadlock.Explanation)
				}
				src, err := tsim.OpenSource(path)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				s, err := NewSource(src, c.cfg, Options{})
				if err != nil {
					t.Fatal(err)
				}
				s.window = 3 // refill at nearly every event
				if n := s.Snapshot().TotalTraceEvents; n != uint64(tr.NumEvents()) {
					t.Errorf("a streamed run knows %d events before the start, the trace has %d", n, tr.NumEvents())
				}
				if err := s.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				got := s.Results()
				if got.Makespan != want.Makespan {
					t.Fatalf("makespan %.12g s streamed, %.12g s in memory", got.Makespan, want.Makespan)
				}
				if got.Recorded != want.Recorded || !reflect.DeepEqual(got.RecordedParts, want.RecordedParts) {
					t.Errorf("recorded %v %+v streamed, %v %+v in memory", got.Recorded, got.RecordedParts, want.Recorded, want.RecordedParts)
				}
				if !reflect.DeepEqual(comparable(got), comparable(want)) {
					t.Errorf("streamed results differ:\n got %+v\nwant %+v", comparable(got), comparable(want))
				}
				if !reflect.DeepEqual(got.Wildcards, want.Wildcards) {
					t.Errorf("wildcards %v streamed, %v in memory", got.Wildcards, want.Wildcards)
				}
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
