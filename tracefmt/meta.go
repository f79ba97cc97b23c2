package tracefmt

import "slices"

// MetaRecord is a record of the source file that is no event of the run: a
// state or event definition, a clock shift, a communicator's creation, a
// format's bookkeeping. Readers keep such records out of the event streams,
// so that they neither stretch the trace's span nor count as a rank's
// activity, and keep them in Trace.Meta so that a writer of the same format
// can put them back where they were (WithMeta).
type MetaRecord struct {
	// Rank is the world rank whose stream held the record.
	Rank int32
	// Before is the index, in Rank's events, of the event the record
	// preceded (len(Events) when it followed the last one).
	Before int32
	// Time is the record's timestamp as read (definitions written at
	// finalize carry the time of MPI_Finalize, not of any event).
	Time float64
	// Comm indexes Trace.Comms: the communicator the record was logged on.
	Comm uint16
	// Name says what the record is, e.g. "CLOG2 STATEDEF": the name of
	// the marker it was read as, whose definition Def holds.
	Name string
	Def  MarkerDef
	// Text lists the record's fields as the reader keeps them.
	Text string
}

// Insertion is an event to insert into a rank's stream before the event
// at index Pos (len(Events) appends).
type Insertion struct {
	Pos   int32
	Event Event
}

// Insert inserts events into the ranks' streams: ins[r] lists rank r's in
// increasing Pos order (events with equal Pos keep their order). Matches
// are renumbered; the inserted events' own matches are left as given.
// Streams that get events are reallocated, the others are changed only
// where their matches point into a changed stream. A Meta record keeps
// its place before the event it preceded, after the events inserted
// there (as if it were in the stream).
func (t *Trace) Insert(ins [][]Insertion) {
	newIdx := make([][]int32, len(t.Ranks))
	isNew := make([][]bool, len(t.Ranks))
	for r := range t.Ranks {
		if r >= len(ins) || len(ins[r]) == 0 {
			continue
		}
		add := ins[r]
		ev := t.Ranks[r].Events
		idx := make([]int32, len(ev))
		fresh := make([]bool, 0, len(ev)+len(add))
		out := make([]Event, 0, len(ev)+len(add))
		k := 0
		for i := 0; i <= len(ev); i++ {
			for ; k < len(add) && int(add[k].Pos) <= i; k++ {
				out = append(out, add[k].Event)
				fresh = append(fresh, true)
			}
			if i < len(ev) {
				idx[i] = int32(len(out))
				out = append(out, ev[i])
				fresh = append(fresh, false)
			}
		}
		newIdx[r], isNew[r] = idx, fresh
		t.Ranks[r].Events = out
	}
	for i := range t.Meta {
		m := &t.Meta[i]
		if m.Rank < 0 || int(m.Rank) >= len(newIdx) || newIdx[m.Rank] == nil {
			continue
		}
		if idx := newIdx[m.Rank]; m.Before >= 0 && int(m.Before) < len(idx) {
			m.Before = idx[m.Before]
		} else if int(m.Before) == len(idx) {
			m.Before = int32(len(t.Ranks[m.Rank].Events))
		}
	}
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			if isNew[r] == nil || !isNew[r][i] {
				remapMatch(&ev[i], r, newIdx)
			}
		}
	}
	t.remapMessageTimes(newIdx)
}

// Remove deletes the events for which drop is true from the ranks'
// streams, in place, and renumbers the matches of the others (a match to
// a removed event becomes -1). drop is called once per event, in stream
// order within a rank; on large traces ranks run in parallel, so drop may
// change only what belongs to rank r.
func (t *Trace) Remove(drop func(r int, e *Event) bool) {
	t.removeAt(func(r, _ int, e *Event) bool { return drop(r, e) })
}

// removeAt is Remove with drop given each event's index in its stream.
func (t *Trace) removeAt(drop func(r, i int, e *Event) bool) {
	workers := t.rankWorkers()
	newIdx := make([][]int32, len(t.Ranks))
	forRanks(len(t.Ranks), workers, func(_, r int) {
		ev := t.Ranks[r].Events
		var idx []int32
		k := int32(0)
		for i := range ev {
			if drop(r, i, &ev[i]) {
				if idx == nil {
					idx = make([]int32, len(ev))
					for j := range i {
						idx[j] = int32(j)
					}
				}
				idx[i] = -1
				continue
			}
			if idx != nil {
				idx[i] = k
			}
			k++
		}
		newIdx[r] = idx
	})
	forRanks(len(t.Ranks), workers, func(_, r int) {
		ev := t.Ranks[r].Events
		idx := newIdx[r]
		// In place: an event moves only down, over removed ones, and is
		// renumbered where it lands.
		k := 0
		for i := range ev {
			if idx != nil && idx[i] < 0 {
				continue
			}
			if k != i {
				ev[k] = ev[i]
			}
			remapMatch(&ev[k], r, newIdx)
			k++
		}
		clear(ev[k:])
		t.Ranks[r].Events = ev[:k]
	})
	t.remapMessageTimes(newIdx)
}

// remapMatch renumbers the match of e, an event of rank r, with the index
// maps of the ranks whose streams changed (nil for the others).
func remapMatch(e *Event, r int, newIdx [][]int32) {
	if e.Match < 0 {
		return
	}
	var idx []int32
	switch e.Kind {
	case KindEnter, KindLeave:
		idx = newIdx[r]
	case KindSend, KindRecv:
		if e.Peer >= 0 && int(e.Peer) < len(newIdx) {
			idx = newIdx[e.Peer]
		}
	}
	if idx != nil && int(e.Match) < len(idx) {
		e.Match = idx[e.Match]
	}
}

// MoveToMeta takes the marker events of the markers for which meta is true
// out of the ranks' streams and into t.Meta, removes those marker
// definitions, and renumbers what refers to events and markers (matches,
// marker ids). Readers call it once the trace is built.
func (t *Trace) MoveToMeta(meta func(m *MarkerDef) bool) {
	isMeta := make([]bool, len(t.Markers))
	newID := make([]MarkerID, len(t.Markers))
	var kept []MarkerDef
	for i := range t.Markers {
		if meta(&t.Markers[i]) {
			isMeta[i] = true
			continue
		}
		newID[i] = MarkerID(len(kept))
		kept = append(kept, t.Markers[i])
	}
	if len(kept) == len(t.Markers) {
		return
	}
	// Per rank, as Remove may run ranks in parallel. A record's place is
	// its index less the records taken out before it (each removed event
	// is a record): no count written per event, which the workers on
	// neighbouring ranks would share cache lines for.
	recs := make([][]MetaRecord, len(t.Ranks))
	t.removeAt(func(r, i int, e *Event) bool {
		if e.Kind != KindMarker || e.Peer < 0 || int(e.Peer) >= len(isMeta) {
			return false
		}
		if !isMeta[e.Peer] {
			e.Peer = int32(newID[e.Peer])
			return false
		}
		before := int32(i - len(recs[r]))
		recs[r] = append(recs[r], MetaRecord{Rank: int32(r), Before: before, Time: e.Time, Comm: e.Comm,
			Name: t.Markers[e.Peer].Name, Def: t.Markers[e.Peer], Text: t.Text(e)})
		return true
	})
	for _, m := range recs {
		t.Meta = append(t.Meta, m...)
	}
	t.Markers = kept
}

// Clone returns a copy of t that shares nothing t's methods change: event
// streams and tables are copied.
func (t *Trace) Clone() *Trace {
	c := *t
	c.States = slices.Clone(t.States)
	c.Markers = slices.Clone(t.Markers)
	c.Comms = slices.Clone(t.Comms)
	c.Texts = slices.Clone(t.Texts)
	c.Attrs = slices.Clone(t.Attrs)
	c.Meta = slices.Clone(t.Meta)
	c.MessageTimes = slices.Clone(t.MessageTimes)
	c.Ranks = make([]Rank, len(t.Ranks))
	for r := range t.Ranks {
		c.Ranks[r].Events = slices.Clone(t.Ranks[r].Events)
	}
	return &c
}

// WithMeta returns a copy of t whose streams hold t.Meta's records again,
// as marker events named by their Name with their Text as info text, at
// the places they were read from; the copy has no Meta. Writers of the
// format the records came from call it to reproduce the source. t is not
// changed; without Meta, t itself is returned.
func (t *Trace) WithMeta() *Trace {
	if len(t.Meta) == 0 {
		return t
	}
	c := t.Clone()
	c.Meta = nil
	byName := map[string]MarkerID{}
	for i, m := range c.Markers {
		if _, ok := byName[m.Name]; !ok {
			byName[m.Name] = MarkerID(i)
		}
	}
	texts := map[string]int{}
	ins := make([][]Insertion, len(c.Ranks))
	for _, m := range t.Meta {
		if m.Rank < 0 || int(m.Rank) >= len(ins) {
			continue
		}
		id, ok := byName[m.Name]
		if !ok {
			def := m.Def
			def.Name = m.Name
			id = MarkerID(len(c.Markers))
			c.Markers = append(c.Markers, def)
			byName[m.Name] = id
		}
		e := Mark(m.Time, id)
		e.Comm = m.Comm
		if m.Text != "" {
			ti, ok := texts[m.Text]
			if !ok {
				ti = len(c.Texts)
				c.Texts = append(c.Texts, m.Text)
				texts[m.Text] = ti
			}
			e.SetTextRef(ti)
		}
		ins[m.Rank] = append(ins[m.Rank], Insertion{Pos: m.Before, Event: e})
	}
	for r := range ins {
		slices.SortStableFunc(ins[r], func(a, b Insertion) int { return int(a.Pos) - int(b.Pos) })
	}
	c.Insert(ins)
	return c
}
