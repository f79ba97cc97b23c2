package tracefmt

// Correspondence pairs the events of two traces of one program, such as a
// recorded run and its simulated replay, which have the same ranks but not
// the same events: the replay adds a state per CPU burst, the messages of
// expanded collectives and states named after the calls of untimed
// traces.
//
// Events are paired by rank and call order, never by position: on each
// rank, the k-th entry into a state of a given name in one trace stands
// for the k-th entry into a state of that name in the other (and their
// leaves for each other), the k-th send to a given peer, tag and
// communicator for the k-th such send, the k-th receive likewise, and the
// k-th collective event of an operation and communicator for the k-th such
// one. Messages inside a state of the collective category are a
// collective's own traffic, which only one of the traces may show: they
// take no part. Events without a counterpart (compute bursts, markers, a
// call only one trace has) stay unpaired.
type Correspondence struct {
	// ab[r][i] is the index on rank r of b's counterpart of a's event i,
	// -1 for none; ba the other way.
	ab, ba [][]int32
}

// callKey identifies a kind of call on one rank, whose occurrences are
// paired in order.
type callKey struct {
	kind Kind
	peer int32
	tag  int32
	comm uint16
	name string
}

// Correspond pairs the events of a and b (see Correspondence). Ranks that
// only one trace has stay unpaired. Its cost is linear in the number of
// events.
func Correspond(a, b *Trace) *Correspondence {
	c := &Correspondence{ab: make([][]int32, len(a.Ranks)), ba: make([][]int32, len(b.Ranks))}
	for r := range a.Ranks {
		c.ab[r] = unpaired(len(a.Ranks[r].Events))
	}
	for r := range b.Ranks {
		c.ba[r] = unpaired(len(b.Ranks[r].Events))
	}
	for r := range min(len(a.Ranks), len(b.Ranks)) {
		// b's calls by key, in order; a's occurrences then take them in
		// turn.
		calls := map[callKey][]int32{}
		eachCall(b, r, func(i int32, k callKey) { calls[k] = append(calls[k], i) })
		ea, eb := a.Ranks[r].Events, b.Ranks[r].Events
		eachCall(a, r, func(i int32, k callKey) {
			list := calls[k]
			if len(list) == 0 {
				return
			}
			j := list[0]
			calls[k] = list[1:]
			c.ab[r][i], c.ba[r][j] = j, i
			if ea[i].Kind == KindEnter && ea[i].Match >= 0 && eb[j].Match >= 0 {
				c.ab[r][ea[i].Match], c.ba[r][eb[j].Match] = eb[j].Match, ea[i].Match
			}
		})
	}
	return c
}

func unpaired(n int) []int32 {
	s := make([]int32, n)
	for i := range s {
		s[i] = -1
	}
	return s
}

// eachCall calls fn with the events of rank r that take part in the
// pairing, and their keys, in order.
func eachCall(t *Trace, r int, fn func(i int32, k callKey)) {
	// depth counts the collective states open around the current event.
	depth := 0
	for i := range t.Ranks[r].Events {
		e := &t.Ranks[r].Events[i]
		switch e.Kind {
		case KindEnter:
			name := t.StateName(e.State())
			if int(e.State()) < len(t.States) && t.States[e.State()].Category == CatCollective {
				depth++
			}
			fn(int32(i), callKey{kind: KindEnter, name: name})
		case KindLeave:
			if int(e.State()) < len(t.States) && t.States[e.State()].Category == CatCollective && depth > 0 {
				depth--
			}
		case KindSend, KindRecv:
			if depth == 0 {
				fn(int32(i), callKey{kind: e.Kind, peer: e.Peer, tag: e.Tag, comm: e.Comm})
			}
		case KindCollective:
			fn(int32(i), callKey{kind: KindCollective, tag: e.Tag, comm: e.Comm})
		}
	}
}

// AtoB returns b's counterpart of a's event ref, and whether it has one.
func (c *Correspondence) AtoB(ref EventRef) (EventRef, bool) { return lookup(c.ab, ref) }

// BtoA returns a's counterpart of b's event ref, and whether it has one.
func (c *Correspondence) BtoA(ref EventRef) (EventRef, bool) { return lookup(c.ba, ref) }

func lookup(m [][]int32, ref EventRef) (EventRef, bool) {
	if ref.Rank < 0 || int(ref.Rank) >= len(m) || ref.Index < 0 || int(ref.Index) >= len(m[ref.Rank]) {
		return EventRef{Rank: -1, Index: -1}, false
	}
	j := m[ref.Rank][ref.Index]
	if j < 0 {
		return EventRef{Rank: -1, Index: -1}, false
	}
	return EventRef{Rank: ref.Rank, Index: j}, true
}

// FinishTimes returns each rank's last event time (the trace's start for a
// rank without events), in trace units.
func (t *Trace) FinishTimes() []float64 {
	start, _ := t.Span()
	out := make([]float64, len(t.Ranks))
	for r := range t.Ranks {
		out[r] = start
		for _, e := range t.Ranks[r].Events {
			out[r] = max(out[r], e.Time)
		}
	}
	return out
}
