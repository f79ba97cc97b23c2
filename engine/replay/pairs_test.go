package replay

import (
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The pair counters keep their values through the table's growth and
// removals, for peers at strides (as Bruck's rounds use), random pairs,
// every peer of one rank in a large world and every pair of a small one;
// also when the table is sized for more sources halfway (reserve, which
// the replay calls before the run).
func TestPairTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name  string
		peers func(i int) [2]int32
		n     int
		// removeEvery removes a counter every so many steps (0: never).
		removeEvery int
		// reserve sizes the table for this many sources halfway (0:
		// never).
		reserve int
	}{
		{"powers of two", func(i int) [2]int32 { return [2]int32{7, int32(1<<(i%17)) % 100000} }, 2000, 0, 0},
		{"random", func(int) [2]int32 { return [2]int32{rng.Int32N(70000), rng.Int32N(70000)} }, 20000, 0, 0},
		{"every rank", func(i int) [2]int32 { return [2]int32{65535, int32(i % 65536)} }, 3 * 65536, 0, 0},
		{"every pair of 64", func(i int) [2]int32 { return [2]int32{int32(i/64) % 64, int32(i % 64)} }, 3 * 4096, 0, 0},
		{"random with removals", func(int) [2]int32 { return [2]int32{rng.Int32N(20), rng.Int32N(300)} }, 50000, 2, 0},
		{"strides with removals", func(i int) [2]int32 { return [2]int32{int32(i % 5), int32(i*64) % 4096} }, 20000, 3, 0},
		{"random, reserved", func(int) [2]int32 { return [2]int32{rng.Int32N(70000), rng.Int32N(70000)} }, 20000, 0, 100000},
		{"random with removals, reserved", func(int) [2]int32 { return [2]int32{rng.Int32N(20), rng.Int32N(300)} }, 50000, 2, 64},
	} {
		var tab pairTable
		want := map[[2]int32]uint64{}
		for i := range tc.n {
			if i == tc.n/2 && tc.reserve > 0 {
				tab.reserve(tc.reserve)
			}
			d := tc.peers(i)
			if tc.removeEvery > 0 && i%tc.removeEvery == 0 {
				tab.remove(d[0], d[1])
				delete(want, d)
				continue
			}
			p := tab.at(d[0], d[1])
			if *p != want[d] {
				t.Fatalf("%s: step %d: pair %v holds %d, want %d", tc.name, i, d, *p, want[d])
			}
			*p += 1<<32 + 1
			want[d] += 1<<32 + 1
		}
		if tab.n != len(want) {
			t.Errorf("%s: %d pairs in the table, want %d", tc.name, tab.n, len(want))
		}
		// Each source's count of pairs (what the bulk collectives ask
		// before a call) follows the additions and removals.
		bySrc := map[int32]int32{}
		for d := range want {
			bySrc[d[0]]++
		}
		for src := range int32(70001) {
			if got := tab.from(src); got != bySrc[src] {
				t.Errorf("%s: rank %d is the source of %d pairs, want %d", tc.name, src, got, bySrc[src])
				break
			}
		}
		for d, w := range want {
			if got := *tab.at(d[0], d[1]); got != w {
				t.Errorf("%s: pair %v holds %d, want %d", tc.name, d, got, w)
			}
		}
	}
}

// A source's bucket is one cache line holding its count and five pairs:
// a 2-D stencil's four halo peers and an allreduce partner in flight stay
// out of the overflow table (with four slots the fifth went there).
func TestPairBucketHoldsFive(t *testing.T) {
	if got := unsafe.Sizeof(pairBucketOf{}); got != 64 {
		t.Fatalf("a bucket is %d bytes, want 64", got)
	}
	for _, tc := range []struct {
		peers    []int32
		overflow int
	}{
		{[]int32{1, 4095, 64, 4032, 2}, 0},
		{[]int32{1, 4095, 64, 4032, 2, 4}, 1},
		{[]int32{0, 1, 2, 3, 4, 5, 6, 7}, 3},
	} {
		var tab pairTable
		tab.reserve(4096)
		for i, d := range tc.peers {
			*tab.at(0, d) = uint64(i + 1)
		}
		if tab.over.n != tc.overflow || tab.from(0) != int32(len(tc.peers)) {
			t.Errorf("peers %v: %d in the overflow, %d counted, want %d and %d", tc.peers, tab.over.n, tab.from(0), tc.overflow, len(tc.peers))
		}
		for i, d := range tc.peers {
			if got := *tab.at(0, d); got != uint64(i+1) {
				t.Errorf("peers %v: pair (0, %d) holds %d, want %d", tc.peers, d, got, i+1)
			}
		}
	}
}
