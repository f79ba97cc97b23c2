package tracefmt

import (
	"fmt"
	"math"
	"strings"
)

// Trace is a message-passing trace: one event stream per rank.
type Trace struct {
	// Format names the format the trace was read from ("tsim", "clog2"...).
	Format string
	// Unit is the unit of every Time and of compute durations.
	Unit Unit
	// Timed is false for traces that carry only order and compute amounts.
	Timed bool
	// States is the state table; Event.State() indexes it.
	States []StateDef
	// Markers is the marker table; Event.Marker() indexes it.
	Markers []MarkerDef
	// Comms lists the communicators; Comms[0] is MPI_COMM_WORLD.
	Comms []Comm
	// Texts holds the info texts attached to enter and marker events.
	Texts []string
	// Ranks holds one stream per world rank; len(Ranks) is the world size.
	Ranks []Rank
	// Attrs keeps format-specific settings (a CLOG2 preamble's block size,
	// a Paraver header) so that a writer of the same format can reproduce
	// the source; other formats ignore them.
	Attrs []Attr
	// Meta keeps the source's records that are not events (definitions,
	// clock shifts, bookkeeping), for a writer of the same format; no
	// analysis looks at them.
	Meta []MetaRecord
	// MessageTimes holds, sorted by event, the sends and receives for
	// which the format recorded a second time (Paraver's physical send,
	// logical receive) that differs from the event's; see MessageTime.
	// Most formats leave it empty. Insert, Remove and Clone keep it.
	MessageTimes []MessageTime
}

// Rank is one process's event stream in recorded order.
type Rank struct {
	Events []Event
}

// Attr is a named, format-specific setting of a trace.
type Attr struct {
	Key, Value string
}

// AttrUnrecordedSources is the trace attribute a reader sets to the
// number of wildcard receives whose sender the format does not record
// (SimGrid's TI "-555"): the senders the reader gave them are a guess,
// and a replay lets them match any sender. A Source that cannot count
// them before its events are read sets it to "" (a replay counts them).
const AttrUnrecordedSources = "unrecorded_sources"

// Attr returns the value of the named attribute and whether it is present.
func (t *Trace) Attr(key string) (string, bool) {
	for _, a := range t.Attrs {
		if a.Key == key {
			return a.Value, true
		}
	}
	return "", false
}

// SetAttr sets the named attribute, replacing an earlier value.
func (t *Trace) SetAttr(key, value string) {
	for i := range t.Attrs {
		if t.Attrs[i].Key == key {
			t.Attrs[i].Value = value
			return
		}
	}
	t.Attrs = append(t.Attrs, Attr{key, value})
}

// Size returns the world size.
func (t *Trace) Size() int { return len(t.Ranks) }

// NumEvents returns the number of events over all ranks.
func (t *Trace) NumEvents() int {
	n := 0
	for i := range t.Ranks {
		n += len(t.Ranks[i].Events)
	}
	return n
}

// Text returns the info text of an enter or marker event ("" when none).
func (t *Trace) Text(e *Event) string {
	if e.Kind != KindEnter && e.Kind != KindMarker {
		return ""
	}
	i := e.TextRef()
	if i < 0 || i >= len(t.Texts) {
		return ""
	}
	return t.Texts[i]
}

// StateName returns the name of state s, or "state N" when s is unknown.
func (t *Trace) StateName(s StateID) string {
	if s >= 0 && int(s) < len(t.States) {
		return t.States[s].Name
	}
	return fmt.Sprintf("state %d", s)
}

// Span returns the earliest and latest timestamps of the trace, in trace
// units. It returns 0, 0 for untimed or empty traces.
func (t *Trace) Span() (start, end float64) {
	if !t.Timed {
		return 0, 0
	}
	start, end = math.Inf(1), math.Inf(-1)
	for i := range t.Ranks {
		ev := t.Ranks[i].Events
		// Per-rank clocks can run backwards in broken traces, so look at
		// every event rather than the first and last.
		for j := range ev {
			x := ev[j].Time
			if x < start {
				start = x
			}
			if x > end {
				end = x
			}
		}
	}
	if start > end {
		return 0, 0
	}
	return start, end
}

// Seconds converts a time or duration in trace units to seconds.
func (t *Trace) Seconds(x float64) float64 { return x * t.Unit.Seconds() }

// StateDef describes a state: an interval a rank spends in an MPI call or a
// user-defined phase.
type StateDef struct {
	Name string
	// Color is the colour as the source wrote it: "#rrggbb", an X11 colour
	// name, or empty (the theme picks one).
	Color    string
	Category Category
	// Format is a printf-like description of the info text attached to the
	// state's enter events (MPE's STATEDEF format), or empty.
	Format string
	// Source holds the identifiers the source format used for this state,
	// kept so that a writer of the same format reproduces them.
	Source SourceIDs
}

// SourceIDs are a state's or marker's identifiers in its source format
// (MPE's state id and start/end event types). Zero values mean none.
type SourceIDs struct {
	ID, Start, End int32
}

// MarkerDef describes a kind of marker event.
type MarkerDef struct {
	Name   string
	Color  string
	Format string
	Source SourceIDs
}

// Comm is a communicator: the world ranks of its members in local-rank
// order.
type Comm struct {
	Name string
	// Ranks maps a local rank to a world rank. For MPI_COMM_WORLD it is the
	// identity and may be left nil.
	Ranks []int32
	// ID is the communicator's identifier in the source format.
	ID int32
}

// World returns the world rank of local rank r in c (r itself when the
// communicator has no explicit map).
func (c *Comm) World(r int) int {
	if c.Ranks == nil || r < 0 || r >= len(c.Ranks) {
		return r
	}
	return int(c.Ranks[r])
}

// Local returns the local rank of world rank w in c, or -1 when w is not a
// member.
func (c *Comm) Local(w int) int {
	if c.Ranks == nil {
		return w
	}
	for i, x := range c.Ranks {
		if int(x) == w {
			return i
		}
	}
	return -1
}

// Category groups states by what a rank is doing in them.
type Category uint8

// State categories.
const (
	CatOther Category = iota
	CatP2P
	CatCollective
	CatWait
	CatCompute
	CatIO
	CatUser
	numCats
)

var catNames = [...]string{
	CatOther:      "other",
	CatP2P:        "p2p",
	CatCollective: "collective",
	CatWait:       "wait",
	CatCompute:    "compute",
	CatIO:         "io",
	CatUser:       "user",
}

// String returns the category's name as used in the tsim format.
func (c Category) String() string {
	if c < numCats {
		return catNames[c]
	}
	return fmt.Sprintf("category(%d)", uint8(c))
}

// ParseCategory returns the category with the given name.
func ParseCategory(s string) (Category, bool) {
	for c := CatOther; c < numCats; c++ {
		if catNames[c] == s {
			return c, true
		}
	}
	return 0, false
}

// IsMPI reports whether states of the category are MPI calls.
func (c Category) IsMPI() bool {
	return c == CatP2P || c == CatCollective || c == CatWait
}

// CategoryOf guesses the category of a state from its name, so that formats
// which name states but do not classify them (MPE, ALOG) still colour and
// count them sensibly.
func CategoryOf(name string) Category {
	n := strings.ToLower(name)
	n = strings.TrimPrefix(n, "mpi_")
	if _, ok := ParseCollOp(n); ok && n != "other" {
		return CatCollective
	}
	switch {
	case strings.HasPrefix(n, "wait"), strings.HasPrefix(n, "test"), n == "probe", n == "iprobe",
		n == "mpe_isend_waited", n == "mpe_irecv_waited":
		return CatWait
	case strings.HasPrefix(n, "send"), strings.HasPrefix(n, "recv"), strings.HasPrefix(n, "isend"),
		strings.HasPrefix(n, "irecv"), strings.HasPrefix(n, "ssend"), strings.HasPrefix(n, "bsend"),
		strings.HasPrefix(n, "rsend"), strings.HasPrefix(n, "issend"), strings.HasPrefix(n, "ibsend"),
		strings.HasPrefix(n, "irsend"), strings.HasPrefix(n, "sendrecv"), strings.HasPrefix(n, "start"):
		return CatP2P
	case strings.HasPrefix(n, "reduce_scatter"), strings.HasPrefix(n, "allgather"),
		strings.HasPrefix(n, "alltoall"), strings.HasPrefix(n, "ibarrier"), strings.HasPrefix(n, "iallreduce"),
		strings.HasPrefix(n, "ibcast"):
		return CatCollective
	case strings.HasPrefix(n, "file_"), strings.Contains(n, "write2disk"), n == "io", n == "read", n == "write":
		return CatIO
	case n == "compute", n == "computation", n == "cpu", n == "calc", strings.HasPrefix(n, "compute"):
		return CatCompute
	case strings.HasPrefix(strings.ToLower(name), "mpi_"):
		return CatOther
	}
	return CatUser
}

// Unit is a time unit, a power of ten of a second.
type Unit int8

// Time units.
const (
	Second      Unit = 0
	Millisecond Unit = -3
	Microsecond Unit = -6
	Nanosecond  Unit = -9
	Picosecond  Unit = -12
)

// Seconds returns the length of the unit in seconds.
func (u Unit) Seconds() float64 { return math.Pow10(int(u)) }

// String returns the unit's symbol ("s", "ms", "us", "ns", "ps").
func (u Unit) String() string {
	switch u {
	case Second:
		return "s"
	case Millisecond:
		return "ms"
	case Microsecond:
		return "us"
	case Nanosecond:
		return "ns"
	case Picosecond:
		return "ps"
	}
	return fmt.Sprintf("1e%ds", int8(u))
}

// ParseUnit returns the unit with the given symbol.
func ParseUnit(s string) (Unit, bool) {
	switch s {
	case "s":
		return Second, true
	case "ms":
		return Millisecond, true
	case "us", "µs":
		return Microsecond, true
	case "ns":
		return Nanosecond, true
	case "ps":
		return Picosecond, true
	}
	return 0, false
}

// EventRef names one event of a trace.
type EventRef struct {
	Rank  int32
	Index int32
}

// Event returns the referenced event.
func (t *Trace) Event(r EventRef) *Event { return &t.Ranks[r.Rank].Events[r.Index] }

// Validate checks the references inside the trace: ranks, communicators,
// states, markers, texts and matches. Readers call it through the Builder;
// code that edits a trace can call it to find mistakes.
func (t *Trace) Validate() error { return t.validate(false) }

// matchesBack reports whether the message event e, event i of rank r,
// whose Match is set, is its partner's partner.
func (t *Trace) matchesBack(e *Event, r, i int) bool {
	pe := t.Ranks[e.Peer].Events
	if uint(int(e.Match)) >= uint(len(pe)) {
		return false
	}
	o := &pe[e.Match]
	return o.Match == int32(i) && int(o.Peer) == r
}

// eventError returns what is wrong with event i of rank r, or nil: the
// checks of validateRank, one event at a time, in the order that gives the
// first problem its message.
func (t *Trace) eventError(r, i int) error {
	p := len(t.Ranks)
	ev := t.Ranks[r].Events
	e := &ev[i]
	if int(e.Comm) >= len(t.Comms) {
		return badEvent(r, i, e.Kind, "communicator %d not defined", e.Comm)
	}
	switch e.Kind {
	case KindEnter, KindLeave:
		if e.Peer < 0 || int(e.Peer) >= len(t.States) {
			return badEvent(r, i, e.Kind, "state %d not defined", e.Peer)
		}
		if e.Kind == KindEnter && e.TextRef() >= len(t.Texts) {
			return badEvent(r, i, e.Kind, "text %d not defined", e.TextRef())
		}
		if m := int(e.Match); m >= 0 {
			if m >= len(ev) {
				return badEvent(r, i, e.Kind, "state pairing broken")
			}
			if o := &ev[m]; o.Match != int32(i) || o.Peer != e.Peer {
				return badEvent(r, i, e.Kind, "state pairing broken")
			}
		}
	case KindSend, KindRecv:
		if e.Peer < 0 || int(e.Peer) >= p {
			return badEvent(r, i, e.Kind, "peer %d outside 0..%d", e.Peer, p-1)
		}
		if e.Size < 0 {
			return badEvent(r, i, e.Kind, "negative size %d", e.Size)
		}
		if e.Match >= 0 {
			pe := t.Ranks[e.Peer].Events
			if int(e.Match) >= len(pe) || pe[e.Match].Match != int32(i) || int(pe[e.Match].Peer) != r {
				return badEvent(r, i, e.Kind, "message match broken")
			}
		}
	case KindCollective:
		if e.Peer < -1 || int(e.Peer) >= p {
			return badEvent(r, i, e.Kind, "root %d outside 0..%d", e.Peer, p-1)
		}
		if e.Size < 0 || e.RecvBytes() < 0 {
			return badEvent(r, i, e.Kind, "negative size")
		}
	case KindMarker:
		if e.Peer < 0 || int(e.Peer) >= len(t.Markers) {
			return badEvent(r, i, e.Kind, "marker %d not defined", e.Peer)
		}
		if e.TextRef() >= len(t.Texts) {
			return badEvent(r, i, e.Kind, "text %d not defined", e.TextRef())
		}
	case KindCompute:
		if a := e.Amount(); a < 0 || math.IsNaN(a) || math.IsInf(a, 0) {
			return badEvent(r, i, e.Kind, "compute amount %v", a)
		}
	case KindWait:
	default:
		return badEvent(r, i, e.Kind, "unknown kind")
	}
	return nil
}

// badEvent is the error of validateRank about event i of rank r.
func badEvent(r, i int, k Kind, format string, args ...any) error {
	return &EventError{Rank: r, Index: i, Kind: k, Msg: fmt.Sprintf(format, args...)}
}

// EventError is Validate's error about one event: a reader that knows
// where the rank's events came from (a file, a location) can say so.
type EventError struct {
	Rank, Index int // the event's rank and its index in the rank's stream
	Kind        Kind
	Msg         string // what is wrong with it
}

func (e *EventError) Error() string {
	return fmt.Sprintf("rank %d event %d (%s): %s", e.Rank, e.Index, e.Kind, e.Msg)
}
