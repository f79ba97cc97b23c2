package tracefmt

import "sync"

// Prefetch returns a Source that reads src one step ahead on a goroutine
// of its own, so that parsing a trace's files overlaps the work of its
// consumer (a replay) on a second core. Once the consumer has taken a
// rank's read-ahead events, the rank's next ones (up to chunk; chunk ≤ 0
// shares about 768 KiB of events between the ranks, at least 128 events
// each) are read while it works on them.
//
// Every call of src runs on the one goroutine, one after the other, in
// an order fixed by the consumer's calls alone (a rank's next read is
// queued when its events run out), so a run reads the same events as
// without Prefetch; only when the reads happen changes. An error src
// returns reaches the consumer after the events read before it. The
// returned Source's Header is a copy of src's whose Markers and Texts
// follow src's as the consumer takes events; Close stops the goroutine
// and closes src. A Source that holds its trace in memory (InMemory) is
// returned as it is.
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
	p := &prefetch{src: src, hdr: *h, slots: make([]prefetchSlot, len(h.Ranks)),
		jobs: make(chan int, len(h.Ranks)), chunk: chunk}
	p.wg.Add(1)
	go p.read()
	return p
}

// prefetch is the Source Prefetch returns.
type prefetch struct {
	src   Source
	hdr   Trace
	slots []prefetchSlot
	// jobs queues the ranks to read; each rank has at most one read
	// queued or under way, so the buffer of one per rank never blocks.
	jobs   chan int
	chunk  int
	wg     sync.WaitGroup
	closed bool
}

// prefetchSlot is one rank's read-ahead. While busy the reading goroutine
// owns it; it hands it back on ready.
type prefetchSlot struct {
	buf   []Event
	lo, n int // buf[lo:n] are read and not yet taken
	err   error
	busy  bool
	ready chan struct{}
	// markers and texts are src's header's once the read was done.
	markers []MarkerDef
	texts   []string
}

// read runs src's reads in the order they were queued.
func (p *prefetch) read() {
	defer p.wg.Done()
	for r := range p.jobs {
		s := &p.slots[r]
		if s.buf == nil {
			s.buf = make([]Event, p.chunk)
		}
		s.n, s.err = p.src.ReadRank(r, s.buf)
		s.lo = 0
		// Elements below a slice's length are never written again
		// (sources append), so the consumer may read these.
		h := p.src.Header()
		s.markers, s.texts = h.Markers, h.Texts
		s.ready <- struct{}{}
	}
}

// start queues a read of rank r.
func (p *prefetch) start(r int) {
	s := &p.slots[r]
	if s.ready == nil {
		s.ready = make(chan struct{}, 1)
	}
	s.busy = true
	p.jobs <- r
}

// wait takes rank r's slot back from a read under way.
func (p *prefetch) wait(r int) {
	s := &p.slots[r]
	if !s.busy {
		return
	}
	<-s.ready
	s.busy = false
	p.hdr.Markers, p.hdr.Texts = s.markers, s.texts
}

func (p *prefetch) Header() *Trace { return &p.hdr }

func (p *prefetch) ReadRank(r int, dst []Event) (int, error) {
	if r < 0 || r >= len(p.slots) || p.closed {
		// src words the error (or says it is closed).
		return p.src.ReadRank(r, dst)
	}
	s := &p.slots[r]
	p.wait(r)
	if s.lo == s.n && s.err == nil {
		// The rank's first read, or src gave nothing last time: read now.
		p.start(r)
		p.wait(r)
		if s.n == 0 && s.err == nil {
			return 0, nil
		}
	}
	if s.lo < s.n {
		k := copy(dst, s.buf[s.lo:s.n])
		s.lo += k
		if s.lo == s.n && s.err == nil {
			p.start(r)
		}
		return k, nil
	}
	return 0, s.err
}

// Close waits for the reads under way, stops the reading goroutine and
// closes src.
func (p *prefetch) Close() error {
	if !p.closed {
		p.closed = true
		close(p.jobs)
		p.wg.Wait()
	}
	return p.src.Close()
}
