package replay

import (
	"testing"
	"unsafe"
)

// The replay's per-rank state stays within the sizes issue #19's scaling
// work brought it to: at 65,536 ranks of about 30 events each, every byte
// per rank is half a byte per event first touched (a page fault on the
// project's machine costs about 14 µs per 4 KiB), so that a field added
// to these structures shows up here rather than as a slower bench --scale.
// Before: rank 352 bytes, a context's queues 232 (two per rank).
func TestPerRankStateSizes(t *testing.T) {
	for _, tc := range []struct {
		name      string
		got, most uintptr
	}{
		{"rank", unsafe.Sizeof(rank{}), 296},
		{"ctxQueues", unsafe.Sizeof(ctxQueues{}), 144},
		{"rankQueues", unsafe.Sizeof(rankQueues{}), 24},
		// One cache line: 261,120 messages in flight at 65,536 ranks of
		// a stencil (88 bytes, two lines each, before).
		{"message", unsafe.Sizeof(message{}), 64},
		// 80 bytes, then 48, before (261,120 posted at once at 65,536 ranks).
		{"recvOp", unsafe.Sizeof(recvOp{}), 40},
	} {
		if tc.got > tc.most {
			t.Errorf("%s takes %d bytes, want at most %d", tc.name, tc.got, tc.most)
		}
	}
}
