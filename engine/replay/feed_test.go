package replay

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// runSource replays src to its end.
func runSource(t *testing.T, src tracefmt.Source, cfg Config) Results {
	t.Helper()
	s, err := NewSource(src, cfg, Options{})
	return runToEnd(t, s, err)
}

// comparable blanks what differs between two runs of one trace however
// they read it: host times and rates, and the wildcard mismatches, which
// a streamed trace without recorded senders has none to report.
func comparable(r Results) Results {
	r.Wall, r.EventsPerSec, r.TraceEventsPerSec = 0, 0, 0
	r.Wildcards = nil
	return r
}

// TestSourceReplaysAsInMemory replays TI traces of per-rank files (SimGrid
// recorded, and generated ones written by WriteIndex, with small windows
// so that ranks refill often) streamed and read whole, under several
// models: the results are the same, makespan and every rank's numbers.
func TestSourceReplaysAsInMemory(t *testing.T) {
	dir := t.TempDir()
	var traces []string
	for _, name := range []string{"halo", "tokens", "coll2", "pairs"} {
		traces = append(traces, filepath.Join(sgDir, name+".txt"))
	}
	traces = append(traces, filepath.Join("..", "..", "tracefmt", "simgridti", "testdata", "smpi332", "trace.txt"))
	// cg's 70,000 B blocking sends to each other deadlock under
	// rendezvous: the deadlock reports must agree too.
	for _, pat := range []struct {
		name string
		size int64
	}{{"cg", 70000}, {"master-worker", 4096}, {"stencil2d", 100000}, {"alltoall", 4096}, {"random-pairs", 1000}} {
		tr, err := gen.Generate(gen.Options{Pattern: pat.name, Ranks: 8, Iters: 12, Size: pat.size, Compute: 1e-4, Latency: gen.DefaultLatency, Bandwidth: gen.DefaultBandwidth})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, pat.name+".txt")
		if err := simgridti.WriteIndex(p, tr, simgridti.WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		traces = append(traces, p)
	}
	configs := []struct {
		name string
		cfg  Config
	}{
		{"puppet", cfgWith(t)},
		{"simgrid", sgConfig(t)},
		{"flow", flowSGConfig(t, "0.05")},
		{"loggops", cfgWith(t, "model", "loggops", "o", "1us")},
		{"packet", cfgWith(t, "model", "packet", "topology", "torus:4x4")},
		{"flow-causal", cfgWith(t, "model", "flow", "topology", "ring:8", "mode", "causal", "any-source", "free")},
	}
	for _, path := range traces {
		tr, err := simgridti.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range configs {
			name := strings.TrimSuffix(filepath.Base(path), ".txt") + "/" + c.name
			t.Run(name, func(t *testing.T) {
				// A streamed SimGrid trace replays its wildcards free,
				// which expands every collective per message (bulk.go):
				// both runs do, to compare kernel events too.
				opts := Options{PerMessageCollectives: true}
				_, want := simulate(t, tr, c.cfg, opts)
				src, err := simgridti.OpenSource(path)
				if err != nil {
					t.Fatal(err)
				}
				defer src.Close()
				s, err := NewSource(src, c.cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				s.window = 2 // refill at nearly every event
				if err := s.Run(context.Background()); err != nil {
					t.Fatal(err)
				}
				if n := s.Snapshot().TotalTraceEvents; n != 0 {
					t.Errorf("a streamed run claims to know its %d events before the end", n)
				}
				got := s.Results()
				if got.Makespan != want.Makespan {
					t.Fatalf("makespan %.12g s streamed, %.12g s in memory", got.Makespan, want.Makespan)
				}
				if !reflect.DeepEqual(comparable(got), comparable(want)) {
					t.Errorf("streamed results differ:\n got %+v\nwant %+v", comparable(got), comparable(want))
				}
				if want.Complete && got.TraceEvents != uint64(tr.NumEvents()) {
					t.Errorf("%d trace events replayed, the trace has %d", got.TraceEvents, tr.NumEvents())
				}
			})
		}
	}
}

// TestNewSourceRefuses: what needs the whole trace says so.
func TestNewSourceRefuses(t *testing.T) {
	path := filepath.Join(sgDir, "halo.txt")
	tests := []struct {
		cfg  Config
		opts Options
		want string
	}{
		{cfgWith(t), Options{RecordTrace: true}, "recording the simulated run needs the trace in memory"},
		{cfgWith(t, "any-source", "recorded"), Options{}, "--any-source recorded needs the trace read whole"},
	}
	for _, tc := range tests {
		src, err := simgridti.OpenSource(path)
		if err != nil {
			t.Fatal(err)
		}
		_, err = NewSource(src, tc.cfg, tc.opts)
		src.Close()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewSource = %v, want an error saying %q", err, tc.want)
		}
	}
	// A trace in memory served as a Source replays as itself.
	tr, err := simgridti.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, want := simulate(t, tr, sgConfig(t), Options{})
	if got := runSource(t, tr.Source(), sgConfig(t)); !reflect.DeepEqual(comparable(got), comparable(want)) {
		t.Errorf("Trace.Source replays to %+v, want %+v", comparable(got), comparable(want))
	}
}
