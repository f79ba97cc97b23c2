package simgridti

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// describe renders an event compactly for assertions: every field that
// the TI format determines appears in it.
func describe(t *tracefmt.Trace, e *tracefmt.Event) string {
	var b strings.Builder
	flag := func(f tracefmt.Flags, s string) {
		if e.Flags.Has(f) {
			b.WriteString(" " + s)
		}
	}
	switch e.Kind {
	case tracefmt.KindSend:
		fmt.Fprintf(&b, "send>%d t%d %dB", e.Peer, e.Tag, e.Size)
	case tracefmt.KindRecv:
		fmt.Fprintf(&b, "recv<%d t%d %dB", e.Peer, e.Tag, e.Size)
		flag(tracefmt.FlagAnySource, "any-src")
		flag(tracefmt.FlagAnyTag, "any-tag")
	case tracefmt.KindWait:
		switch {
		case e.Flags.Has(tracefmt.FlagAll):
			return "waitall"
		case e.Flags.Has(tracefmt.FlagTest):
			return fmt.Sprintf("test req%d", e.Request())
		}
		return fmt.Sprintf("wait req%d", e.Request())
	case tracefmt.KindCollective:
		return fmt.Sprintf("%s root%d %d/%d", e.Op(), e.Root(), e.Size, e.RecvBytes())
	case tracefmt.KindCompute:
		if e.Flags.Has(tracefmt.FlagWork) {
			return fmt.Sprintf("compute %gf", e.Amount())
		}
		return fmt.Sprintf("sleep %gs", e.Amount())
	case tracefmt.KindMarker:
		return fmt.Sprintf("marker %s %q", t.Markers[e.Marker()].Name, t.Text(e))
	default:
		return e.Kind.String()
	}
	if e.IsP2P() {
		flag(tracefmt.FlagNonBlocking, "nb")
		flag(tracefmt.FlagSync, "sync")
		flag(tracefmt.FlagSendrecv, "sr")
		if e.Request() > 0 {
			fmt.Fprintf(&b, " req%d", e.Request())
		}
	}
	return b.String()
}

// actionsOnly returns a copy of t without the states Read wraps around
// each action, for tests of what the actions themselves become.
func actionsOnly(t *tracefmt.Trace) *tracefmt.Trace {
	c := t.Clone()
	c.Remove(func(_ int, e *tracefmt.Event) bool {
		return e.Kind == tracefmt.KindEnter || e.Kind == tracefmt.KindLeave
	})
	return c
}

// describeRanks renders every rank's events but the action states (see
// TestActionStates for those).
func describeRanks(t *tracefmt.Trace) [][]string {
	t = actionsOnly(t)
	out := make([][]string, t.Size())
	for r := range t.Ranks {
		out[r] = []string{}
		for i := range t.Ranks[r].Events {
			out[r] = append(out[r], describe(t, &t.Ranks[r].Events[i]))
		}
	}
	return out
}

func readString(t *testing.T, s string) (*tracefmt.Trace, error) {
	t.Helper()
	return Read(strings.NewReader(s), nil)
}

func mustRead(t *testing.T, s string) *tracefmt.Trace {
	t.Helper()
	tr, err := readString(t, s)
	if err != nil {
		t.Fatalf("reading:\n%s\nerror: %v", s, err)
	}
	return tr
}

// sameModel reports the first difference between two traces' models:
// world, markers and texts, and every event field except times.
func sameModel(a, b *tracefmt.Trace) error {
	a, b = actionsOnly(a), actionsOnly(b)
	if a.Size() != b.Size() || a.Timed != b.Timed {
		return fmt.Errorf("ranks %d/%d timed %v/%v", a.Size(), b.Size(), a.Timed, b.Timed)
	}
	for r := range a.Ranks {
		ea, eb := a.Ranks[r].Events, b.Ranks[r].Events
		if len(ea) != len(eb) {
			return fmt.Errorf("rank %d: %d events, then %d\n%v\n%v", r, len(ea), len(eb), describeRanks(a)[r], describeRanks(b)[r])
		}
		for i := range ea {
			x, y := ea[i], eb[i]
			dx, dy := describe(a, &x), describe(b, &y)
			if dx != dy || x.Match != y.Match || x.Comm != y.Comm {
				return fmt.Errorf("rank %d event %d: %s (match %d), then %s (match %d)", r, i, dx, x.Match, dy, y.Match)
			}
		}
	}
	return nil
}

// bytesOf writes t as one TI file and returns a reader of the text.
func bytesOf(t *testing.T, tr *tracefmt.Trace, opt WriteOptions) *bytes.Reader {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, tr, opt); err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(buf.Bytes())
}
