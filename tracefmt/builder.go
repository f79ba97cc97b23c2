package tracefmt

import (
	"fmt"
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
	states  map[string]StateID
	markers map[string]MarkerID
	texts   map[string]int
	// open holds, per rank and state, the indices of the enters not yet
	// left: a leave takes the newest (a stack) or the oldest (a queue
	// from head), so that pairing costs O(1) however deep the nesting.
	// The lists of the first denseStates states sit in a slice per rank
	// (index, no hashing); openMap holds those of the others.
	open    [][]openList
	openMap map[openKey]*openList
	// last caches the list of the latest lookup: a leave usually closes
	// the state its rank entered just before.
	lastKey  openKey
	lastList *openList
}

type openKey struct {
	rank  int32
	state StateID
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
	*ev = append(*ev, e)
	b.pair(r, *ev, i)
	return i, nil
}

// pair pairs event i of rank r's stream ev with the open enters when it
// is an enter or a leave.
func (b *Builder) pair(r int, ev []Event, i int) {
	e := &ev[i]
	switch e.Kind {
	case KindEnter:
		l := b.openList(openKey{int32(r), e.State()})
		l.index = append(l.index, int32(i))
	case KindLeave:
		if j := b.closeOpen(r, e.State()); j >= 0 {
			e.Match = j
			ev[j].Match = int32(i)
		}
	}
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

// denseStates is how many state ids get their open lists in a slice per
// rank: traces use few states, and a slice of them all for a format with
// thousands (user states) would cost more than it saves.
const denseStates = 64

// openList returns the open enters of a rank and state.
func (b *Builder) openList(k openKey) *openList {
	if b.lastList != nil && b.lastKey == k {
		return b.lastList
	}
	var l *openList
	// A negative id (a reader's bad input, refused by Validate in
	// Finish) goes to the map.
	if uint32(k.state) < denseStates {
		if int(k.rank) >= len(b.open) {
			b.open = slices.Grow(b.open, int(k.rank)+1-len(b.open))[:k.rank+1]
		}
		lists := b.open[k.rank]
		if int(k.state) >= len(lists) {
			// Moving the lists is safe: the only pointer kept to one,
			// lastList, is replaced below.
			lists = slices.Grow(lists, int(k.state)+1-len(lists))[:k.state+1]
			b.open[k.rank] = lists
		}
		l = &lists[k.state]
	} else {
		if l = b.openMap[k]; l == nil {
			if b.openMap == nil {
				b.openMap = map[openKey]*openList{}
			}
			l = &openList{}
			b.openMap[k] = l
		}
	}
	b.lastKey, b.lastList = k, l
	return l
}

// closeOpen removes and returns the index of the open enter of state s on
// rank r that a leave closes, or -1.
func (b *Builder) closeOpen(r int, s StateID) int32 {
	l := b.openList(openKey{int32(r), s})
	if l.head == len(l.index) {
		return -1
	}
	var idx int32
	if b.pairing == PairOldest {
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

// Finish matches messages, trims spare capacity, validates the trace and
// returns it; a lazy builder first checks its world (CheckWorld). The builder must not be used afterwards.
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
	b.t, b.open, b.openMap, b.lastList = nil, nil, nil, nil
	for i := range t.Ranks {
		// Shrinking rank by rank bounds the extra memory to one rank's
		// stream rather than the whole trace.
		ev := t.Ranks[i].Events
		if cap(ev)-len(ev) > len(ev)/32 {
			t.Ranks[i].Events = slices.Clone(ev)
		}
	}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	MatchMessages(t)
	return t, nil
}
