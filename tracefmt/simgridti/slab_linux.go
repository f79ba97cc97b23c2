package simgridti

import (
	"syscall"
	"unsafe"

	"github.com/tracesim/tracesim/tracefmt"
)

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

// adviseHuge asks the kernel to back the whole huge pages within ev's
// memory with huge pages (madvise MADV_HUGEPAGE), which it does where
// transparent huge pages are enabled for madvised memory. The advice
// changes no byte; a refusal is ignored.
func adviseHuge(ev []tracefmt.Event) {
	if len(ev) == 0 {
		return
	}
	base := unsafe.Pointer(&ev[0])
	lo := uintptr(base)
	hi := lo + uintptr(len(ev))*unsafe.Sizeof(ev[0])
	first := (lo + hugePage - 1) &^ (hugePage - 1)
	last := hi &^ (hugePage - 1)
	if last <= first {
		return
	}
	// The bytes of the whole huge pages inside ev, which the Go heap
	// keeps alive through ev.
	b := unsafe.Slice((*byte)(unsafe.Add(base, first-lo)), last-first)
	_ = syscall.Madvise(b, syscall.MADV_HUGEPAGE)
}
