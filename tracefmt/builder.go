package tracefmt

import (
	"fmt"
	"runtime"
	"slices"
)

// Pairing says which open enter a leave closes when a rank has several open
// enters of the same state.
type Pairing uint8

const (
	// PairNewest closes the most recent open enter (properly nested
	// states, as in recursive user states).
	PairNewest Pairing = iota
	// PairOldest closes the oldest open enter, as MPE's CLOG2 converter
	// does.
	PairOldest
)

// Builder assembles a Trace from events delivered in each rank's recorded
// order (ranks may be interleaved). It pairs enters with leaves as events
// arrive and matches messages in Finish. Readers of every format use it.
type Builder struct {
	t *Trace
	// world is the declared world size. A lazy builder's t.Ranks holds
	// only the ranks up to the highest that has events until Finish, so
	// that a small file claiming a huge world costs nothing before
	// CheckWorld judges it.
	world   int
	lazy    bool
	pairing Pairing
	// recorded: the reader pairs the messages itself (see
	// SkipMessageMatching).
	recorded bool
	states   map[string]StateID
	markers  map[string]MarkerID
	texts    map[string]int
	// open holds, per rank, the enters not yet left.
	open []rankPairs
}

type openList struct {
	index []int32
	head  int // first live entry when pairing oldest-first
}

// NewBuilder returns a builder for a trace of the given world size, timed
// or not, with times in unit u. Its trace has every rank from the start.
func NewBuilder(ranks int, timed bool, u Unit) *Builder {
	b := NewLazyBuilder(ranks, timed, u)
	b.allRanks()
	b.lazy = false
	return b
}

// NewLazyBuilder is NewBuilder for readers, whose files declare a world
// size they may not live up to: it holds only the ranks up to the highest
// that has events, and Finish checks the declared world against the ranks
// that have events (CheckWorld) before allocating the others. Until
// Finish, Trace().Ranks is partial: add events with Add or SetEvents.
func NewLazyBuilder(ranks int, timed bool, u Unit) *Builder {
	t := &Trace{
		Unit:  u,
		Timed: timed,
		Comms: []Comm{{Name: "MPI_COMM_WORLD"}},
	}
	return &Builder{
		t:       t,
		world:   ranks,
		lazy:    true,
		states:  map[string]StateID{},
		markers: map[string]MarkerID{},
		texts:   map[string]int{},
	}
}

// Trace returns the trace under construction, for setting metadata
// (Format, Attrs, Comms) directly. A lazy builder's Ranks are complete
// only once Finish returned.
func (b *Builder) Trace() *Trace { return b.t }

// rank returns rank r's stream, growing the ranks held so far to r+1.
func (b *Builder) rank(r int) (*Rank, error) {
	if r < len(b.t.Ranks) {
		return &b.t.Ranks[r], nil
	}
	if r < 0 || r >= b.world {
		return nil, fmt.Errorf("rank %d outside the world of %d ranks", r, b.world)
	}
	if r >= cap(b.t.Ranks) {
		// Doubling keeps the growth amortised; the cap at the world
		// keeps a trace whose highest rank has events from doubling
		// past it.
		n := min(max(r+1, 2*cap(b.t.Ranks), 64), b.world)
		b.t.Ranks = slices.Grow(b.t.Ranks, n-len(b.t.Ranks))
	}
	b.t.Ranks = b.t.Ranks[:r+1]
	return &b.t.Ranks[r], nil
}

// allRanks gives the trace every declared rank.
func (b *Builder) allRanks() {
	if len(b.t.Ranks) < b.world {
		b.t.Ranks = slices.Grow(b.t.Ranks, b.world-len(b.t.Ranks))[:b.world]
	}
}

// SetEvents makes ev rank r's stream as it is, without pairing its
// states (for formats whose streams have none to pair).
func (b *Builder) SetEvents(r int, ev []Event) error {
	rk, err := b.rank(r)
	if err != nil {
		return err
	}
	rk.Events = ev
	return nil
}

// SetPairing chooses how leaves pair with enters; the default is
// PairNewest.
func (b *Builder) SetPairing(p Pairing) { b.pairing = p }

// SkipMessageMatching tells Finish not to pair sends with receives
// (MatchMessages, first with first on each channel), for a reader whose
// records name both ends of every message and which pairs them as
// recorded once Finish returns (Paraver's communication records): the
// pass would be undone. Sends and receives keep the Match the reader gave
// them, -1 when added with Add.
func (b *Builder) SkipMessageMatching() { b.recorded = true }

// Grow reserves room for n more events on rank r, for readers that know
// the counts in advance.
func (b *Builder) Grow(r, n int) {
	if n <= 0 {
		return
	}
	if rk, err := b.rank(r); err == nil {
		rk.Events = slices.Grow(rk.Events, n)
	}
}

// DefineState adds a state definition, or updates the definition of an
// existing state of the same name (readers may see a state used before it
// is defined), and returns its id.
func (b *Builder) DefineState(d StateDef) StateID {
	if id, ok := b.states[d.Name]; ok {
		b.t.States[id] = d
		return id
	}
	id := StateID(len(b.t.States))
	b.t.States = append(b.t.States, d)
	b.states[d.Name] = id
	return id
}

// State returns the id of the named state, defining it with a guessed
// category when it is new.
func (b *Builder) State(name string) StateID {
	if id, ok := b.states[name]; ok {
		return id
	}
	return b.DefineState(StateDef{Name: name, Category: CategoryOf(name)})
}

// LookupState returns the id of the named state if it is defined.
func (b *Builder) LookupState(name string) (StateID, bool) {
	id, ok := b.states[name]
	return id, ok
}

// DefineMarker adds or updates a marker definition and returns its id.
func (b *Builder) DefineMarker(d MarkerDef) MarkerID {
	if id, ok := b.markers[d.Name]; ok {
		b.t.Markers[id] = d
		return id
	}
	id := MarkerID(len(b.t.Markers))
	b.t.Markers = append(b.t.Markers, d)
	b.markers[d.Name] = id
	return id
}

// Marker returns the id of the named marker, defining it when new.
func (b *Builder) Marker(name string) MarkerID {
	if id, ok := b.markers[name]; ok {
		return id
	}
	return b.DefineMarker(MarkerDef{Name: name})
}

// Text interns an info text and returns its index in Trace.Texts.
func (b *Builder) Text(s string) int {
	if i, ok := b.texts[s]; ok {
		return i
	}
	i := len(b.t.Texts)
	b.t.Texts = append(b.t.Texts, s)
	b.texts[s] = i
	return i
}

// AddComm adds a communicator and returns its index for Event.Comm.
func (b *Builder) AddComm(c Comm) (uint16, error) {
	if len(b.t.Comms) > 0xFFFF {
		return 0, fmt.Errorf("more than 65536 communicators")
	}
	b.t.Comms = append(b.t.Comms, c)
	return uint16(len(b.t.Comms) - 1), nil
}

// Add appends e to rank r's stream and returns its index there. Enter and
// leave events are paired as they arrive.
func (b *Builder) Add(r int, e Event) (int, error) {
	rk, err := b.rank(r)
	if err != nil {
		return 0, err
	}
	ev := &rk.Events
	i := len(*ev)
	if i >= 1<<31-1 {
		return 0, fmt.Errorf("rank %d has more than 2^31 events", r)
	}
	e.Match = -1
	if i == cap(*ev) {
		// Doubling: append grows a large slice by a quarter, which
		// copies a stream read event by event about five times over;
		// Finish trims what is left spare.
		*ev = slices.Grow(*ev, max(i, 64))
	}
	*ev = append(*ev, e)
	b.pair(r, *ev, i)
	return i, nil
}

// pair pairs event i of rank r's stream ev with the open enters when it
// is an enter or a leave.
func (b *Builder) pair(r int, ev []Event, i int) {
	if r >= len(b.open) {
		b.open = slices.Grow(b.open, r+1-len(b.open))[:r+1]
	}
	b.open[r].pair(b.pairing, ev, i)
}

// AddEvents appends ev to rank r's stream, as Add would one by one (the
// events are copied; their Match fields are ignored), for readers that
// buffer a rank's events before handing them over.
func (b *Builder) AddEvents(r int, ev []Event) error {
	rk, err := b.rank(r)
	if err != nil {
		return err
	}
	start := len(rk.Events)
	if start+len(ev) >= 1<<31-1 {
		return fmt.Errorf("rank %d has more than 2^31 events", r)
	}
	rk.Events = append(rk.Events, ev...)
	out := rk.Events
	for i := start; i < len(out); i++ {
		out[i].Match = -1
		b.pair(r, out, i)
	}
	return nil
}

// AddChunks appends to each rank r < len(chunks) the events of
// chunks[r], chunk after chunk, as AddEvents would one chunk at a time
// (the events are copied, their Match fields ignored, and enters and
// leaves paired), for readers that buffer every rank's events until the
// end of the input. Each rank's stream is grown once to its exact size,
// and ranks are copied and paired on several goroutines for a large
// trace: a rank's pairing depends on its own events only, so the result
// is AddEvents'. chunks[r] is set to nil once copied, so that the
// garbage collector may take a rank's buffers while the others are
// copied. On error (a rank outside the world, more than 2^31 events on
// a rank) it returns the error of the first rank in order that has one.
func (b *Builder) AddChunks(chunks [][][]Event) error {
	p := len(chunks)
	if p == 0 {
		return nil
	}
	// Ranks and their pairing lists are sized here, on one goroutine:
	// the workers then touch rank r's stream and lists only.
	if _, err := b.rank(p - 1); err != nil {
		if p > b.world {
			_, err = b.rank(max(b.world, 0))
		}
		return err
	}
	total := 0
	for _, cs := range chunks {
		for _, c := range cs {
			total += len(c)
		}
	}
	workers := 1
	if total >= parallelEvents {
		workers = min(runtime.GOMAXPROCS(0), p)
	}
	errs := make([]error, p)
	// Each worker pairs its ranks' states in lists of its own, emptied
	// for the next rank, instead of lists allocated per rank: those
	// were ~2 µs a rank, most of AddChunks' time at 65,536 ranks of 30
	// events. A rank left with open enters keeps its lists (left).
	scratch := make([]rankPairs, workers)
	left := make([][]openRank, workers)
	forRanks(p, workers, func(w, r int) {
		open := &scratch[w]
		if r < len(b.open) && !b.open[r].isZero() {
			open = &b.open[r]
		}
		errs[r] = b.addChunks(r, chunks[r], open)
		chunks[r] = nil
		if open == &scratch[w] {
			if open.anyOpen() {
				left[w] = append(left[w], openRank{r, *open})
				*open = rankPairs{}
			} else {
				open.reset()
			}
		}
	})
	for _, l := range left {
		for _, o := range l {
			if o.r >= len(b.open) {
				b.open = slices.Grow(b.open, o.r+1-len(b.open))[:o.r+1]
			}
			b.open[o.r] = o.pairs
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// openRank is a rank's pairing lists left with open enters.
type openRank struct {
	r     int
	pairs rankPairs
}

// addChunks appends cs to rank r's stream and pairs its states in open.
func (b *Builder) addChunks(r int, cs [][]Event, open *rankPairs) error {
	rk := &b.t.Ranks[r]
	start, n := len(rk.Events), 0
	for _, c := range cs {
		n += len(c)
	}
	if start+n >= 1<<31-1 {
		return fmt.Errorf("rank %d has more than 2^31 events", r)
	}
	var out []Event
	if len(cs) == 1 && n > 0 && cap(rk.Events)-start >= n && &rk.Events[:start+1][start] == &cs[0][0] {
		// The chunk is the room after the stream (a reader that decoded
		// a rank in place, SetEvents): appending it would copy it onto
		// itself, a pass over the whole trace for nothing.
		out = rk.Events[:start+n]
	} else {
		out = slices.Grow(rk.Events, n)
		for _, c := range cs {
			out = append(out, c...)
		}
	}
	// Grow rounds the stream up to an allocation size (1433 events for
	// 1320 at Go 1.26): room that Finish would take for spare capacity
	// and copy the stream to shed, the whole trace at a few thousand
	// events a rank. The room is cleared memory no append will use.
	out = slices.Clip(out)
	rk.Events = out
	for i := start; i < len(out); i++ {
		out[i].Match = -1
		open.pair(b.pairing, out, i)
	}
	return nil
}

// denseStates is how many state ids get their open lists in a slice per
// rank: traces use few states, and a slice of them all for a format with
// thousands (user states) would cost more than it saves.
const denseStates = 64

// rankPairs holds one rank's open enters per state: a leave takes the
// newest (a stack) or the oldest (a queue from head), so that pairing
// costs O(1) however deep the nesting. The lists of the first denseStates
// states sit in a slice (index, no hashing); sparse holds the others.
type rankPairs struct {
	dense  []openList
	sparse map[StateID]*openList
	// last caches the list of the latest lookup: a leave usually closes
	// the state its rank entered just before.
	lastState StateID
	last      *openList
}

// isZero reports whether p holds no lists at all.
func (p *rankPairs) isZero() bool { return p.dense == nil && p.sparse == nil }

// anyOpen reports whether an enter is still open in p.
func (p *rankPairs) anyOpen() bool {
	for i := range p.dense {
		if l := &p.dense[i]; l.head < len(l.index) {
			return true
		}
	}
	for _, l := range p.sparse {
		if l.head < len(l.index) {
			return true
		}
	}
	return false
}

// reset empties p's lists, keeping their room, for the next rank.
func (p *rankPairs) reset() {
	for i := range p.dense {
		p.dense[i].index, p.dense[i].head = p.dense[i].index[:0], 0
	}
	if len(p.sparse) > 0 {
		clear(p.sparse)
	}
	p.lastState, p.last = 0, nil
}

// pair pairs event i of the rank's stream ev with the open enters when
// it is an enter or a leave.
func (p *rankPairs) pair(rule Pairing, ev []Event, i int) {
	e := &ev[i]
	switch e.Kind {
	case KindEnter:
		l := p.list(e.State())
		l.index = append(l.index, int32(i))
	case KindLeave:
		if j := p.close(rule, e.State()); j >= 0 {
			e.Match = j
			ev[j].Match = int32(i)
		}
	}
}

// list returns the open enters of state s.
func (p *rankPairs) list(s StateID) *openList {
	if p.last != nil && p.lastState == s {
		return p.last
	}
	var l *openList
	// A negative id (a reader's bad input, refused by Validate in
	// Finish) goes to the map.
	if uint32(s) < denseStates {
		if int(s) >= len(p.dense) {
			// Moving the lists is safe: the only pointer kept to one,
			// last, is replaced below.
			p.dense = slices.Grow(p.dense, int(s)+1-len(p.dense))[:s+1]
		}
		l = &p.dense[s]
	} else {
		if l = p.sparse[s]; l == nil {
			if p.sparse == nil {
				p.sparse = map[StateID]*openList{}
			}
			l = &openList{}
			p.sparse[s] = l
		}
	}
	p.lastState, p.last = s, l
	return l
}

// close removes and returns the index of the open enter of state s that
// a leave closes under rule, or -1.
func (p *rankPairs) close(rule Pairing, s StateID) int32 {
	l := p.list(s)
	if l.head == len(l.index) {
		return -1
	}
	var idx int32
	if rule == PairOldest {
		idx = l.index[l.head]
		l.head++
	} else {
		idx = l.index[len(l.index)-1]
		l.index = l.index[:len(l.index)-1]
	}
	if l.head == len(l.index) {
		// Empty: reuse the storage from the start, so that a queue that
		// drains now and then does not grow without bound.
		l.index, l.head = l.index[:0], 0
	}
	return idx
}

// RankBuilder assembles one rank's stream, pairing enters with leaves as
// Builder.Add does, so that a reader can build its ranks on goroutines of
// their own and hand each stream to the Builder (SetEvents) in rank order.
type RankBuilder struct {
	rank    int
	pairing Pairing
	ev      []Event
	open    rankPairs
}

// NewRankBuilder returns a builder of rank r's stream (r names the rank in
// errors) that pairs leaves with enters by rule p.
func NewRankBuilder(r int, p Pairing) *RankBuilder {
	return &RankBuilder{rank: r, pairing: p}
}

// Grow reserves room for n more events.
func (rb *RankBuilder) Grow(n int) {
	if n > 0 {
		rb.ev = slices.Grow(rb.ev, n)
	}
}

// Add appends e to the stream and returns its index there, pairing it
// when it is an enter or a leave.
func (rb *RankBuilder) Add(e Event) (int, error) {
	i := len(rb.ev)
	if i >= 1<<31-1 {
		return 0, fmt.Errorf("rank %d has more than 2^31 events", rb.rank)
	}
	e.Match = -1
	rb.ev = append(rb.ev, e)
	rb.open.pair(rb.pairing, rb.ev, i)
	return i, nil
}

// Events returns the stream built so far. Its events may be changed in
// place (a reader filling in a placeholder, or renumbering states one to
// one); an enter or leave was paired when it was added.
func (rb *RankBuilder) Events() []Event { return rb.ev }

// Finish trims spare capacity, validates the trace, matches its messages
// (unless SkipMessageMatching) and returns it; a lazy builder first checks its world (CheckWorld). The builder must not be used afterwards.
func (b *Builder) Finish() (*Trace, error) {
	if b.lazy {
		withEvents := 0
		for i := range b.t.Ranks {
			if len(b.t.Ranks[i].Events) > 0 {
				withEvents++
			}
		}
		if err := CheckWorld(b.world, withEvents); err != nil {
			return nil, err
		}
		b.allRanks()
	}
	t := b.t
	b.t, b.open = nil, nil
	// Shrinking rank by rank bounds the extra memory to one rank's
	// stream a worker rather than the whole trace.
	forRanks(len(t.Ranks), t.rankWorkers(), func(_, r int) {
		ev := t.Ranks[r].Events
		if cap(ev)-len(ev) > len(ev)/32 {
			t.Ranks[r].Events = slices.Clone(ev)
		}
	})
	if err := t.validate(!b.recorded); err != nil {
		return nil, err
	}
	return t, nil
}
