package replay

import (
	"slices"
	"testing"
	"unsafe"
)

// Slices taken from a slab are apart: filling each to its capacity and
// beyond (which moves it to an array of its own) leaves every other
// slice's elements as they were written, across the slab's chunks.
func TestSlabSlicesApart(t *testing.T) {
	for _, tc := range []struct {
		k, n, fill int
	}{
		{k: 1, n: 3, fill: 1},
		{k: 4, n: slabChunk + 5, fill: 4},
		{k: 8, n: 2*slabChunk + 1, fill: 11},
	} {
		var sl slab[int32]
		got := make([][]int32, tc.n)
		for i := range got {
			got[i] = sl.take(tc.k)
			if len(got[i]) != 0 || cap(got[i]) != tc.k {
				t.Fatalf("k %d: slice %d has len %d cap %d, want 0 and %d", tc.k, i, len(got[i]), cap(got[i]), tc.k)
			}
		}
		for i := range got {
			for j := range tc.fill {
				got[i] = append(got[i], int32(i*100+j))
			}
		}
		for i := range got {
			want := make([]int32, tc.fill)
			for j := range want {
				want[j] = int32(i*100 + j)
			}
			if !slices.Equal(got[i], want) {
				t.Errorf("k %d fill %d: slice %d holds %v, want %v", tc.k, tc.fill, i, got[i], want)
			}
		}
	}
}

// TestSlabChunksGrow: a slab serving many slices allocates a number of
// times logarithmic in them (each chunk twice the last, up to
// slabMaxBytes), not once every slabChunk: at 65,536 ranks the slabs'
// chunks of 256 were faulted in 4 KiB at a time.
func TestSlabChunksGrow(t *testing.T) {
	const n = 1 << 17
	var sl slab[keyQueues]
	// Five runs: AllocsPerRun counts the whole process's allocations, and
	// one stray allocation of another goroutine in a single run made this
	// fail under load (11 for 10); averaged over five it rounds away.
	allocs := testing.AllocsPerRun(5, func() {
		sl = slab[keyQueues]{}
		for range n {
			sl.one().posted.head = 1
		}
	})
	// 256, 512, ... 131,072 (of 16-byte queues): ten chunks.
	if allocs > 10 {
		t.Errorf("%.0f allocations for %d queues, want at most 10", allocs, n)
	}
	if most := slabMaxBytes / int(unsafe.Sizeof(keyQueues{})); sl.chunk > most {
		t.Errorf("the next chunk serves %d, more than slabMaxBytes allows (%d)", sl.chunk, most)
	}
}

// TestSlabExpect: a slab told the run's ranks serves them all from one
// allocation, even beyond slabMaxBytes; later slices go back to chunks from
// slabChunk. A small run keeps chunks of slabChunk.
func TestSlabExpect(t *testing.T) {
	for _, tc := range []struct {
		ranks, want int // want: allocations for ranks+1 slices
	}{
		{65536, 2}, // 65,536 × 8 × 16 bytes = 8 MiB, then one of 256
		{100000, 2},
		{64, 1},
	} {
		var sl slab[request]
		allocs := testing.AllocsPerRun(5, func() { // five runs: see TestSlabChunksGrow
			sl = slab[request]{}
			sl.expect(tc.ranks)
			for range tc.ranks + 1 {
				sl.take(firstReqs)
			}
		})
		if int(allocs) != tc.want {
			t.Errorf("%d ranks: %.0f allocations for %d slices, want %d", tc.ranks, allocs, tc.ranks+1, tc.want)
		}
	}
}

// TestSizedAndZeros: the bulk collectives' per-call arrays are resized
// in place when they have room (zeros clears what the last call left),
// and otherwise replaced by arrays of exactly n elements.
func TestSizedAndZeros(t *testing.T) {
	for _, tc := range []struct {
		name   string
		x      []int64
		n      int
		sameAr bool
	}{
		{"room", []int64{7, 8, 9, 10}, 3, true},
		{"exact", []int64{7, 8, 9}, 3, true},
		{"short", []int64{7}, 3, false},
		{"nil", nil, 3, false},
	} {
		old := tc.x[:cap(tc.x)]
		got := zeros(tc.x, tc.n)
		if len(got) != tc.n {
			t.Errorf("%s: zeros gave %d elements, want %d", tc.name, len(got), tc.n)
		}
		for i, v := range got {
			if v != 0 {
				t.Errorf("%s: element %d is %d after zeros, want 0", tc.name, i, v)
			}
		}
		if same := len(old) > 0 && &got[0] == &old[0]; same != tc.sameAr {
			t.Errorf("%s: reused the array: %v, want %v", tc.name, same, tc.sameAr)
		}
		y := sized([]int64{1, 2, 3, 4}, 2)
		if len(y) != 2 || y[0] != 1 || y[1] != 2 {
			t.Errorf("sized kept %v, want [1 2]", y)
		}
	}
}
