package tracefmt

import (
	"cmp"
	"slices"
)

// MessageTime is the second time a format records for a send or receive
// besides the event's own Time. Paraver stamps every message four times:
// the send call (logical send) and the moment the data left (physical
// send), the receive's posting (logical receive) and the moment the data
// arrived (physical receive). A KindSend event stands at the send call and
// a KindRecv event at the arrival, so what the model keeps besides is, for
// a send, its physical send time and, for a receive, its posting time.
//
// Delta is that time minus the event's Time rather than the time itself,
// so that it moves with its event when clocks are shifted or corrected:
// a send's data leaves Delta ≥ 0 after the call; a receive was posted
// −Delta ≥ 0 before the data arrived.
type MessageTime struct {
	// Event is the send or receive.
	Event EventRef
	// Delta is the other time minus the event's Time.
	Delta float64
}

// compareRefs orders event references by rank, then index.
func compareRefs(a, b EventRef) int {
	if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
		return c
	}
	return cmp.Compare(a.Index, b.Index)
}

// SetMessageTimes sets t.MessageTimes to m sorted by event, without the
// entries whose Delta is zero (the event's own time says it all). An
// event has one entry: of several, the last is kept. A reader that hands
// them over in order (rank, then stream) costs one pass.
func (t *Trace) SetMessageTimes(m []MessageTime) {
	m = slices.DeleteFunc(m, func(x MessageTime) bool { return x.Delta == 0 })
	byEvent := func(a, b MessageTime) int { return compareRefs(a.Event, b.Event) }
	if !slices.IsSortedFunc(m, byEvent) {
		slices.SortStableFunc(m, byEvent)
	}
	// Of repeated events the last stands.
	out := m[:0]
	for i, x := range m {
		if i+1 < len(m) && m[i+1].Event == x.Event {
			continue
		}
		out = append(out, x)
	}
	m = out
	if len(m) == 0 {
		m = nil
	}
	t.MessageTimes = m
}

// messageDelta returns the Delta recorded for ref, or 0.
func (t *Trace) messageDelta(ref EventRef) float64 {
	if len(t.MessageTimes) == 0 {
		return 0
	}
	i, ok := slices.BinarySearchFunc(t.MessageTimes, ref, func(m MessageTime, r EventRef) int { return compareRefs(m.Event, r) })
	if !ok {
		return 0
	}
	return t.MessageTimes[i].Delta
}

// SendDelay returns how long after the send call at ref the message's
// data left (physical send − logical send): 0 unless the format recorded
// both times.
func (t *Trace) SendDelay(send EventRef) float64 { return t.messageDelta(send) }

// PhysicalSend returns when the data of the send at ref left: the event's
// time plus its SendDelay. The clock condition and the Timeline's arrows
// are about this time and the receive event's (the arrival).
func (t *Trace) PhysicalSend(send EventRef) float64 {
	return t.Event(send).Time + t.messageDelta(send)
}

// PostedAt returns when the receive at ref was posted (Paraver's logical
// receive): the event's time, the arrival, unless the format recorded an
// earlier posting.
func (t *Trace) PostedAt(recv EventRef) float64 {
	return t.Event(recv).Time + t.messageDelta(recv)
}

// MessageTimesOf returns the entries of t.MessageTimes on rank r, in
// stream order.
func (t *Trace) MessageTimesOf(r int) []MessageTime {
	m := t.MessageTimes
	lo, _ := slices.BinarySearchFunc(m, int32(r), func(x MessageTime, r int32) int { return cmp.Compare(x.Event.Rank, r) })
	hi, _ := slices.BinarySearchFunc(m, int32(r)+1, func(x MessageTime, r int32) int { return cmp.Compare(x.Event.Rank, r) })
	return m[lo:hi]
}

// remapMessageTimes renumbers the events of t.MessageTimes with the index
// maps of the ranks whose streams changed (nil for the others; -1 for a
// removed event, whose entry goes).
func (t *Trace) remapMessageTimes(newIdx [][]int32) {
	out := t.MessageTimes[:0]
	for _, m := range t.MessageTimes {
		if r := int(m.Event.Rank); r < len(newIdx) && newIdx[r] != nil && int(m.Event.Index) < len(newIdx[r]) {
			m.Event.Index = newIdx[r][m.Event.Index]
			if m.Event.Index < 0 {
				continue
			}
		}
		out = append(out, m)
	}
	clear(t.MessageTimes[len(out):])
	t.MessageTimes = out
}
