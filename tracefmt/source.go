package tracefmt

import "io"

// Source yields each rank's events in recorded order without requiring
// the whole trace in memory: a replay pulls a few events of one rank at a
// time, so that its memory is bounded by the ranks and what they have in
// flight, not by the trace's length. Readers whose layout allows it
// (SimGrid's per-rank TI files) stream from disk; (*Trace).Source serves
// a trace already in memory.
//
// A Source belongs to one goroutine.
type Source interface {
	// Header returns the trace without its events: Format, Unit, Timed,
	// States, Comms, Attrs, and Ranks of the world's length with nil
	// Events. States and Comms are complete from the start; Markers and
	// Texts may grow as events are read. The caller must not modify it.
	Header() *Trace
	// ReadRank fills dst with rank r's next events and returns how many
	// it wrote. Event indices (Match) count from the rank's first event,
	// as in Trace.Ranks[r].Events. At the end of the rank's stream it
	// returns 0, io.EOF. An error names the file and line at fault.
	ReadRank(r int, dst []Event) (int, error)
	// Close releases the files the source holds open.
	Close() error
}

// InMemory is implemented by sources that hold the whole trace already:
// a consumer may read Trace() in place instead of copying its events
// through ReadRank.
type InMemory interface {
	Trace() *Trace
}

// Source returns a Source over t's events; it implements InMemory.
func (t *Trace) Source() Source {
	return &memSource{t: t, hdr: t.header(), pos: make([]int, len(t.Ranks))}
}

// header returns a copy of t that shares its tables but has no events.
func (t *Trace) header() *Trace {
	h := *t
	h.Ranks = make([]Rank, len(t.Ranks))
	return &h
}

// memSource is a Source over a trace in memory.
type memSource struct {
	t   *Trace
	hdr *Trace
	pos []int
}

func (m *memSource) Header() *Trace { return m.hdr }

func (m *memSource) ReadRank(r int, dst []Event) (int, error) {
	ev := m.t.Ranks[r].Events
	if m.pos[r] >= len(ev) {
		return 0, io.EOF
	}
	n := copy(dst, ev[m.pos[r]:])
	m.pos[r] += n
	return n, nil
}

func (m *memSource) Trace() *Trace { return m.t }

func (m *memSource) Close() error { return nil }
