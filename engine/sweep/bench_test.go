package sweep

import (
	"bytes"
	"context"
	"fmt"
	"testing"

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
// scaling docs/sweep.md quotes).
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
			for b.Loop() {
				if err := s.Run(context.Background(), pts, Options{Jobs: jobs, Load: g.load}, func(*Point, []string) error { n++; return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "points/s")
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
		for b.Loop() {
			if _, err := s.runPoint(context.Background(), t, &pts[0]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("load+sim", func(b *testing.B) {
		for b.Loop() {
			t, err := tsim.Read(bytes.NewReader(file.Bytes()))
			if err != nil {
				b.Fatal(err)
			}
			sim(t)
		}
	})
}
