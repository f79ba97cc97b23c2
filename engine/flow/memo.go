package flow

import (
	"math"
	"slices"
)

// solveMemo remembers the systems the solver built and filled, so that a
// system met before is neither built nor filled again. An iterative MPI
// program repeats its communication pattern every iteration, and with it
// the systems the solver meets, to the bit: on the CG-like replay of
// `tracesim sim --preset simgrid` (64 ranks, torus) 250,000 fills solve
// about 200 distinct systems.
//
// A solve's first round is looked up by what build reads: the flows
// reached (weight, penalty, bound, rate before the solve, links and how
// many of them are the route) and the links (load, capacity, fatpipe). A
// hit restores what build and fill would have made of them and check
// reads: the links' kept loads and re-solved flows, and the flows'
// rates and links fixed at. A later round (check added flows) builds as
// usual and looks its fill up by what fill reads: the flows' weights,
// levels, bounds, links and coefficients, and each link's saturation
// level and, where it can saturate, its remaining capacity and usage (a
// link that cannot saturate never fixes a flow, whatever its capacity).
// A hit compares the whole key, not only its hash, so what a hit gives
// is what building and filling would give, bit for bit.
//
// The memory is bounded (memoWords): when full, the memo forgets
// everything and starts again. A run whose systems do not repeat pays
// the keys for nothing; after a window of lookups with few hits, the memo
// rests for a while before it tries again.
type solveMemo struct {
	// off disables the memo (system.fresh turns it off too).
	off bool
	// limit, when positive, replaces memoWords (tests).
	limit int
	// key is the scratch key of the system being looked up, hash its
	// hash; head and found tell where the table chains it.
	key  []uint64
	hash uint64
	// tab maps a key's hash to its latest entry; entries with the same
	// hash are chained by next.
	tab  map[uint64]int32
	ents []memoEntry
	// The entries' keys, then their results as floats and as integers,
	// end to end.
	keys []uint64
	f64  []float64
	i32  []int32
	// looks and hits count the lookups of the current window; rest is
	// how many lookups are skipped before the next window.
	looks, hits int
	rest        int
	// lookups and found count all lookups and hits, for the tests.
	lookups, found int
}

// memoEntry is a remembered system: its key is keys[k:k+nk], its
// results f64[f:f+nf] and i32[i:i+ni] (see recall and fillMemoised).
type memoEntry struct {
	k, nk, f, nf, i, ni int32
	next                int32 // previous entry with the same hash; -1: none
}

// Kinds of key (their first word).
const (
	memoRound1 = 1 // build's inputs: the results are build's and fill's
	memoFill   = 2 // fill's inputs: the results are fill's
)

const (
	// memoWords bounds the memo's keys and results, in 4- and 8-byte
	// words: at most 4 MiB.
	memoWords = 1 << 18
	// A window of memoWindow lookups with fewer than one hit in
	// memoMinHit makes the memo rest for memoRest lookups.
	memoWindow = 4096
	memoMinHit = 4
	memoRest   = 16 * memoWindow
)

// use tells whether to look the next system up, counting the lookup.
func (m *solveMemo) use(fresh bool) bool {
	if m.off || fresh {
		return false
	}
	if m.rest > 0 {
		m.rest--
		return false
	}
	return true
}

// lookup finds the entry whose key is m.key (hashing it first), counting
// the lookup and its hit; -1 when there is none.
func (m *solveMemo) lookup() int32 {
	m.hash = memoHash(m.key)
	m.looks++
	m.lookups++
	if m.tab == nil {
		m.tab = make(map[uint64]int32)
	}
	e, ok := m.tab[m.hash]
	for ; ok && e >= 0; e = m.ents[e].next {
		en := &m.ents[e]
		if slices.Equal(m.keys[en.k:en.k+en.nk], m.key) {
			m.hits++
			m.found++
			m.window()
			return e
		}
	}
	m.window()
	return -1
}

// store remembers m.key (as last looked up) with the results f and i.
func (m *solveMemo) store(f [][]float64, i [][]int32) {
	nf, ni := 0, 0
	for _, x := range f {
		nf += len(x)
	}
	for _, x := range i {
		ni += len(x)
	}
	limit := memoWords
	if m.limit > 0 {
		limit = m.limit
	}
	if len(m.keys)+len(m.key)+len(m.f64)+nf+len(m.i32)+ni > limit {
		// Full: forget everything (the systems of the current phase of
		// the run come back soon enough).
		clear(m.tab)
		m.ents, m.keys, m.f64, m.i32 = m.ents[:0], m.keys[:0], m.f64[:0], m.i32[:0]
	}
	head, ok := m.tab[m.hash]
	if !ok {
		head = -1
	}
	m.tab[m.hash] = int32(len(m.ents))
	m.ents = append(m.ents, memoEntry{k: int32(len(m.keys)), nk: int32(len(m.key)),
		f: int32(len(m.f64)), nf: int32(nf), i: int32(len(m.i32)), ni: int32(ni), next: head})
	m.keys = append(m.keys, m.key...)
	for _, x := range f {
		m.f64 = append(m.f64, x...)
	}
	for _, x := range i {
		m.i32 = append(m.i32, x...)
	}
}

// window ends the lookup window when it is full: with too few hits, the
// memo rests.
func (m *solveMemo) window() {
	if m.looks < memoWindow {
		return
	}
	if m.hits*memoMinHit < m.looks {
		m.rest = memoRest
	}
	m.looks, m.hits = 0, 0
}

// recall gives the solve's first round, before build, the system and
// the rates of the same round remembered: it reports whether it did. When
// it did not, the key stays for rememberRound1.
func (n *Network) recall() bool {
	s := &n.sys
	m := &s.memo
	if !m.use(s.fresh) {
		m.key = m.key[:0]
		return false
	}
	F, L := len(s.slot), len(s.id)
	key := append(m.key[:0], memoRound1, uint64(F)<<32|uint64(L))
	for _, fi := range s.slot {
		f := &n.flows[fi]
		key = append(key, math.Float64bits(f.w), math.Float64bits(f.penalty), math.Float64bits(f.bound),
			math.Float64bits(f.prev), uint64(len(f.links))<<32|uint64(f.nfwd))
		for _, l := range f.links {
			key = append(key, uint64(n.lsolve[l].local))
		}
	}
	for _, l := range s.id {
		lk := &n.links[l]
		fat := uint64(0)
		if lk.fatpipe {
			fat = 1
		}
		key = append(key, math.Float64bits(lk.load), math.Float64bits(lk.cap), fat)
	}
	m.key = key
	e := m.lookup()
	if e < 0 {
		return false
	}
	en := &m.ents[e]
	f64, i32 := m.f64[en.f:en.f+en.nf], m.i32[en.i:en.i+en.ni]
	E := len(i32) - F - (L + 1)
	s.w, s.prev, s.val = grow(s.w, F), grow(s.prev, F), grow(s.val, F)
	s.kept, s.lC, s.at = grow(s.kept, L), grow(s.lC, E), grow(s.at, F)
	s.lOff, s.lFlow = grow(s.lOff, L+1), grow(s.lFlow, E)
	f64 = f64[copy(s.w, f64):]
	f64 = f64[copy(s.prev, f64):]
	f64 = f64[copy(s.val, f64):]
	f64 = f64[copy(s.kept, f64):]
	copy(s.lC, f64)
	i32 = i32[copy(s.at, i32):]
	i32 = i32[copy(s.lOff, i32):]
	copy(s.lFlow, i32)
	// What a later round extends is not built: it builds anew.
	s.builtF, s.builtL = 0, 0
	return true
}

// rememberRound1 stores the first round's system and rates under the
// key recall looked up in vain.
func (n *Network) rememberRound1() {
	s := &n.sys
	if len(s.memo.key) == 0 || s.memo.key[0] != memoRound1 {
		return
	}
	F, L := len(s.slot), len(s.id)
	E := s.lOff[L]
	s.memo.store([][]float64{s.w[:F], s.prev[:F], s.val[:F], s.kept[:L], s.lC[:E]},
		[][]int32{s.at[:F], s.lOff[:L+1], s.lFlow[:E]})
}

// fillMemoised is fill, unless the memo holds the system as built: then
// the rates and the links fixed at are the remembered ones.
func (s *system) fillMemoised() {
	m := &s.memo
	if !m.use(s.fresh) {
		m.key = m.key[:0]
		s.fill()
		return
	}
	F := len(s.slot)
	s.fillKey()
	if e := m.lookup(); e >= 0 {
		en := &m.ents[e]
		copy(s.val[:F], m.f64[en.f:en.f+en.nf])
		copy(s.at[:F], m.i32[en.i:en.i+en.ni])
		return
	}
	s.fill()
	m.store([][]float64{s.val[:F]}, [][]int32{s.at[:F]})
}

// fillKey writes the key of the system as built (before fill) into the
// memo's scratch: the numbers of flows and links; per flow its weight,
// level, bound, number of links, and each link with its coefficient; per
// link its saturation level and, when finite, its remaining capacity and
// usage.
func (s *system) fillKey() {
	F, L := len(s.slot), len(s.id)
	key := append(s.memo.key[:0], memoFill, uint64(F)<<32|uint64(L))
	fOff, fLink, fC := s.fOff, s.fLink, s.fC
	w, level, bound := s.w[:F], s.level[:F], s.bound[:F]
	for i := range F {
		a, b := fOff[i], fOff[i+1]
		key = append(key, math.Float64bits(w[i]), math.Float64bits(level[i]), math.Float64bits(bound[i]), uint64(b-a))
		for k := a; k < b; k++ {
			key = append(key, uint64(fLink[k]), math.Float64bits(fC[k]))
		}
	}
	rem, usage, ratio := s.rem[:L], s.usage[:L], s.ratio[:L]
	for j := range L {
		r := ratio[j]
		key = append(key, math.Float64bits(r))
		if !math.IsInf(r, 1) {
			key = append(key, math.Float64bits(rem[j]), math.Float64bits(usage[j]))
		}
	}
	s.memo.key = key
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
