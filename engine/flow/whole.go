package flow

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// wholeMemo remembers whole solves: what a solve did (the flows it
// re-solved, their new rates and the links they were fixed at, the links
// whose load changed and their new loads), under a 128-bit fingerprint of
// the state the solve reads and the change it solves. A solve whose
// fingerprint it has met before replays the remembered outcome instead
// of seeding, recalling, building, filling and checking. An iterative MPI program
// puts the network through the same states every iteration: on the
// CG-like replay of `tracesim sim --preset simgrid` (64 ranks, torus) the
// 300,000 solves meet a few hundred states. The memo of the systems
// (solveMemo) still spares build and fill, but every solve paid the rest.
//
// # The fingerprint
//
// The state a solve reads — every link's element list in order (each
// element's flow, its index in the flow's links and its coefficient),
// every link's load (as float64 bits: a history-dependent sum), every
// flow's signature (its links, how many of them are its route, its
// penalty and its bound), rate, level (flevel) and the link it is fixed
// at (bneck; fixedAt is their count) — and the change it solves (the
// pending links and the flows added since the last solve, in order) are
// a function of the events since the network was last empty:
//
//   - activate appends the flow's elements to its links' lists and
//     marks the flow unsolved: what it adds is a function of the flow's
//     signature, which wholeActivate chains into the fingerprint;
//   - detach removes a flow's elements (each swap-remove moves the last
//     element of the list into the place freed), lowers its links' loads
//     by its rate and zeroes the load of a link left empty: a function of
//     the state and of which flow it is, which wholeDetach chains in as
//     where the flow's first element sits (the state tells which flow
//     sits there);
//   - a solve sets rates, levels, bottlenecks and loads as a function of
//     the state and the change; its key, and the fingerprint after it,
//     is the fingerprint before it chained with a solve mark;
//   - both add their flow to the pending flows (whose links are the
//     pending links), and activate it to the flows added, in the order
//     of the events.
//
// The empty network is one state, however it was reached: no element,
// every load 0 (detach zeroes the load of a link it leaves empty), and
// the flows in their latency phase are not in it. When the last flow
// leaves, the fingerprint restarts from the empty network's. The links
// still pending from the flows that left are then not in it, and need
// not be: no flow is on them but the flows added since, which the solve
// re-solves whatever the pending links, and their loads stay 0.
//
// The fingerprint is thus a 128-bit hash of the path from the last empty
// state, in two lanes chained by two different bijective mixers: the
// cost of keeping it is a few multiplications per flow started or
// finished and per solve, never a term per element moved, rate changed
// or load changed. Two paths to one state get two fingerprints and two
// outcomes (the CG-like replay hits as often as with a hash of the state
// itself); two paths that share the 128 bits would be taken for one
// (about 2^-128 per pair, none met in the tests, where each run is compared
// with the memo off).
//
// A link's capacity and whether it is a fatpipe are fixed, and so is the
// configuration. What solve reads and the fingerprint leaves out does
// not move a rate: include settles a flow's remaining bytes up to now
// (remain, last, factor), which only reschedule reads; now itself only
// dates that settling, the ledger's accounting and the completion times;
// finish, seq, the heap and the ledger are written, not read, by the
// rates. A replay performs those side effects itself, for the same flows
// in the same order: it settles every re-solved flow as include does,
// accounts and sets the changed links' loads in the order of the
// solve's links, then sets each re-solved flow's rate, level and
// bottleneck and reschedules it, in the order the solve re-solved them —
// so the ledger, the heap and every completion time are those of the
// full solve.
//
// # Identifying flows
//
// An outcome names its flows by where their first element sits (link,
// place), resolved against the element lists before anything moves: a
// state with the same fingerprint has a flow with the same signature
// there.
//
// # Cost
//
// The memory is bounded (wholeWords; the memo forgets everything when
// full), an outcome is stored the second time its fingerprint is met
// (wholeSeen), and after a window of lookups with few hits the memo
// rests, longer after each poor window: it then does not look up, but
// keeps chaining the fingerprint, which costs next to nothing.
type wholeMemo struct {
	// off disables the memo (tests; system.fresh turns it off too).
	off bool
	// limit, when positive, replaces wholeWords (tests).
	limit int
	// g is the fingerprint of the state: of the path from the last
	// empty network (see above); live the number of flows on their
	// links.
	g    [2]uint64
	live int
	// tab maps a fingerprint to its outcome's offset in words (see
	// wholeTable): the number of links and of flows, then (link, load
	// bits) per link, then (first link<<32 | place, rate bits, link
	// fixed at) per flow.
	tab   wholeTable
	words []uint64
	// seen holds the first halves of fingerprints met once, at the half
	// mod wholeSeen.
	seen []uint64
	// key is the current solve's fingerprint; rec whether its outcome
	// is to be stored, at offset at.
	key [2]uint64
	rec bool
	at  int
	// rests makes the memo skip solves while it rarely hits.
	rests resting
	// solves, lookups and found count all solves, lookups and hits,
	// for the tests.
	solves, lookups, found int
	// res is the replay's scratch: the flows it re-solves.
	res []int32
}

const (
	// wholeWords bounds the stored outcomes, in 8-byte words (4 MiB),
	// and their number to wholeWords/8 (an index of at most 3 MiB).
	wholeWords = 1 << 19
	// wholeSeen is the number of fingerprints met once that the memo
	// keeps (a power of two).
	wholeSeen = 4096
)

// Odd constants of the fingerprint's terms.
const (
	kLink  = 0x9e3779b97f4a7c15
	kPlace = 0xc2b2ae3d27d4eb4f
	kIndex = 0x165667b19e3779f9
	kLoad  = 0xd6e8feb86659fd93
)

// mixA and mixB are two different 64-bit finalisers (MurmurHash3's and
// a variant with other shifts and multipliers): the fingerprint's two
// halves hash the same words independently.
func mixA(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	h ^= h >> 33
	h *= 0xc4ceb9fe1a85ec53
	h ^= h >> 33
	return h
}

func mixB(h uint64) uint64 {
	h ^= h >> 31
	h *= 0x7fb5d329728ea185
	h ^= h >> 27
	h *= 0x81dadef4bc2dd44d
	h ^= h >> 33
	return h
}

// step chains the event (a, b) into the fingerprint.
func (w *wholeMemo) step(a, b uint64) {
	w.g[0] = mixA(w.g[0] ^ a)
	w.g[1] = mixB(w.g[1] + b)
}

// wholeActivate chains flow fi's start into the fingerprint: its
// elements, which activate has just appended to its links' lists. What
// they add to the state is a function of the flow's signature: its links
// in order, how many of them are its route, its penalty and its bound.
func (n *Network) wholeActivate(fi int32) {
	w := &n.whole
	if w.off {
		return
	}
	if w.live == 0 {
		w.g = [2]uint64{kLink, kPlace} // the empty network's
	}
	f := &n.flows[fi]
	var a, b uint64
	if f.path >= 0 {
		a, b = n.paths[f.path].ha, n.paths[f.path].hb
	} else {
		a, b = linkHash(n.flinks(f), f.nfwd)
	}
	pb, bb := math.Float64bits(f.penalty), math.Float64bits(f.bound)
	a = (a^pb)*kPlace ^ bb
	b = (b+bb)*kLoad + pb
	w.step(a, b)
	w.live++
}

// linkHash is the part of a flow's start that wholeActivate chains of
// its links: their number, how many are its route, and each in order.
func linkHash(links []int32, nfwd int32) (a, b uint64) {
	a, b = uint64(len(links))<<32|uint64(uint32(nfwd)), uint64(kIndex)
	for _, l := range links {
		a = (a ^ uint64(uint32(l))) * kPlace
		b = (b + uint64(uint32(l))) * kLoad
	}
	return a, b
}

// wholeDetach chains flow fi's end into the fingerprint, before detach
// removes its elements: which flow it is (where its first element sits)
// is all detach's effect on the state depends on. When no flow is left
// the network is empty again, whatever the events that led there.
func (n *Network) wholeDetach(fi int32) {
	w := &n.whole
	f := &n.flows[fi]
	if w.off || f.nl == 0 {
		return // a flow that never joined its links changes nothing
	}
	if w.live--; w.live == 0 {
		w.g = [2]uint64{kLink, kPlace} // the empty network's
		return
	}
	x := uint64(uint32(n.flinks(f)[0]))<<32 | uint64(uint32(n.fpos(f)[0]))
	w.step(x*kIndex+kLink, x^kLoad)
}

// wholeRecall looks the solve about to run up and, when its outcome is
// remembered, replays it and reports true. Otherwise it notes whether
// the outcome is to be stored (wholeStart, wholeEnd).
func (n *Network) wholeRecall(now des.Time) bool {
	w := &n.whole
	w.rec = false
	if w.off || n.sys.fresh {
		w.off = true // the fingerprint is no longer kept
		return false
	}
	w.solves++
	// The solve's outcome is a function of the state and of the change
	// since the last solve (the pending links, the flows added), which
	// the events chained since tell: the fingerprint after them is the
	// key, and the state after the solve a function of it.
	w.step(kIndex, kIndex)
	w.key = w.g
	if w.rests.skip() {
		return false
	}
	w.lookups++
	if w.seen == nil {
		w.seen = make([]uint64, wholeSeen)
	}
	if at, ok := w.tab.find(w.key); ok && n.wholeReplay(at, now) {
		w.found++
		w.rests.looked(true, restWindow)
		return true
	}
	if a := w.key[0]; w.seen[a&(wholeSeen-1)] != a {
		w.seen[a&(wholeSeen-1)] = a
	} else {
		w.rec = true
	}
	w.rests.looked(false, restWindow)
	return false
}

// wholeReplay does what the solve whose outcome is at offset at did. It
// does nothing and reports false if a flow the outcome names is not
// where it says, which a fingerprint met before rules out (but for a
// collision of the hash).
func (n *Network) wholeReplay(at int, now des.Time) bool {
	w := &n.whole
	nl, nf := int(w.words[at]), int(w.words[at+1])
	ls := w.words[at+2 : at+2+2*nl]
	fs := w.words[at+2+2*nl : at+2+2*nl+3*nf]
	res := w.res[:0]
	for q := 0; q < len(fs); q += 3 {
		x := fs[q]
		l, p := int(x>>32), int(uint32(x))
		if l >= len(n.links) {
			w.res = res
			return false
		}
		lk := &n.links[l]
		if p >= int(lk.en) {
			w.res = res
			return false
		}
		e := n.elemAt(lk, int32(p))
		if e.k != 0 {
			w.res = res
			return false
		}
		res = append(res, e.f)
	}
	w.res = res
	// setLoad's work, without storing an outcome (a replayed solve is
	// not stored): each link accounted as activate and detach do, then its load.
	// As in accountAhead: the loop writes into the batch, which has
	// room for every link's change, or finds the links accounted.
	led, links := &n.led, n.links
	if n.ahead(nl) {
		for q := 0; q+1 < len(ls); q += 2 {
			n.account(int32(ls[q]), now)
		}
	}
	buf, nb := led.buf, led.nbuf
	for q := 0; q+1 < len(ls); q += 2 {
		l := int32(ls[q])
		lk := &links[l]
		if now != lk.last {
			buf[nb] = change{t: now, load: lk.load, l: l, fwd: lk.fwd}
			nb++
			lk.last = now
		}
		lk.load = math.Float64frombits(ls[q+1])
	}
	led.nbuf = nb
	// Settled just before its new rate rather than before the loads as
	// include does: settling reads and writes only the flow, setting a
	// load only the link and the ledger. settle, then setRate, in one.
	flows, flevel, bneck := n.flows, n.flevel, n.bneck
	for q, fi := range res {
		f := &flows[fi]
		v, at := math.Float64frombits(fs[3*q+1]), int32(fs[3*q+2])
		old := f.value
		if dt := (now - f.last).Seconds(); dt > 0 {
			f.remain -= float64(old * f.factor * dt)
		}
		f.last, f.prev, f.value = now, old, v
		lv := math.Inf(1)
		if v > 0 {
			lv = v * f.penalty
		}
		flevel[fi] = lv
		if bneck[fi] != at {
			n.setBneck(fi, at)
		}
		if v != old || f.finish == des.Never {
			// reschedule's work: a new rate, a new completion time.
			f.finish = n.finishTime(f, now)
			if hi := n.hpos[fi]; hi < 0 {
				n.heapPush(fi)
			} else {
				n.heapFix(int(hi))
			}
		}
	}
	n.pending, n.added = n.pending[:0], n.added[:0]
	n.wake()
	return true
}

// wholeStart begins storing the outcome of a solve of F flows and L
// links at most, if it is to be stored: with no room for it, the memo
// forgets everything first.
func (n *Network) wholeStart(F, L int) {
	w := &n.whole
	if !w.rec {
		return
	}
	limit := wholeWords
	if w.limit > 0 {
		limit = w.limit
	}
	need := 2 + 2*L + 3*F
	if need > limit {
		w.rec = false
		return
	}
	// The index counts too: at most one outcome per 8 words of the
	// limit (its table, at most half full, then takes 6 words per
	// outcome at most), however small the outcomes.
	if len(w.words)+need > limit || 8*(w.tab.n+1) > limit {
		w.tab.reset()
		w.words = w.words[:0]
	}
	if len(w.words)+need > cap(w.words) {
		// Made at the limit at once: the pages never written cost no
		// memory, where doubling left the outgrown arrays (3 MiB on the
		// 256-rank SimGrid stencil) as garbage in the peak.
		t := make([]uint64, len(w.words), limit)
		copy(t, w.words)
		w.words = t
	}
	w.at = len(w.words)
	w.words = append(w.words, 0, 0)
}

// wholeEnd stores the outcome begun by wholeStart: the flows re-solved
// and the numbers of links and flows.
func (n *Network) wholeEnd(slots []int32, nl int) {
	w := &n.whole
	if !w.rec {
		return
	}
	w.rec = false
	w.words[w.at], w.words[w.at+1] = uint64(nl), uint64(len(slots))
	for _, fi := range slots {
		f := &n.flows[fi]
		w.words = append(w.words, uint64(uint32(n.flinks(f)[0]))<<32|uint64(uint32(n.fpos(f)[0])),
			math.Float64bits(f.value), uint64(uint32(n.bneck[fi])))
	}
	w.tab.put(w.key, w.at)
}

// settle brings flow fi's bytes up to now before a solve sets its rate.
func (n *Network) settle(fi int32, now des.Time) {
	f := &n.flows[fi]
	if dt := (now - f.last).Seconds(); dt > 0 {
		f.remain -= float64(f.value * f.factor * dt)
	}
	f.last, f.prev = now, f.value
}

// setLoad sets link l's load, which a solve changed, accounting its
// measurements up to now first; with the outcome stored.
func (n *Network) setLoad(l int32, load float64, now des.Time) {
	w := &n.whole
	lk := &n.links[l]
	n.account(l, now)
	lk.load = load
	if w.rec {
		w.words = append(w.words, uint64(uint32(l)), math.Float64bits(load))
	}
}

// setRate gives flow fi the rate v and the bottleneck at (a constraint,
// or -1) a solve found, and its completion time.
func (n *Network) setRate(fi int32, v float64, at int32, now des.Time) {
	f := &n.flows[fi]
	lv := math.Inf(1)
	if v > 0 {
		lv = v * f.penalty
	}
	f.value = v
	n.flevel[fi] = lv
	n.setBneck(fi, at)
	n.reschedule(fi, now)
}

// wholeTable is the memo's index: an open-addressing hash table from a
// fingerprint to its outcome's offset, probed linearly from the
// fingerprint's first half (a hash already), about half full at most.
// Cheaper than a map of 16-byte keys, which hashes the key again.
type wholeTable struct {
	slots []wholeSlot
	n     int // slots in use
}

// wholeSlot is a slot of wholeTable: a fingerprint and its outcome's
// offset plus one (0: the slot is free).
type wholeSlot struct {
	k  [2]uint64
	at int32
}

// find returns the offset stored under k.
func (t *wholeTable) find(k [2]uint64) (int, bool) {
	if t.n == 0 {
		return 0, false
	}
	m := len(t.slots) - 1
	for i := int(k[0]) & m; ; i = (i + 1) & m {
		s := &t.slots[i]
		if s.at == 0 {
			return 0, false
		}
		if s.k == k {
			return int(s.at - 1), true
		}
	}
}

// put stores offset at under k, replacing what k had.
func (t *wholeTable) put(k [2]uint64, at int) {
	if 2*(t.n+1) > len(t.slots) {
		old := t.slots
		t.slots, t.n = make([]wholeSlot, max(2*len(old), 1024)), 0
		for _, s := range old {
			if s.at != 0 {
				t.put(s.k, int(s.at-1))
			}
		}
	}
	m := len(t.slots) - 1
	i := int(k[0]) & m
	for t.slots[i].at != 0 && t.slots[i].k != k {
		i = (i + 1) & m
	}
	if t.slots[i].at == 0 {
		t.n++
	}
	t.slots[i] = wholeSlot{k, int32(at + 1)}
}

// reset empties the table, keeping its slots.
func (t *wholeTable) reset() {
	clear(t.slots)
	t.n = 0
}
