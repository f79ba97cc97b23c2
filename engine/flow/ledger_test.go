package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestLedgerAsync: the integrals and lazy snapshots a ledger works out
// on other goroutines, batch by batch, are the same to the bit as those
// of a ledger integrating each change at once, settled mid-batch or not,
// with and without snapshots.
func TestLedgerAsync(t *testing.T) {
	links := make([]link, 40)
	for i := range links {
		links[i].cap = 125e6 * float64(1+i%3)
	}
	for _, tc := range []struct {
		name    string
		period  des.Time
		changes int
	}{
		{"no samples, 3 batches and a part", 0, 3*ledgerBatch + 117},
		{"lazy samples, 5 batches exactly", 10 * des.Microsecond, 5 * ledgerBatch},
		{"lazy samples, less than a batch", 10 * des.Microsecond, ledgerBatch / 3},
	} {
		var sync, async ledger
		sync.init(links, tc.period, false)
		async.init(links, tc.period, true)
		rng := rand.New(rand.NewPCG(7, 11))
		now := des.Time(0)
		for i := range tc.changes {
			now += des.Time(rng.IntN(4000)) * des.Nanosecond
			c := change{t: now, load: rng.Float64() * 3e8, l: rng.Int32N(int32(len(links))), fwd: rng.Int32N(9)}
			sync.add(c)
			async.add(c)
			if i == tc.changes/2 {
				async.settle() // Metrics in the middle of a run
			}
		}
		async.settle()
		for l := range links {
			if a, b := async.acc[l], sync.acc[l]; a != b {
				t.Fatalf("%s: link %d integrated in batches %+v, at once %+v", tc.name, l, a, b)
			}
			if tc.period > 0 && async.snaps[l] != sync.snaps[l] {
				t.Fatalf("%s: link %d snapshots in batches %+v, at once %+v", tc.name, l, async.snaps[l], sync.snaps[l])
			}
			if sync.acc[l].busy <= 0 {
				t.Fatalf("%s: link %d was never busy: the comparison shows little", tc.name, l)
			}
		}
	}
}
