package simgridti

import (
	"github.com/tracesim/tracesim/tracefmt"
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

// lookupFast returns the fast action named exactly name (lower case: a
// camel-case spelling is evidence of the legacy grammar, which the
// general path records).
func lookupFast(name []byte) fastAct {
	// The names but allreduce fit in a word: one load and one compare
	// of integers instead of comparing strings.
	if len(name) > 8 {
		if string(name) == "allreduce" {
			return fastAllreduce
		}
		return fastNone
	}
	switch packName(name) {
	case packedIsend:
		return fastIsend
	case packedIrecv:
		return fastIrecv
	case packedCompute:
		return fastCompute
	case packedWaitall:
		return fastWaitall
	case packedWait:
		return fastWait
	case packedSend:
		return fastSend
	case packedRecv:
		return fastRecv
	case packedTest:
		return fastTest
	case packedBarrier:
		return fastBarrier
	}
	return fastNone
}

// packName packs a name of at most eight bytes into an integer, its
// first byte lowest; names of different lengths differ (no byte is 0).
func packName(name []byte) uint64 {
	var k uint64
	for i := len(name) - 1; i >= 0; i-- {
		k = k<<8 | uint64(name[i])
	}
	return k
}

// packedName is packName for a constant.
func packedName(s string) uint64 { return packName([]byte(s)) }

var (
	packedIsend   = packedName("isend")
	packedIrecv   = packedName("irecv")
	packedCompute = packedName("compute")
	packedWaitall = packedName("waitall")
	packedWait    = packedName("wait")
	packedSend    = packedName("send")
	packedRecv    = packedName("recv")
	packedTest    = packedName("test")
	packedBarrier = packedName("barrier")
)

// span is a field of a line: line[lo:hi].
type span struct{ lo, hi int32 }

// maxFastFields bounds the fields of a line the fast path takes (rank,
// action and at most four arguments).
const maxFastFields = 6

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

// decodeFast decodes line into fr if it has the plain form of a fast
// action; false sends the line to the general path.
func decodeFast(line []byte, fr *fastRec) bool {
	var f [maxFastFields]span
	n := 0
	for i := 0; i < len(line); {
		if c := line[i]; c <= ' ' && blank[c] {
			i++
			continue
		}
		if n == maxFastFields {
			return false
		}
		j := i + 1
		for j < len(line) && (line[j] > ' ' || !blank[line[j]]) {
			j++
		}
		f[n] = span{int32(i), int32(j)}
		n++
		i = j
	}
	if n < 2 {
		return false
	}
	r, ok := rankBytes(line[f[0].lo:f[0].hi])
	if !ok || r >= MaxRanks {
		return false
	}
	act := lookupFast(line[f[1].lo:f[1].hi])
	if act == fastNone {
		return false
	}
	args := f[2:n]
	word := func(k int) []byte { return line[args[k].lo:args[k].hi] }
	// Field by field: a composite literal is built on the stack and
	// copied, a cost on every line.
	fr.act, fr.nargs, fr.dt, fr.r, fr.rcol = act, uint8(len(args)), -1, int32(r), f[0].lo+1
	fr.cols[0], fr.cols[1] = f[2].lo+1, f[3].lo+1 // read only for arguments there are
	switch act {
	case fastSend, fastIsend, fastRecv, fastIrecv:
		recv := act == fastRecv || act == fastIrecv
		if len(args) != 3 && len(args) != 4 {
			return false
		}
		peer, ok := peerBytes(word(0), recv)
		if !ok {
			return false
		}
		tag, ok := smallIntBytes(word(1))
		if !ok || tag == anyTag && !recv {
			return false // a send cannot use MPI_ANY_TAG
		}
		if len(args) == 4 {
			dt, ok := datatypeBytes(word(3))
			if !ok {
				return false
			}
			fr.dt = int8(dt)
		}
		c, ok := countBytes(word(2))
		if !ok {
			return false
		}
		fr.a, fr.tag, fr.count = int32(peer), int32(tag), c
	case fastWait, fastTest:
		if len(args) != 3 {
			return false
		}
		from, ok := peerBytes(word(0), true)
		if !ok {
			return false
		}
		to, ok := peerBytes(word(1), false)
		if !ok {
			return false
		}
		tag, ok := smallIntBytes(word(2))
		if !ok {
			return false
		}
		fr.a, fr.b, fr.tag = int32(from), int32(to), int32(tag)
	case fastWaitall:
		switch len(args) {
		case 0:
		case 1:
			if _, ok := countBytes(word(0)); !ok {
				return false
			}
		default:
			return false
		}
	case fastCompute:
		if len(args) != 1 {
			return false
		}
		v, ok := numberBytes(word(0))
		if !ok {
			return false
		}
		fr.v = v
	case fastAllreduce:
		if len(args) != 2 && len(args) != 3 {
			return false
		}
		flops, ok := numberBytes(word(1))
		if !ok {
			return false
		}
		if len(args) == 3 {
			dt, ok := datatypeBytes(word(2))
			if !ok {
				return false
			}
			fr.dt = int8(dt)
		}
		c, ok := countBytes(word(0))
		if !ok {
			return false
		}
		fr.count, fr.v = c, flops
	case fastBarrier:
		if len(args) != 0 {
			return false
		}
	}
	return true
}

// applyFast applies a decoded line (of src, whose line number is
// current) if the lines before allow the fast path, and reports whether
// it did; false means nothing changed.
func (p *parser) applyFast(src *source, fr *fastRec) bool {
	r := int(fr.r)
	if src.rank >= 0 && r != src.rank {
		return false
	}
	act := fr.act
	var rs *rankState
	if r < len(p.ranks) {
		rs = p.ranks[r]
	}
	dt := Byte
	if rs != nil {
		dt = rs.dtDefault
	}
	if fr.dt >= 0 {
		dt = Datatype(fr.dt)
	}
	// The events the action adds (at most two) between its enter and
	// leave; none leaves the line without a state, as in parseLine.
	var ev [2]tracefmt.Event
	nev := 0
	// Effects on the parser once the line is taken: the peers to note
	// (in field order, as the general path notes them), ...
	var notes [2]struct{ at, rank int }
	nnotes := 0
	note := func(at, r int) {
		if r != procNull && r != anySource {
			notes[nnotes] = struct{ at, rank int }{at, r}
			nnotes++
		}
	}
	current, clearPending, ignoredWait := false, false, false
	anySrc, wild := false, false // a wildcard receive: of any source, of any tag
	waitK := -1
	nonBlocking := false
	var req pendingReq
	switch act {
	case fastSend, fastIsend, fastRecv, fastIrecv:
		recv := act == fastRecv || act == fastIrecv
		// The legacy reading of three arguments (peer size datatype)
		// is the general path's business.
		if fr.nargs == 4 {
			current = true
		} else if p.legacyMode() {
			return false
		}
		peer, ok := p.inWorld(int(fr.a))
		if !ok {
			return false
		}
		tag := int(fr.tag)
		size, ok := sizeOf(fr.count, dt)
		if !ok {
			return false
		}
		note(0, peer)
		if peer == procNull {
			break // a call with MPI_PROC_NULL does nothing
		}
		if recv {
			ev[0] = tracefmt.Recv(0, peer, int32(tag), 0, size)
			req = pendingReq{src: int32(peer), dst: int32(r), tag: int32(tag), recv: true}
			if peer == anySource {
				ev[0].Flags |= tracefmt.FlagAnySource
				anySrc = true
			}
			if tag == anyTag {
				ev[0].Flags |= tracefmt.FlagAnyTag
				wild = true
			}
		} else {
			ev[0] = tracefmt.Send(0, peer, int32(tag), 0, size)
			req = pendingReq{src: int32(r), dst: int32(peer), tag: int32(tag)}
		}
		nev = 1
		if act == fastIsend || act == fastIrecv {
			ev[0].Flags |= tracefmt.FlagNonBlocking
			nonBlocking = true
		}
	case fastWait, fastTest:
		current = true
		from, ok := p.inWorld(int(fr.a))
		if !ok {
			return false
		}
		to, ok := p.inWorld(int(fr.b))
		if !ok {
			return false
		}
		note(0, from)
		note(1, to)
		if rs != nil {
			waitK = rs.find(int32(from), int32(to), fr.tag)
		}
		if waitK < 0 {
			// SimGrid's replayer skips it; the general path counts it.
			ignoredWait = true
			break
		}
		ev[0], nev = tracefmt.Wait(0, rs.pending[waitK].id), 1
		if act == fastTest {
			ev[0].Flags |= tracefmt.FlagTest
		}
	case fastWaitall:
		clearPending = true
		ev[0], nev = tracefmt.WaitAll(0), 1
	case fastCompute:
		ev[0], nev = tracefmt.ComputeWork(0, fr.v), 1
	case fastAllreduce:
		b, ok := sizeOf(fr.count, dt)
		if !ok {
			return false
		}
		ev[0], nev = tracefmt.Collective(0, tracefmt.OpAllreduce, -1, 0, b, b), 1
		if fr.v > 0 {
			// SimGrid runs the reduction operator's flops once the
			// communication is done.
			ev[1], nev = tracefmt.ComputeWork(0, fr.v), 2
		}
	case fastBarrier:
		ev[0], nev = tracefmt.Collective(0, tracefmt.OpBarrier, -1, 0, 0, 0), 1
	}

	// The line is taken: apply its effects as the general path does.
	if r > p.maxRank {
		p.rankPos = position{src.name, src.line, int(fr.rcol)}
	}
	rs = p.rank(r)
	if current {
		p.current = true
	}
	for _, n := range notes[:nnotes] {
		p.notePeer(src, field{col: int(fr.cols[n.at])}, n.rank)
	}
	if ignoredWait {
		p.ignoredWaits++
	}
	if anySrc {
		p.anySources++
	}
	if anySrc || wild {
		p.wildcards = true
	}
	if nev == 0 {
		// No events, no state; but the general path adds the enter
		// before it knows, so a rank's stream exists (empty) once a
		// line named it: the traces both paths read are alike.
		if rs.events == nil {
			rs.grow()
		}
		return true
	}
	if nonBlocking {
		rs.nextReq++
		req.id = rs.nextReq
		ev[0].SetRequest(req.id)
		rs.pending = append(rs.pending, req)
	}
	if clearPending {
		rs.pending = rs.pending[:0]
	}
	if waitK >= 0 && act == fastWait {
		// A test completes nothing for sure: its request stays.
		rs.pending = append(rs.pending[:waitK], rs.pending[waitK+1:]...)
	}
	st := tracefmt.StateID(p.fastState(act))
	for cap(rs.events)-len(rs.events) < 4 {
		rs.grow()
	}
	start := len(rs.events)
	enter := tracefmt.Enter(0, st)
	enter.Match = rs.base + int32(start+1+nev) // the leave's index
	leave := tracefmt.Leave(0, st)
	leave.Match = rs.base + int32(start)
	// One append of the whole span: the capacity is there.
	if nev == 1 {
		rs.events = append(rs.events, enter, ev[0], leave)
	} else {
		rs.events = append(rs.events, enter, ev[0], ev[1], leave)
	}
	return true
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

// peerBytes parses a rank named in an action as line.peer does, without
// noting it or checking it against the world (see inWorld); false for
// what line.peer refuses (or might: an integer of more than nine digits).
func peerBytes(b []byte, wild bool) (int, bool) {
	r, ok := rankBytes(b)
	if !ok {
		v, ok := smallIntBytes(b)
		switch {
		case !ok:
			return 0, false
		case v == procNull:
			return procNull, true
		case wild && (v == anySource || v == undefined):
			return anySource, true
		case v < 0:
			return 0, false
		}
		r = v
	}
	if r >= MaxRanks {
		return 0, false
	}
	return r, true
}

// inWorld checks a rank from peerBytes against a world size fixed by an
// index, passing the wildcard and MPI_PROC_NULL.
func (p *parser) inWorld(r int) (int, bool) {
	if r >= 0 && p.world > 0 && r >= p.world {
		return 0, false
	}
	return r, true
}

// rankBytes is parseRank for a field's bytes.
func rankBytes(b []byte) (int, bool) {
	if len(b) > 1 && b[0] == 'p' {
		b = b[1:]
	}
	return uintBytes(b)
}

// smallIntBytes is smallInt for a field's bytes.
func smallIntBytes(b []byte) (int, bool) {
	if len(b) > 1 && b[0] == '-' {
		n, ok := uintBytes(b[1:])
		return -n, ok
	}
	return uintBytes(b)
}

// uintBytes parses one to nine decimal digits.
func uintBytes(b []byte) (int, bool) {
	if len(b) == 0 || len(b) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range b {
		if c -= '0'; c > 9 {
			return 0, false
		}
		n = n*10 + int(c)
	}
	return n, true
}

// datatypeBytes parses a datatype id that line.datatype accepts.
func datatypeBytes(b []byte) (Datatype, bool) {
	v, ok := smallIntBytes(b)
	if !ok {
		return 0, false
	}
	d := Datatype(v)
	return d, d.Known()
}

// countBytes parses an element count as line.count does.
func countBytes(b []byte) (int64, bool) {
	// Counts are nearly always plain integers: no float on the way.
	if n, ok := uintBytes(b); ok {
		return int64(n), true
	}
	v, ok := numberBytes(b)
	if !ok || v >= 1<<53 {
		return 0, false
	}
	return int64(v), true
}

// sizeOf converts a count of elements of dt to bytes as line.bytes does.
func sizeOf(c int64, dt Datatype) (int64, bool) {
	n := c * dt.Size()
	return n, n < 1<<53
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// numberBytes parses a non-negative decimal real ("400000", "1e+06",
// "0.25") of at most 15 significant digits whose power of ten is within
// ±22: both are exact in a float64, so one multiplication or division
// rounds the value as strconv.ParseFloat does. Other text (longer or
// signed numbers, hexadecimal, inf) reports false.
func numberBytes(b []byte) (float64, bool) {
	var m uint64
	nd, frac, i := 0, 0, 0
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		m = m*10 + uint64(b[i]-'0')
		nd++
	}
	if i < len(b) && b[i] == '.' {
		for i++; i < len(b) && b[i]-'0' <= 9; i++ {
			m = m*10 + uint64(b[i]-'0')
			nd++
			frac++
		}
	}
	if nd == 0 || nd > 15 {
		return 0, false
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		neg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			neg = b[i] == '-'
			i++
		}
		ne := 0
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			if ne++; ne > 3 {
				return 0, false
			}
			exp = exp*10 + int(b[i]-'0')
		}
		if ne == 0 {
			return 0, false
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(b) {
		return 0, false
	}
	exp -= frac
	switch {
	case exp == 0:
		return float64(m), true
	case exp > 0 && exp < len(pow10):
		return float64(m) * pow10[exp], true
	case exp < 0 && -exp < len(pow10):
		return float64(m) / pow10[-exp], true
	}
	return 0, false
}
