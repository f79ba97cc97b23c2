package replay

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"runtime"
	"sync"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

func generate(t testing.TB, o gen.Options) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Every generated pattern replays to completion in every mode, and the
// simulated run is a valid trace with every message matched, with the
// default model and with the flow model (also with two ranks per node,
// whose messages between them cross no link).
func TestGeneratedPatterns(t *testing.T) {
	models := []struct {
		name string
		kv   []string
	}{{"", nil}, {"/flow", []string{"model", "flow"}}, {"/flow-2pernode", []string{"model", "flow", "ranks-per-node", "2", "topology", "torus:2x2"}}}
	for _, name := range gen.PatternNames() {
		for _, model := range models {
			if name == "pingpong" && model.name == "/flow-2pernode" {
				continue // both ranks on one node: no network
			}
			o := gen.Options{Pattern: name, Ranks: 8, Iters: 3, Compute: -1}
			if name == "pingpong" {
				o.Ranks = 2
			}
			tr := generate(t, o)
			want := tr.CountMessages().Matched
			for _, mode := range []string{"causal", "predict"} {
				for _, anySource := range []string{"recorded", "free"} {
					t.Run(name+model.name+"/"+mode+"/"+anySource, func(t *testing.T) {
						cfg := cfgWith(t, append([]string{"mode", mode, "any-source", anySource}, model.kv...)...)
						s, res := simulate(t, tr, cfg, Options{RecordTrace: true, RecordMessages: true})
						if !res.Complete || res.Deadlock != nil {
							t.Fatalf("incomplete: %+v", res.Deadlock)
						}
						if res.TraceEvents != uint64(tr.NumEvents()) {
							t.Errorf("replayed %d of %d events", res.TraceEvents, tr.NumEvents())
						}
						user := 0
						for _, m := range s.Messages() {
							if !m.Collective {
								user++
							}
						}
						if user != want || res.Messages.Unmatched != 0 {
							t.Errorf("%d point-to-point messages, want %d (unmatched %d)", user, want, res.Messages.Unmatched)
						}
						out, err := s.Trace()
						if err != nil {
							t.Fatal(err)
						}
						if c := out.CountMessages(); c.UnmatchedSends+c.UnmatchedRecvs != 0 || uint64(c.Matched) != res.Messages.Count {
							t.Errorf("simulated trace: %+v, engine counted %d", c, res.Messages.Count)
						}
						if _, end := out.Span(); !near(out.Seconds(end), res.Makespan) {
							t.Errorf("simulated trace ends at %v, makespan %v", out.Seconds(end), res.Makespan)
						}
					})
				}
			}
			t.Run(name+model.name+"/inject", func(t *testing.T) {
				_, res := simulate(t, tr, cfgWith(t, append([]string{"mode", "inject"}, model.kv...)...), Options{})
				if !res.Complete || res.Messages.Count == 0 || res.Makespan <= 0 {
					t.Errorf("inject: %+v", res)
				}
			})
		}
	}
}

// The generator's timing model is latency + n/bandwidth with eager sends:
// replayed with the same network the prediction lands near the recorded
// duration.
func TestGeneratedPredictionNearRecorded(t *testing.T) {
	// bcast-tree is left out: the generator's blocking sends keep the
	// sender busy for n/bandwidth, which PUPPET's contention-free model
	// does not (the root's four sends overlap here), 15 % apart.
	for _, name := range []string{"ring", "pingpong", "stencil2d", "random-pairs"} {
		o := gen.Options{Pattern: name, Ranks: 16, Iters: 20, Compute: 1e-4, Size: 4096}
		if name == "pingpong" {
			o.Ranks = 2
		}
		tr := generate(t, o)
		cfg := cfgWith(t, "switching", "store-and-forward", "startup", "2us", "bandwidth", "1GB/s", "send", "buffered")
		_, res := simulate(t, tr, cfg, Options{})
		// The generator also charges 0.5 µs of CPU per MPI call, which
		// the PUPPET model does not: allow for it.
		if d := math.Abs(res.Makespan-res.Recorded) / res.Recorded; d > 0.1 {
			t.Errorf("%s: predicted %v s, recorded %v s (%.1f %%)", name, res.Makespan, res.Recorded, 100*d)
		}
	}
}

func TestStepAndRunUntil(t *testing.T) {
	tr := generate(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 5, Compute: 1e-3})
	s, err := New(tr, Default(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Step() || s.Snapshot().Events != 1 {
		t.Fatalf("first step: events %d", s.Snapshot().Events)
	}
	if err := s.RunUntil(context.Background(), 2*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	sn := s.Snapshot()
	if sn.Time > 2*des.Millisecond || sn.Done || sn.TraceEvents == 0 || sn.TraceEvents >= sn.TotalTraceEvents {
		t.Fatalf("after RunUntil(2ms): %+v", sn)
	}
	for _, rs := range sn.Ranks {
		if rs.Describe() == "" {
			t.Error("empty description")
		}
	}
	steps := 0
	for s.Step() {
		steps++
	}
	sn = s.Snapshot()
	if !sn.Done || steps == 0 || sn.TraceEvents != sn.TotalTraceEvents {
		t.Fatalf("end: %+v after %d steps", sn, steps)
	}
	if s.Step() {
		t.Error("Step after the end reported progress")
	}
	// Stepping gives the same result as running.
	_, ref := simulate(t, tr, Default(), Options{})
	if got := s.Results(); got.Makespan != ref.Makespan || got.Events != ref.Events {
		t.Errorf("stepped run: makespan %v events %d; run: %v %d", got.Makespan, got.Events, ref.Makespan, ref.Events)
	}
}

func TestRunCancellation(t *testing.T) {
	tr := generate(t, gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 200})
	s, err := New(tr, Default(), Options{CheckEvery: 16})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run with a cancelled context: %v", err)
	}
	if s.Done() {
		t.Fatal("cancelled run claims to be done")
	}
	// It resumes where it stopped.
	if err := s.Run(context.Background()); err != nil || !s.Done() || !s.Results().Complete {
		t.Fatalf("resumed run: %v, done %v", err, s.Done())
	}
}

// The UI reads snapshots from another goroutine while the engine runs:
// the race detector must stay quiet and snapshots must be consistent.
func TestSnapshotsFromAnotherGoroutine(t *testing.T) {
	tr := generate(t, gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 300})
	s, err := New(tr, Default(), Options{CheckEvery: 64})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	var seen, bad int
	go func() {
		defer wg.Done()
		var last uint64
		for {
			sn := s.Snapshot()
			if sn != nil {
				seen++
				if sn.Events < last || len(sn.Ranks) != 16 || sn.TraceEvents > sn.TotalTraceEvents {
					bad++
				}
				last = sn.Events
				for _, r := range sn.Ranks {
					_ = r.Describe()
				}
			}
			select {
			case <-done:
				return
			default:
			}
		}
	}()
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(done)
	wg.Wait()
	if final := s.Snapshot(); !final.Done || final.Events != s.Results().Events {
		t.Errorf("final snapshot %+v", final)
	}
	if seen < 2 || bad > 0 {
		t.Errorf("snapshots seen %d, inconsistent %d", seen, bad)
	}
}

func TestDeterministicGenerated(t *testing.T) {
	tr := generate(t, gen.Options{Pattern: "master-worker", Ranks: 9, Iters: 20, Seed: 3})
	var first []byte
	for i := range 3 {
		_, res := simulate(t, tr, cfgWith(t, "any-source", "free", "model", "loggops", "seed", "7"), Options{})
		res.Wall, res.EventsPerSec, res.TraceEventsPerSec = 0, 0, 0
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if string(b) != string(first) {
			t.Fatalf("run %d differs from run 0", i)
		}
	}
}

func TestNewRejectsBadInput(t *testing.T) {
	tr := newProg(t, 3).trace()
	if _, err := New(tr, cfgWith(t, "map", "0 5"), Options{}); err != nil {
		t.Errorf("a map to node 5 is fine: %v", err)
	}
	bad := Default()
	bad.CPUSpeed = 0
	if _, err := New(tr, bad, Options{}); err == nil {
		t.Error("New accepted a zero CPU speed")
	}
	if _, err := New(&tracefmt.Trace{}, Default(), Options{}); err == nil {
		t.Error("New accepted an empty trace")
	}
}

func TestSnapshotDescribesRanks(t *testing.T) {
	s, err := New(pingPong(t), cfgWith(t, puppetEthernet...), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RunUntil(context.Background(), 700*des.Millisecond); err != nil {
		t.Fatal(err)
	}
	sn := s.Snapshot()
	r0, r1 := sn.Ranks[0], sn.Ranks[1]
	if r0.State != StateComputing || r0.Call != "compute" || r0.Event != 0 {
		t.Errorf("rank 0: %+v (%s)", r0, r0.Describe())
	}
	if r1.State != StateBlocked || r1.Call != "MPI_Recv" || r1.Peer != 0 || r1.Since != 500*des.Millisecond {
		t.Errorf("rank 1: %+v", r1)
	}
	if got, want := r1.Describe(), "blocked in MPI_Recv from 0 (tag 0, 1000B) at event 1"; got != want {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	if sn.Time != 500*des.Millisecond || sn.InFlight != 0 {
		t.Errorf("time %v, in flight %d", sn.Time, sn.InFlight)
	}
}

// TestCollectLoadGarbage: New collects the heap before running a trace
// of gcBeforeEvents events or more, once its tables are allocated (so
// that the run's allocations reuse the reader's garbage rather than
// fresh pages), and not before a small one, where a collection would
// cost more than it frees.
func TestCollectLoadGarbage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events int
		gc     bool
	}{
		{"small", gcBeforeEvents - 1, false},
		{"large", gcBeforeEvents, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := &tracefmt.Trace{Ranks: []tracefmt.Rank{{Events: make([]tracefmt.Event, tc.events/2)}, {Events: make([]tracefmt.Event, tc.events-tc.events/2)}}}
			// Whatever collection the events' allocation started ends
			// here, before counting.
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			collectLoadGarbage(tr)
			runtime.ReadMemStats(&after)
			if got := after.NumGC > before.NumGC; got != tc.gc {
				t.Errorf("%d events: collected %v (%d collections), want %v", tc.events, got, after.NumGC-before.NumGC, tc.gc)
			}
		})
	}
}
