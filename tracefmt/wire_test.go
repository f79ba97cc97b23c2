package tracefmt

import (
	"testing"
)

// TestMessageTimes: a message's physical send and posted receive read
// back through the accessors, and follow their events when streams are
// renumbered (Insert, Remove, MoveToMeta) or copied (Clone).
func TestMessageTimes(t *testing.T) {
	send, recv := EventRef{Rank: 0, Index: 2}, EventRef{Rank: 1, Index: 1}
	setup := func(t *testing.T) *Trace {
		tr := metaTrace(t)
		// The data left 0.25 after the send call at 1.5; the receive
		// was posted 2 before the arrival at 3.
		tr.SetMessageTimes([]MessageTime{{Event: recv, Delta: -2}, {Event: EventRef{Rank: 0, Index: 0}, Delta: 0}, {Event: send, Delta: 0.25}})
		return tr
	}
	type want struct {
		send, recv       EventRef
		physical, posted float64
	}
	tests := []struct {
		name   string
		change func(tr *Trace) *Trace
		want   want
	}{
		{"as set", func(tr *Trace) *Trace { return tr }, want{send, recv, 1.75, 1}},
		{"clone", func(tr *Trace) *Trace { return tr.Clone() }, want{send, recv, 1.75, 1}},
		{"insert before both", func(tr *Trace) *Trace {
			tr.Insert([][]Insertion{{{Pos: 0, Event: Mark(0, 1)}}, {{Pos: 0, Event: Mark(0, 1)}, {Pos: 1, Event: Mark(0, 1)}}})
			return tr
		}, want{EventRef{Rank: 0, Index: 3}, EventRef{Rank: 1, Index: 3}, 1.75, 1}},
		{"metadata moved out", func(tr *Trace) *Trace {
			tr.MoveToMeta(func(m *MarkerDef) bool { return m.Name == "X STATEDEF" })
			return tr
		}, want{EventRef{Rank: 0, Index: 1}, EventRef{Rank: 1, Index: 0}, 1.75, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.change(setup(t))
			if len(tr.MessageTimes) != 2 {
				t.Fatalf("%d message times, want 2 (the zero delta dropped): %v", len(tr.MessageTimes), tr.MessageTimes)
			}
			if e := tr.Event(tc.want.send); e.Kind != KindSend || e.Match != tc.want.recv.Index {
				t.Fatalf("event %v is %v matching %d, want the send", tc.want.send, e.Kind, e.Match)
			}
			if got := tr.PhysicalSend(tc.want.send); got != tc.want.physical {
				t.Errorf("physical send %g, want %g", got, tc.want.physical)
			}
			if got := tr.SendDelay(tc.want.send); got != 0.25 {
				t.Errorf("send delay %g, want 0.25", got)
			}
			if got := tr.PostedAt(tc.want.recv); got != tc.want.posted {
				t.Errorf("receive posted at %g, want %g", got, tc.want.posted)
			}
			if got := tr.MessageTimesOf(1); len(got) != 1 || got[0].Event != tc.want.recv {
				t.Errorf("rank 1's message times %v, want the receive's", got)
			}
		})
	}
	t.Run("removed send", func(t *testing.T) {
		tr := setup(t)
		tr.Remove(func(r int, e *Event) bool { return e.Kind == KindSend })
		if len(tr.MessageTimes) != 1 || tr.MessageTimes[0].Event != recv {
			t.Errorf("message times %v, want only the receive's", tr.MessageTimes)
		}
	})
	t.Run("unsorted, an event twice", func(t *testing.T) {
		tr := metaTrace(t)
		tr.SetMessageTimes([]MessageTime{{Event: recv, Delta: -1}, {Event: send, Delta: 0.5}, {Event: recv, Delta: -2}})
		want := []MessageTime{{Event: send, Delta: 0.5}, {Event: recv, Delta: -2}}
		if len(tr.MessageTimes) != 2 || tr.MessageTimes[0] != want[0] || tr.MessageTimes[1] != want[1] {
			t.Errorf("message times %v, want %v (sorted, the last of the receive's)", tr.MessageTimes, want)
		}
	})
	t.Run("none recorded", func(t *testing.T) {
		tr := metaTrace(t)
		if got := tr.PhysicalSend(send); got != 1.5 {
			t.Errorf("physical send %g, want the call's 1.5", got)
		}
		if got := tr.PostedAt(recv); got != 3 {
			t.Errorf("posted at %g, want the arrival's 3", got)
		}
	})
}
