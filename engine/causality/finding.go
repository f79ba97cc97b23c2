package causality

import (
	"fmt"

	"github.com/tracesim/tracesim/tracefmt"
)

// Kind says what a finding is about.
type Kind uint8

// Finding kinds. The order is the order reports list them in.
const (
	// KindReversal is a message received before it was sent:
	// t(recv) < t(send).
	KindReversal Kind = iota
	// KindLatency is a message received later than it was sent but sooner
	// than the minimum latency allows: t(send) ≤ t(recv) < t(send) + l_min.
	// Only reported when l_min > 0.
	KindLatency
	// KindCollective is a collective whose exit comes before the enters it
	// depends on (plus l_min): N×N, 1×N or N×1 (tracefmt.Shape).
	KindCollective
	// KindBackwards is a rank whose clock runs backwards: an event stamped
	// earlier than the event before it.
	KindBackwards
	// KindUnmatchedSend is a send no receive matches (the trace ends, or
	// its window starts, inside the communication; lost records).
	KindUnmatchedSend
	// KindUnmatchedRecv is a receive no send matches.
	KindUnmatchedRecv
	// KindTagMismatch is an unmatched receive and an unmatched send
	// between the same ranks on the same communicator that differ only by
	// their tag.
	KindTagMismatch
	// KindSizeMismatch is a matched message whose receive reports a
	// different size than its send.
	KindSizeMismatch
	// KindCollectiveMismatch is a collective call that the members of a
	// communicator do not agree on: a rank calls another operation or
	// root, or has fewer collective calls than the others.
	KindCollectiveMismatch
	// KindDeadlock is a causal replay of the trace that stopped with ranks
	// blocked: the trace cannot be replayed as recorded.
	KindDeadlock
	// KindWildcard is a receive posted with MPI_ANY_SOURCE or MPI_ANY_TAG:
	// another run may match another message.
	KindWildcard
	// KindNondeterministic is a call whose outcome depends on timing
	// (MPI_Test*, MPI_Waitany, MPI_Waitsome, MPI_Iprobe).
	KindNondeterministic
	// NumKinds is the number of finding kinds.
	NumKinds
)

var kindNames = [...]string{
	KindReversal:           "reversal",
	KindLatency:            "latency",
	KindCollective:         "collective",
	KindBackwards:          "backwards",
	KindUnmatchedSend:      "unmatched-send",
	KindUnmatchedRecv:      "unmatched-recv",
	KindTagMismatch:        "tag-mismatch",
	KindSizeMismatch:       "size-mismatch",
	KindCollectiveMismatch: "collective-mismatch",
	KindDeadlock:           "deadlock",
	KindWildcard:           "wildcard",
	KindNondeterministic:   "nondeterministic",
}

// String returns the kind's name as the CLI and JSON output spell it.
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind returns the kind with the given name.
func ParseKind(s string) (Kind, bool) {
	for k := range NumKinds {
		if kindNames[k] == s {
			return k, true
		}
	}
	return 0, false
}

// MarshalText implements encoding.TextMarshaler, so that kinds are names
// in JSON (also as map keys).
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (k *Kind) UnmarshalText(b []byte) error {
	x, ok := ParseKind(string(b))
	if !ok {
		return fmt.Errorf("causality: unknown finding kind %q", b)
	}
	*k = x
	return nil
}

// Class groups kinds by what can be done about them.
type Class uint8

// Finding classes.
const (
	// ClassClock findings break the clock condition; Correct removes
	// them.
	ClassClock Class = iota
	// ClassDefect findings are structural problems of the trace that no
	// timestamp correction removes.
	ClassDefect
	// ClassNote findings are legitimate but worth knowing: they make a
	// replay depend on timing.
	ClassNote
)

// String returns the class name ("clock", "defect", "note").
func (c Class) String() string {
	switch c {
	case ClassClock:
		return "clock"
	case ClassDefect:
		return "defect"
	case ClassNote:
		return "note"
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Class returns the class of the kind.
func (k Kind) Class() Class {
	switch k {
	case KindReversal, KindLatency, KindCollective, KindBackwards:
		return ClassClock
	case KindWildcard, KindNondeterministic:
		return ClassNote
	}
	return ClassDefect
}

// Violation reports whether findings of the kind are violations (clock
// condition or defects) rather than notes: `tracesim check` exits 3 when
// it finds any.
func (k Kind) Violation() bool { return k.Class() != ClassNote }

// AmountUnit returns the unit of Finding.Amount for the kind: "s" for
// clock findings, "B" for size mismatches, "" when the amount is unused.
func (k Kind) AmountUnit() string {
	switch k.Class() {
	case ClassClock:
		return "s"
	}
	if k == KindSizeMismatch {
		return "B"
	}
	return ""
}

// NoEvent marks an unused entry of Finding.Events.
var NoEvent = tracefmt.EventRef{Rank: -1, Index: -1}

// Finding is one problem found in a trace. It holds no pointers, so
// that a report of millions of findings costs the garbage collector
// nothing; Report.Detail describes it in words.
type Finding struct {
	Kind Kind
	// note is 1 + the index of the finding's text in Report.notes, 0
	// when Report.Detail derives the text from the trace.
	note int32
	// Events are the events involved, cause first: the send then the
	// receive of a message, the latest enter then the exit of a
	// collective, the earlier then the later event of a clock that runs
	// backwards, the first member's call then the disagreeing one of a
	// collective mismatch, the two first ranks of a deadlock where they
	// are blocked. Findings about one event leave Events[1] as NoEvent.
	Events [2]tracefmt.EventRef
	// Times are the events' timestamps in seconds (0 for NoEvent and in
	// untimed traces).
	Times [2]float64
	// Amount measures the finding: for clock findings the time by which
	// the condition fails in seconds (t(send) + l_min − t(recv) for a
	// message), for size mismatches the bytes received minus the bytes
	// sent; 0 otherwise. See Kind.AmountUnit.
	Amount float64
}

// Ranks returns the ranks of the finding's events, without repeats.
func (f *Finding) Ranks() []int {
	var out []int
	for _, e := range f.Events {
		if e.Rank >= 0 && !containsInt(out, int(e.Rank)) {
			out = append(out, int(e.Rank))
		}
	}
	return out
}

func containsInt(s []int, x int) bool {
	for _, y := range s {
		if y == x {
			return true
		}
	}
	return false
}

// EventJSON is an event of a finding as the JSON output shows it.
type EventJSON struct {
	Rank  int32   `json:"rank"`
	Index int32   `json:"index"`
	Time  float64 `json:"time_s"`
}

// FindingJSON is a finding as the JSON output shows it (documented in
// docs/causality.md).
type FindingJSON struct {
	Kind   Kind        `json:"kind"`
	Class  string      `json:"class"`
	Ranks  []int       `json:"ranks"`
	Events []EventJSON `json:"events"`
	Amount float64     `json:"amount"`
	Unit   string      `json:"unit"`
	Detail string      `json:"detail"`
}
