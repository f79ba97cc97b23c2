package replay

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/flow"
	"github.com/tracesim/tracesim/engine/topology"
	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// benchTrace generates a stencil2d trace of 64 ranks with about n events.
func benchTrace(b *testing.B, n int) *tracefmt.Trace {
	b.Helper()
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 1}
	c, err := gen.Expect(o)
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = max(1, n/c.Events)
	return generate(b, o)
}

// BenchmarkReplayFlow replays a 1 M-event stencil2d trace (64 ranks)
// with the flow model on SimGrid's star and on a torus, and reports trace
// events per second of one core.
func BenchmarkReplayFlow(b *testing.B) {
	tr := benchTrace(b, 1_000_000)
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"predict/simgrid", []string{"mode", "predict", "model", "simgrid"}},
		{"predict/flow", []string{"mode", "predict", "model", "flow", "sample-period", "0"}},
		{"predict/flow-sampled", []string{"mode", "predict", "model", "flow"}},
		{"predict/flow-torus", []string{"mode", "predict", "model", "flow", "topology", "torus:8x8", "sample-period", "0"}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchReplay(b, tr, cfgWith(b, tc.kv...)) })
	}
}

// BenchmarkReplayFlowSolver replays a 256-rank stencil2d trace (about
// 150,000 events) with the flow model on SimGrid's star (125 MB/s, 5 µs,
// crosstraffic 0.05), whose crosstraffic connects every flow to every
// other, with the solver ("checked": only the flows whose bottleneck a
// change moves) and with flow.Config.Exhaustive (every connected flow,
// as SimGrid's LMM), in one run: their ns/op give the ratio.
func BenchmarkReplayFlowSolver(b *testing.B) {
	o := gen.Options{Pattern: "stencil2d", Ranks: 256, Iters: 1}
	c, err := gen.Expect(o)
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = max(1, 150_000/c.Events)
	tr := generate(b, o)
	cfg := cfgWith(b, "mode", "predict", "model", "flow", "sample-period", "0", "bandwidth", "125MB/s", "latency", "5us")
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	tp, err := topology.ParseWith("crossbar:256", topology.Options{Link: &lp})
	if err != nil {
		b.Fatal(err)
	}
	for _, exhaustive := range []bool{false, true} {
		name := map[bool]string{false: "checked", true: "exhaustive"}[exhaustive]
		b.Run(name, func(b *testing.B) {
			benchReplay(b, tr, cfg, func() Options {
				n, err := flow.New(flow.Config{Topology: tp, CrossTraffic: 0.05, Envelope: 16, Exhaustive: exhaustive})
				if err != nil {
					b.Fatal(err)
				}
				return Options{Network: n}
			})
		})
	}
}

// BenchmarkReplay replays a 10 M-event stencil2d trace (64 ranks) with
// the analytic PUPPET model and reports trace events per second of one
// core, and the memory the engine allocates beyond the trace.
func BenchmarkReplay(b *testing.B) {
	tr := benchTrace(b, 10_000_000)
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"causal/puppet", []string{"mode", "causal"}},
		{"predict/puppet", []string{"mode", "predict"}},
		{"predict/loggops", []string{"mode", "predict", "model", "loggops"}},
		{"predict/simgrid", []string{"mode", "predict", "model", "simgrid"}},
		{"causal/analytic-collectives", []string{"mode", "causal", "collectives", "analytic"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			benchReplay(b, tr, cfgWith(b, tc.kv...))
			b.ReportMetric(float64(tr.NumEvents()), "events/op")
		})
	}
}

// benchReplay replays tr with cfg to completion once per iteration,
// reports trace events per second and returns the trace events replayed;
// opts, when set, gives each replay its options.
func benchReplay(b *testing.B, tr *tracefmt.Trace, cfg Config, opts ...func() Options) uint64 {
	b.ReportAllocs()
	var events uint64
	for b.Loop() {
		var o Options
		if len(opts) > 0 {
			o = opts[0]()
		}
		s, err := New(tr, cfg, o)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		res := s.Results()
		if !res.Complete {
			b.Fatalf("incomplete: %+v", res.Deadlock)
		}
		events += res.TraceEvents
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "trace-events/s")
	return events
}

// BenchmarkReplayRanks shows how the engine scales with the number of
// ranks at a fixed trace size.
func BenchmarkReplayRanks(b *testing.B) {
	for _, p := range []int{4, 64, 1024} {
		b.Run(fmt.Sprint(p), func(b *testing.B) {
			tr := stencilOfAbout(b, p, 1_000_000)
			benchReplay(b, tr, cfgWith(b, "mode", "causal"))
		})
	}
}

// cgTI writes a CG-like SimGrid TI trace on a ring-of-rows layout like
// /tmp/sgb's cg64 (each iteration: four irecv and four isend to the
// ±1 and ±8 neighbours, waitall, computation and two one-double
// allreduces) and reads it back: the per-event cost of a TI replay.
func cgTI(b *testing.B, ranks, iters int) *tracefmt.Trace {
	b.Helper()
	index, err := simgrid.WriteRanks(b.TempDir(), "cg", ranks, func(r int) []string {
		peers := [4]int{(r + 1) % ranks, (r + ranks - 1) % ranks, (r + 8) % ranks, (r + ranks - 8) % ranks}
		sizes := [4]int{24000, 24000, 4000, 4000}
		var acts []string
		for range iters {
			for i, p := range peers {
				acts = append(acts, fmt.Sprintf("irecv %d %d %d 6", p, i, sizes[i]))
			}
			for i, p := range peers {
				acts = append(acts, fmt.Sprintf("isend %d %d %d 6", p, i^1, sizes[i]))
			}
			acts = append(acts, "waitall 8", "compute 400000", "allreduce 1 0 0", "compute 100000", "allreduce 1 0 0", "compute 50000")
		}
		return acts
	})
	if err != nil {
		b.Fatal(err)
	}
	tr, err := simgridti.ReadFile(index)
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkReplayTI replays a CG-like TI trace of 64 ranks (about
// 180,000 actions) with the simgrid analytic model and with the flow
// model set as --preset simgrid sets it (on an 8×8 torus), and reports
// trace events per second: the replay engine's per-event cost on the
// inputs of issues #12 and #19 (run it under callgrind with -benchtime
// 1x). Both use any-source free, as `sim` resolves auto for a streamed
// TI trace, which replays collectives message by message.
func BenchmarkReplayTI(b *testing.B) {
	tr := cgTI(b, 64, 200)
	for _, tc := range []struct {
		name string
		kv   []string
	}{
		{"simgrid", []string{"mode", "predict", "model", "simgrid", "any-source", "free"}},
		{"flow", []string{"mode", "predict", "model", "flow", "any-source", "free", "coll-alg", "other=smpi,barrier=smpi,allreduce=smpi", "eager-start", "match",
			"eager-threshold", "64KiB", "topology", "torus:8x8", "sample-period", "0"}},
	} {
		b.Run(tc.name, func(b *testing.B) { benchReplay(b, tr, cfgWith(b, tc.kv...)) })
	}
}

// BenchmarkReplayScale replays 1 M-event stencil2d traces of 64, 4,096
// and 65,536 ranks (the last one iteration, about 30 events per rank)
// with the PUPPET model and reports the engine's nanoseconds per trace
// event: issue #19 asks for a cost per event flat across rank counts, and
// what grows with them is the per-rank state each event touches. The
// process's own time (and its page faults) is bench --scale's.
func BenchmarkReplayScale(b *testing.B) {
	for _, p := range []int{64, 4096, 65536} {
		b.Run(fmt.Sprint(p), func(b *testing.B) {
			tr := stencilOfAbout(b, p, 1_000_000)
			cpu0 := cpuTime(b)
			events := benchReplay(b, tr, cfgWith(b))
			// CPU time, the collector's included: on a loaded machine
			// the wall time measures the other processes too.
			b.ReportMetric(float64(cpuTime(b)-cpu0)/float64(events), "cpu-ns/event")
		})
	}
}

// stencilOfAbout generates a stencil2d trace of ranks ranks and about
// events events (one iteration at least).
func stencilOfAbout(b *testing.B, ranks, events int) *tracefmt.Trace {
	b.Helper()
	o := gen.Options{Pattern: "stencil2d", Ranks: ranks, Iters: 1}
	c, err := gen.Expect(o)
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = max(1, events/c.Events)
	return generate(b, o)
}

// cpuTime returns the process's CPU time so far (user and system), in
// nanoseconds.
func cpuTime(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
