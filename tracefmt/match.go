package tracefmt

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// MatchMessages pairs every receive with a send, FIFO per (communicator,
// source, destination, tag), and sets Match on both. A wildcard receive
// carries its actual source and tag, so it matches like any other. Sends
// and receives left without a partner keep Match = -1. Existing matches are
// discarded first, so the function can be run again after editing a trace.
//
// Large traces are matched on all available CPUs; the result does not
// depend on how the work is scheduled.
func MatchMessages(t *Trace) {
	p := len(t.Ranks)
	if p == 0 {
		return
	}
	workers := t.rankWorkers()
	m := matcher{t: t, senders: make([]sendTable, p), scratch: make([]sendScratch, workers)}
	// Sends first, each rank's into its own table; receives then read the
	// senders' tables, and only the receiver of a channel advances it.
	forRanks(p, workers, m.sends)
	forRanks(p, workers, func(_, r int) { m.recvs(r) })
}

// parallelEvents is the trace size from which whole-trace passes
// (MatchMessages, Validate) start goroutines: below it they cost more than
// they save.
const parallelEvents = 1 << 16

// rankWorkers returns how many goroutines a whole-trace pass over t uses.
func (t *Trace) rankWorkers() int {
	if t.NumEvents() < parallelEvents {
		return 1
	}
	return min(runtime.GOMAXPROCS(0), len(t.Ranks))
}

// matcher holds the send queues of every channel while MatchMessages runs.
type matcher struct {
	t       *Trace
	senders []sendTable
	scratch []sendScratch // one per worker
}

// sendTable holds the channels of one sending rank. A channel is keyed by
// its communicator and by chanKey(destination, tag).
type sendTable struct {
	// world holds the channels of communicator 0, by far the most used;
	// comms those of the others.
	world map[uint64]int32
	comms map[uint16]map[uint64]int32
	chans []channel
	// items holds the event indices of the rank's sends grouped by
	// channel, each channel's in send order. A receive reads its channel's
	// next item from a run it reads in order, and only writes to the
	// sender's stream: no load waits on a cache miss there.
	items []int32
}

// channel is one FIFO of sends: items[head:end] are not received yet.
type channel struct {
	head, end int32
}

// sendScratch is a worker's room for grouping one rank's sends by channel.
type sendScratch struct {
	chans, idx []int32
}

// chanKey packs a destination (or source) and a tag into the key of a
// channel within a communicator. A uint64 key takes the map's fast 64-bit
// path; hashing a struct key was most of the matcher's time.
func chanKey(peer, tag int32) uint64 { return uint64(uint32(peer))<<32 | uint64(uint32(tag)) }

// table returns the channels of communicator c (nil when it has none).
func (st *sendTable) table(c uint16) map[uint64]int32 {
	if c == 0 {
		return st.world
	}
	return st.comms[c]
}

// newTable returns the channels of communicator c, creating the table.
func (st *sendTable) newTable(c uint16) map[uint64]int32 {
	if tbl := st.table(c); tbl != nil {
		return tbl
	}
	tbl := map[uint64]int32{}
	if c == 0 {
		st.world = tbl
	} else {
		if st.comms == nil {
			st.comms = map[uint16]map[uint64]int32{}
		}
		st.comms[c] = tbl
	}
	return tbl
}

// forRanks calls fn(worker, r) for ranks r = 0..p-1, spreading them over
// the given number of goroutines (worker numbers them from 0).
func forRanks(p, workers int, fn func(worker, r int)) {
	if workers <= 1 {
		for r := range p {
			fn(0, r)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				r := int(next.Add(1) - 1)
				if r >= p {
					return
				}
				fn(w, r)
			}
		})
	}
	wg.Wait()
}

// chanCacheLen is the size of the direct-mapped caches of channels that
// sends and recvs keep in front of the channel maps: a rank exchanges
// with a few neighbours in turn (a halo of four, a ring, a stream from a
// master), so that a remembered channel saves most map lookups, which
// were half the matcher's time.
const chanCacheLen = 256

// chanSlot returns the cache slot of a peer and tag: the top 8 bits of
// a multiplicative hash (chanCacheLen is 256).
func chanSlot(peer, tag int32) int {
	return int((uint32(peer)*0x9E3779B1 ^ uint32(tag)*0x85EBCA77) >> 24)
}

// sendSlot is an entry of sends' cache: a channel of the sending rank.
type sendSlot struct {
	key  uint64
	comm int32 // -1: empty
	ci   int32
}

// sends queues rank r's sends on their channels.
func (m *matcher) sends(worker, r int) {
	ev := m.t.Ranks[r].Events
	st := &m.senders[r]
	sc := &m.scratch[worker]
	sc.chans, sc.idx = sc.chans[:0], sc.idx[:0]
	var cache [chanCacheLen]sendSlot
	for i := range cache {
		cache[i].comm = -1
	}
	for i := range ev {
		e := &ev[i]
		if e.Kind != KindSend {
			continue
		}
		e.Match = -1
		k := chanKey(e.Peer, e.Tag)
		slot := &cache[chanSlot(e.Peer, e.Tag)]
		ci := slot.ci
		if slot.key != k || slot.comm != int32(e.Comm) {
			tbl := st.newTable(e.Comm)
			var ok bool
			ci, ok = tbl[k]
			if !ok {
				ci = int32(len(st.chans))
				st.chans = append(st.chans, channel{})
				tbl[k] = ci
			}
			*slot = sendSlot{key: k, comm: int32(e.Comm), ci: ci}
		}
		st.chans[ci].end++ // counts the channel's sends for now
		sc.chans = append(sc.chans, ci)
		sc.idx = append(sc.idx, int32(i))
	}
	// Group the sends by channel, a counting sort.
	n := int32(0)
	for c := range st.chans {
		ch := &st.chans[c]
		ch.head, ch.end, n = n, n, n+ch.end
	}
	st.items = make([]int32, len(sc.idx))
	for k, c := range sc.chans {
		ch := &st.chans[c]
		st.items[ch.end] = sc.idx[k]
		ch.end++
	}
}

// recvSlot is an entry of recvs' cache: the channel of a source,
// communicator and tag, nil when no send was queued on it.
type recvSlot struct {
	src, tag int32 // src -1: empty
	comm     uint16
	ch       *channel
	st       *sendTable
}

// recvs matches rank r's receives with the queued sends.
func (m *matcher) recvs(r int) {
	ev := m.t.Ranks[r].Events
	var cache [chanCacheLen]recvSlot
	for i := range cache {
		cache[i].src = -1
	}
	for i := range ev {
		e := &ev[i]
		if e.Kind != KindRecv {
			continue
		}
		e.Match = -1
		src := e.Peer
		if src < 0 || int(src) >= len(m.senders) {
			continue
		}
		slot := &cache[chanSlot(src, e.Tag)]
		if slot.src != src || slot.comm != e.Comm || slot.tag != e.Tag {
			st := &m.senders[src]
			var ch *channel
			if ci, ok := st.table(e.Comm)[chanKey(int32(r), e.Tag)]; ok {
				ch = &st.chans[ci]
			}
			// Field by field: a composite literal was built on the stack
			// and copied with 16-byte loads of its narrower stores, a
			// stall that took most of the matcher's time.
			slot.src, slot.tag, slot.comm, slot.ch, slot.st = src, e.Tag, e.Comm, ch, st
		}
		ch := slot.ch
		if ch == nil || ch.head == ch.end {
			continue
		}
		j := slot.st.items[ch.head]
		ch.head++
		m.t.Ranks[src].Events[j].Match = int32(i)
		e.Match = j
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
			switch e := &ev[i]; e.Kind {
			case KindSend:
				c.addSend(e)
			case KindRecv:
				c.addRecv(e)
			}
		}
	}
	return c
}

// addSend counts a send event: matched or not.
func (c *MessageCounts) addSend(e *Event) {
	if e.Match >= 0 {
		c.Matched++
	} else {
		c.UnmatchedSends++
	}
}

// addRecv counts a receive event: unmatched, wildcard.
func (c *MessageCounts) addRecv(e *Event) {
	if e.Match < 0 {
		c.UnmatchedRecvs++
	}
	if e.Flags&(FlagAnySource|FlagAnyTag) != 0 {
		c.WildcardRecvs++
	}
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
