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
	t       *Trace
	pairing Pairing
	states  map[string]StateID
	markers map[string]MarkerID
	texts   map[string]int
	open    [][]openState
}

type openState struct {
	state StateID
	index int32
}

// NewBuilder returns a builder for a trace of the given world size, timed
// or not, with times in unit u.
func NewBuilder(ranks int, timed bool, u Unit) *Builder {
	t := &Trace{
		Unit:  u,
		Timed: timed,
		Ranks: make([]Rank, ranks),
		Comms: []Comm{{Name: "MPI_COMM_WORLD"}},
	}
	return &Builder{
		t:       t,
		states:  map[string]StateID{},
		markers: map[string]MarkerID{},
		texts:   map[string]int{},
		open:    make([][]openState, ranks),
	}
}

// Trace returns the trace under construction, for setting metadata
// (Format, Attrs, Comms) directly.
func (b *Builder) Trace() *Trace { return b.t }

// SetPairing chooses how leaves pair with enters; the default is
// PairNewest.
func (b *Builder) SetPairing(p Pairing) { b.pairing = p }

// Grow reserves room for n more events on rank r, for readers that know
// the counts in advance.
func (b *Builder) Grow(r, n int) {
	b.t.Ranks[r].Events = slices.Grow(b.t.Ranks[r].Events, n)
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
	if r < 0 || r >= len(b.t.Ranks) {
		return 0, fmt.Errorf("rank %d outside the world of %d ranks", r, len(b.t.Ranks))
	}
	ev := &b.t.Ranks[r].Events
	i := len(*ev)
	if i >= 1<<31-1 {
		return 0, fmt.Errorf("rank %d has more than 2^31 events", r)
	}
	e.Match = -1
	switch e.Kind {
	case KindEnter:
		b.open[r] = append(b.open[r], openState{e.State(), int32(i)})
	case KindLeave:
		if j := b.closeOpen(r, e.State()); j >= 0 {
			e.Match = j
			(*ev)[j].Match = int32(i)
		}
	}
	*ev = append(*ev, e)
	return i, nil
}

// closeOpen removes and returns the index of the open enter of state s on
// rank r that a leave closes, or -1.
func (b *Builder) closeOpen(r int, s StateID) int32 {
	open := b.open[r]
	k := -1
	if b.pairing == PairOldest {
		for j := 0; j < len(open); j++ {
			if open[j].state == s {
				k = j
				break
			}
		}
	} else {
		for j := len(open) - 1; j >= 0; j-- {
			if open[j].state == s {
				k = j
				break
			}
		}
	}
	if k < 0 {
		return -1
	}
	idx := open[k].index
	b.open[r] = append(open[:k], open[k+1:]...)
	return idx
}

// Finish matches messages, trims spare capacity, validates the trace and
// returns it. The builder must not be used afterwards.
func (b *Builder) Finish() (*Trace, error) {
	t := b.t
	b.t = nil
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
