package simgridti

import "math/bits"

// A TI trace repeats a few lines over and over: an iterative program
// issues the same calls with the same peers, tags, counts and amounts
// every iteration, so a rank's file of 15,000 lines may hold 15
// distinct ones. The memo remembers the record decodeTight gave for
// each of the lines seen recently, keyed by the line's exact bytes: a
// line seen before costs finding its end and one comparison instead of
// parsing its five or six fields (a quarter of the instructions the
// decoding took). The record depends on the line's bytes alone (its
// columns included: see decodeTight), so a line read from the memo
// decodes exactly as decodeTight decodes it, errors and all (a line
// decodeTight refuses is never remembered). Traces whose lines rarely
// repeat (computes of measured amounts) turn the memo off for a while,
// so that they pay little for it.

// memoWords is the longest line the memo holds, in words: its bytes and
// the line break after them (31 bytes and the "\n").
const memoWords = 4

// minMemoBits and maxMemoBits bound a memo's size: 1<<bits slots of
// 408 B (the line, its record, its template). A stream's memo serves
// every rank, ranks taking turns, so it is sized by the ranks (see
// memoBitsFor): 1,024 slots hold the fourteen distinct lines of each of
// 64 ranks (256 held a quarter of them, and a line evicted lost its
// template too); at 1,024 ranks they held a fourteenth of the lines,
// and the reader took 2.6× the instructions a line it took at 64.
const (
	minMemoBits = 10
	maxMemoBits = 14 // slot numbers plus one fit a uint16
)

// memoBitsFor returns the memo size, in bits, for a stream whose ranks
// take turns: room for 32 lines a rank (a loop of a few calls each
// with its own peer, and room against pairs of slots filling unevenly:
// a 256-rank stencil took 4.5 % fewer instructions with room for 64
// than for 16; 32 hold its 3,328 distinct lines in 8,192 slots, and its
// flow run took 0.8 % more instructions than with 64 for 1.2 MiB less
// peak), within the bounds.
func memoBitsFor(ranks int) int {
	bits := minMemoBits
	for bits < maxMemoBits && 1<<bits < 32*ranks {
		bits++
	}
	return bits
}

// memoSlot is a remembered line: its bytes up to and including its
// "\n", zeros after (a slot never filled holds zeros, which no line's
// key is: a key holds a "\n"), its length and its record.
type memoSlot struct {
	key  [memoWords]uint64
	mask [memoWords]uint64 // ones over the key's bytes (see keyMask)
	n    int
	fr   fastRec
	// next is the slot of the line found after this one last time,
	// plus one (0: none), alt that of the line found after it before,
	// when another: guesses, checked (see lineMemo.decode). A line
	// followed by one of two others in turn (an allreduce before one
	// compute, then another) is guessed right either way.
	next, alt uint16
}

// maxID bounds the ids the memo names lines by: a block's lines of
// other kinds carry ids with the top bit set (see blockLine), which no
// template's id has.
const maxID = 1<<31 - 1

// memoTrial is how many lines the memo is tried on before it judges
// whether it pays, and memoRest how many it then sits out when too few
// of them were found (see judge).
const (
	memoTrial = 1 << 10
	memoRest  = 1 << 14
)

// lineMemo is a table of recently decoded tight lines: a line's key
// hashes to a pair of slots, the line found last in the first. Make it
// with newLineMemo or init.
type lineMemo struct {
	slots []memoSlot
	// shift turns a key's hash into its slot pair (64 less the bits).
	shift uint
	// left is how many lookups the current trial has still to go,
	// misses how many of its lookups failed; rest is how many lines are
	// still decoded without the memo.
	left, misses, rest int
	// lastID is the latest id given to a line remembered (see fastRec);
	// ids stay below maxID.
	lastID uint32
	// prev is the slot of the line found last, plus one (0: none);
	// guess the slot the line after it had the last time, alt the
	// one before (see memoSlot).
	prev, guess, alt uint16
	// byID holds the records of the latest lines named, each at its
	// id's low bits (valid while its id is the one looked for):
	// decodeID hands out a found line's id alone, and the goroutine
	// applying the lines reads the record here when it needs it (see
	// parser.memoRec).
	byID []fastRec
}

// newLineMemo returns an empty memo of 1<<bits slots.
func newLineMemo(bits int) *lineMemo {
	m := new(lineMemo)
	m.init(bits)
	return m
}

// init makes m an empty memo of 1<<bits slots.
func (m *lineMemo) init(bits int) {
	*m = lineMemo{slots: make([]memoSlot, 1<<bits), byID: make([]fastRec, 1<<bits), shift: uint(64 - bits)}
}

// rec returns where byID holds the record of the line named id.
func (m *lineMemo) rec(id uint32) *fastRec {
	return &m.byID[id&uint32(len(m.byID)-1)]
}

// newlineIn returns the high bit of the first "\n" byte of x (the first
// byte lowest) and of some bytes after it, or 0 when x holds none: the
// zero-byte test of x^"\n\n…", exact for the first one (borrows run
// upwards only).
func newlineIn(x uint64) uint64 {
	y := x ^ '\n'*ones
	return (y - ones) &^ y & (0x80 * ones)
}

// through returns x's bytes up to and including the one z's lowest high
// bit marks (see newlineIn), zeros above.
func through(x, z uint64) uint64 {
	// z != 0: its lowest bit is the high bit of a byte.
	return x & (^uint64(0) >> ((63 - bits.TrailingZeros64(z)) & 63))
}

// memoHash returns the hash of a key's words, whose top bits are its
// slot pair (see lineMemo.pair). Each word goes into the product of
// those before: a hash of each word's own product, xored, sent four
// lines that differed in two words (isend and irecv, to two peers) to
// the same pair.
func memoHash(k0, k1, k2, k3 uint64) uint64 {
	return (((k0*0x9e3779b97f4a7c15+k1)*0xc2b2ae3d27d4eb4f+k2)*0x165667b19e3779f9 + k3) * 0xd6e8feb86659fd93
}

// pair returns the slot pair of a key's hash: the index of its first
// slot, the second after it.
func (m *lineMemo) pair(h uint64) uint64 {
	return h >> m.shift &^ 1
}

// lineKey returns the memo's key of the line at the start of b — its
// words up to the line break, the last cut after it — and its hash
// (see memoHash); not ok for a line too long for a key.
func lineKey(b *lineBuf) (key [memoWords]uint64, h uint64, ok bool) {
	var k0, k1, k2, k3 uint64
	k0 = load8(b, 0)
	if z := newlineIn(k0); z != 0 {
		k0 = through(k0, z)
	} else if k1 = load8(b, 8); newlineIn(k1) != 0 {
		k1 = through(k1, newlineIn(k1))
	} else if k2 = load8(b, 16); newlineIn(k2) != 0 {
		k2 = through(k2, newlineIn(k2))
	} else if k3 = load8(b, 24); newlineIn(k3) != 0 {
		k3 = through(k3, newlineIn(k3))
	} else {
		return key, 0, false
	}
	return [memoWords]uint64{k0, k1, k2, k3}, memoHash(k0, k1, k2, k3), true
}

// decode is decodeTight (same line, same record, same length), looking
// the line up first and remembering what decodeTight gives.
func (m *lineMemo) decode(b *lineBuf, fr *fastRec) (int, bool) {
	if m.rest > 0 {
		m.rest--
		m.prev = 0
		return decodeTight(b, fr)
	}
	if gi := m.guessed(b); gi != 0 {
		// A loop's lines come in the order they came before: the line
		// after the last one found is most likely one that followed
		// it before. Its bytes and line break in the window say,
		// without a key or a hash.
		g := &m.slots[gi-1]
		if m.left--; m.left <= 0 {
			m.judge()
		}
		*fr = g.fr
		m.prev, m.guess, m.alt = gi, g.next, g.alt
		return g.n, true
	}
	key, hash, ok := lineKey(b)
	if !ok {
		return decodeTight(b, fr) // too long for a key
	}
	h := m.pair(hash)
	s := &m.slots[h]
	if m.left--; m.left <= 0 {
		m.judge()
	}
	if s.key == key {
		*fr = s.fr
		m.follow(uint16(h))
		return s.n, true
	}
	// The slot's pair: two lines of a rank's loop that hash alike
	// share the two slots rather than evict each other.
	o := &m.slots[h|1]
	if o.key == key {
		*fr = o.fr
		*s, *o = *o, *s // the latest found first
		m.follow(uint16(h))
		return s.n, true
	}
	m.misses++
	got, ok := decodeTight(b, fr)
	if ok {
		*o = *s
		if m.lastID < maxID {
			// A name for the line's bytes, never given before (once
			// they run out, lines go without one).
			m.lastID++
			fr.id = m.lastID
		}
		s.key, s.n, s.fr, s.next, s.alt, s.mask = key, got, *fr, 0, 0, keyMask(got)
		m.follow(uint16(h))
	} else {
		m.prev, m.guess, m.alt = 0, 0, 0
	}
	return got, ok
}

// decodeID is decode for a block's lines (see decodedBlock.tightRun): a
// line found returns the id the memo named it by, and fr is left alone;
// a line the memo names now has its record in m.byID as well. Only a
// line the memo could not name (resting, too long for a key, no id
// left) is decoded into fr, with id 0.
func (m *lineMemo) decodeID(b *lineBuf, fr *fastRec) (int, uint32, bool) {
	if m.rest > 0 {
		m.rest--
		m.prev = 0
		n, ok := decodeTight(b, fr)
		return n, 0, ok
	}
	if gi := m.guessed(b); gi != 0 {
		g := &m.slots[gi-1]
		if m.left--; m.left <= 0 {
			m.judge()
		}
		m.prev, m.guess, m.alt = gi, g.next, g.alt
		if id := g.fr.id; id != 0 {
			return g.n, id, true
		}
		*fr = g.fr
		return g.n, 0, true
	}
	key, hash, ok := lineKey(b)
	if !ok {
		n, ok := decodeTight(b, fr) // too long for a key
		return n, 0, ok
	}
	h := m.pair(hash)
	s := &m.slots[h]
	if m.left--; m.left <= 0 {
		m.judge()
	}
	if s.key != key {
		if o := &m.slots[h|1]; o.key == key {
			*s, *o = *o, *s // the latest found first
		} else {
			return m.remember(b, fr, s, o, key, uint16(h))
		}
	}
	m.follow(uint16(h))
	if id := s.fr.id; id != 0 {
		return s.n, id, true
	}
	*fr = s.fr
	return s.n, 0, true
}

// remember is decodeID for a line not found: it decodes it into fr and,
// if it has the tight form, remembers it in slot s (what s held moving
// to o), names it and notes its record in byID.
func (m *lineMemo) remember(b *lineBuf, fr *fastRec, s, o *memoSlot, key [memoWords]uint64, h uint16) (int, uint32, bool) {
	m.misses++
	got, ok := decodeTight(b, fr)
	if !ok {
		m.prev, m.guess, m.alt = 0, 0, 0
		return got, 0, false
	}
	*o = *s
	var id uint32
	if m.lastID < maxID {
		m.lastID++
		id = m.lastID
		fr.id = id
		*m.rec(id) = *fr
	}
	s.key, s.n, s.fr, s.next, s.alt, s.mask = key, got, *fr, 0, 0, keyMask(got)
	m.follow(h)
	return got, id, true
}

// judge ends a trial (and starts the next): with fewer than a quarter
// of its lines found, the memo sits out the next memoRest lines. (A line
// found spares ~190 instructions, a lookup costs ~50; lines decodeTight
// refuses, such as sendRecv, count as not found.)
func (m *lineMemo) judge() {
	if 4*m.misses > 3*memoTrial {
		m.rest = memoRest
	}
	m.left, m.misses = memoTrial, 0
}

// follow notes that the line just found or remembered is in slot h:
// the line before it is followed by it, and it is followed by what
// followed it the last time.
func (m *lineMemo) follow(h uint16) {
	if m.prev != 0 {
		if ps := &m.slots[m.prev-1]; ps.next != h+1 {
			ps.alt, ps.next = ps.next, h+1
		}
	}
	m.prev, m.guess, m.alt = h+1, m.slots[h].next, m.slots[h].alt
}

// guessed returns the slot of the memo's guess (see lineMemo) that holds
// the line b starts, plus one, or 0 when neither does.
func (m *lineMemo) guessed(b *lineBuf) uint16 {
	if gi := m.guess; gi != 0 && m.slots[gi-1].holds(b) {
		return gi
	}
	if ai := m.alt; ai != 0 && m.slots[ai-1].holds(b) {
		return ai
	}
	return 0
}

// holds reports whether the line b starts is the slot's: its bytes up
// to its line break, and those only (a slot never filled holds none).
func (g *memoSlot) holds(b *lineBuf) bool {
	d := (load8(b, 0)^g.key[0])&g.mask[0] | (load8(b, 8)^g.key[1])&g.mask[1] |
		(load8(b, 16)^g.key[2])&g.mask[2] | (load8(b, 24)^g.key[3])&g.mask[3]
	return d == 0 && g.n != 0
}

// keyMask returns the mask of a key whose line break is at n: ones
// over the line's bytes and its "\n" (see lineMemo.decode's guess; a
// slot never filled, or emptied by a move, has n 0: no line of the
// tight form ends at 0).
func keyMask(n int) (m [memoWords]uint64) {
	for j := range m {
		switch v := n + 1 - 8*j; {
		case v >= 8:
			m[j] = ^uint64(0)
		case v > 0:
			m[j] = 1<<(8*v) - 1
		}
	}
	return m
}
