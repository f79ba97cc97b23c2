package tracefmt

import (
	"cmp"
	"runtime"
	"slices"
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
	// Sends first, each rank's into its own table; receives then read the
	// senders' tables, and only the receiver of a channel advances it.
	// Unchecked, walk returns no error.
	_ = t.walk(false, true)
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
	scratch []matchScratch // one per worker
}

// sendTable holds the channels of one sending rank, sorted by
// communicator, destination and tag: a receive finds its channel by
// binary search. (A map per rank was a fixed cost of ~2 µs a rank, most
// of MatchMessages' time at 65,536 ranks of 30 events.) It also lists
// the rank's receives, so that matching them reads no other event.
type sendTable struct {
	chans []channel
	// items[:nsend] holds the event indices of the rank's sends grouped
	// by channel, each channel's in send order. A receive reads its
	// channel's next item from a run it reads in order, and only writes
	// to the sender's stream: no load waits on a cache miss there.
	// items[nsend:] holds the indices of its receives, in order.
	items []int32
	nsend int32
}

// channel is one FIFO of sends: items[head:end] are not received yet.
type channel struct {
	key       uint64 // chanKey(destination, tag)
	comm      uint16
	head, end int32
}

// before reports whether channel c sorts before the channel of
// communicator comm and key key.
func (c *channel) before(comm uint16, key uint64) bool {
	return c.comm < comm || c.comm == comm && c.key < key
}

// find returns the index of the channel of communicator comm and key
// key, or -1.
func (st *sendTable) find(comm uint16, key uint64) int32 {
	if len(st.chans) <= linearChans {
		for c := range st.chans {
			if ch := &st.chans[c]; ch.key == key && ch.comm == comm {
				return int32(c)
			}
		}
		return -1
	}
	lo, hi := 0, len(st.chans)
	for lo < hi {
		h := int(uint(lo+hi) >> 1)
		if st.chans[h].before(comm, key) {
			lo = h + 1
		} else {
			hi = h
		}
	}
	if lo < len(st.chans) && st.chans[lo].comm == comm && st.chans[lo].key == key {
		return int32(lo)
	}
	return -1
}

// linearChans is the most channels find scans in order rather than by
// binary search: a stencil's rank sends on four to eight, and the search's
// dependent steps cost more than comparing them all (at 65,536 ranks of
// 30 events, a receive's find took ~69 instructions).
const linearChans = 8

// chanKey packs a destination (or source) and a tag into the key of a
// channel within a communicator.
func chanKey(peer, tag int32) uint64 { return uint64(uint32(peer))<<32 | uint64(uint32(tag)) }

// matchScratch is a worker's room: the direct-mapped caches of sends and
// recvs, valid for the rank whose generation they carry (so that a rank
// starts with an empty cache without clearing it: 4–8 KiB a rank were
// cleared before), the map from a channel to its index while a rank's
// sends are grouped, the grouping's lists, and the arena the ranks'
// tables are cut from.
type matchScratch struct {
	gen       uint32
	sendCache [chanCacheLen]sendSlot
	recvCache [chanCacheLen]recvSlot
	ids       map[chanID]int32
	chans     []int32
	perm      []int32
	// sends holds a rank's sends while its table is built.
	sends     []queuedSend
	chanArena []channel
	itemArena []int32
	// stale is set when a send walked carried a match: the sends are
	// unmatched again before the receives are matched.
	stale bool
}

// queuedSend is a send of a rank: its channel and its index.
type queuedSend struct {
	key  uint64
	comm uint16
	i    int32
}

// fewSends is the most sends of a rank whose table sends builds by
// sorting them (an insertion sort, stable) rather than through the
// channel cache and the map: at 65,536 ranks of 30 events, clearing,
// seeding, filling and iterating a map per rank, then sorting its
// channels through a closure, were 110 instructions an event, ten times
// MatchMessages' cost at 64 ranks.
const fewSends = 32

// chanID names a channel of a sending rank.
type chanID struct {
	key  uint64
	comm uint16
}

// maxScratchIDs is the most channels the scratch map keeps its room for
// between ranks: clearing a map costs its capacity, so a rank with more
// channels (a master sending to every rank) leaves a fresh map behind.
const maxScratchIDs = 1024

// arenaBlock is how many elements an arena allocates at a time: the
// ranks' small tables share allocations instead of taking one each.
const arenaBlock = 4096

// take returns n elements cut from the arena a (capacity n, so that an
// append cannot run into the next cut), allocating a new block when the
// current one is short.
func take[T any](a *[]T, n int) []T {
	if n == 0 {
		return nil
	}
	if n > arenaBlock/4 {
		return make([]T, n)
	}
	if cap(*a)-len(*a) < n {
		*a = make([]T, 0, arenaBlock)
	}
	s := *a
	*a = s[:len(s)+n]
	return s[len(s) : len(s)+n : len(s)+n]
}

// forRanks calls fn(worker, r) for ranks r = 0..p-1, spreading them over
// the given number of goroutines (worker numbers them from 0).
//
// The workers take the ranks in runs of consecutive ranks, about
// runsPerWorker runs each: taking them one at a time was an atomic add
// on a counter the cores pass between them for every rank (65,536 of
// them in each of a load's five passes), and neighbouring ranks on
// different cores wrote to the same cache lines (their slice headers,
// their tables).
func forRanks(p, workers int, fn func(worker, r int)) {
	if workers <= 1 {
		for r := range p {
			fn(0, r)
		}
		return
	}
	run := int64(max(1, p/(workers*runsPerWorker)))
	var next atomic.Int64
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for {
				lo := int(next.Add(run) - run)
				if lo >= p {
					return
				}
				for r := lo; r < min(lo+int(run), p); r++ {
					fn(w, r)
				}
			}
		})
	}
	wg.Wait()
}

// runsPerWorker is about how many runs of ranks forRanks hands each
// worker: enough that a worker slowed by a large rank leaves the others
// the rest, few enough that taking a run costs nothing next to it.
const runsPerWorker = 32

// chanCacheLen is the size of the direct-mapped caches of channels that
// sends and recvs keep in front of the channel lookups: a rank exchanges
// with a few neighbours in turn (a halo of four, a ring, a stream from a
// master), so that a remembered channel saves most lookups, which were
// half the matcher's time.
const chanCacheLen = 256

// chanSlot returns the cache slot of a peer and tag: the top 8 bits of
// a multiplicative hash (chanCacheLen is 256).
func chanSlot(peer, tag int32) int {
	return int((uint32(peer)*0x9E3779B1 ^ uint32(tag)*0x85EBCA77) >> 24)
}

// sendSlot is an entry of sends' cache: a channel of the sending rank,
// valid when gen is the worker's current generation.
type sendSlot struct {
	key  uint64
	gen  uint32
	comm uint16
	ci   int32
}

// table builds rank r's send table from its message events, listed in
// order (a receive by its index's complement): its sends grouped by
// channel, then its receives.
func (m *matcher) table(worker, r int, msgs []int32) {
	sc := &m.scratch[worker]
	st := &m.senders[r]
	ev := m.t.Ranks[r].Events
	few := sc.sends[:0]
	for _, i := range msgs {
		if i >= 0 {
			e := &ev[i]
			if e.Match != -1 {
				sc.stale = true
			}
			few = append(few, queuedSend{key: chanKey(e.Peer, e.Tag), comm: e.Comm, i: i})
		}
	}
	sc.sends = few
	ns := len(few)
	st.items = take(&sc.itemArena, len(msgs))
	recvs := st.items[ns:]
	for _, i := range msgs {
		if i < 0 {
			recvs[0] = ^i
			recvs = recvs[1:]
		}
	}
	st.nsend = int32(ns)
	if ns == 0 {
		return
	}
	if ns > fewSends {
		m.manySends(sc, st, few)
		return
	}
	// Sorted by communicator and key, sends of one channel in send
	// order: an insertion sort moves a send only past greater channels.
	for k := 1; k < len(few); k++ {
		q := few[k]
		j := k
		for ; j > 0 && (few[j-1].comm > q.comm || few[j-1].comm == q.comm && few[j-1].key > q.key); j-- {
			few[j] = few[j-1]
		}
		few[j] = q
	}
	n := 1
	for k := 1; k < len(few); k++ {
		if few[k].comm != few[k-1].comm || few[k].key != few[k-1].key {
			n++
		}
	}
	st.chans = take(&sc.chanArena, n)
	c := -1
	for k, q := range few {
		if k == 0 || q.comm != few[k-1].comm || q.key != few[k-1].key {
			c++
			st.chans[c] = channel{key: q.key, comm: q.comm, head: int32(k), end: int32(k)}
		}
		st.items[k] = q.i
		st.chans[c].end++
	}
}

// manySends is table's grouping for a rank of more than fewSends sends:
// through the channel cache and the map, then a counting sort.
func (m *matcher) manySends(sc *matchScratch, st *sendTable, sends []queuedSend) {
	sc.gen++
	gen := sc.gen
	sc.chans = sc.chans[:0]
	if len(sc.ids) > maxScratchIDs || sc.ids == nil {
		sc.ids = map[chanID]int32{}
	} else if len(sc.ids) > 0 {
		clear(sc.ids)
	}
	// counts[ci] counts channel ci's sends; its index is the order the
	// channels were first used in.
	counts := sc.perm[:0]
	for k := range sends {
		q := &sends[k]
		slot := &sc.sendCache[chanSlot(int32(q.key>>32), int32(q.key))]
		ci := slot.ci
		if slot.gen != gen || slot.key != q.key || slot.comm != q.comm {
			id := chanID{key: q.key, comm: q.comm}
			var ok bool
			if ci, ok = sc.ids[id]; !ok {
				ci = int32(len(counts))
				counts = append(counts, 0)
				sc.ids[id] = ci
			}
			*slot = sendSlot{key: q.key, gen: gen, comm: q.comm, ci: ci}
		}
		counts[ci]++
		sc.chans = append(sc.chans, ci)
	}
	sc.perm = counts
	// The channels sorted by communicator and key, each with its run of
	// items: a counting sort of the sends by channel.
	st.chans = take(&sc.chanArena, len(counts))
	for id, ci := range sc.ids {
		st.chans[ci] = channel{key: id.key, comm: id.comm, end: counts[ci]}
	}
	slices.SortFunc(st.chans, func(a, b channel) int {
		if c := cmp.Compare(a.comm, b.comm); c != 0 {
			return c
		}
		return cmp.Compare(a.key, b.key)
	})
	n := int32(0)
	for c := range st.chans {
		ch := &st.chans[c]
		ch.head, ch.end, n = n, n, n+ch.end
	}
	// counts[ci] becomes channel ci's place in the sorted table.
	for c := range st.chans {
		ch := &st.chans[c]
		counts[sc.ids[chanID{key: ch.key, comm: ch.comm}]] = int32(c)
	}
	for k, c := range sc.chans {
		ch := &st.chans[counts[c]]
		st.items[ch.end] = sends[k].i
		ch.end++
	}
}

// unmatchSends sets Match = -1 on every send of rank r.
func (m *matcher) unmatchSends(_, r int) {
	st := &m.senders[r]
	ev := m.t.Ranks[r].Events
	for _, i := range st.items[:st.nsend] {
		ev[i].Match = -1
	}
}

// recvSlot is an entry of recvs' cache: the channel of a source,
// communicator and tag (its index in the source's table, -1 when no send
// was queued on it); valid when gen is the worker's current generation.
// It holds no pointer: storing two was a write barrier per receive while
// the collector ran, most of whose cost was the collector's own work.
type recvSlot struct {
	src, tag int32
	gen      uint32
	comm     uint16
	ci       int32
}

// recvs matches rank r's receives with the queued sends.
func (m *matcher) recvs(worker, r int) {
	own := &m.senders[r]
	ev := m.t.Ranks[r].Events
	sc := &m.scratch[worker]
	sc.gen++
	gen := sc.gen
	for _, i := range own.items[own.nsend:] {
		e := &ev[i]
		e.Match = -1
		src := e.Peer
		if src < 0 || int(src) >= len(m.senders) {
			continue
		}
		slot := &sc.recvCache[chanSlot(src, e.Tag)]
		st := &m.senders[src]
		if slot.gen != gen || slot.src != src || slot.comm != e.Comm || slot.tag != e.Tag {
			// Field by field: a composite literal was built on the stack
			// and copied with 16-byte loads of its narrower stores, a
			// stall that took most of the matcher's time.
			slot.src, slot.tag, slot.gen, slot.comm, slot.ci = src, e.Tag, gen, e.Comm, st.find(e.Comm, chanKey(int32(r), e.Tag))
		}
		if slot.ci < 0 {
			continue
		}
		ch := &st.chans[slot.ci]
		if ch.head == ch.end {
			continue
		}
		j := st.items[ch.head]
		ch.head++
		m.t.Ranks[src].Events[j].Match = i
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
