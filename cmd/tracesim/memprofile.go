package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"

	"github.com/tracesim/tracesim/internal/atomicfile"
)

// memProfileRate is the heap profile's sampling interval with
// --memprofile: one sample per 4 KiB allocated on average, fine enough
// to count per-rank and per-link records of a few dozen bytes at 64 Ki
// ranks (the runtime's default, 512 KiB, sees only the large arrays).
const memProfileRate = 4096

// heapPeak keeps, for --memprofile, the heap profile of the garbage
// collection that found the most live bytes since the start: the
// structures alive at the run's largest measured heap, which the end of
// a command (its model released) no longer shows. A sentinel object's
// finalizer, re-armed at every collection, takes the measurements.
//
// The runtime publishes a collection's heap profile only at the next
// collection (its frees are known once swept), so the profile read
// after collection N is that of collection N−1, whose live bytes the
// call after N−1 read (cycle, live); a collection whose predecessor was
// not measured is skipped.
type heapPeak struct {
	path string

	mu      sync.Mutex
	cycle   uint64       // the collection last measured
	live    uint64       // the live heap bytes it found
	peak    uint64       // the live heap bytes of the collection prof is of
	prof    bytes.Buffer // gzipped pprof protobuf
	err     error        // the first failure to write a profile
	stopped bool
}

// gcSentinel is garbage as soon as it is armed: its finalizer runs
// after the next collection. The padding keeps it out of the tiny
// allocator, whose blocks may never be finalized.
type gcSentinel struct {
	h *heapPeak
	_ [16]byte
}

// startHeapPeak starts keeping the peak heap profile for path. A file
// is created in path's directory and removed at once, so that a path
// that cannot be written fails before the command runs; an existing
// profile at path stays until the new one replaces it whole.
func startHeapPeak(path string) (*heapPeak, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("open %s: is a directory", path)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".tracesim-memprofile-*")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	name := f.Name()
	f.Close()
	if err := os.Remove(name); err != nil {
		return nil, err
	}
	runtime.MemProfileRate = memProfileRate
	h := &heapPeak{path: path}
	h.arm()
	return h, nil
}

func (h *heapPeak) arm() {
	runtime.SetFinalizer(&gcSentinel{h: h}, func(s *gcSentinel) { s.h.collected() })
}

// collected runs after each garbage collection until stop.
func (h *heapPeak) collected() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stopped {
		return
	}
	h.sample()
	h.arm()
}

// sample keeps the published heap profile if the collection it is of
// found the largest live heap so far (the first profile is kept
// whatever it is of: a run shorter than two collections has no other).
func (h *heapPeak) sample() {
	cycle, live := gcState()
	if cycle == h.cycle && h.prof.Len() > 0 {
		return // this collection is measured already
	}
	of, known := h.live, cycle == h.cycle+1
	h.cycle, h.live = cycle, live
	if h.prof.Len() > 0 && (!known || of <= h.peak) {
		return
	}
	var b bytes.Buffer
	if err := pprof.Lookup("heap").WriteTo(&b, 0); err != nil {
		if h.err == nil {
			h.err = err
		}
		return
	}
	if !known {
		of = 0
	}
	h.peak, h.prof = of, b
}

// gcState is the number of completed garbage collections and the live
// heap bytes the last one found.
func gcState() (cycles, live uint64) {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}, {Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 {
		cycles = s[0].Value.Uint64()
	}
	if s[1].Value.Kind() == metrics.KindUint64 {
		live = s[1].Value.Uint64()
	}
	return cycles, live
}

// stop measures the heap at the end of the command, stops the
// measurements and writes the kept profile. It collects twice: the
// first collection finds what the command left, the second publishes
// its profile.
func (h *heapPeak) stop() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stopped = true // the finalizers measure no more
	for range 2 {
		runtime.GC()
		h.sample()
	}
	if h.err != nil {
		return fmt.Errorf("--memprofile %s: %w", h.path, h.err)
	}
	err := atomicfile.Write(h.path, func(w io.Writer) error {
		_, err := w.Write(h.prof.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("--memprofile: %w", err)
	}
	return nil
}
