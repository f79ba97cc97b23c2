package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"sync/atomic"
	"time"

	"github.com/tracesim/tracesim/internal/atomicfile"
)

// memProfileRate is the heap profile's sampling interval with
// --memprofile: one sample per 4 KiB allocated on average, fine enough
// to count per-rank and per-link records of a few dozen bytes at 64 Ki
// ranks (the runtime's default, 512 KiB, sees only the large arrays).
const memProfileRate = 4096

// memPollPeriod is how often --memprofile looks for a finished garbage
// collection that no finalizer reported (see heapPeak). A heap snapshot
// stays readable for a whole collection interval, which at the sizes
// worth profiling (tens of MB) is tens of milliseconds; a poll costs a
// metrics read (under 0.1 µs) and a timer wake-up (12–24 µs of CPU per
// millisecond of an idle process, measured on the project machine under
// load, against 31–37 at a 1 ms period).
const memPollPeriod = 10 * time.Millisecond

// heapPeak keeps, for --memprofile, the heap profile snapshot with the
// most bytes in use since the start: the structures alive at the run's
// largest measured heap, which the end of a command (its model
// released) no longer shows.
//
// The runtime's heap profile is a snapshot as of a collection's mark
// termination, published only at the next one (once the first one's
// frees are swept): between collections N and N+1 it reads as of N−1.
// A goroutine samples it at each collection it learns of: a finalizer
// re-armed at every collection wakes it, and it polls the count of
// finished collections every memPollPeriod in case the finalizer
// goroutine is late or busy. A sample sums the published snapshot's
// bytes in use (scaled as pprof scales its samples) and, if that is
// the most so far, writes the profile into a buffer. The bytes compared
// are those of the very snapshot kept, so a collection missed loses
// that snapshot only, and never pairs a profile with another
// collection's numbers.
type heapPeak struct {
	path   string
	done   chan struct{} // closed by stop: the poller returns
	exited chan struct{} // closed by the poller when it has returned
	nudge  chan struct{} // a collection finished (sent by the finalizer)

	// The poller owns the fields below until exited is closed, then
	// stop does.
	gc    []metrics.Sample           // the count of finished collections
	seen  atomic.Uint64              // the collection count last sampled, once done (read by tests)
	peak  uint64                     // bytes in use of the snapshot prof is of
	prof  bytes.Buffer               // gzipped pprof protobuf
	spare bytes.Buffer               // the next profile, written before it is compared
	err   error                      // the first failure to write a profile
	recs  []runtime.MemProfileRecord // heapInUse's buffer
	sink  []byte                     // garbage stop allocates to end a collection cycle
	taken int                        // profiles written (kept or not)
}

// gcSentinel is garbage as soon as it is armed: its finalizer runs
// after the next collection. The padding keeps it out of the tiny
// allocator, whose blocks may never be finalized.
type gcSentinel struct {
	h *heapPeak
	_ [16]byte
}

// arm sets a sentinel whose finalizer nudges the poller and re-arms,
// until stop.
func (h *heapPeak) arm() {
	runtime.SetFinalizer(&gcSentinel{h: h}, func(s *gcSentinel) {
		select {
		case <-s.h.done:
			return
		default:
		}
		select {
		case s.h.nudge <- struct{}{}:
		default: // a nudge is pending already
		}
		s.h.arm()
	})
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
	h := &heapPeak{
		path:   path,
		done:   make(chan struct{}),
		exited: make(chan struct{}),
		nudge:  make(chan struct{}, 1),
		gc:     []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}},
	}
	h.seen.Store(h.cycles())
	h.arm()
	go h.poll()
	return h, nil
}

// poll samples the heap profile after every collection it learns of,
// until stop.
func (h *heapPeak) poll() {
	defer close(h.exited)
	t := time.NewTicker(memPollPeriod)
	defer t.Stop()
	for {
		select {
		case <-h.done:
			return
		case <-t.C:
		case <-h.nudge:
		}
		if c := h.cycles(); c != h.seen.Load() {
			h.sample(c)
		}
	}
}

// cycles is the number of finished garbage collections.
func (h *heapPeak) cycles() uint64 {
	metrics.Read(h.gc)
	if v := h.gc[0].Value; v.Kind() == metrics.KindUint64 {
		return v.Uint64()
	}
	return 0
}

// sample keeps the published heap profile if its snapshot has more
// bytes in use than the kept one's (the first profile is kept whatever
// it holds). c is the collection count read before. pprof reads the
// snapshot before it writes anything, so a profile whose first bytes
// come while the count is still c is of the snapshot measured; one
// written after a collection finished is dropped (the next poll
// samples again).
func (h *heapPeak) sample(c uint64) {
	defer h.seen.Store(c)
	inUse := h.heapInUse()
	if h.prof.Len() > 0 && inUse <= h.peak {
		return
	}
	h.spare.Reset()
	h.taken++
	w := &firstWrite{w: &h.spare, at: h.cycles}
	if err := pprof.Lookup("heap").WriteTo(w, 0); err != nil {
		if h.err == nil {
			h.err = err
		}
		return
	}
	if !w.wrote || w.cycle != c {
		return
	}
	h.peak = inUse
	h.prof, h.spare = h.spare, h.prof
}

// firstWrite passes writes on to w, noting at the first the value of
// at (the collection count).
type firstWrite struct {
	w     io.Writer
	at    func() uint64
	wrote bool
	cycle uint64
}

func (f *firstWrite) Write(p []byte) (int, error) {
	if !f.wrote {
		f.wrote, f.cycle = true, f.at()
	}
	return f.w.Write(p)
}

// heapInUse is the bytes in use of the published heap profile snapshot,
// its samples scaled as pprof scales them for inuse_space. The records
// are read into a buffer kept from one call to the next (so that
// measuring allocates nothing that could end a collection cycle; the
// profiles show it, by heapInUse, at about 300 bytes per record).
func (h *heapPeak) heapInUse() uint64 {
	n, ok := runtime.MemProfile(h.recs, false)
	for !ok {
		h.recs = make([]runtime.MemProfileRecord, n+n/4+64)
		n, ok = runtime.MemProfile(h.recs, false)
	}
	rate := float64(runtime.MemProfileRate)
	var sum float64
	for _, r := range h.recs[:n] {
		objs, bytes := float64(r.InUseObjects()), float64(r.InUseBytes())
		if objs <= 0 || bytes <= 0 {
			continue
		}
		if rate > 1 {
			// A block of s bytes is sampled with probability
			// 1 − e^(−s/rate).
			bytes /= 1 - math.Exp(-bytes/objs/rate)
		}
		sum += bytes
	}
	return uint64(sum)
}

// stop stops the polling, samples the last collections' snapshots and
// the heap at the end of the command, and writes the kept profile.
//
// The last collection's snapshot (often the peak of a run whose heap
// grew to its end) would be published only by the next collection, and
// runtime.GC publishes its own snapshot as soon as it has swept, in
// effect skipping the one before. So stop first lets one ordinary
// collection finish (under a GOGC of 1 its trigger is about 1 % above
// the last live heap, reached with little garbage), samples, and only
// then collects with runtime.GC for the end's snapshot. Collections are
// off meanwhile (SetGCPercent(-1) lets one under way finish first), so
// that a profile's own writing cannot start one that would replace the
// snapshot measured.
func (h *heapPeak) stop() error {
	close(h.done)
	<-h.exited
	gogc := debug.SetGCPercent(-1)
	c := h.cycles()
	h.sample(c)
	if gogc >= 0 && h.nextCycle(c) {
		h.sample(h.cycles())
	}
	runtime.GC()
	h.sample(h.cycles())
	debug.SetGCPercent(gogc)
	h.sink = nil
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

// nextCycle lets the collection after the c-th run as an ordinary one,
// triggered by allocation, and reports whether it finished; it is
// called, and returns, with collections off.
func (h *heapPeak) nextCycle(c uint64) bool {
	debug.SetGCPercent(1)
	defer debug.SetGCPercent(-1)
	goal := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}, {Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(goal)
	var budget uint64 = 4 << 20 // the goal's slack for stacks and globals
	if goal[0].Value.Kind() == metrics.KindUint64 && goal[1].Value.Kind() == metrics.KindUint64 {
		if g, o := goal[0].Value.Uint64(), goal[1].Value.Uint64(); g > o {
			budget += 2 * (g - o)
		}
	}
	const chunk = 64 << 10
	for spent := uint64(0); h.cycles() == c; {
		if spent < budget {
			h.sink = make([]byte, chunk)
			spent += chunk
			continue
		}
		// The collection has been triggered; wait for it to finish
		// marking, a millisecond at a time, at most a second.
		for range 1000 {
			if h.cycles() != c {
				return true
			}
			time.Sleep(time.Millisecond)
		}
		return false
	}
	return true
}
