// Package hugepage asks the kernel to back large arrays with transparent
// huge pages, so that the first touch of every 2 MiB of a fresh array
// costs one page fault instead of 512.
package hugepage

import "unsafe"

// Size is the size of a transparent huge page on amd64 and arm64.
const Size = 2 << 20

// Advise asks the kernel to back the whole huge pages within s's memory
// with huge pages (madvise MADV_HUGEPAGE), which Linux does where
// transparent huge pages are enabled for madvised memory. It changes no
// byte; a refusal, or a system without the advice, is ignored. It is
// worth calling before the first touch of an array of many MiB.
func Advise[T any](s []T) {
	if len(s) == 0 {
		return
	}
	base := unsafe.Pointer(unsafe.SliceData(s))
	lo := uintptr(base)
	hi := lo + uintptr(len(s))*unsafe.Sizeof(s[0])
	first := (lo + Size - 1) &^ (Size - 1)
	last := hi &^ (Size - 1)
	if last <= first {
		return
	}
	// The bytes of the whole huge pages inside s, which the Go heap
	// keeps alive through s.
	advise(unsafe.Slice((*byte)(unsafe.Add(base, first-lo)), last-first))
}

// Make returns a slice of length zero elements and capacity capacity
// whose whole huge pages are advised (Advise) before anything is written
// to them: a table of many MiB filled as a run goes then faults once per
// 2 MiB, not per 4 KiB. Go clears memory it reuses as it allocates it, so
// the advice acts on fresh memory, which it need not clear.
func Make[T any](length, capacity int) []T {
	s := make([]T, length, capacity)
	Advise(s[:capacity])
	return s
}
