package tracefmt_test

import (
	"testing"

	"github.com/tracesim/tracesim/tracefmt/gen"
)

// BenchmarkValidate checks a generated 64-rank stencil2d trace of about a
// million events (the trace `tracesim bench`'s ti/read loads): the cost
// Validate adds to every format's read, per event.
func BenchmarkValidate(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 520, Compute: -1})
	if err != nil {
		b.Fatal(err)
	}
	n := tr.NumEvents()
	b.ReportAllocs()
	for b.Loop() {
		if err := tr.Validate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/event")
}
