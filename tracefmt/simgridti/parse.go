package simgridti

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// parseRank parses a rank field: a number or an actor name "p<number>".
func parseRank(s string) (int, bool) {
	if len(s) > 1 && s[0] == 'p' {
		s = s[1:]
	}
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}

// line is the parsing context of one action.
type line struct {
	p    *parser
	src  *source
	rank int
	rs   *rankState
	act  field
	args []field
}

func (l *line) errAt(f field, format string, args ...any) error {
	return l.src.errAt(f, format, args...)
}

// arity checks the number of arguments against [lo, hi].
func (l *line) arity(lo, hi int, usage string) error {
	n := len(l.args)
	if n >= lo && n <= hi {
		return nil
	}
	f := l.act
	if n > hi {
		f = l.args[hi]
	}
	switch {
	case hi == 0:
		return l.errAt(f, "%s takes no arguments, got %d", l.act.s, n)
	case lo == hi && lo == 1:
		return l.errAt(f, "%s takes 1 argument (%s), got %d", l.act.s, usage, n)
	case lo == hi:
		return l.errAt(f, "%s takes %d arguments (%s), got %d", l.act.s, lo, usage, n)
	}
	return l.errAt(f, "%s takes %d to %d arguments (%s), got %d", l.act.s, lo, hi, usage, n)
}

func (l *line) add(e tracefmt.Event) int { return l.rs.add(e) }

// add appends e to the rank's events and returns its index there; the
// growth is out of line, taken once in many thousands of events.
func (rs *rankState) add(e tracefmt.Event) int {
	if len(rs.events) == cap(rs.events) {
		rs.grow()
	}
	rs.events = append(rs.events, e)
	return len(rs.events) - 1
}

// grow makes room for more events: it doubles the stream (append's growth
// of large slices, 1.25×, would copy it five times over), or goes
// straight to the hint.
func (rs *rankState) grow() {
	ev := rs.events
	n := max(len(ev), 64)
	if rs.hint > len(ev) {
		n = max(n, rs.hint+rs.hint/64-len(ev))
	}
	if rs.slab != nil {
		rs.slab.grow(rs, maxLineEvents, n)
		return
	}
	// make and copy rather than append: append clears the new room of
	// an element type without pointers (touching, and faulting in, every
	// page of it at once), while make's memory fresh from the OS is zero
	// already and is touched only as events are written.
	grown := make([]tracefmt.Event, len(ev), len(ev)+n)
	copy(grown, ev)
	rs.events = grown
}

func (l *line) integer(f field, what string) (int, error) {
	if v, ok := smallInt(f.s); ok {
		return v, nil
	}
	v, err := strconv.ParseInt(f.s, 10, 32)
	if err != nil {
		return 0, l.errAt(f, "expected %s (an integer), got %q", what, f.s)
	}
	return int(v), nil
}

// number parses a non-negative real amount (counts, flops, seconds).
func (l *line) number(f field, what string) (float64, error) {
	if v, ok := digits(f.s); ok {
		return v, nil
	}
	v, err := strconv.ParseFloat(f.s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, l.errAt(f, "expected %s (a number), got %q", what, f.s)
	}
	if v < 0 {
		return 0, l.errAt(f, "negative %s %s", what, f.s)
	}
	return v, nil
}

// count parses an element count; like SimGrid it drops a fractional part.
func (l *line) count(f field) (int64, error) {
	v, err := l.number(f, "count")
	if err != nil {
		return 0, err
	}
	if v >= 1<<53 {
		return 0, l.errAt(f, "count %s too large", f.s)
	}
	return int64(v), nil
}

// bytes converts a count of elements of dt to bytes.
func (l *line) bytes(f field, dt Datatype) (int64, error) {
	// count < 2^53 and sizes ≤ 32 bytes: no overflow. The bytes stay
	// below 2^53 too, so that a writer stating them as a count of
	// MPI_BYTE writes what this reader accepts.
	c, err := l.count(f)
	if err != nil {
		return 0, err
	}
	b := c * dt.Size()
	if b >= 1<<53 {
		return 0, l.errAt(f, "count %s of %d-byte elements is %d bytes, more than the 2^53 a trace may state", f.s, dt.Size(), b)
	}
	return b, nil
}

// sumBytes converts a list of counts of dt to their total in bytes.
func (l *line) sumBytes(fs []field, dt Datatype) (int64, []int64, error) {
	var sum int64
	each := make([]int64, len(fs))
	for i, f := range fs {
		b, err := l.bytes(f, dt)
		if err != nil {
			return 0, nil, err
		}
		each[i] = b
		if sum += b; sum > 1<<60 {
			return 0, nil, l.errAt(f, "counts add up to more than 2^60 bytes")
		}
	}
	return sum, each, nil
}

// datatype parses the datatype field at index i of the arguments, or
// returns the rank's default when the field is absent.
func (l *line) datatype(i int) (Datatype, error) {
	if i >= len(l.args) {
		return l.rs.dtDefault, nil
	}
	f := l.args[i]
	v, ok := atoi(f.s)
	if !ok {
		return 0, l.errAt(f, "expected a datatype id (an integer), got %q", f.s)
	}
	d := Datatype(v)
	if !d.Known() {
		return 0, l.errAt(f, "unknown datatype id %d (SMPI's predefined datatypes are 0 to %d)", v, len(datatypes)-1)
	}
	return d, nil
}

// peer parses a rank named in an action. It returns the rank, or
// anySource for a wildcard (allowed in receives and waits), or procNull.
func (l *line) peer(f field, wild bool, what string) (int, error) {
	r, ok := parseRank(f.s)
	if !ok {
		v, ok := atoi(f.s)
		if !ok {
			return 0, l.errAt(f, "expected %s (a rank number or an actor name like p1), got %q", what, f.s)
		}
		switch {
		case v == procNull:
			return procNull, nil
		case wild && (v == anySource || v == undefined):
			return anySource, nil
		case v < 0:
			return 0, l.errAt(f, "%s %d is outside the world (ranks start at 0)", what, v)
		}
		r = v
	}
	if r >= MaxRanks {
		return 0, l.errAt(f, "%s %d is beyond the %d ranks tracesim supports", what, r, MaxRanks)
	}
	if w := l.p.world; w > 0 && r >= w {
		return 0, l.errAt(f, "%s %d is outside the world of %d ranks", what, r, w)
	}
	l.p.notePeer(l.src, f, r)
	return r, nil
}

func isInteger(s string) bool {
	if _, ok := smallInt(s); ok {
		return true
	}
	_, err := strconv.ParseInt(s, 10, 32)
	return err == nil
}

// atoi is strconv.Atoi, quicker for the common short integers.
func atoi(s string) (int, bool) {
	if v, ok := smallInt(s); ok {
		return v, true
	}
	v, err := strconv.Atoi(s)
	return v, err == nil
}

// smallInt parses an optionally negative decimal of at most nine digits,
// the form of nearly every rank, tag and datatype of a trace, faster than
// strconv; other text reports false (the caller falls back to strconv,
// which also words the error).
func smallInt(s string) (int, bool) {
	neg := len(s) > 1 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int(c)
	}
	if neg {
		n = -n
	}
	return n, true
}

// digits parses an unsigned decimal integer of at most 15 digits, exact
// in a float64 (most counts and flop amounts); other text reports false.
func digits(s string) (float64, bool) {
	if s == "" || len(s) > 15 {
		return 0, false
	}
	n := int64(0)
	for i := 0; i < len(s); i++ {
		c := s[i] - '0'
		if c > 9 {
			return 0, false
		}
		n = n*10 + int64(c)
	}
	return float64(n), true
}

// actionNames lists the actions the reader knows, for error messages.
const actionNames = "init, finalize, comm_size, comm_split, comm_dup, compute, sleep, location, " +
	"send, isend, ssend, issend, bsend, ibsend, recv, irecv, sendRecv, wait, test, waitall, " +
	"barrier, bcast, reduce, allreduce, alltoall, alltoallv, gather, gatherv, allgather, allgatherv, " +
	"scatter, scatterv, reducescatter, scan, exscan, waitAny, testany, testall, testsome, Start, Startall"

// parseLine parses one action line split into fields (at least two).
// The events an action adds sit between the enter and the leave of a
// state named as the MPI call the action stands for, paired here (the
// spans neither overlap nor nest; Match counts from the rank's first
// event, rankState.base included).
func (p *parser) parseLine(src *source, fs []field) error {
	p.gen++ // what the line changes may change how fast lines apply
	r, ok := parseRank(fs[0].s)
	if !ok || r >= MaxRanks || src.rank >= 0 && r != src.rank {
		return p.parseAction(src, fs, "") // which reports the error
	}
	if r > p.maxRank {
		// Before p.rank raises maxRank: a refused world names this line.
		p.rankPos = position{src.name, src.line, fs[0].col}
	}
	rs := p.rank(r)
	start := len(rs.events)
	// The enter goes first; its state is settled once the action has
	// shown it adds events (init and finalize add none and define none).
	rs.add(tracefmt.Enter(0, 0))
	lower := lowerAction(fs[1].s)
	if err := p.action(src, r, rs, fs, lower); err != nil {
		rs.events = rs.events[:start]
		return err
	}
	end := len(rs.events)
	if end == start+1 {
		rs.events = rs.events[:start]
		return nil
	}
	st, ok := p.actionState(lower)
	if !ok {
		// No state (location): drop the enter.
		copy(rs.events[start:], rs.events[start+1:])
		rs.events = rs.events[:end-1]
		return nil
	}
	at := rs.base + int32(start)
	rs.events[start] = tracefmt.Enter(0, tracefmt.StateID(st))
	rs.events[start].Match = rs.base + int32(end)
	leave := tracefmt.Leave(0, tracefmt.StateID(st))
	leave.Match = at
	rs.add(leave)
	return nil
}

// lowerAction returns an action name in lower case, without an
// allocation for names that are lower case already (nearly all).
func lowerAction(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= 'A' && c <= 'Z' {
			return strings.ToLower(name)
		}
	}
	return name
}

// parseAction parses one action line split into fields (at least two);
// lower is the action in lower case ("" to work it out).
func (p *parser) parseAction(src *source, fs []field, lower string) error {
	r, ok := parseRank(fs[0].s)
	if !ok {
		return src.errAt(fs[0], "expected a rank number or an actor name like p0, got %q", fs[0].s)
	}
	if r >= MaxRanks {
		return src.errAt(fs[0], "rank %d is beyond the %d ranks tracesim supports", r, MaxRanks)
	}
	if src.rank >= 0 && r != src.rank {
		return src.errAt(fs[0], "action for rank %d in the file of rank %d (per-rank files hold one rank each, in index order)", r, src.rank)
	}
	if r > p.maxRank {
		p.rankPos = position{src.name, src.line, fs[0].col}
	}
	if lower == "" {
		lower = lowerAction(fs[1].s)
	}
	return p.action(src, r, p.rank(r), fs, lower)
}

// action parses the action of a line of rank r (whose state is rs)
// split into fields (at least two); lower is the action in lower case.
func (p *parser) action(src *source, r int, rs *rankState, fs []field, lower string) error {
	l := line{p: p, src: src, rank: r, rs: rs, act: fs[1], args: fs[2:]}
	name := fs[1].s
	switch lower {
	case "init":
		if err := l.arity(0, 1, "[default-datatype flag]"); err != nil {
			return err
		}
		// SimGrid: an argument makes MPI_DOUBLE the default (MPE
		// traces), none MPI_BYTE (TAU traces).
		if len(l.args) == 1 {
			l.rs.dtDefault = Double
		}
	case "finalize":
		return l.arity(0, 0, "none")
	case "comm_size":
		if err := l.arity(1, 1, "ranks"); err != nil {
			return err
		}
		n, err := l.integer(l.args[0], "a number of ranks")
		if err != nil {
			return err
		}
		if n < 1 || n > MaxRanks {
			return l.errAt(l.args[0], "comm_size %d outside 1 to %d", n, MaxRanks)
		}
		if p.world > 0 && n > p.world {
			return l.errAt(l.args[0], "comm_size %d but the index lists %d ranks", n, p.world)
		}
		if n > p.commSize {
			p.commSize = n
			p.sizePos = position{src.name, src.line, l.args[0].col}
		}
	case "comm_split", "comm_dup":
		// SimGrid's replayer ignores them; so do we.
	case "compute":
		if err := l.arity(1, 1, "flops"); err != nil {
			return err
		}
		v, err := l.number(l.args[0], "flop count")
		if err != nil {
			return err
		}
		l.add(tracefmt.ComputeWork(0, v))
	case "sleep":
		if err := l.arity(1, 1, "seconds"); err != nil {
			return err
		}
		v, err := l.number(l.args[0], "duration")
		if err != nil {
			return err
		}
		l.add(tracefmt.ComputeTime(0, v))
	case "location":
		if err := l.arity(2, 2, "file line"); err != nil {
			return err
		}
		n, err := l.integer(l.args[1], "a line number")
		if err != nil {
			return err
		}
		e := tracefmt.Mark(0, p.marker("location"))
		e.SetTextRef(p.text(fmt.Sprintf("%s:%d", l.args[0].s, n)))
		l.add(e)
	case "send", "isend", "ssend", "issend", "bsend", "ibsend", "rsend", "irsend":
		return l.send(lower)
	case "recv", "irecv":
		return l.recv(lower)
	case "sendrecv":
		return l.sendRecv()
	case "wait", "test":
		return l.wait(lower == "test")
	case "waitall":
		if err := l.arity(0, 1, "[request count]"); err != nil {
			return err
		}
		if len(l.args) == 1 {
			if _, err := l.count(l.args[0]); err != nil {
				return err
			}
		}
		l.add(tracefmt.WaitAll(0))
		l.rs.pending = l.rs.pending[:0]
	case "waitany", "testany", "testall", "testsome", "start", "startall":
		// Written by SimGrid's tracer, unknown to its replayer: which
		// request completed is not recorded, so they stay markers.
		e := tracefmt.Mark(0, p.marker(name))
		if len(l.args) > 0 {
			words := make([]string, len(l.args))
			for i, f := range l.args {
				words[i] = f.s
			}
			e.SetTextRef(p.text(strings.Join(words, " ")))
		}
		l.add(e)
	default:
		op, ok := collOp(lower)
		if !ok {
			return l.errAt(fs[1], "unknown action %q (known: %s)", name, actionNames)
		}
		if name != lower && lower != "sendrecv" {
			p.legacy = true // camel-case collectives: allReduce, allToAll, ...
		}
		return l.collective(op)
	}
	return nil
}

// collOp returns the collective operation of an action in lower case
// ("other" is no action); a scan of a few names rather than a map, as it
// runs for every collective line.
func collOp(lower string) (tracefmt.CollOp, bool) {
	op, ok := tracefmt.ParseCollOp(lower)
	return op, ok && op != tracefmt.OpOther
}

// p2pArgs parses the arguments of a send or receive: the peer, the tag
// and the size in bytes, in the current grammar (peer tag count [dt]) or
// the legacy one (peer size [dt], tag 0).
func (l *line) p2pArgs(recv bool) (peer, tag int, size int64, err error) {
	a := l.args
	usage := "dst tag count [datatype]"
	if recv {
		usage = "src tag count [datatype]"
	}
	legacy := false
	switch n := len(a); {
	case n == 1 && recv:
		legacy = true // S4U replay examples: "p1 recv p0"
	case n == 2:
		legacy = true
	case n == 3:
		legacy = l.p.legacyMode() || !isInteger(a[1].s)
	case n == 4:
		l.p.current = true
	default:
		if err := l.arity(3, 4, usage+", or legacy "+strings.Replace(usage, "tag count", "size", 1)); err != nil {
			return 0, 0, 0, err
		}
	}
	what := "destination"
	if recv {
		what = "source"
	}
	peer, err = l.peer(a[0], recv, what)
	if err != nil {
		return 0, 0, 0, err
	}
	if legacy {
		l.p.legacy = true
		if len(a) == 1 {
			return peer, 0, 0, nil
		}
		dt, err := l.datatype(2)
		if err != nil {
			return 0, 0, 0, err
		}
		size, err = l.bytes(a[1], dt)
		return peer, 0, size, err
	}
	tag, err = l.integer(a[1], "a tag")
	if err != nil {
		return 0, 0, 0, err
	}
	if tag == anyTag && !recv {
		return 0, 0, 0, l.errAt(a[1], "a send cannot use MPI_ANY_TAG (%d)", anyTag)
	}
	dt, err := l.datatype(3)
	if err != nil {
		return 0, 0, 0, err
	}
	size, err = l.bytes(a[2], dt)
	return peer, tag, size, err
}

func (l *line) send(lower string) error {
	if l.act.s == "Isend" {
		l.p.legacy = true
	}
	peer, tag, size, err := l.p2pArgs(false)
	if err != nil || peer == procNull {
		return err // a send to MPI_PROC_NULL does nothing
	}
	e := tracefmt.Send(0, peer, int32(tag), 0, size)
	if strings.Contains(lower, "ssend") {
		e.Flags |= tracefmt.FlagSync
	}
	if lower[0] == 'i' {
		e.Flags |= tracefmt.FlagNonBlocking
		l.rs.nextReq++
		e.SetRequest(l.rs.nextReq)
		l.rs.pending = append(l.rs.pending, pendingReq{id: l.rs.nextReq, src: int32(l.rank), dst: int32(peer), tag: int32(tag)})
	}
	l.add(e)
	return nil
}

func (l *line) recv(lower string) error {
	if l.act.s == "Irecv" {
		l.p.legacy = true
	}
	peer, tag, size, err := l.p2pArgs(true)
	if err != nil || peer == procNull {
		return err
	}
	e := tracefmt.Recv(0, peer, int32(tag), 0, size)
	if peer == anySource {
		e.Flags |= tracefmt.FlagAnySource
		l.p.wildcards = true
		l.p.anySources++
	}
	if tag == anyTag {
		e.Flags |= tracefmt.FlagAnyTag
		l.p.wildcards = true
	}
	if lower == "irecv" {
		e.Flags |= tracefmt.FlagNonBlocking
		l.rs.nextReq++
		e.SetRequest(l.rs.nextReq)
		l.rs.pending = append(l.rs.pending, pendingReq{id: l.rs.nextReq, src: int32(peer), dst: int32(l.rank), tag: int32(tag), recv: true})
	}
	l.add(e)
	return nil
}

// sendRecv parses "sendRecv sendcount dst recvcount src [dt [dt]]": a send
// and a receive with SimGrid's implicit tag 0.
func (l *line) sendRecv() error {
	if err := l.arity(4, 6, "sendcount dst recvcount src [send-datatype [recv-datatype]]"); err != nil {
		return err
	}
	sdt, err := l.datatype(4)
	if err != nil {
		return err
	}
	rdt, err := l.datatype(5)
	if err != nil {
		return err
	}
	sb, err := l.bytes(l.args[0], sdt)
	if err != nil {
		return err
	}
	dst, err := l.peer(l.args[1], false, "destination")
	if err != nil {
		return err
	}
	rb, err := l.bytes(l.args[2], rdt)
	if err != nil {
		return err
	}
	src, err := l.peer(l.args[3], true, "source")
	if err != nil {
		return err
	}
	if dst != procNull {
		e := tracefmt.Send(0, dst, 0, 0, sb)
		e.Flags |= tracefmt.FlagSendrecv
		l.add(e)
	}
	if src != procNull {
		e := tracefmt.Recv(0, src, 0, 0, rb)
		e.Flags |= tracefmt.FlagSendrecv
		if src == anySource {
			e.Flags |= tracefmt.FlagAnySource
			l.p.wildcards = true
			l.p.anySources++
		}
		l.add(e)
	}
	return nil
}

// wait parses "wait|test src dst tag" (or the legacy argument-less form)
// and completes the request SimGrid would: the oldest pending one with
// that key; the newest one for the legacy form (SimGrid ≤ 3.19 popped the
// back of its request list).
func (l *line) wait(test bool) error {
	rs := l.rs
	k := -1
	switch len(l.args) {
	case 0:
		l.p.legacy = true
		if len(rs.pending) == 0 {
			return l.errAt(l.act, "%s without arguments, but rank %d has no pending isend or irecv", l.act.s, l.rank)
		}
		k = len(rs.pending) - 1
	case 3:
		l.p.current = true
		src, err := l.peer(l.args[0], true, "source")
		if err != nil {
			return err
		}
		dst, err := l.peer(l.args[1], false, "destination")
		if err != nil {
			return err
		}
		tag, err := l.integer(l.args[2], "a tag")
		if err != nil {
			return err
		}
		k = rs.find(int32(src), int32(dst), int32(tag))
	default:
		return l.arity(3, 3, "src dst tag")
	}
	if k < 0 {
		// SimGrid's replayer skips such a wait (the request may have
		// completed in an earlier test); count it so info can tell.
		l.p.ignoredWaits++
		return nil
	}
	e := tracefmt.Wait(0, rs.pending[k].id)
	if test {
		// A test completes nothing for sure: the request stays pending
		// for the wait that follows, as in SimGrid.
		e.Flags |= tracefmt.FlagTest
	} else {
		rs.pending = append(rs.pending[:k], rs.pending[k+1:]...)
	}
	l.add(e)
	return nil
}

// find returns the index of the oldest pending request with key (src,
// dst, tag), falling back to a wildcard receive that the named source and
// tag could have matched, or -1.
func (rs *rankState) find(src, dst, tag int32) int {
	for i, q := range rs.pending {
		if q.src == src && q.dst == dst && q.tag == tag {
			return i
		}
	}
	if src < 0 && src != anySource {
		return -1
	}
	for i, q := range rs.pending {
		if q.recv && q.dst == dst && (q.src == src || q.src == anySource) && (q.tag == tag || q.tag == anyTag) {
			return i
		}
	}
	return -1
}
