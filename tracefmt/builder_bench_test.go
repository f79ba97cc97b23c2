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

// BenchmarkSummarize summarises a timed trace of 64 ranks of states,
// messages and compute bursts (what `tracesim info` prints).
func BenchmarkSummarize(b *testing.B) {
	const ranks, steps = 64, 1 << 13
	bl := NewBuilder(ranks, true, Microsecond)
	st := bl.State("MPI_Sendrecv")
	for r := range ranks {
		for s := range steps {
			t := float64(s * 10)
			for _, e := range []Event{Enter(t, st), Send(t+1, (r+1)%ranks, 0, 0, 64), Recv(t+2, (r+ranks-1)%ranks, 0, 0, 64), Leave(t+3, st), ComputeTime(t+4, 5)} {
				if _, err := bl.Add(r, e); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	tr, err := bl.Finish()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		Summarize(tr)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(tr.NumEvents()), "ns/event")
}
