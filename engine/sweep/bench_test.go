package sweep

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// benchSpec is a small trace (8-rank ring, 10 iterations) on 24 machines.
const benchSpec = `traces = ["gen ring"]
[axes]
topology = ["torus:2x4", "fattree:k=4,levels=2", "dragonfly:p=2,a=4,h=2"]
bandwidth = {from = "1Gb/s", to = "100Gb/s", count = 4, log = true}
placement = ["block", "random"]
`

// BenchmarkSweep reports points per second on 1 and 2 workers (the
// scaling docs/sweep.md quotes), and the CPU time per point: on a
// machine other processes keep busy the points per second show the
// cores the sweep got, while the CPU time per point, the same on 1 and
// 2 workers, shows that the workers add no work of their own, so that
// points/s = workers / CPU time per point on idle cores.
func BenchmarkSweep(b *testing.B) {
	s, err := ParseFile("bench.toml", []byte(benchSpec))
	if err != nil {
		b.Fatal(err)
	}
	pts, _ := s.Expand()
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			g := &genLoader{}
			n := 0
			cpu := cpuTime()
			for b.Loop() {
				if err := s.Run(context.Background(), pts, Options{Jobs: jobs, Load: g.load}, func(*Point, []string) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "points/s")
			b.ReportMetric(float64(cpuTime()-cpu)/1e6/float64(n), "cpu-ms/point")
			b.ReportMetric(float64(b.Elapsed())/1e6/float64(n), "wall-ms/point")
		})
	}
}

// BenchmarkPoint splits a point's cost: the simulation alone, a sweep
// worker's whole point (the simulation, its results and its row: the
// difference is the sweep's own overhead), and reading the trace from a
// file first (what one `tracesim sim` per point pays on top, before its
// process start).
func BenchmarkPoint(b *testing.B) {
	t, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 8, Iters: 10, Compute: -1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	var file bytes.Buffer
	if err := tsim.Write(&file, t); err != nil {
		b.Fatal(err)
	}
	cfg := replay.Default()
	cfg.Set("topology", "torus:2x4")
	sim := func(t *tracefmt.Trace) {
		s, err := replay.New(t, cfg, replay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("sim", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			sim(t)
		}
	})
	b.Run("point", func(b *testing.B) {
		s, err := ParseFile("bench.toml", []byte("traces = [\"gen ring\"]\ntopology = \"torus:2x4\"\n"))
		if err != nil {
			b.Fatal(err)
		}
		pts, _ := s.Expand()
		defer reportCPU(b)()
		for b.Loop() {
			if _, err := s.runPoint(context.Background(), t, &pts[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load+sim", func(b *testing.B) {
		defer reportCPU(b)()
		for b.Loop() {
			t, err := tsim.Read(bytes.NewReader(file.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			sim(t)
		}
	})
}

// reportCPU, deferred as defer reportCPU(b)(), reports the CPU time per
// operation of the benchmark's loop (cpu-ms/op): what an operation costs
// whatever else runs on the machine.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64(cpuTime()-start)/1e6/float64(b.N), "cpu-ms/op")
	}
}

// BenchmarkScaling runs the sweep of BenchmarkSweep on 1 worker, then on
// 2, in every iteration, so that both see the same load of a shared
// machine, and reports their points per second, the speedup (the ratio
// of the pair's wall times), each one's CPU time per point, and the
// cores each one got (CPU time over wall time): on a machine other jobs
// keep busy, 2 workers get fewer than 2 cores and the speedup is the
// ratio of the cores got, less the CPU the second worker adds.
func BenchmarkScaling(b *testing.B) {
	s, err := ParseFile("bench.toml", []byte(benchSpec))
	if err != nil {
		b.Fatal(err)
	}
	pts, _ := s.Expand()
	g := &genLoader{}
	var wall, cpu [2]time.Duration
	for b.Loop() {
		for j := range 2 {
			w, c := time.Now(), cpuTime()
			if err := s.Run(context.Background(), pts, Options{Jobs: j + 1, Load: g.load}, func(*Point, []string) error { return nil }); err != nil {
				b.Fatal(err)
			}
			wall[j] += time.Since(w)
			cpu[j] += cpuTime() - c
		}
	}
	n := float64(b.N * len(pts))
	b.ReportMetric(n/wall[0].Seconds(), "points/s-1")
	b.ReportMetric(n/wall[1].Seconds(), "points/s-2")
	b.ReportMetric(wall[0].Seconds()/wall[1].Seconds(), "speedup")
	b.ReportMetric(float64(cpu[0])/1e6/n, "cpu-ms/point-1")
	b.ReportMetric(float64(cpu[1])/1e6/n, "cpu-ms/point-2")
	b.ReportMetric(cpu[0].Seconds()/wall[0].Seconds(), "cores-1")
	b.ReportMetric(cpu[1].Seconds()/wall[1].Seconds(), "cores-2")
}

// BenchmarkOverhead runs, in every iteration, the simulation alone and
// then a sweep worker's whole point on the same trace and machine, and
// reports the difference per point (the sweep's own overhead: results,
// row) in CPU and wall time, measured pairwise under the same load.
func BenchmarkOverhead(b *testing.B) {
	t, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 8, Iters: 10, Compute: -1, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	s, err := ParseFile("bench.toml", []byte("traces = [\"gen ring\"]\ntopology = \"torus:2x4\"\n"))
	if err != nil {
		b.Fatal(err)
	}
	pts, _ := s.Expand()
	var wall, cpu [2]time.Duration
	for b.Loop() {
		w, c := time.Now(), cpuTime()
		sim, err := replay.New(t, pts[0].Config, replay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := sim.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		wall[0] += time.Since(w)
		cpu[0] += cpuTime() - c
		w, c = time.Now(), cpuTime()
		if _, err := s.runPoint(context.Background(), t, &pts[0]); err != nil {
			b.Fatal(err)
		}
		wall[1] += time.Since(w)
		cpu[1] += cpuTime() - c
	}
	n := float64(b.N)
	b.ReportMetric(float64(cpu[0])/1e6/n, "sim-cpu-ms")
	b.ReportMetric(float64(cpu[1]-cpu[0])/1e6/n, "overhead-cpu-ms")
	b.ReportMetric(float64(wall[1]-wall[0])/1e6/n, "overhead-wall-ms")
}
