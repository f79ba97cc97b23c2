package clog2

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// BenchmarkReadNested reads a CLOG2 file whose rank enters MPI_Send n times
// before leaving it n times: MPE pairs each end with the oldest open start,
// and ns/state stays flat from 100 K to 1 M when that is linear (issue 20).
func BenchmarkReadNested(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		bd := tracefmt.NewBuilder(1, true, tracefmt.Second)
		send := bd.State("MPI_Send")
		for i := range 2 * n {
			e := tracefmt.Enter(float64(i)*1e-6, send)
			if i >= n {
				e = tracefmt.Leave(float64(i)*1e-6, send)
			}
			if _, err := bd.Add(0, e); err != nil {
				b.Fatal(err)
			}
		}
		tr, err := bd.Finish()
		if err != nil {
			b.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Write(&buf, tr); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				got, err := Read(bytes.NewReader(data))
				if err != nil {
					b.Fatal(err)
				}
				// The first end closes the first start (PairOldest).
				ev := got.Ranks[0].Events
				first := slices.IndexFunc(ev, func(e tracefmt.Event) bool { return e.Kind == tracefmt.KindEnter })
				end := slices.IndexFunc(ev, func(e tracefmt.Event) bool { return e.Kind == tracefmt.KindLeave })
				if first < 0 || end < 0 || ev[first].Match != int32(end) {
					b.Fatalf("the first start (event %d) is closed by event %d, want the first end, %d", first, ev[max(first, 0)].Match, end)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/state")
		})
	}
}
