package tsim

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReadNested reads a rank that enters one state n times before
// leaving it n times, under both pairing rules: ns/state stays flat from
// 100 K to 1 M when pairing is linear (issue 20).
func BenchmarkReadNested(b *testing.B) {
	for _, pairing := range []string{"newest", "oldest"} {
		for _, n := range []int{100_000, 1_000_000} {
			var sb strings.Builder
			fmt.Fprintf(&sb, "tsim 1\nranks 1\nunit us\npairing %s\n", pairing)
			for i := range n {
				fmt.Fprintf(&sb, "%d 0 enter A\n", i)
			}
			for i := range n {
				fmt.Fprintf(&sb, "%d 0 leave A\n", n+i)
			}
			data := []byte(sb.String())
			b.Run(fmt.Sprintf("%s/%d", pairing, n), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					tr, err := Read(bytes.NewReader(data))
					if err != nil {
						b.Fatal(err)
					}
					if got := tr.NumEvents(); got != 2*n {
						b.Fatalf("%d events, want %d", got, 2*n)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/state")
			})
		}
	}
}
