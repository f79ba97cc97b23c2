package replay

import (
	"math/rand/v2"
	"testing"
)

// A rank's pair counters keep their values through the table's growth,
// for peers at strides (as Bruck's rounds use), random peers and all of
// a large world.
func TestPairTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name  string
		peers func(i int) int32
		n     int
		// removeEvery removes a counter every so many steps (0: never).
		removeEvery int
	}{
		{"powers of two", func(i int) int32 { return int32(1<<(i%17)) % 100000 }, 2000, 0},
		{"random", func(int) int32 { return rng.Int32N(70000) }, 20000, 0},
		{"every rank", func(i int) int32 { return int32(i % 65536) }, 3 * 65536, 0},
		{"random with removals", func(int) int32 { return rng.Int32N(300) }, 50000, 2},
		{"strides with removals", func(i int) int32 { return int32(i*64) % 4096 }, 20000, 3},
	} {
		var tab pairTable
		want := map[int32]uint64{}
		for i := range tc.n {
			d := tc.peers(i)
			if tc.removeEvery > 0 && i%tc.removeEvery == 0 {
				tab.remove(d)
				delete(want, d)
				continue
			}
			p := tab.at(d)
			if *p != want[d] {
				t.Fatalf("%s: step %d: peer %d holds %d, want %d", tc.name, i, d, *p, want[d])
			}
			*p += 1<<32 + 1
			want[d] += 1<<32 + 1
		}
		if tab.n != len(want) {
			t.Errorf("%s: %d peers in the table, want %d", tc.name, tab.n, len(want))
		}
		for d, w := range want {
			if got := *tab.at(d); got != w {
				t.Errorf("%s: peer %d holds %d, want %d", tc.name, d, got, w)
			}
		}
	}
}
