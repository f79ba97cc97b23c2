package simgridti

import (
	"encoding/binary"
	"math/bits"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/decimal"
)

// The fast path parses the lines that make up nearly all of a trace
// (point-to-point calls, waits, compute, allreduce, barrier) straight
// from their bytes: no fields, no strings, no allocation. It takes a line
// only when every field has the plain form (decimal integers, a simple
// real) and the action would be accepted; anything else, errors included,
// goes to the general path (splitFields and parseLine), which parses the
// line again from scratch and words the error with its column. The fast
// path therefore changes nothing before it has decided to take a line.

// fastAct numbers the actions the fast path knows.
type fastAct uint8

const (
	fastNone fastAct = iota
	fastSend
	fastIsend
	fastRecv
	fastIrecv
	fastWait
	fastTest
	fastWaitall
	fastCompute
	fastAllreduce
	fastBarrier
	numFastActs
)

// fastNames are the actions' names as the general path spells them in
// lower case (the key of their state).
var fastNames = [numFastActs]string{
	fastSend: "send", fastIsend: "isend", fastRecv: "recv", fastIrecv: "irecv",
	fastWait: "wait", fastTest: "test", fastWaitall: "waitall", fastCompute: "compute",
	fastAllreduce: "allreduce", fastBarrier: "barrier",
}

// lookupPacked returns the fast action whose name (of at most eight
// bytes) packs to k (see packedIsend), or fastNone. The names hash
// perfectly to the sixteen slots of packedActs (a multiplication and a
// shift), so a name is found by one comparison, whatever action the
// line before had: a switch's tree of comparisons took branches the
// processor mispredicted as the actions alternated.
func lookupPacked(k uint64) fastAct {
	e := &packedActs[k*packedMul>>60]
	if e.key == k {
		return e.act
	}
	return fastNone
}

// packedMul hashes the packed names to distinct slots of packedActs
// (the slots below are constants: a collision would not compile).
const packedMul = 0xe4b06ce60741c7a9

// packedActs is the table lookupPacked reads; a slot no name hashes to
// holds key 0, which only the empty name packs to (and that hashes to
// wait's slot).
var packedActs = [16]struct {
	key uint64
	act fastAct
}{
	packedIsend * packedMul % (1 << 64) >> 60:   {packedIsend, fastIsend},
	packedIrecv * packedMul % (1 << 64) >> 60:   {packedIrecv, fastIrecv},
	packedCompute * packedMul % (1 << 64) >> 60: {packedCompute, fastCompute},
	packedWaitall * packedMul % (1 << 64) >> 60: {packedWaitall, fastWaitall},
	packedWait * packedMul % (1 << 64) >> 60:    {packedWait, fastWait},
	packedSend * packedMul % (1 << 64) >> 60:    {packedSend, fastSend},
	packedRecv * packedMul % (1 << 64) >> 60:    {packedRecv, fastRecv},
	packedTest * packedMul % (1 << 64) >> 60:    {packedTest, fastTest},
	packedBarrier * packedMul % (1 << 64) >> 60: {packedBarrier, fastBarrier},
}

// The fast actions' names packed into an integer, their first byte
// lowest (as decodeFast loads them: little-endian).
const (
	packedIsend   = 'i' | 's'<<8 | 'e'<<16 | 'n'<<24 | 'd'<<32
	packedIrecv   = 'i' | 'r'<<8 | 'e'<<16 | 'c'<<24 | 'v'<<32
	packedCompute = 'c' | 'o'<<8 | 'm'<<16 | 'p'<<24 | 'u'<<32 | 't'<<40 | 'e'<<48
	packedWaitall = 'w' | 'a'<<8 | 'i'<<16 | 't'<<24 | 'a'<<32 | 'l'<<40 | 'l'<<48
	packedWait    = 'w' | 'a'<<8 | 'i'<<16 | 't'<<24
	packedSend    = 's' | 'e'<<8 | 'n'<<16 | 'd'<<24
	packedRecv    = 'r' | 'e'<<8 | 'c'<<16 | 'v'<<24
	packedTest    = 't' | 'e'<<8 | 's'<<16 | 't'<<24
	packedBarrier = 'b' | 'a'<<8 | 'r'<<16 | 'r'<<24 | 'i'<<32 | 'e'<<40 | 'r'<<48
	// packedAllreduc is allreduce but its last byte, which does not fit.
	packedAllreduc = 'a' | 'l'<<8 | 'l'<<16 | 'r'<<24 | 'e'<<32 | 'd'<<40 | 'u'<<48 | 'c'<<56
)

// fastRec is a fast line decoded from its bytes alone: what applying it
// needs of the line, with the checks that depend on the lines before
// (the rank's default datatype, the world size, the grammar in use, the
// pending requests) left to apply. Decoding runs on any goroutine.
type fastRec struct {
	act   fastAct
	nargs uint8
	dt    int8 // the datatype named, or -1 for the rank's default
	r     int32
	rcol  int32    // the rank field's column
	cols  [2]int32 // the first two arguments' columns
	a, b  int32    // send/recv: peer; wait/test: from and to (raw, see fastPeer)
	tag   int32
	// id names the line's bytes in the memo that decoded it (see
	// lineMemo.decode and templates); 0 for a line decoded without it.
	id    uint32
	count int64   // elements sent, received or reduced
	v     float64 // compute: the amount; allreduce: the flops
}

// fastLine parses line (of src, whose line number is current) if it is a
// plain line of a fast action, and reports whether it did; false means
// nothing changed and the general path must parse the line.
func (p *parser) fastLine(src *source, line []byte) bool {
	var fr fastRec
	return decodeFast(line, &fr) && p.applyFast(src, &fr)
}

// fastMax bounds the lines decodeFast takes (typical ones have 12 to
// 25 bytes). It reads a line in a buffer of fastMax bytes and more,
// where a byte that is neither a digit, a letter nor a blank follows the
// line: a zero in a copy of the line, or the line break after it in its
// own buffer when that has room. Indices into the buffer are masked, so
// the compiler checks no bounds, and no loop checks the line's length:
// that byte ends every field, and a field ends at the line's end
// exactly where it ends at that byte. Longer lines go to the general
// path.
const fastMax = 64

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

// skipAt returns the index of the first byte at or after i that is not
// blank (the line's length if none).
func skipAt(b *lineBuf, i int) int {
	for blank[at(b, i)] {
		i++
	}
	return i
}

// nextAt returns the index of the field after one ending at j (at a
// blank or the line's end): nearly always the byte after one space.
func nextAt(b *lineBuf, j int) int {
	if at(b, j) == ' ' && at(b, j+1) > ' ' {
		return j + 1
	}
	return skipAt(b, j)
}

// endsAt reports whether a field of a line of n bytes ends at j: at a
// blank or the line's end.
func endsAt(b *lineBuf, j, n int) bool {
	return blank[at(b, j)] || j == n
}

// uintField parses the field at b[i:] of a line of n bytes if it is one
// to nine decimal digits, returning its value and its end; as uintAt.
// It reads digit by digit, inline: ranks, tags and datatypes have one
// or two. Counts and amounts, longer, take uintWord.
func uintField(b *lineBuf, i, n int) (v, j int, ok bool) {
	j = i
	for {
		d := at(b, j) - '0'
		if d > 9 {
			break
		}
		v = v*10 + int(d)
		j++
	}
	// Nine digits at most: v < 10^9 fits in an int32.
	return v, j, uint(j-i-1) < 9 && endsAt(b, j, n)
}

// uintWord is uintField reading the field a word at a time: it finds
// the first byte that is not a digit in the eight at i, and converts the
// digits before it with three multiplications, each adding up pairs of
// the digit groups before (ones, then pairs, then fours). Eight digits
// or more take uintField.
func uintWord(b *lineBuf, i, n int) (v, j int, ok bool) {
	x := load8(b, i)
	// A byte c is a digit if c&0xf0 == 0x30 and (c+6)&0xf0 == 0x30: a
	// byte that is not marks its high nibble in nd. (c+6 carries into
	// the next byte only from a byte above 0xf9, not a digit: the bytes
	// after the first non-digit do not matter.)
	nd := (x&(0xf0*ones) ^ 0x30*ones) | ((x+0x06*ones)&(0xf0*ones) ^ 0x30*ones)
	k := bits.TrailingZeros64(nd) >> 3 // the digits before the first non-digit
	if k == 8 {
		return uintField(b, i, n)
	}
	// The k digits' values, the last in the highest byte: the bytes
	// shifted in below are leading zeros. (With no digit, k == 0, the
	// value is not used.)
	d := (x & (0x0f * ones)) << ((64 - 8*k) & 63)
	d = (d * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff    // bytes: two digits
	d = (d * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff // halves: four
	d = (d * (10000<<32 + 1)) >> 32                    // the eight
	j = i + k
	return int(d), j, k > 0 && endsAt(b, j, n)
}

// signField skips the minus sign of a field at b[i:], if it has one.
func signField(b *lineBuf, i int) (int, bool) {
	if at(b, i) == '-' {
		return i + 1, true
	}
	return i, false
}

// peerField skips the prefix of a rank field at b[i:] as line.peer
// reads it: the p of an actor name or a minus sign, returned (0 for none).
func peerField(b *lineBuf, i int) (int, byte) {
	if c := at(b, i); c == 'p' || c == '-' {
		return i + 1, c
	}
	return i, 0
}

// decodeFast decodes line into fr if it has the plain form of a fast
// action; false sends the line to the general path.
//
// It reads the line once, left to right, in a buffer (see fastMax),
// parsing each field as it finds its end: integers digit by digit, the
// action's name packed into an integer. A field that is not in the
// plain form its place asks for (a count in exponent form, a real
// amount) is parsed from its bytes once its end is found (countAt,
// numberAt: exact, or the general path).
func decodeFast(line []byte, fr *fastRec) bool {
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
	i := skipAt(b, 0)
	if i == n {
		return false
	}
	rcol := int32(i + 1)
	if at(b, i) == 'p' {
		i++ // an actor name: p and the rank
	}
	r, j, ok := uintField(b, i, n)
	if !ok || r >= MaxRanks {
		return false
	}
	// The action: its bytes up to the first at or below ' ' (a blank,
	// the zero after the line) compared as a word with the names
	// packed: the names but allreduce fit in a word.
	act, j := actionAt(b, nextAt(b, j))
	if act == fastNone || !endsAt(b, j, n) {
		return false
	}
	i = nextAt(b, j)
	// Field by field: a composite literal is built on the stack and
	// copied, a cost on every line.
	fr.act, fr.dt, fr.r, fr.rcol, fr.id = act, -1, int32(r), rcol, 0
	fr.cols[0] = int32(i + 1)
	// The fields are parsed by functions small enough to be inlined
	// (uintField and its helpers): a call would spill this function's
	// registers around it, field after field.
	withDatatype := false
	switch act {
	case fastSend, fastIsend, fastRecv, fastIrecv:
		recv := act == fastRecv || act == fastIrecv
		var pre byte
		var neg bool
		i, pre = peerField(b, i)
		v, j, ok := uintField(b, i, n)
		peer, ok := peerOf(v, ok, pre, recv)
		if !ok {
			return false
		}
		i = nextAt(b, j)
		fr.cols[1] = int32(i + 1)
		i, neg = signField(b, i)
		tag, j, ok := uintField(b, i, n)
		if neg {
			tag = -tag
		}
		if !ok || tag == anyTag && !recv {
			return false // a send cannot use MPI_ANY_TAG
		}
		i = nextAt(b, j)
		c, j, ok := uintWord(b, i, n)
		count := int64(c)
		if !ok {
			// Not a plain integer: a count in another form, or no count.
			if count, j, ok = countAt(line, i); !ok {
				return false
			}
		}
		i = nextAt(b, j)
		fr.nargs, withDatatype = 3, true
		fr.a, fr.tag, fr.count = int32(peer), int32(tag), count
	case fastWait, fastTest:
		var pre byte
		var neg bool
		i, pre = peerField(b, i)
		v, j, ok := uintField(b, i, n)
		from, ok := peerOf(v, ok, pre, true)
		if !ok {
			return false
		}
		i = nextAt(b, j)
		fr.cols[1] = int32(i + 1)
		i, pre = peerField(b, i)
		v, j, ok = uintField(b, i, n)
		to, ok := peerOf(v, ok, pre, false)
		if !ok {
			return false
		}
		i, neg = signField(b, nextAt(b, j))
		tag, j, ok := uintField(b, i, n)
		if neg {
			tag = -tag
		}
		if !ok {
			return false
		}
		i = nextAt(b, j)
		fr.nargs, fr.a, fr.b, fr.tag = 3, int32(from), int32(to), int32(tag)
	case fastWaitall:
		fr.nargs = 0
		if i < n {
			_, j, ok := countAt(line, i)
			if !ok {
				return false
			}
			fr.nargs = 1
			i = nextAt(b, j)
		}
	case fastCompute:
		c, j, ok := uintWord(b, i, n)
		v := float64(c)
		if !ok {
			if v, j, ok = numberAt(line, i); !ok {
				return false
			}
		}
		i = nextAt(b, j)
		fr.nargs, fr.v = 1, v
	case fastAllreduce:
		c, j, ok := uintWord(b, i, n)
		count := int64(c)
		if !ok {
			if count, j, ok = countAt(line, i); !ok {
				return false
			}
		}
		i = nextAt(b, j)
		c, j, ok = uintField(b, i, n)
		flops := float64(c)
		if !ok {
			if flops, j, ok = numberAt(line, i); !ok {
				return false
			}
		}
		i = nextAt(b, j)
		fr.nargs, withDatatype = 2, true
		fr.count, fr.v = count, flops
	case fastBarrier:
		fr.nargs = 0
	}
	if withDatatype && i < n {
		// The optional datatype closing a send, receive or allreduce.
		i, neg := signField(b, i)
		dt, j, ok := uintField(b, i, n)
		if !datatypeOf(&dt, ok, neg) {
			return false
		}
		fr.dt = int8(dt)
		fr.nargs++
		return nextAt(b, j) == n
	}
	// Nothing may follow the arguments the action takes.
	return i == n
}

// peerOf returns the rank a field names, given uintAt's reading of its
// digits after the prefix pre (see peerField), as line.peer reads it
// but without noting it or checking it against the world (see inWorld);
// false for what line.peer refuses (or might: an integer of more than
// nine digits). wild admits the wildcards.
func peerOf(v int, ok bool, pre byte, wild bool) (int, bool) {
	switch {
	case !ok:
		return 0, false
	case pre != '-':
		return v, v < MaxRanks
	case v == -procNull:
		return procNull, true
	case wild && (v == -anySource || v == -undefined):
		return anySource, true
	}
	return 0, v == 0 // -0 is rank 0; other negative ranks are refused
}

// datatypeOf completes a datatype id from uintAt's reading (and the
// sign before it) and reports whether it is one SMPI predefines.
func datatypeOf(v *int, ok, neg bool) bool {
	if neg {
		*v = -*v
	}
	return ok && Datatype(*v).Known()
}

// fieldEnd returns the index of the first blank at or after i (len(line)
// if none).
func fieldEnd(line []byte, i int) int {
	for _, c := range line[i:] {
		if c <= ' ' && blank[c] {
			break
		}
		i++
	}
	return i
}

// uintAt parses the field at line[i:] if it is one to nine decimal
// digits, returning its value and its end.
func uintAt(line []byte, i int) (v, j int, ok bool) {
	b := line[i:]
	k := 0
	for ; k < len(b); k++ {
		c := b[k] - '0'
		if c > 9 {
			break
		}
		v = v*10 + int(c)
	}
	if k == 0 || k > 9 || k < len(b) && (b[k] > ' ' || !blank[b[k]]) {
		return 0, i + k, false
	}
	return v, i + k, true
}

// countAt parses the field at line[i:] as an element count as
// line.count does, returning its end too.
func countAt(line []byte, i int) (int64, int, bool) {
	// Counts are nearly always plain integers: no float on the way.
	if n, j, ok := uintAt(line, i); ok {
		return int64(n), j, true
	}
	j := fieldEnd(line, i)
	// As line.count does: any real below 2^53, its fraction dropped.
	v, ok := decimal.Exact(line[i:j])
	if !ok || v >= 1<<53 {
		return 0, j, false
	}
	return int64(v), j, true
}

// numberAt parses the field at line[i:] as a real amount in a form
// decimal.Exact reads (plain integers are uintAt's), returning its end
// too.
func numberAt(line []byte, i int) (float64, int, bool) {
	j := fieldEnd(line, i)
	v, ok := decimal.Exact(line[i:j])
	return v, j, ok
}

// applyFast applies a decoded line (of src, whose line number is
// current) if the lines before allow the fast path, and reports whether
// it did; false means nothing changed.
//
// It first checks what the lines before decide (the grammar in use, the
// world, the sizes with the rank's default datatype) and changes
// nothing until every check passed; then it writes the line's events
// straight into the rank's stream.
func (p *parser) applyFast(src *source, fr *fastRec) bool {
	r := int(fr.r)
	if src.rank >= 0 && r != src.rank {
		return false
	}
	rs := p.last
	if rs == nil || p.lastRank != r {
		rs = nil
		if r < len(p.ranks) {
			rs = p.ranks[r]
		}
	}
	dt := Byte
	if rs != nil {
		dt = rs.dtDefault
	}
	if fr.dt >= 0 {
		dt = Datatype(fr.dt)
	}
	act := fr.act
	var size int64
	switch act {
	case fastSend, fastIsend, fastRecv, fastIrecv:
		// The legacy reading of three arguments (peer size datatype)
		// is the general path's business.
		if fr.nargs != 4 && p.legacyMode() || !p.inWorld(fr.a) {
			return false
		}
		if size = fr.count * dt.Size(); size >= 1<<53 {
			return false
		}
	case fastWait, fastTest:
		if !p.inWorld(fr.a) || !p.inWorld(fr.b) {
			return false
		}
	case fastAllreduce:
		if size = fr.count * dt.Size(); size >= 1<<53 {
			return false
		}
	}

	// The line is taken: apply its effects as the general path does.
	if r > p.maxRank {
		p.rankPos = position{src.name, src.line, int(fr.rcol)}
	}
	if rs == nil || rs != p.last {
		rs = p.rank(r)
	}
	if cap(rs.events)-len(rs.events) < maxLineEvents {
		for cap(rs.events)-len(rs.events) < maxLineEvents {
			rs.grow()
		}
	}
	start := len(rs.events)
	// ev is the room of the line's events: its enter, at most two
	// events, its leave.
	ev := rs.events[start : start+maxLineEvents]
	nev := 1
	switch act {
	case fastSend, fastIsend, fastRecv, fastIrecv:
		if fr.nargs == 4 && !p.current {
			p.current = true
			p.gen++
		}
		peer := fr.a
		p.notePeerCol(src, fr.cols[0], peer)
		if peer == procNull {
			nev = 0 // a call with MPI_PROC_NULL does nothing
			break
		}
		tag := fr.tag
		// The event as tracefmt.Send and Recv make it, its flags set
		// before it is stored.
		e := tracefmt.Event{Kind: tracefmt.KindSend, Peer: peer, Tag: tag, Size: size, Match: -1}
		req := pendingReq{src: int32(r), dst: peer, tag: tag}
		if act == fastRecv || act == fastIrecv {
			e.Kind = tracefmt.KindRecv
			req = pendingReq{src: peer, dst: int32(r), tag: tag, recv: true}
			if peer == anySource {
				e.Flags |= tracefmt.FlagAnySource
				p.anySources++
				p.wildcards = true
			}
			if tag == anyTag {
				e.Flags |= tracefmt.FlagAnyTag
				p.wildcards = true
			}
		}
		if act == fastIsend || act == fastIrecv {
			e.Flags |= tracefmt.FlagNonBlocking
			rs.nextReq++
			req.id = rs.nextReq
			e.SetRequest(req.id)
			rs.pending = append(rs.pending, req)
		}
		ev[1] = e
	case fastWait, fastTest:
		if !p.current {
			p.current = true
			p.gen++
		}
		p.notePeerCol(src, fr.cols[0], fr.a)
		p.notePeerCol(src, fr.cols[1], fr.b)
		k := rs.find(fr.a, fr.b, fr.tag)
		if k < 0 {
			// SimGrid's replayer skips it; the general path counts it.
			p.ignoredWaits++
			nev = 0
			break
		}
		ev[1] = tracefmt.Wait(0, rs.pending[k].id)
		if act == fastTest {
			// A test completes nothing for sure: its request stays.
			ev[1].Flags |= tracefmt.FlagTest
		} else {
			rs.pending = append(rs.pending[:k], rs.pending[k+1:]...)
		}
	case fastWaitall:
		ev[1] = tracefmt.WaitAll(0)
		rs.pending = rs.pending[:0]
	case fastCompute:
		ev[1] = tracefmt.ComputeWork(0, fr.v)
	case fastAllreduce:
		ev[1] = tracefmt.Collective(0, tracefmt.OpAllreduce, -1, 0, size, size)
		if fr.v > 0 {
			// SimGrid runs the reduction operator's flops once the
			// communication is done.
			ev[2], nev = tracefmt.ComputeWork(0, fr.v), 2
		}
	case fastBarrier:
		ev[1] = tracefmt.Collective(0, tracefmt.OpBarrier, -1, 0, 0, 0)
	}
	if nev == 0 {
		// No events, no state; but the general path adds the enter
		// before it knows, so a rank's stream exists (empty) once a
		// line named it: the traces both paths read are alike. (The
		// room made above gave it one.)
		return true
	}
	st := p.fastStates[act] - 1
	if st < 0 {
		st = p.fastState(act)
	}
	// As tracefmt.Enter and Leave make them, each linked to the other.
	self := rs.base + int32(start)
	ev[0] = tracefmt.Event{Kind: tracefmt.KindEnter, Peer: st, Match: self + 1 + int32(nev)}
	ev[1+nev] = tracefmt.Event{Kind: tracefmt.KindLeave, Peer: st, Match: self}
	rs.events = rs.events[:start+2+nev]
	return true
}

// notePeerCol is notePeer for a rank from peerAt (the wildcard and
// MPI_PROC_NULL, both negative, are never the highest) in the field at
// column col.
func (p *parser) notePeerCol(src *source, col, r int32) {
	if int(r) > p.peerMax {
		p.peerMax = int(r)
		p.peerPos = position{src.name, src.line, int(col)}
	}
}

// fastState returns the state of a fast action, defined on its first
// use as actionState defines it (so the states keep the order in which
// the trace first uses the actions, whichever path parsed them).
func (p *parser) fastState(act fastAct) int32 {
	if id := p.fastStates[act]; id > 0 {
		return id - 1
	}
	id, _ := p.actionState(fastNames[act])
	p.fastStates[act] = id + 1
	return id
}

// inWorld checks a rank from peerAt against a world size fixed by an
// index, passing the wildcard and MPI_PROC_NULL.
func (p *parser) inWorld(r int32) bool {
	return r < 0 || p.world == 0 || int(r) < p.world
}

// actionAt reads the action that starts at b[i]: its bytes up to the
// first at or below ' ' (a blank, the zero after the line), compared as
// a word with the names packed (all but allreduce fit in a word). It
// returns the action (fastNone for any other name) and the index after
// its name.
func actionAt(b *lineBuf, i int) (fastAct, int) {
	x := load8(b, i)
	// The high bit of each byte below 0x21 (exact for the first one:
	// the borrow runs upwards only).
	low := (x - 0x21*ones) &^ x & (0x80 * ones)
	k := bits.TrailingZeros64(low) >> 3
	if k < 8 {
		return lookupPacked(x & (1<<(8*k) - 1)), i + k
	}
	if x == packedAllreduc && at(b, i+8) == 'e' {
		return fastAllreduce, i + 9
	}
	return fastNone, i + k
}
