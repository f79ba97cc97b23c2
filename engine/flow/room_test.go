package flow

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/tracesim/tracesim/internal/hugepage"
)

// TestWithRoom checks that growing keeps the elements and gives the
// room asked for, and that a slice with room is returned as it is.
func TestWithRoom(t *testing.T) {
	for _, tc := range []struct {
		name      string
		s         []int32
		c         int
		wantCap   int // at least
		sameArray bool
	}{
		{"nil", nil, 10, 10, false},
		{"grows", []int32{1, 2, 3}, 100, 100, false},
		{"has room", make([]int32, 2, 50), 40, 50, true},
		{"exact", make([]int32, 5), 5, 5, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := slices.Clone(tc.s)
			got := withRoom(tc.s, tc.c)
			if !slices.Equal(got, before) {
				t.Errorf("withRoom(%v, %d) = %v: the elements changed", before, tc.c, got)
			}
			if cap(got) < tc.wantCap {
				t.Errorf("withRoom(…, %d): capacity %d, want ≥ %d", tc.c, cap(got), tc.wantCap)
			}
			if same := cap(tc.s) > 0 && unsafe.SliceData(got) == unsafe.SliceData(tc.s); same != tc.sameArray {
				t.Errorf("withRoom(…, %d): same array %v, want %v", tc.c, same, tc.sameArray)
			}
		})
	}
}

// TestFlowSlotsAdvised checks that the flow slots, grown past a few huge
// pages, are advised as huge pages: without the advice they were faulted
// in 4 KiB at a time at 65,536 ranks.
func TestFlowSlotsAdvised(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("transparent huge pages are a Linux feature")
	}
	if b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil ||
		!strings.Contains(string(b), "[madvise]") && !strings.Contains(string(b), "[always]") {
		t.Skipf("transparent huge pages not given to madvised memory here (%q, %v)", b, err)
	}
	n := &Network{free: -1}
	for len(n.flows) < 100_000 { // 14 MiB of flow records
		n.allocFlow()
	}
	m, err := hugepage.MappingOf(unsafe.Pointer(&n.flows[len(n.flows)/2]))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Advised {
		t.Errorf("the flow slots' mapping is not advised as huge pages")
	}
	runtime.KeepAlive(n)
}
