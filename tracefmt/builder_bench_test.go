package tracefmt

import (
	"fmt"
	"testing"
)

// BenchmarkBuilderNested pairs n nested enters of one state with n leaves,
// as the ALOG, CLOG and tsim readers do through the Builder: ns/state
// stays flat from 100 K to 1 M under both rules.
func BenchmarkBuilderNested(b *testing.B) {
	for _, p := range []struct {
		name string
		rule Pairing
	}{{"newest", PairNewest}, {"oldest", PairOldest}} {
		for _, n := range []int{100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/%d", p.name, n), func(b *testing.B) {
				for b.Loop() {
					bd := NewLazyBuilder(1, true, Second)
					bd.SetPairing(p.rule)
					s := bd.State("S")
					for i := range 2 * n {
						e := Enter(float64(i), s)
						if i >= n {
							e = Leave(float64(i), s)
						}
						if _, err := bd.Add(0, e); err != nil {
							b.Fatal(err)
						}
					}
					if _, err := bd.Finish(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/state")
			})
		}
	}
}
