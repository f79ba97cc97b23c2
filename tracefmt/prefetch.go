package tracefmt

import (
	"sync"
	"sync/atomic"
)

// Prefetch returns a Source that reads src ahead on a goroutine of its
// own, so that parsing a trace's files overlaps the work of its consumer
// (a replay) on a second core.
//
// Each rank's read-ahead is two halves of chunk events (chunk ≤ 0 shares
// about 768 KiB of events between the ranks, at least 128 events each):
// while the consumer takes one half, the other is read or already read,
// and once it has taken a half, the half's next events are queued to be
// read. The reading starts with both halves of every rank, in rank order,
// when Prefetch returns, so that the files are opened and parsed while
// the consumer sets up. Memory is bounded by ranks × chunk events, read
// or not; a rank whose half is drained while the other is still being
// read waits for that one read only, never for another rank's.
//
// Every call of src runs on the one goroutine, one after the other, in
// an order fixed by the consumer's calls alone (reads are queued only
// when Prefetch returns and when the consumer drains a half, and run in
// the order queued), so a run reads the same events however the two
// goroutines are timed; only when the reads happen changes. An error src
// returns reaches the consumer after the events read before it. The
// returned Source's Header is a copy of src's whose Markers and Texts
// follow src's as the consumer takes events (never shrinking): src's
// Header is asked after every read, so it should not allocate (a copy
// per call was a third of a 256-rank stencil's allocations, and the
// garbage raised its peak RSS by 4 to 7 MB through the GC's goal); Close
// stops the goroutine, skipping the reads still queued, and closes src.
// A Source that holds its trace in memory (InMemory) is returned as it
// is.
func Prefetch(src Source, chunk int) Source {
	if _, ok := src.(InMemory); ok {
		return src
	}
	h := src.Header()
	if h == nil || len(h.Ranks) == 0 {
		return src
	}
	if chunk <= 0 {
		chunk = min(max((1<<14)/len(h.Ranks), 128), 2048)
	}
	half := max((chunk+1)/2, 1)
	p := &prefetch{src: src, hdr: *h, slots: make([]prefetchSlot, len(h.Ranks)),
		jobs: make(chan int, 2*len(h.Ranks)), half: half}
	for r := range p.slots {
		p.slots[r].ready = make(chan struct{}, 2)
	}
	for i := 0; i < 2; i++ {
		for r := range p.slots {
			p.start(r)
		}
	}
	p.wg.Add(1)
	go p.read()
	return p
}

// prefetch is the Source Prefetch returns.
type prefetch struct {
	src   Source
	hdr   Trace
	slots []prefetchSlot
	// jobs queues the ranks to read, one entry per half; each rank has at
	// most two reads queued or under way, so a buffer of two per rank
	// never blocks.
	jobs   chan int
	half   int
	stop   atomic.Bool
	wg     sync.WaitGroup
	closed bool
}

// prefetchHalf is one half of a rank's read-ahead. While its read is
// queued or under way the reading goroutine owns it; it hands it back on
// the slot's ready channel.
type prefetchHalf struct {
	buf []Event
	n   int
	err error
	// markers and texts are src's header's once the read was done.
	markers []MarkerDef
	texts   []string
}

// prefetchSlot is one rank's read-ahead: the consumer takes
// halves[cur].buf[lo:n]; the reads fill the halves in turn, starting
// with halves[fill].
type prefetchSlot struct {
	halves [2]prefetchHalf
	cur    int
	lo     int
	// owned counts the halves the consumer holds (read and handed back);
	// queued the reads queued or under way.
	owned, queued int
	// end tells that a read returned an error or nothing: no more reads
	// are queued after it.
	end   bool
	ready chan struct{}
	fill  int // the reading goroutine's: the half its next read fills
}

// read runs src's reads in the order they were queued.
func (p *prefetch) read() {
	defer p.wg.Done()
	for r := range p.jobs {
		s := &p.slots[r]
		h := &s.halves[s.fill]
		s.fill ^= 1
		if p.stop.Load() {
			h.n, h.err = 0, nil
		} else {
			if h.buf == nil {
				h.buf = make([]Event, p.half)
			}
			h.n, h.err = p.src.ReadRank(r, h.buf)
			// Elements below a slice's length are never written again
			// (sources append), so the consumer may read these.
			hd := p.src.Header()
			h.markers, h.texts = hd.Markers, hd.Texts
		}
		s.ready <- struct{}{}
	}
}

// start queues a read of rank r's next half.
func (p *prefetch) start(r int) {
	p.slots[r].queued++
	p.jobs <- r
}

// take hands rank r's oldest read back to the consumer, waiting for it.
func (p *prefetch) take(r int) {
	s := &p.slots[r]
	<-s.ready
	s.queued--
	s.owned++
	h := &s.halves[(s.cur+s.owned-1)&1]
	// The reads run in the order queued, so the longest lists are the
	// latest; a rank's half read earlier than another's holds a prefix.
	if len(h.markers) > len(p.hdr.Markers) {
		p.hdr.Markers = h.markers
	}
	if len(h.texts) > len(p.hdr.Texts) {
		p.hdr.Texts = h.texts
	}
	if h.n == 0 || h.err != nil {
		s.end = true
	}
}

func (p *prefetch) Header() *Trace { return &p.hdr }

// ReadRank returns events of the rank's current half only, so that what
// a call returns depends on the calls before it, not on how far the
// reading goroutine got.
func (p *prefetch) ReadRank(r int, dst []Event) (int, error) {
	if r < 0 || r >= len(p.slots) || p.closed {
		// src words the error (or says it is closed).
		return p.src.ReadRank(r, dst)
	}
	s := &p.slots[r]
	if s.owned == 0 {
		if s.queued == 0 {
			// The last read gave nothing and no error: ask src again,
			// as a call without Prefetch would.
			s.end = false
			p.start(r)
		}
		p.take(r)
	}
	h := &s.halves[s.cur]
	if s.lo < h.n {
		k := copy(dst, h.buf[s.lo:h.n])
		s.lo += k
		if s.lo == h.n && h.err == nil {
			p.drained(r)
		}
		return k, nil
	}
	if h.err != nil {
		return 0, h.err
	}
	// src gave nothing: hand the half back unread, the next call asks
	// again.
	s.owned--
	s.cur ^= 1
	return 0, nil
}

// drained gives rank r's current half, taken whole, back to the reading
// goroutine, unless the rank's stream ended in the other half.
func (p *prefetch) drained(r int) {
	s := &p.slots[r]
	s.owned--
	s.lo = 0
	s.cur ^= 1
	if !s.end {
		p.start(r)
	}
}

// Close stops the reading goroutine (the reads still queued are skipped,
// the one under way finishes) and closes src.
func (p *prefetch) Close() error {
	if !p.closed {
		p.closed = true
		p.stop.Store(true)
		close(p.jobs)
		p.wg.Wait()
	}
	return p.src.Close()
}
