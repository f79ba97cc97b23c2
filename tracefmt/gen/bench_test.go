package gen

import (
	"fmt"
	"testing"
)

// benchOptions returns options of about n events for each pattern.
func benchOptions(n int) []Options {
	var out []Options
	for _, p := range Patterns() {
		o := Options{Pattern: p.Name, Ranks: p.DefaultRanks, Iters: 1, Compute: -1, Jitter: 0.1}
		c, err := Expect(o)
		if err != nil {
			panic(err)
		}
		o.Iters = max(1, n/c.Events)
		out = append(out, o)
	}
	return out
}

// BenchmarkGenerate generates about a million events per pattern and
// reports the rate in events per second.
func BenchmarkGenerate(b *testing.B) {
	for _, o := range benchOptions(1_000_000) {
		b.Run(o.Pattern, func(b *testing.B) { benchGenerate(b, o) })
	}
}

// BenchmarkGenerate10M generates a 10 M-event stencil2d trace with skew,
// the size other benchmarks load.
func BenchmarkGenerate10M(b *testing.B) {
	o := Options{Pattern: "stencil2d", Ranks: 64, Compute: -1, Skew: 10e-6, Jitter: 0.1}
	c, err := Expect(Options{Pattern: o.Pattern, Ranks: o.Ranks, Iters: 1, Compute: -1})
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = 10_000_000 / c.Events
	b.Run(fmt.Sprintf("stencil2d-%dx%d", o.Ranks, o.Iters), func(b *testing.B) { benchGenerate(b, o) })
}

func benchGenerate(b *testing.B, o Options) {
	b.ReportAllocs()
	events := 0
	for b.Loop() {
		tr, err := Generate(o)
		if err != nil {
			b.Fatal(err)
		}
		events = tr.NumEvents()
	}
	b.ReportMetric(float64(events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events)/float64(b.N), "ns/event")
}
