package gen

import (
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// FuzzGenerate feeds arbitrary options to the generator: it must either
// reject them with an error or produce a valid trace holding exactly what
// Expect announces, never panic.
func FuzzGenerate(f *testing.F) {
	for i, o := range allPatterns() {
		f.Add(uint8(i), o.Ranks, o.Iters, o.Size, o.Compute, o.Seed, 20e-6, o.Jitter)
	}
	f.Add(uint8(2), 7, 3, int64(-1), -1.0, int64(0), -1.0, 1.0)
	f.Add(uint8(6), 12, 0, int64(0), 1e300, int64(5), 2.0, 0.5)
	f.Fuzz(func(t *testing.T, pat uint8, ranks, iters int, size int64, compute float64, seed int64, skew, jitter float64) {
		names := PatternNames()
		o := Options{Pattern: names[int(pat)%len(names)], Ranks: ranks, Iters: iters, Size: size,
			Compute: compute, Seed: seed, Skew: skew, Jitter: jitter}
		if pat >= 128 {
			o.Pattern = "x" + o.Pattern // unknown names
		}
		c, err := Expect(o)
		if err != nil {
			if _, gerr := Generate(o); gerr == nil {
				t.Fatalf("Expect rejects %+v (%v), Generate accepts it", o, err)
			}
			return
		}
		if c.Events > 50_000 {
			t.Skip("too large for a fuzz iteration")
		}
		tr, err := Generate(o)
		if err != nil {
			t.Fatalf("Expect accepts %+v, Generate fails: %v", o, err)
		}
		if err := tr.Validate(); err != nil {
			t.Fatal(err)
		}
		s := tracefmt.Summarize(tr)
		if s.Events != c.Events || s.Messages.Matched != c.Messages || s.Collectives != c.Collectives ||
			s.Messages.WildcardRecvs != c.WildcardRecvs || s.Messages.UnmatchedSends+s.Messages.UnmatchedRecvs != 0 {
			t.Fatalf("%+v: summary %+v, expected %+v", o, s, c)
		}
		for r := range tr.Ranks {
			ev := tr.Ranks[r].Events
			for i := 1; i < len(ev); i++ {
				if ev[i].Time < ev[i-1].Time {
					t.Fatalf("%+v: rank %d goes back in time at event %d", o, r, i)
				}
			}
		}
	})
}
