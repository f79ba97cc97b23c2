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
	allocs := testing.AllocsPerRun(1, func() {
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
