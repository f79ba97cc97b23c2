package tracefmt

// msgKey identifies a message channel under MPI's non-overtaking rule: two
// messages on the same channel are received in the order they were sent.
type msgKey struct {
	src, dst int32
	tag      int32
	comm     uint16
}

// fifo is a queue of event indices on one sender's stream.
type fifo struct {
	items []int32
	head  int
}

// MatchMessages pairs every receive with a send, FIFO per (communicator,
// source, destination, tag), and sets Match on both. A wildcard receive
// carries its actual source and tag, so it matches like any other. Sends
// and receives left without a partner keep Match = -1. Existing matches are
// discarded first, so the function can be run again after editing a trace.
func MatchMessages(t *Trace) {
	queues := map[msgKey]*fifo{}
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		var last msgKey
		var lastQ *fifo
		for i := range ev {
			e := &ev[i]
			if e.Kind != KindSend {
				if e.Kind == KindRecv {
					e.Match = -1
				}
				continue
			}
			e.Match = -1
			k := msgKey{int32(r), e.Peer, e.Tag, e.Comm}
			q := lastQ
			if q == nil || k != last {
				q = queues[k]
				if q == nil {
					q = &fifo{}
					queues[k] = q
				}
				last, lastQ = k, q
			}
			q.items = append(q.items, int32(i))
		}
	}
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		// Consecutive receives mostly come from the same channel (a halo
		// from one neighbour, a stream from a master): remembering the
		// last queue saves most map lookups.
		var last msgKey
		var lastQ *fifo
		for i := range ev {
			e := &ev[i]
			if e.Kind != KindRecv {
				continue
			}
			k := msgKey{e.Peer, int32(r), e.Tag, e.Comm}
			q := lastQ
			if q == nil || k != last {
				q = queues[k]
				last, lastQ = k, q
			}
			if q == nil || q.head == len(q.items) {
				continue
			}
			j := q.items[q.head]
			q.head++
			e.Match = j
			t.Ranks[e.Peer].Events[j].Match = int32(i)
		}
	}
}

// MessageCounts summarises the point-to-point messages of a trace.
type MessageCounts struct {
	Matched        int `json:"matched"`
	UnmatchedSends int `json:"unmatched_sends"`
	UnmatchedRecvs int `json:"unmatched_recvs"`
	WildcardRecvs  int `json:"wildcard_recvs"`
}

// CountMessages counts matched and unmatched messages and wildcard
// receives.
func (t *Trace) CountMessages() MessageCounts {
	var c MessageCounts
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			switch e.Kind {
			case KindSend:
				if e.Match >= 0 {
					c.Matched++
				} else {
					c.UnmatchedSends++
				}
			case KindRecv:
				if e.Match < 0 {
					c.UnmatchedRecvs++
				}
				if e.Flags&(FlagAnySource|FlagAnyTag) != 0 {
					c.WildcardRecvs++
				}
			}
		}
	}
	return c
}

// Messages calls fn for every matched message, in sender rank order, with
// references to the send and the receive. It stops when fn returns false.
func (t *Trace) Messages(fn func(send, recv EventRef) bool) {
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			if e.Kind == KindSend && e.Match >= 0 {
				if !fn(EventRef{int32(r), int32(i)}, EventRef{e.Peer, e.Match}) {
					return
				}
			}
		}
	}
}
