package tsim

import (
	"encoding/binary"
	"math"
	"math/bits"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// fastMax bounds the lines decodeFast takes (typical records have 20
// to 60 bytes). It reads a line in a buffer of fastMax bytes and more,
// where a byte that ends every field follows the line: a zero in a copy
// of the line, or the line break after it in its own buffer when that
// has room. Indices into the buffer are masked, so the compiler checks
// no bounds, and no loop checks the line's length: that byte ends every
// field, and the line ends exactly where a loop stops at index n. (Such
// a byte inside the line stops a field too, short of n: the general
// path's.) Longer lines go to the general path.
const fastMax = 128

// lineBuf is the buffer decodeFast reads a line in (see fastMax); the
// eight bytes past fastMax let load8 read a word at any index of the
// line.
type lineBuf = [fastMax + 8]byte

// ones has a one in every byte: c*ones repeats the byte c in a word.
const ones = 0x0101010101010101

// load8 returns the eight bytes b[i:i+8] as a word, b[i] lowest.
func load8(b *lineBuf, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i&(fastMax-1):])
}

// at returns b[i]; i < fastMax always (see fastMax), which the mask
// tells the compiler.
func at(b *lineBuf, i int) byte { return b[i&(fastMax-1)] }

// skipBlanks returns the index of the first byte at or after i that is
// not blank.
func skipBlanks(b *lineBuf, i int) int {
	for isBlank(at(b, i)) {
		i++
	}
	return i
}

// nextField returns the index of the field after one ending at j (at a
// blank or the line's end): nearly always the byte after one space.
func nextField(b *lineBuf, j int) int {
	if at(b, j) == ' ' && at(b, j+1) > ' ' {
		return j + 1
	}
	return skipBlanks(b, j)
}

// decodeFast decodes a record of the common shape in one pass over its
// bytes, parsing numbers as it reads them: bare fields (no quotes), a
// time without sign or exponent, arguments whose values are plain. It
// reports false for anything else, mistakes included, and leaves the
// line to decode, which reads every shape and words the errors; where
// it reports true, r is what decode gives (FuzzDecodeFast checks it).
// Most of a large file's lines take this path. It reads the line in a
// buffer (see fastMax); names, texts and values are slices of line.
func (f *recordFormat) decodeFast(line []byte, i int, out *rec) bool {
	n := len(line)
	if n >= fastMax {
		return false
	}
	var b *lineBuf
	if c := cap(line); c >= len(lineBuf{}) && c > n && (line[:n+1][n] == '\n' || line[:n+1][n] == '\r') {
		// The line's own buffer will do: the line break after it ends
		// every field as the zero would, and the buffer has room for
		// every word read.
		b = (*lineBuf)(line[:len(lineBuf{})])
	} else {
		var buf lineBuf
		copy(buf[:], line)
		b = &buf
	}
	var tm float64
	if f.timed {
		// At most 15 digits in all, which a float64 holds exactly.
		mant, k := digits(b, i)
		i += k
		d := k
		for k == 8 && d <= 15 {
			var v uint64
			v, k = digits(b, i)
			mant, i, d = mant*pow10u[k]+v, i+k, d+k
		}
		frac := 0
		if at(b, i) == '.' {
			i++
			v, k := digits(b, i)
			i += k
			frac = k
			for k == 8 && d+frac <= 15 {
				var w uint64
				w, k = digits(b, i)
				v, i, frac = v*pow10u[k]+w, i+k, frac+k
			}
			if d+frac <= 15 {
				mant = mant*pow10u[frac&15] + v
			}
		}
		digits := d + frac
		// As parseFloat's exact path: one division of an exact
		// integer by an exact power of ten.
		if digits == 0 || digits > 15 {
			return false
		}
		tm = float64(mant)
		if frac > 0 {
			tm /= pow10[frac&15]
		}
	} else {
		if at(b, i) != '-' {
			return false
		}
		i++
	}
	if i == n || !isBlank(at(b, i)) {
		return false
	}
	i = nextField(b, i)
	rankOff := i
	r, i := decimalAt(b, i)
	// More than seven digits (leading zeros) are the general path's:
	// parseUint refuses more than 18. Up to seven, r has not
	// overflowed, and it grew with every digit: a prefix of the rank
	// out of the world leaves r out of it, so one check after the loop
	// does what one a digit did.
	if i == rankOff || i-rankOff > 7 || r >= f.ranks || i == n || !isBlank(at(b, i)) {
		return false
	}
	i = nextField(b, i)
	kind, w := kindAt(b, i, n)
	if w == 0 {
		return false
	}
	i += w
	start := i
	// The event is built in place: built apart and copied whole, its
	// copy read back the bytes of its fields just stored, which the
	// processor cannot forward (a tenth of the function's time).
	e := &out.e
	*e = tracefmt.Event{Time: tm, Kind: kind}
	// The name of an enter or leave headerState resolved, set in out
	// only when the record has a text (nameEnd > 0).
	var nameAt, nameEnd int
	switch kind {
	case tracefmt.KindEnter, tracefmt.KindLeave, tracefmt.KindMarker, tracefmt.KindCollective:
		i = skipBlanks(b, i)
		start = i
		for i = skipName(b, i); byteClass[at(b, i)] == 0; i++ {
		}
		if i == start || i != n && byteClass[at(b, i)] != blank {
			return false
		}
		if kind != tracefmt.KindCollective {
			e.Match = -1
			out.named = true
			if kind <= tracefmt.KindLeave && f.headerState(b, start, i-start, e) {
				// The state is set: the name is kept only for a
				// text's record, which resolveRec resolves whole
				// (see below); slicing and storing it cost more than
				// the rest of the name's path.
				out.state, nameAt, nameEnd = true, start, i
				break
			}
			out.name = tok{b: line[start:i], off: start}
			break
		}
		op, ok := tracefmt.ParseCollOp(string(line[start:i]))
		if !ok {
			return false
		}
		*e = tracefmt.Collective(tm, op, -1, 0, 0, 0)
	}
	allowed := kindArgs[kind]
	var seen uint16
	var size, recvd int64
	var amount float64
	for {
		i = skipBlanks(b, i)
		if i == n || at(b, i) == '#' {
			break
		}
		// The common to=, from=, tag=, size= and req= (allowed for
		// the kind and not seen yet) with a value of one to nine
		// digits that ends at a blank or the line's end, read as it is
		// scanned and set as the general case below sets it. Any other
		// argument is left to the general case, which judges it; so is
		// a rank out of the world. (In the loop: a call an argument
		// cost more.)
		if bit, k := argKey(load8(b, i)); bit&allowed != 0 && seen&bit == 0 {
			v, j := decimalAt(b, i+k)
			if d := j - (i + k); d != 0 && d <= 9 && (j == n || isBlank(at(b, j))) && (bit&(argTo|argFrom) == 0 || v < f.ranks) {
				switch bit {
				case argTo, argFrom:
					e.Peer = int32(v)
				case argTag:
					e.Tag = int32(v)
				case argSize:
					size = int64(v)
				case argReq:
					e.SetRequest(int64(v))
				}
				seen |= bit
				i = j
				continue
			}
		}
		start = i
		for byteClass[at(b, i)]&(blank|equals|end) == 0 {
			i++
		}
		if c := at(b, i); c != '=' {
			if i != n && !isBlank(c) {
				return false
			}
			// A flag.
			w := line[start:i]
			if fl, ok := flagBit(w); ok {
				e.Flags |= fl
			} else if kind == tracefmt.KindCollective && string(w) == "sizeunknown" {
				e.Flags |= tracefmt.FlagSizeUnknown
			} else {
				return false
			}
			continue
		}
		bit := argBit(line[start:i])
		if bit&allowed == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		i++
		vstart := i
		for byteClass[at(b, i)]&(blank|end) == 0 {
			i++
		}
		if i == vstart || i != n && !isBlank(at(b, i)) || at(b, vstart) == '"' {
			return false
		}
		v := line[vstart:i]
		switch bit {
		case argTo, argFrom:
			p, ok := smallUint(v)
			if !ok || p >= int64(f.ranks) {
				return false
			}
			e.Peer = int32(p)
		case argRoot:
			p, ok := parseInt(v)
			if !ok || p < -1 || p >= int64(f.ranks) {
				return false
			}
			e.Peer = int32(p)
		case argTag:
			t, ok := smallUint(v)
			if !ok {
				if t, ok = parseInt(v); !ok || t != int64(int32(t)) {
					return false
				}
			}
			e.Tag = int32(t)
		case argSize, argSent, argRecv:
			b, ok := parseUint(v)
			if !ok {
				var err error
				if allDigits(v) {
					return false
				}
				if b, err = units.ParseSize(string(v)); err != nil {
					return false
				}
			}
			if bit == argRecv {
				recvd = b
			} else {
				size = b
			}
		case argComm:
			c, ok := f.commFast(v)
			if !ok {
				return false
			}
			e.Comm = c
		case argReq:
			q, ok := smallUint(v)
			if !ok {
				if q, ok = parseInt(v); !ok {
					return false
				}
			}
			e.SetRequest(q)
		case argDur, argFlops:
			if seen&(argDur|argFlops) == argDur|argFlops {
				return false
			}
			var ok bool
			if bit == argDur {
				amount, ok = f.duration(v)
			} else {
				amount, ok = flops(v)
				e.Flags |= tracefmt.FlagWork
			}
			if !ok {
				return false
			}
		case argText:
			out.text, out.hasText = tok{b: v, off: vstart}, true
		}
	}
	switch kind {
	case tracefmt.KindSend:
		if seen&argTo == 0 {
			return false
		}
		e.Size = size
	case tracefmt.KindRecv:
		if seen&argFrom == 0 {
			return false
		}
		e.Size = size
	case tracefmt.KindCollective:
		if seen&argRoot == 0 && e.Op().Rooted() {
			return false
		}
		e.Size = size
		e.SetRequest(recvd)
	case tracefmt.KindCompute:
		if seen&(argDur|argFlops) == 0 {
			return false
		}
		e.SetRequest(int64(math.Float64bits(amount)))
	}
	if nameEnd > 0 && out.hasText {
		out.name = tok{b: line[nameAt:nameEnd], off: nameAt}
	}
	out.rank, out.rankOff = int32(r), int32(rankOff)
	return true
}

// stateWord is a state the header defines whose name is a bare word of
// one to 16 bytes, not all digits: its bytes as two words (zeros past
// its length), as headerState compares them.
type stateWord struct {
	w0, w1 uint64
	n      int
	id     tracefmt.StateID
}

// lowBytes[k] has its k lowest bytes set.
var lowBytes = [9]uint64{0, 1<<8 - 1, 1<<16 - 1, 1<<24 - 1, 1<<32 - 1, 1<<40 - 1, 1<<48 - 1, 1<<56 - 1, 1<<64 - 1}

// newStateWord returns the stateWord of a header state, false when its
// name is not one headerState can match (see stateWord).
func newStateWord(name string, id tracefmt.StateID) (stateWord, bool) {
	n := len(name)
	if n == 0 || n > 16 || allDigits([]byte(name)) {
		return stateWord{}, false
	}
	var b [16]byte
	copy(b[:], name)
	return stateWord{binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:]), n, id}, true
}

// stateSlots is the size of recordFormat's table of stateWords (a
// power of two), four times the most states it holds (maxHeaderStates).
const stateSlots = 64

// stateSlot returns the slot of a name's words in the table of
// stateWords. Two states may want the same slot: the second is left to
// resolveHeader.
func stateSlot(w0, w1 uint64, n int) int {
	return int(((w0 ^ w1<<1 ^ uint64(n)) * 0x9e3779b97f4a7c15) >> 58)
}

// headerState sets e's state when the bare name of n bytes at b[i:] is
// that of a state the header defines (f.stateWords), reporting whether
// it is: resolveHeader's answer for such a name, found by comparing two
// words. Other names (none, or longer than 16 bytes) are left to
// resolveHeader.
func (f *recordFormat) headerState(b *lineBuf, i, n int, e *tracefmt.Event) bool {
	if n > 16 || f.stateWords == nil {
		return false
	}
	w0 := load8(b, i) & lowBytes[min(n, 8)]
	// Past the name's end when n <= 8, where the mask clears it.
	w1 := load8(b, i+8) & lowBytes[max(n-8, 0)]
	sw := &f.stateWords[stateSlot(w0, w1, n)]
	if sw.w0 == w0 && sw.w1 == w1 && sw.n == n {
		e.Peer = int32(sw.id)
		return true
	}
	return false
}

// The keys numArg reads, as words of their bytes.
const (
	wordTo   = 't' | 'o'<<8 | '='<<16
	wordTag  = 't' | 'a'<<8 | 'g'<<16 | '='<<24
	wordReq  = 'r' | 'e'<<8 | 'q'<<16 | '='<<24
	wordSize = 's' | 'i'<<8 | 'z'<<16 | 'e'<<24 | '='<<32
	wordFrom = 'f' | 'r'<<8 | 'o'<<16 | 'm'<<24 | '='<<32
)

// decimalAt reads the decimal digits at b[i:] a byte at a time (short
// numbers, for which digits' word costs more): their value and the
// index after them. The byte after the line stops it.
func decimalAt(b *lineBuf, i int) (int, int) {
	v := 0
	for {
		d := at(b, i) - '0'
		if d > 9 {
			return v, i
		}
		v = v*10 + int(d)
		i++
	}
}

// argKey returns the argument bit of the key at the start of x (eight
// bytes of a line, the first lowest) when it is to=, from=, tag=,
// size= or req=, and the key's length with its '='; 0 for any other.
func argKey(x uint64) (uint16, int) {
	switch {
	case x&(1<<24-1) == wordTo:
		return argTo, 3
	case x&(1<<32-1) == wordTag:
		return argTag, 4
	case x&(1<<40-1) == wordSize:
		return argSize, 5
	case x&(1<<40-1) == wordFrom:
		return argFrom, 5
	case x&(1<<32-1) == wordReq:
		return argReq, 4
	}
	return 0, 0
}

// digits reads the decimal digits at b[i:], up to eight: their value
// and how many there are (8: maybe more after them). A word's digits
// are found and summed a word at a time, without a loop over them.
func digits(b *lineBuf, i int) (uint64, int) {
	const highs = 0x8080808080808080
	x := load8(b, i)
	// The high bit of the first byte that is no digit is set in m:
	// below '0' the subtraction borrows; from ':' to 0xb9 the addition
	// reaches the high bit, from 0xb0 on the subtraction leaves it.
	// Bytes up to that one are digits, which neither borrow nor carry,
	// so the lowest bit set is exact.
	m := ((x - ones*'0') | (x + ones*0x46)) & highs
	k := bits.TrailingZeros64(m) >> 3 // 8 when m is 0
	// The k digits' values in the top k bytes, the first digit the
	// lowest of them (the most significant): zeros before them change
	// nothing. (With k 0 the shift leaves nothing.)
	v := (x & (ones * 0x0f)) << (64 - 8*k)
	v = (v * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff
	v = (v * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff
	v = (v * (10000<<32 + 1)) >> 32
	return v, k
}

// pow10u holds the powers of ten up to 10^15 as integers.
var pow10u = [16]uint64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// The kinds' names as words of their bytes, the first lowest.
const (
	wordEnter   = 'e' | 'n'<<8 | 't'<<16 | 'e'<<24 | 'r'<<32
	wordLeave   = 'l' | 'e'<<8 | 'a'<<16 | 'v'<<24 | 'e'<<32
	wordSend    = 's' | 'e'<<8 | 'n'<<16 | 'd'<<24
	wordRecv    = 'r' | 'e'<<8 | 'c'<<16 | 'v'<<24
	wordWait    = 'w' | 'a'<<8 | 'i'<<16 | 't'<<24
	wordColl    = 'c' | 'o'<<8 | 'l'<<16 | 'l'<<24
	wordCompute = 'c' | 'o'<<8 | 'm'<<16 | 'p'<<24 | 'u'<<32 | 't'<<40 | 'e'<<48
	wordMarker  = 'm' | 'a'<<8 | 'r'<<16 | 'k'<<24 | 'e'<<32 | 'r'<<40
)

// kindAt returns the record kind the line of n bytes in b has at i, and
// its length; 0 when none is there followed by a blank or the end. The
// kinds are compared as words.
func kindAt(b *lineBuf, i, n int) (tracefmt.Kind, int) {
	x := load8(b, i)
	var k tracefmt.Kind
	w := 0
	switch {
	case x&(1<<40-1) == wordEnter:
		k, w = tracefmt.KindEnter, 5
	case x&(1<<40-1) == wordLeave:
		k, w = tracefmt.KindLeave, 5
	case x&(1<<32-1) == wordSend:
		k, w = tracefmt.KindSend, 4
	case x&(1<<32-1) == wordRecv:
		k, w = tracefmt.KindRecv, 4
	case x&(1<<32-1) == wordWait:
		k, w = tracefmt.KindWait, 4
	case x&(1<<32-1) == wordColl:
		k, w = tracefmt.KindCollective, 4
	case x&(1<<56-1) == wordCompute:
		k, w = tracefmt.KindCompute, 7
	case x&(1<<48-1) == wordMarker:
		k, w = tracefmt.KindMarker, 6
	default:
		return 0, 0
	}
	// The word may run past the line's end into the byte after it,
	// which is no letter: a kind matched ends at or before n.
	if i+w != n && !isBlank(at(b, i+w)) {
		return 0, 0
	}
	return k, w
}

// skipName returns the offset of the first byte at or after i that may
// end a bare name ('\x00'–'#' or '='), looking at eight bytes at a time:
// names are the longest fields of most records. The byte after the
// line stops it at the line's end at the latest.
func skipName(b *lineBuf, i int) int {
	const highs = 0x8080808080808080
	for {
		x := load8(b, i)
		// The high bit of the first byte below '$' or equal to '='
		// is set in m: the borrows run upward only, so the lowest bit
		// set is exact.
		y := x ^ ones*'='
		if m := ((x-ones*'$')&^x | (y-ones)&^y) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
		i += 8
	}
}

// smallUint parses 1 to 9 decimal digits, the common tag, request id
// or rank, in line: parseInt's general case costs more than the digits.
func smallUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c-'0' > 9 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// Classes of the bytes that end a field of a common record.
const (
	blank  = 1 << iota // ' ' and '\t', between fields
	equals             // '=', in an argument
	other              // '"' and '#', which decode reads
	end                // the bytes that may follow a line in its buffer
)

// byteClass classifies bytes for decodeFast's loops over fields: one
// look-up a byte tells a byte inside a field from one that ends it.
var byteClass = [256]uint8{' ': blank, '\t': blank, '=': equals, '"': other, '#': other, 0: end, '\n': end, '\r': end}

// commFast is commRef for a bare name or index, without the error.
func (f *recordFormat) commFast(v []byte) (uint16, bool) {
	if allDigits(v) {
		c, ok := parseUint(v)
		return uint16(c), ok && c < int64(f.ncomms)
	}
	c, ok := f.commIDs[string(v)]
	return c, ok
}
