package flow

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// wholeMemo remembers whole solves: what a solve did (the flows it
// re-solved, their new rates and the links they were fixed at, the links
// whose load changed and their new loads), under a 128-bit fingerprint of
// everything the solve's outcome depends on. A solve whose fingerprint it
// has met before replays the remembered outcome instead of seeding,
// recalling, building, filling and checking. An iterative MPI program
// puts the network through the same states every iteration: on the
// CG-like replay of `tracesim sim --preset simgrid` (64 ranks, torus) the
// 300,000 solves meet a few hundred states. The memo of the systems
// (solveMemo) still spares build and fill, but every solve paid the rest.
//
// # What the fingerprint covers
//
// The outcome of solve is a function of the following, and the
// fingerprint is a sum over terms of them, kept up to date at every
// change (activate, detach, a solve's write-back) in time proportional
// to the change, never to the network:
//
//   - every element of every link's element list: the link, its place in
//     the list (swap-removes reorder the lists, and seed, build and check
//     walk them in order), the element's index k in its flow's links, and
//     its flow's signature: the flow's links in order and how many of
//     them are its route (hence each element's coefficient), its penalty
//     (hence its weight) and its bound, its rate, its level (flevel) and
//     the link it is fixed at (bneck; fixedAt is their count), and where
//     its first element sits (the link is in the route, the place is
//     named): the last tells which elements of two lists are one flow,
//     which seed's and check's marks depend on;
//   - every link's load, as float64 bits (a history-dependent sum: equal
//     loads reached by different sums differ in their last bits);
//   - the change: the pending links in order, and the flows activated
//     since the last solve in order, each by where its first element
//     sits.
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
// full solve. The fingerprint is a hash, not the state: two states that
// differ but share the 128 bits would be taken for one (2^-128 per pair
// of states, none met in the tests, where each run is compared with the
// memo off).
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
// rests, longer after each poor window: it then neither looks up nor
// keeps the fingerprint, which it rebuilds from the element lists (once
// per rest) when it tries again.
type wholeMemo struct {
	// off disables the memo (tests; system.fresh turns it off too).
	off bool
	// limit, when positive, replaces wholeWords (tests).
	limit int
	// idle: the fingerprint is not kept (resting, or off).
	idle bool
	// g is the fingerprint of the state; fl what it keeps of each flow
	// slot.
	g  [2]uint64
	fl []wholeFlowRec
	// lt is each link's load term, as added to g.
	lt [][2]uint64
	// tab maps a fingerprint to its outcome's offset in words: the
	// number of links and of flows, then (link, load bits) per link,
	// then (first link<<32 | place, rate bits, link fixed at) per flow.
	tab   map[[2]uint64]int32
	words []uint64
	// seen holds the first halves of fingerprints met once, at the half
	// mod wholeSeen.
	seen []uint64
	// key is the current solve's fingerprint; rec whether its outcome
	// is to be stored, at offset at.
	key [2]uint64
	rec bool
	at  int
	// looks and hits count the lookups of the current window; rest is
	// how many solves are left before the next window, pause the length
	// of the last rest (0: the last window was good).
	looks, hits int
	rest, pause int
	// solves, lookups and found count all solves, lookups and hits,
	// for the tests.
	solves, lookups, found int
	// res is the replay's scratch: the flows it re-solves.
	res []int32
}

const (
	// wholeWords bounds the stored outcomes, in 8-byte words (4 MiB).
	wholeWords = 1 << 19
	// A window of wholeWindow lookups with fewer than one hit in
	// wholeMinHit makes the memo rest: for wholeWindow solves after a
	// good window, twice as long as the last rest after a poor one, at
	// most wholeRest.
	wholeWindow = 1024
	wholeMinHit = 4
	wholeRest   = 64 * wholeWindow
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

// wholeFlowRec is what the fingerprint keeps of a flow slot: the
// signature of its penalty, bound and number of route links; the sum of
// its elements' terms (each hashing the link, the place in its list and
// the element's index in the flow's links, so that together they name
// the route in order and where each element sits); and the term the flow
// adds to the fingerprint, a hash of both and of its rate, level and
// link fixed at. A flow's term is not linear in its elements' terms:
// two flows alike but for their places give different sums, so which
// elements of two lists are one flow is in the fingerprint. A change of
// rate or of one place costs a few hashes, not one per element.
type wholeFlowRec struct {
	sig, sum, term [2]uint64
}

// wholeElem is the term of the element at place p of link l, element k
// of its flow.
func wholeElem(l, p int32, k int) (uint64, uint64) {
	e := uint64(uint32(l))<<32 | uint64(uint32(p))
	return mixA(e*kPlace + uint64(k)*kIndex), mixB(e ^ uint64(k)<<48 + kLink)
}

// wholeLoadTerm is the term of link l at load v (none for 0).
func wholeLoadTerm(l int32, v float64) (uint64, uint64) {
	vb := math.Float64bits(v)
	if vb == 0 {
		return 0, 0
	}
	return mixA(vb ^ uint64(uint32(l))*kLoad), mixB(vb + uint64(uint32(l))*kPlace)
}

// setLoadTerm replaces link l's load term with that of load v.
func (w *wholeMemo) setLoadTerm(l int32, v float64) {
	if w.lt == nil {
		return // no load counted yet: all terms 0
	}
	t := &w.lt[l]
	w.sub(t[0], t[1])
	t[0], t[1] = wholeLoadTerm(l, v)
	w.add(t[0], t[1])
}

// wholeTermOf is flow fi's term from its record's signature and sum and
// its rate, level and link fixed at.
func (n *Network) wholeTermOf(fi int32, r *wholeFlowRec) [2]uint64 {
	vb, lb := math.Float64bits(n.flows[fi].value), math.Float64bits(n.flevel[fi])
	d := uint64(uint32(n.bneck[fi]))
	return [2]uint64{
		mixA(mixA(r.sig[0]^vb+r.sum[0]) ^ (lb + d*kLink)),
		mixB(mixB(r.sig[1]+vb^r.sum[1]) + (lb ^ d*kPlace)),
	}
}

// wholeNew computes flow fi's record from scratch and adds its term.
func (n *Network) wholeNew(fi int32) {
	w := &n.whole
	for int(fi) >= len(w.fl) {
		w.fl = append(w.fl, wholeFlowRec{})
	}
	f := &n.flows[fi]
	r := &w.fl[fi]
	pb, bb := math.Float64bits(f.penalty), math.Float64bits(f.bound)
	nf := uint64(uint32(f.nfwd))
	r.sig = [2]uint64{mixA(pb ^ mixA(bb+nf*kIndex)), mixB(pb + mixB(bb^nf*kLoad))}
	r.sum = [2]uint64{}
	for k, l := range f.links {
		x, y := wholeElem(l, f.pos[k], k)
		r.sum[0] += x
		r.sum[1] += y
	}
	r.term = n.wholeTermOf(fi, r)
	w.add(r.term[0], r.term[1])
}

// wholeRetake replaces flow fi's term after its rate, level, link fixed
// at or sum changed.
func (n *Network) wholeRetake(fi int32) {
	w := &n.whole
	r := &w.fl[fi]
	w.sub(r.term[0], r.term[1])
	r.term = n.wholeTermOf(fi, r)
	w.add(r.term[0], r.term[1])
}

// add adds a term (x, y) to the fingerprint, sub takes it away.
func (w *wholeMemo) add(x, y uint64) {
	w.g[0] += x
	w.g[1] += y
}

func (w *wholeMemo) sub(x, y uint64) {
	w.g[0] -= x
	w.g[1] -= y
}

// wholeActivate counts flow fi, whose elements activate has just
// appended to its links' lists.
func (n *Network) wholeActivate(fi int32) {
	if n.whole.idle {
		return
	}
	n.wholeNew(fi)
}

// wholeDetach takes flow fi away, before detach removes its elements
// (and sets its bottleneck).
func (n *Network) wholeDetach(fi int32) {
	w := &n.whole
	if w.idle {
		return
	}
	t := w.fl[fi].term
	w.sub(t[0], t[1])
}

// wholeMove is called by detach before it removes flow fi's element at
// place p of link l and moves the list's last element there: it moves
// the last element (wholeLoad then counts the link's new load).
func (n *Network) wholeMove(fi, l, p int32) {
	w := &n.whole
	if w.idle {
		return
	}
	lk := &n.links[l]
	last := int32(len(lk.el) - 1)
	m := lk.el[last]
	if m.f == fi {
		return // fi's own: fi is taken away already
	}
	r := &w.fl[m.f]
	x0, y0 := wholeElem(l, last, int(m.k))
	x1, y1 := wholeElem(l, p, int(m.k))
	r.sum[0] += x1 - x0
	r.sum[1] += y1 - y0
	n.wholeRetake(m.f)
}

// wholeLoad adds link l's load term, after detach changed the load.
func (n *Network) wholeLoad(l int32) {
	if n.whole.idle {
		return
	}
	n.whole.setLoadTerm(l, n.links[l].load)
}

// wholeRebuild computes the fingerprint of the state afresh.
func (n *Network) wholeRebuild() {
	w := &n.whole
	w.g = [2]uint64{}
	w.lt = grow(w.lt, len(n.links))
	for l := range n.links {
		lk := &n.links[l]
		x, y := wholeLoadTerm(int32(l), lk.load)
		w.lt[l] = [2]uint64{x, y}
		w.add(x, y)
		for _, e := range lk.el {
			if e.k == 0 {
				n.wholeNew(e.f)
			}
		}
	}
}

// wholeRecall looks the solve about to run up and, when its outcome is
// remembered, replays it and reports true. Otherwise it notes whether
// the outcome is to be stored (wholeStart, wholeEnd).
func (n *Network) wholeRecall(now des.Time) bool {
	w := &n.whole
	w.rec = false
	if w.off || n.sys.fresh {
		w.idle = true
		return false
	}
	w.solves++
	if w.rest > 0 {
		w.rest--
		if w.rest > 0 {
			return false
		}
		n.wholeRebuild()
		w.idle = false
	}
	// The change: a polynomial hash of the pending links and the added
	// flows' first places, in order, then mixed with the state's.
	a, b := uint64(len(n.pending))<<32|uint64(len(n.added)), uint64(0)
	for _, l := range n.pending {
		a = a*kPlace + uint64(uint32(l))
		b = b*kLoad + uint64(uint32(l))
	}
	for _, fi := range n.added {
		f := &n.flows[fi]
		x := uint64(uint32(f.links[0]))<<32 | uint64(uint32(f.pos[0]))
		a = a*kPlace + x
		b = b*kLoad + x
	}
	a, b = mixA(a^w.g[0]), mixB(b+w.g[1])
	w.key = [2]uint64{a, b}
	w.looks++
	w.lookups++
	if w.tab == nil {
		w.tab = make(map[[2]uint64]int32)
		w.lt = make([][2]uint64, len(n.links))
		w.seen = make([]uint64, wholeSeen)
	}
	if at, ok := w.tab[w.key]; ok && n.wholeReplay(int(at), now) {
		w.hits++
		w.found++
		w.window()
		return true
	}
	if p := &w.seen[a&(wholeSeen-1)]; *p != a {
		*p = a
	} else {
		w.rec = true
	}
	w.window()
	return false
}

// window ends the lookup window when it is full: with too few hits, the
// memo rests and stops keeping the fingerprint.
func (w *wholeMemo) window() {
	if w.looks < wholeWindow {
		return
	}
	if w.hits*wholeMinHit < w.looks {
		w.pause = min(max(2*w.pause, wholeWindow), wholeRest)
		w.rest, w.idle = w.pause, true
	} else {
		w.pause = 0
	}
	w.looks, w.hits = 0, 0
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
		if l >= len(n.links) || p >= len(n.links[l].el) || n.links[l].el[p].k != 0 {
			w.res = res
			return false
		}
		res = append(res, n.links[l].el[p].f)
	}
	w.res = res
	for _, fi := range res {
		n.settle(fi, now)
	}
	for q := 0; q < len(ls); q += 2 {
		n.setLoad(int32(ls[q]), math.Float64frombits(ls[q+1]), now)
	}
	for q, fi := range res {
		n.setRate(fi, math.Float64frombits(fs[3*q+1]), int32(fs[3*q+2]), now)
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
	if len(w.words)+need > limit {
		clear(w.tab)
		w.words = w.words[:0]
	}
	if len(w.words)+need > cap(w.words) {
		// Grown by hand: append's growth would overshoot the limit.
		t := make([]uint64, len(w.words), min(limit, max(2*cap(w.words), len(w.words)+need, 1024)))
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
		w.words = append(w.words, uint64(uint32(f.links[0]))<<32|uint64(uint32(f.pos[0])),
			math.Float64bits(f.value), uint64(uint32(n.bneck[fi])))
	}
	w.tab[w.key] = int32(w.at)
}

// settle brings flow fi's bytes up to now before a solve sets its rate.
func (n *Network) settle(fi int32, now des.Time) {
	f := &n.flows[fi]
	if dt := (now - f.last).Seconds(); dt > 0 {
		f.remain -= f.value * f.factor * dt
	}
	f.last, f.prev = now, f.value
}

// setLoad sets link l's load, which a solve changed, accounting its
// measurements up to now first; with the outcome stored.
func (n *Network) setLoad(l int32, load float64, now des.Time) {
	w := &n.whole
	lk := &n.links[l]
	if !w.idle {
		w.setLoadTerm(l, load)
	}
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
	keep := !n.whole.idle && (math.Float64bits(f.value) != math.Float64bits(v) ||
		math.Float64bits(n.flevel[fi]) != math.Float64bits(lv) || n.bneck[fi] != at)
	f.value = v
	n.flevel[fi] = lv
	n.setBneck(fi, at)
	if keep {
		n.wholeRetake(fi)
	}
	n.reschedule(fi, now)
}
