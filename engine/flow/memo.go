package flow

import (
	"math"
	"math/bits"
	"slices"
)

// solveMemo remembers the systems the solver built and filled, so that a
// system met before is neither built nor filled again. An iterative MPI
// program repeats its communication pattern every iteration, and with it
// the systems the solver meets, to the bit: on the CG-like replay of
// `tracesim sim --preset simgrid` (64 ranks, torus) 250,000 fills solve
// about 200 distinct systems.
//
// Every round of a solve (build, fill) is looked up by what build reads:
// the round's flows (weight, penalty, bound, rate before the solve, links
// and how many of them are its route) and links (load, capacity,
// fatpipe). A round after the first (check added flows) names the entry
// of the round before and lists only the flows and links it adds. A hit
// restores what build and fill would have made of them and check reads:
// the links' kept loads and re-solved flows, and the flows' rates and
// links fixed at. A hit compares the whole key, not only its hash, so
// what a hit gives is what building and filling would give, bit for bit.
//
// The memory is bounded (memoWords): when full, the memo forgets
// everything and starts again. A run whose systems do not repeat pays
// the keys for nothing: a system is stored only the second time it is
// met, and after a window of lookups with few hits the memo rests, longer
// after each poor window, before it tries again. It rests by the size of
// the system (memoClass): on a large machine the small systems of
// isolated exchanges repeat while the large ones of a whole halo
// exchange never do (stencil2d at 4,096 ranks: 97 % of the lookups of
// fewer than 8 flows hit, 36 of the 972 of 64 flows or more, whose keys
// were 88 % of the words hashed), so each size rests on its own hits.
type solveMemo struct {
	// off disables the memo (system.fresh turns it off too).
	off bool
	// limit, when positive, replaces memoWords (tests).
	limit int
	// key is the scratch key of the system being looked up, hash its
	// hash.
	key  []uint64
	hash uint64
	// tab maps a key's hash to its latest entry; entries with the same
	// hash are chained by next.
	tab  map[uint64]int32
	ents []memoEntry
	// chunks hold the entries, each its key, then its rates and kept
	// loads (float64 bits), then its integers two to a word. They are
	// allocated once, and reused when the memo forgets: the memo makes
	// no garbage. cur is the chunk being filled, words their capacity.
	chunks [][]uint64
	cur    int
	words  int
	// rests makes the memo skip lookups of a size class (memoClass)
	// while it rarely hits.
	rests [memoClasses]resting
	// lookups and found count all lookups and hits, for the tests.
	lookups, found int
	// chain is the entry of the current solve's previous round (-1: it
	// is the first; -2: the solve is not remembered); doneF and doneL
	// the flows and links that round had.
	chain        int32
	doneF, doneL int
	// seen holds the hashes of systems met once, at hash mod memoSeen: a
	// system is stored the second time it is met, so that a run whose
	// systems do not repeat pays for their keys but not for storing
	// them.
	seen []uint64
	// verify makes every hit build and fill the round it recalled and
	// compare (tests): verified counts the hits compared, mismatched
	// those whose system or rates differed in a bit.
	verify               bool
	verified, mismatched int
}

// memoEntry is a remembered system: its key is chunks[c][k:k+nk], then
// come nf words of float64 results and ni integer results, two to a word
// (see remember).
type memoEntry struct {
	c, k, nk, nf, ni int32
	next             int32 // previous entry with the same hash; -1: none
}

const (
	// memoWords bounds the memo's chunks, in 8-byte words (2 MiB);
	// memoChunk is the size of one.
	memoWords = 1 << 18
	memoChunk = 1 << 15
	// memoSeen is the number of hashes of systems met once that the memo
	// keeps (a power of two).
	memoSeen = 4096
)

// memoClasses is the number of size classes of memoClass.
const memoClasses = 8

// memoClass is the size class of a round of F flows: 0 below 8 flows,
// then one class per doubling, the last from 512 flows on. A class's
// window of lookups (restWindow for class 0) halves with each doubling,
// down to restWindow/128 = 8 lookups: a large system's key costs as
// much as many small ones', and large systems are few.
func memoClass(F int) int {
	return min(max(bits.Len(uint(F))-3, 0), memoClasses-1)
}

// use tells whether to look the next system, of F flows, up.
func (m *solveMemo) use(fresh bool, F int) bool {
	if m.off || fresh {
		return false
	}
	return !m.rests[memoClass(F)].skip()
}

// lookup finds the entry whose key is m.key (hashing it first), counting
// the lookup and its hit in the size class c; -1 when there is none.
func (m *solveMemo) lookup(c int) int32 {
	m.hash = memoHash(m.key)
	m.lookups++
	if m.tab == nil {
		m.tab = make(map[uint64]int32)
	}
	r := &m.rests[c]
	e, ok := m.tab[m.hash]
	for ; ok && e >= 0; e = m.ents[e].next {
		en := &m.ents[e]
		if slices.Equal(m.chunks[en.c][en.k:en.k+en.nk], m.key) {
			m.found++
			r.looked(true, restWindow>>c)
			return e
		}
	}
	r.looked(false, restWindow>>c)
	return -1
}

// store remembers m.key (as last looked up) with the results f (as
// float64 bits) and i (two to a word), and returns the new entry; -2 when
// it forgot everything to make room and the key, which names an entry
// forgotten, is not worth storing.
func (m *solveMemo) store(f [][]float64, i [][]int32) int32 {
	nf, ni := 0, 0
	for _, x := range f {
		nf += len(x)
	}
	for _, x := range i {
		ni += len(x)
	}
	need := len(m.key) + nf + (ni+1)/2
	c := m.room(need)
	if c < 0 {
		if int64(m.key[0]) >= 0 {
			return -2
		}
		if c = m.room(need); c < 0 {
			return -2 // larger than the whole memo
		}
	}
	head, ok := m.tab[m.hash]
	if !ok {
		head = -1
	}
	buf := m.chunks[c]
	m.tab[m.hash] = int32(len(m.ents))
	m.ents = append(m.ents, memoEntry{c: int32(c), k: int32(len(buf)), nk: int32(len(m.key)), nf: int32(nf), ni: int32(ni), next: head})
	buf = append(buf, m.key...)
	for _, x := range f {
		for _, v := range x {
			buf = append(buf, math.Float64bits(v))
		}
	}
	odd, half := false, uint64(0)
	for _, x := range i {
		for _, v := range x {
			if odd {
				buf = append(buf, half|uint64(uint32(v))<<32)
			} else {
				half = uint64(uint32(v))
			}
			odd = !odd
		}
	}
	if odd {
		buf = append(buf, half)
	}
	m.chunks[m.cur] = buf
	return int32(len(m.ents) - 1)
}

// room makes room for an entry of need words and returns its chunk; -1
// when the memo was full and forgot everything (its chunks are kept).
func (m *solveMemo) room(need int) int {
	limit := m.wordLimit()
	if m.cur < len(m.chunks) && len(m.chunks[m.cur])+need <= cap(m.chunks[m.cur]) {
		return m.cur
	}
	// The next chunk, if one is allocated and large enough.
	if m.cur+1 < len(m.chunks) && need <= cap(m.chunks[m.cur+1]) {
		m.cur++
		return m.cur
	}
	if size := max(need, min(memoChunk, limit)); m.words+size <= limit && m.cur+1 >= len(m.chunks) {
		m.chunks = append(m.chunks, make([]uint64, 0, size))
		m.words += size
		m.cur = len(m.chunks) - 1
		return m.cur
	}
	// Full: forget everything (the systems of the current phase of the
	// run come back soon enough).
	clear(m.tab)
	m.ents = m.ents[:0]
	for c := range m.chunks {
		m.chunks[c] = m.chunks[c][:0]
	}
	m.cur = 0
	if len(m.chunks) > 0 && need > cap(m.chunks[0]) {
		// Too large for a chunk in place: nothing fits.
		m.cur = len(m.chunks)
	}
	return -1
}

// wordLimit is the bound on the memo's words: memoWords, or the
// tests' limit.
func (m *solveMemo) wordLimit() int {
	if m.limit > 0 {
		return m.limit
	}
	return memoWords
}

// resting is how a memo backs off when it rarely hits, so that traffic
// that does not repeat pays little for it: a window of lookups
// (restWindow for the whole memo, fewer for the large systems of
// solveMemo) with fewer than one hit in restMinHit makes the memo skip
// the next lookups (for the whole memo, solves) — a window of them after
// a good window, twice as many as the last rest after a poor one, at
// most restMax windows' worth.
type resting struct {
	// looks and hits count the lookups of the current window; rest is
	// how many lookups are skipped before the next window, pause the
	// length of the last rest (0: the last window was good).
	looks, hits int
	rest, pause int
}

const (
	restWindow = 1024
	restMinHit = 4
	restMax    = 64
)

// skip tells whether the memo rests this time, counting the skip.
func (r *resting) skip() bool {
	if r.rest > 0 {
		r.rest--
		return true
	}
	return false
}

// looked counts a lookup and whether it hit; a full window of window
// lookups with too few hits starts a rest.
func (r *resting) looked(hit bool, window int) {
	r.looks++
	if hit {
		r.hits++
	}
	if r.looks < window {
		return
	}
	if r.hits*restMinHit < r.looks {
		r.pause = min(max(2*r.pause, window), restMax*window)
		r.rest = r.pause
	} else {
		r.pause = 0
	}
	r.looks, r.hits = 0, 0
}

// begin starts a solve's chain of rounds.
func (m *solveMemo) begin() {
	m.chain, m.doneF, m.doneL = -1, 0, 0
}

// recall gives a round of the solve, before build, the system and the
// rates remembered for it, and reports whether it did. A round's key is
// the entry of the solve's previous round (-1: none) and what build reads
// of the flows and links reached since: each flow's weight, penalty,
// bound, rate before the solve, links and how many of them are its
// route; each link's load, capacity and whether it is a fatpipe. What
// build reads of the others is in the previous rounds' keys. When it
// finds none, the key stays for remember.
func (n *Network) recall() bool {
	s := &n.sys
	m := &s.memo
	F, L := len(s.slot), len(s.id)
	if m.chain < -1 || !m.use(s.fresh, F) {
		// Not remembering this solve (a previous round was not
		// remembered, or the memo rests).
		m.chain, m.key = -2, m.key[:0]
		return false
	}
	// A key longer than the whole memo names a system store cannot
	// keep (and would forget everything trying): it is neither built
	// nor looked up. Its lower bound, 5 words a flow and 3 a link,
	// spares building most of such a key; the loop stops the rest.
	limit := m.wordLimit()
	if 3+5*(F-m.doneF)+3*(L-m.doneL) > limit {
		m.chain, m.key = -2, m.key[:0]
		return false
	}
	key := append(m.key[:0], uint64(int64(m.chain)), uint64(m.doneF)<<32|uint64(F), uint64(m.doneL)<<32|uint64(L))
	for _, fi := range s.slot[m.doneF:] {
		if len(key) > limit {
			m.chain, m.key = -2, key[:0]
			return false
		}
		f := &n.flows[fi]
		key = append(key, math.Float64bits(f.w), math.Float64bits(f.penalty), math.Float64bits(f.bound),
			math.Float64bits(f.prev), uint64(f.nl)<<32|uint64(f.nfwd))
		for _, l := range n.flinks(f) {
			key = append(key, uint64(n.lsolve[l].local))
		}
	}
	for _, l := range s.id[m.doneL:] {
		lk := &n.links[l]
		fat := uint64(0)
		if lk.fatpipe {
			fat = 1
		}
		key = append(key, math.Float64bits(lk.load), math.Float64bits(lk.cap), fat)
	}
	if len(key) > limit {
		m.chain, m.key = -2, key[:0]
		return false
	}
	m.key, m.doneF, m.doneL = key, F, L
	e := m.lookup(memoClass(F))
	if e < 0 {
		return false
	}
	m.chain = e
	en := &m.ents[e]
	buf := m.chunks[en.c][en.k+en.nk:]
	E := int(en.ni) - F - (L + 1)
	s.w, s.prev, s.val = grow(s.w, F), grow(s.prev, F), grow(s.val, F)
	s.kept, s.at = grow(s.kept, L), grow(s.at, F)
	s.lOff, s.lFlow = grow(s.lOff, L+1), grow(s.lFlow, E)
	for i, fi := range s.slot {
		f := &n.flows[fi]
		s.w[i], s.prev[i] = f.w, f.prev
	}
	for _, x := range [][]float64{s.val, s.kept} {
		for k := range x {
			x[k] = math.Float64frombits(buf[k])
		}
		buf = buf[len(x):]
	}
	k := 0
	for _, x := range [][]int32{s.at, s.lOff} {
		for q := range x {
			x[q] = int32(uint32(buf[k>>1] >> (32 * (k & 1))))
			k++
		}
	}
	// The re-solved flows of the links, with their crosstraffic bits
	// (see ctBit).
	lFlow := s.lFlow[:E]
	for p := range lFlow {
		lFlow[p] = int32(uint32(buf[k>>1] >> (32 * (k & 1))))
		k++
	}
	s.coef = [2]float64{1, n.cfg.CrossTraffic}
	// Nothing is built for a later round to extend: a round that
	// misses builds anew (the same system to the bit, see build).
	s.builtF, s.builtL = 0, 0
	if m.verify {
		n.verifyRecall()
	}
	return true
}

// verifyRecall builds and fills the round recall has just recalled, and
// counts it in mismatched unless what check reads of it — the rates, the
// links fixed at, the kept loads, the links' re-solved flows with their
// crosstraffic bits — is what recall gave, bit for bit (tests). It leaves the
// recalled system in place.
func (n *Network) verifyRecall() {
	s := &n.sys
	m := &s.memo
	F, L := len(s.slot), len(s.id)
	E := int(s.lOff[L])
	val, kept, at := slices.Clone(s.val[:F]), slices.Clone(s.kept[:L]), slices.Clone(s.at[:F])
	lOff, lFlow := slices.Clone(s.lOff[:L+1]), slices.Clone(s.lFlow[:E])
	n.build()
	s.fill()
	m.verified++
	if !sameBits(val, s.val[:F]) || !sameBits(kept, s.kept[:L]) || !slices.Equal(at, s.at[:F]) ||
		!slices.Equal(lOff, s.lOff[:L+1]) || !slices.Equal(lFlow, s.lFlow[:E]) || s.coef != [2]float64{1, n.cfg.CrossTraffic} {
		m.mismatched++
	}
	copy(s.val, val)
	copy(s.kept, kept)
	copy(s.at, at)
	s.lOff, s.lFlow = append(s.lOff[:0], lOff...), append(s.lFlow[:0], lFlow...)
	s.builtF, s.builtL = 0, 0
}

// sameBits tells whether a and b hold the same numbers, bit for bit.
func sameBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// remember stores the round just built and filled under the key recall
// looked up in vain: the system as check reads it (the links' kept loads
// and re-solved flows with their coefficients; the flows' weights and
// rates before are in the key) and the rates and links fixed at.
func (n *Network) remember() {
	s := &n.sys
	m := &s.memo
	if m.chain < -1 {
		return
	}
	if m.seen == nil {
		m.seen = make([]uint64, memoSeen)
	}
	if p := &m.seen[m.hash&(memoSeen-1)]; *p != m.hash {
		// Met for the first time (as far as seen tells): stored when it
		// comes back. The solve's later rounds, which would name this
		// one's entry, are not remembered either.
		*p, m.chain = m.hash, -2
		return
	}
	F, L := len(s.slot), len(s.id)
	E := s.lOff[L]
	// The re-solved flows of the links with their crosstraffic bits
	// (see ctBit).
	m.chain = m.store([][]float64{s.val[:F], s.kept[:L]},
		[][]int32{s.at[:F], s.lOff[:L+1], s.lFlow[:E]})
}

// memoHash is FNV-1a over the key's words.
func memoHash(key []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, v := range key {
		h ^= v
		h *= 1099511628211
	}
	return h
}
