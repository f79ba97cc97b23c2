package main

import "testing"

// TestPrefetchChunk: a TI index's read-ahead per rank is the shared
// budget's share, from 128 to 1024 events, so that its memory stays
// bounded (2.5 MiB of events from 64 ranks on) whatever the ranks.
func TestPrefetchChunk(t *testing.T) {
	for _, tc := range []struct{ ranks, want int }{
		{1, 1024}, {2, 1024}, {64, 1024}, {65, 1008}, {128, 512}, {256, 256}, {512, 128},
		{1024, 128}, {4096, 128}, {65536, 128}, {0, 1024},
	} {
		got := prefetchChunk(tc.ranks)
		if got != tc.want {
			t.Errorf("%d ranks: chunk %d, want %d", tc.ranks, got, tc.want)
		}
		if tc.ranks > 0 && got > 128 && got*tc.ranks > prefetchEvents {
			t.Errorf("%d ranks: %d events read ahead, over the budget %d", tc.ranks, got*tc.ranks, prefetchEvents)
		}
	}
}
