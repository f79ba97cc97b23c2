package rankmerge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

type pair struct{ r, i int }

func collect[K int64 | float64](keys [][]K) []pair {
	var out []pair
	for r, i := range Merge(len(keys), func(r int) int { return len(keys[r]) }, func(r, i int) K { return keys[r][i] }) {
		out = append(out, pair{r, i})
	}
	return out
}

// naive is the reference: at each step, the rank whose next key is least
// (the lowest rank on a tie) gives its next event.
func naive[K int64 | float64](keys [][]K) []pair {
	next := make([]int, len(keys))
	var out []pair
	for {
		best := -1
		for r := range keys {
			if next[r] < len(keys[r]) && (best < 0 || keys[r][next[r]] < keys[best][next[best]]) {
				best = r
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, pair{best, next[best]})
		next[best]++
	}
}

func TestMerge(t *testing.T) {
	for _, c := range []struct {
		name string
		keys [][]int64
		want []pair
	}{
		{"no ranks", nil, nil},
		{"empty ranks", [][]int64{{}, {}}, nil},
		{"one rank", [][]int64{{3, 1, 2}}, []pair{{0, 0}, {0, 1}, {0, 2}}},
		{"ties go to the lower rank", [][]int64{{5, 5}, {5}, {1, 5}},
			[]pair{{2, 0}, {0, 0}, {0, 1}, {1, 0}, {2, 1}}},
		// Rank 0's clock goes back: its event at 1 stays after its event
		// at 10, and so after rank 1's event at 4.
		{"a rank's own order is kept", [][]int64{{10, 1}, {4, 12}},
			[]pair{{1, 0}, {0, 0}, {0, 1}, {1, 1}}},
		{"an empty rank among others", [][]int64{{2}, {}, {1, 3}},
			[]pair{{2, 0}, {0, 0}, {2, 1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := collect(c.keys); !slices.Equal(got, c.want) {
				t.Errorf("merge = %v, want %v", got, c.want)
			}
		})
	}
}

// TestMergeRandom compares the merge with the reference on random traces,
// with many ties and clocks that run backwards, for int and float keys.
func TestMergeRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := range 300 {
		ranks := rng.IntN(40)
		ik := make([][]int64, ranks)
		fk := make([][]float64, ranks)
		for r := range ik {
			for range rng.IntN(30) {
				k := int64(rng.IntN(1 + n%20))
				ik[r] = append(ik[r], k)
				fk[r] = append(fk[r], float64(k)/3)
			}
		}
		if got, want := collect(ik), naive(ik); !slices.Equal(got, want) {
			t.Fatalf("int keys %v: merge %v, want %v", ik, got, want)
		}
		if got, want := collect(fk), naive(fk); !slices.Equal(got, want) {
			t.Fatalf("float keys %v: merge %v, want %v", fk, got, want)
		}
	}
}

func TestMergeStops(t *testing.T) {
	keys := [][]int64{{1, 3}, {2, 4}}
	var got []pair
	for r, i := range Merge(2, func(r int) int { return len(keys[r]) }, func(r, i int) int64 { return keys[r][i] }) {
		got = append(got, pair{r, i})
		if len(got) == 3 {
			break
		}
	}
	if want := []pair{{0, 0}, {1, 0}, {0, 1}}; !slices.Equal(got, want) {
		t.Errorf("merge stopped after 3 = %v, want %v", got, want)
	}
}

// TestMergeAllocs: the merge allocates per rank, not per event.
func TestMergeAllocs(t *testing.T) {
	keys := make([][]float64, 64)
	for r := range keys {
		for i := range 1000 {
			keys[r] = append(keys[r], float64(i*64+(r*37)%64))
		}
	}
	count := func(r int) int { return len(keys[r]) }
	key := func(r, i int) float64 { return keys[r][i] }
	sum := 0
	allocs := testing.AllocsPerRun(5, func() {
		for r, i := range Merge(len(keys), count, key) {
			sum += r + i
		}
	})
	if allocs > 3 {
		t.Errorf("merging 64,000 events allocated %v times, want at most 3 (the heap and the iterator)", allocs)
	}
}

func BenchmarkMerge(b *testing.B) {
	for _, ranks := range []int{64, 4096} {
		keys := make([][]int64, ranks)
		rng := rand.New(rand.NewPCG(3, 4))
		per := 1 << 20 / ranks
		for r := range keys {
			k := int64(0)
			for range per {
				k += int64(rng.IntN(100))
				keys[r] = append(keys[r], k)
			}
		}
		count := func(r int) int { return len(keys[r]) }
		key := func(r, i int) int64 { return keys[r][i] }
		b.Run(fmt.Sprintf("ranks=%d", ranks), func(b *testing.B) {
			for b.Loop() {
				s := 0
				for r := range Merge(ranks, count, key) {
					s += r
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(ranks*per), "ns/event")
		})
	}
}
