package clog2

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Attr keys of what a CLOG2 file holds beyond the preamble.
const (
	// attrCommTable lists the communicator table's UUIDs and kinds, one line
	// per Trace.Comms entry (whose ID is the table's local_ID).
	attrCommTable = "clog2.commtable"
	// attrCommSelves lists the table entries of MPI_COMM_SELF
	// communicators that have no Trace.Comms entry (a table too large for
	// Event.Comm; no record runs on them), one line each: the entry's
	// place in the table, its id, then as attrCommTable.
	attrCommSelves = "clog2.commtable.selves"
	// attrUndefStates and attrUndefEvents list the state ids and event
	// types the file used without a STATEDEF or EVENTDEF record.
	attrUndefStates = "clog2.undefined_states"
	attrUndefEvents = "clog2.undefined_events"
	// attrOrder keeps the global record order when it is not MPE's merge
	// order (see orderSpec).
	attrOrder = "clog2.order"
	// attrBlocks lists the records per block when blocks were not closed
	// by MPE's rule.
	attrBlocks = "clog2.blocks"
	// attrFiller says how block filler differs from MPE's (see fillerMode).
	attrFiller = "clog2.filler"
	// attrTerminators lists ENDBLOCK/ENDLOG headers that differ from MPE's.
	attrTerminators = "clog2.terminators"
)

// commEntry is one row of the communicator table.
type commEntry struct {
	rand int32
	time float64
	host string // up to hostLen bytes
	id   int32
	kind int32
}

func (c commEntry) text() string {
	var f fields
	f.int("rand", int64(c.rand)).float("time", c.time).str("host", []byte(c.host)).int("kind", int64(c.kind))
	return f.String()
}

func parseCommEntry(s string) (commEntry, error) {
	p, err := parsePayload(s)
	if err != nil {
		return commEntry{}, err
	}
	r := p.reader()
	c := commEntry{rand: r.int32("rand"), time: r.float("time"), host: r.str("host", hostLen), kind: r.int32("kind")}
	return c, r.err
}

// plan maps the model's events to record fields: the tables both the
// writer and the reader's exactness check use, so that what Read decides to
// store is exactly what Write could not derive.
type plan struct {
	t *tracefmt.Trace
	// commID is the CLOG2 id of each Trace.Comms entry; commIdx maps an id
	// to the first entry carrying it.
	commID  []int32
	commIdx map[int32]int
	local   []map[int32]int32
	// start and end event types of each state, event type of each user
	// marker; markKind tells bookkeeping markers apart (0 for user ones).
	stStart, stEnd []int32
	// renamed gives the state id of states whose Source.ID an earlier
	// state has already (formats without state ids, as ALOG, leave them
	// all 0): one id for several STATEDEFs would merge them when read.
	renamed map[int]int32
	// ownIDs are the state ids the trace's own CLOG2 records define (its
	// STATEDEF records and clog2.undefined_states); the writer adds no
	// STATEDEF for them, so states sharing one are the file's and keep it.
	ownIDs map[int32]bool
	// zeroDef says a STATEDEF record defines state 0 with start and end
	// event type 0: the model reads that Source as none, so the first
	// state without one is that state, and keeps those ids.
	zeroDef bool
	// zeroEvent says the file has event type 0 of its own (an EVENTDEF
	// record of it, or clog2.undefined_events): its marker's Source is
	// all zeros, which the model reads as none, so the first user marker
	// without one is that marker, and keeps event type 0.
	zeroEvent bool
	mkEtype   []int32
	mkKind    []uint8
}

// Bookkeeping marker kinds.
const (
	mkUser uint8 = iota
	mkTimeShift
	mkCommEvt
	mkConstDef
	mkStateDef
	mkEventDef
	mkSrcLoc
	mkMsgEvt
	mkCollEvt
	mkRecord
)

func markerKind(name string) uint8 {
	switch name {
	case markTimeShift:
		return mkTimeShift
	case markCommEvt:
		return mkCommEvt
	case markConstDef:
		return mkConstDef
	case markStateDef:
		return mkStateDef
	case markEventDef:
		return mkEventDef
	case markSrcLoc:
		return mkSrcLoc
	case markMsgEvt:
		return mkMsgEvt
	case markCollEvt:
		return mkCollEvt
	case markRecord:
		return mkRecord
	}
	return mkUser
}

func hasSource(s tracefmt.SourceIDs) bool { return s != tracefmt.SourceIDs{} }

// assignIDs fills the state and marker event types: a state's Source when
// it has one, else MPE's id for a known MPI state name, else the next free
// user id from 300; a user marker's Source.ID, else the next free solo event
// type from 5000.
func (pl *plan) assignIDs() {
	t := pl.t
	pl.stStart = make([]int32, len(t.States))
	pl.stEnd = make([]int32, len(t.States))
	used := map[int32]bool{}
	zero := -1
	var dups []int
	for i, s := range t.States {
		if pl.zeroDef && zero < 0 && !hasSource(s.Source) {
			zero = i
			used[0] = true
		}
		if hasSource(s.Source) {
			if used[s.Source.ID] && !pl.ownIDs[s.Source.ID] {
				dups = append(dups, i)
			}
			used[s.Source.ID] = true
		}
	}
	next := int32(userStateIDStart)
	freeID := func() int32 {
		for used[next] {
			next++
		}
		used[next] = true
		return next
	}
	pl.renamed = nil
	for _, i := range dups {
		if pl.renamed == nil {
			pl.renamed = map[int]int32{}
		}
		pl.renamed[i] = freeID()
	}
	for i, s := range t.States {
		switch {
		case hasSource(s.Source):
			pl.stStart[i], pl.stEnd[i] = s.Source.Start, s.Source.End
			continue
		case i == zero:
			continue // ids 0, as the zero values left them
		}
		id := knownStateID(s.Name)
		if id < 0 || used[id] {
			id = freeID()
		}
		used[id] = true
		pl.stStart[i], pl.stEnd[i] = 2*id, 2*id+1
	}
	pl.mkEtype = make([]int32, len(t.Markers))
	pl.mkKind = make([]uint8, len(t.Markers))
	usedEt := map[int32]bool{}
	dupEt := map[int]bool{} // markers whose Source.ID an earlier one has
	zeroMk := -1
	for i, m := range t.Markers {
		pl.mkKind[i] = markerKind(m.Name)
		if pl.zeroEvent && zeroMk < 0 && pl.mkKind[i] == mkUser && !hasSource(m.Source) {
			zeroMk = i
			usedEt[0] = true
		}
		if et, ok := markerSourceEtype(m.Source); pl.mkKind[i] == mkUser && ok {
			dupEt[i] = usedEt[et]
			usedEt[et] = true
		}
	}
	nextEt := int32(userSoloEventIDStart)
	for i, m := range t.Markers {
		if pl.mkKind[i] != mkUser || i == zeroMk {
			continue // bookkeeping, or event type 0 as the zero value left it
		}
		if et, ok := markerSourceEtype(m.Source); ok && !dupEt[i] {
			pl.mkEtype[i] = et
			continue
		}
		for usedEt[nextEt] {
			nextEt++
		}
		usedEt[nextEt] = true
		pl.mkEtype[i] = nextEt
	}
}

// markerSourceEtype returns the CLOG2 event type a marker had when it was
// read from CLOG2 (or written with one in tsim): its Source.ID. CLOG and
// ALOG markers keep their own format's event type in Source.Start, with
// no ID; such a type means nothing in CLOG2's ranges (ALOG's 9 is MPI
// state 4's end there) so those markers get a fresh solo event type, as
// markers without a source do.
func markerSourceEtype(s tracefmt.SourceIDs) (int32, bool) {
	return s.ID, s.ID != 0
}

// stateID returns the CLOG2 state id of state s.
func (pl *plan) stateID(s int) int32 {
	if id, ok := pl.renamed[s]; ok {
		return id
	}
	if src := pl.t.States[s].Source; hasSource(src) {
		return src.ID
	}
	return pl.stStart[s] / 2
}

// setCommIDs uses ids as the CLOG2 ids of Trace.Comms.
func (pl *plan) setCommIDs(ids []int32) {
	pl.commID = ids
	pl.commIdx = make(map[int32]int, len(ids))
	for i, id := range ids {
		if _, ok := pl.commIdx[id]; !ok {
			pl.commIdx[id] = i
		}
	}
	pl.local = make([]map[int32]int32, len(ids))
}

// localRank returns the rank of world rank w in communicator ci, or -1.
func (pl *plan) localRank(ci int, w int32) int32 {
	if pl.t.Comms[ci].Ranks == nil {
		return w
	}
	return pl.mappedRank(ci, w)
}

func (pl *plan) mappedRank(ci int, w int32) int32 {
	c := &pl.t.Comms[ci]
	m := pl.local[ci]
	if m == nil {
		m = make(map[int32]int32, len(c.Ranks))
		for i := len(c.Ranks) - 1; i >= 0; i-- {
			m[c.Ranks[i]] = int32(i)
		}
		pl.local[ci] = m
	}
	if r, ok := m[w]; ok {
		return r
	}
	return -1
}

// derived are the fields of a record that follow from an event.
type derived struct {
	icomm, rank int32
	etype       int32
	mcomm, peer int32 // msg icomm and partner, collective root
}

// derive returns the fields the writer gives event e of world rank w.
func (pl *plan) derive(e *tracefmt.Event, w int32) derived {
	d := derived{icomm: pl.commID[e.Comm], rank: pl.localRank(int(e.Comm), w)}
	switch e.Kind {
	case tracefmt.KindEnter:
		d.etype = pl.stStart[e.State()]
	case tracefmt.KindLeave:
		d.etype = pl.stEnd[e.State()]
	case tracefmt.KindMarker:
		d.etype = pl.mkEtype[e.Marker()]
	case tracefmt.KindSend, tracefmt.KindRecv:
		d.etype = etypeSend
		if e.Kind == tracefmt.KindRecv {
			d.etype = etypeRecv
		}
		d.mcomm = pl.commID[e.Comm]
		d.peer = pl.localRank(int(e.Comm), e.Peer)
	case tracefmt.KindCollective:
		d.etype = collEtype(e.Op())
		d.peer = -1
		if e.Root() >= 0 {
			d.peer = pl.localRank(int(e.Comm), int32(e.Root()))
		}
	}
	return d
}

// override holds the "CLOG2 record" fields of one record.
type override struct {
	thread, icomm, rank, etype, mcomm, peer    int32
	hasThread, hasIcomm, hasRank, hasEtype     bool
	hasMcomm, hasPeer, hasPad, hasCargo, noCgo bool
	pad                                        [4]byte
	cargo                                      [cargoLen]byte
}

func (o *override) text() string {
	var f fields
	if o.hasThread {
		f.int("thread", int64(o.thread))
	}
	if o.hasIcomm {
		f.int("icomm", int64(o.icomm))
	}
	if o.hasRank {
		f.int("rank", int64(o.rank))
	}
	if o.hasEtype {
		f.int("etype", int64(o.etype))
	}
	if o.hasMcomm {
		f.int("mcomm", int64(o.mcomm))
	}
	if o.hasPeer {
		f.int("peer", int64(o.peer))
	}
	if o.hasPad {
		f.hex("pad", o.pad[:])
	}
	if o.noCgo {
		f.word("cargo", "none")
	} else if o.hasCargo {
		f.hex("cargo", o.cargo[:])
	}
	return f.String()
}

func parseOverride(s string) (override, error) {
	var o override
	p, err := parsePayload(s)
	if err != nil {
		return o, err
	}
	for i, k := range p.keys {
		v := p.vals[i]
		num := func(dst *int32, has *bool) {
			n, e := strconv.ParseInt(v, 10, 32)
			if e != nil && err == nil {
				err = fmt.Errorf("%s=%q is not a 32-bit integer", k, clip(v))
			}
			*dst, *has = int32(n), true
		}
		switch k {
		case "thread":
			num(&o.thread, &o.hasThread)
		case "icomm":
			num(&o.icomm, &o.hasIcomm)
		case "rank":
			num(&o.rank, &o.hasRank)
		case "etype":
			num(&o.etype, &o.hasEtype)
		case "mcomm":
			num(&o.mcomm, &o.hasMcomm)
		case "peer":
			num(&o.peer, &o.hasPeer)
		case "pad":
			if n, e := decodeHex(v, o.pad[:]); e != nil || n != 4 {
				return o, fmt.Errorf("pad=%q: expected 8 hex digits", clip(v))
			}
			o.hasPad = true
		case "cargo":
			if v == "none" {
				o.noCgo = true
				continue
			}
			if n, e := decodeHex(v, o.cargo[:]); e != nil || n != cargoLen {
				return o, fmt.Errorf("cargo=%q: expected 64 hex digits", clip(v))
			}
			o.hasCargo = true
		default:
			return o, fmt.Errorf("unknown field %q", clip(k))
		}
	}
	return o, err
}

// commPlan is the communicator table the writer emits and the COMMEVT
// records it synthesizes.
type commPlan struct {
	entries []commEntry
	// reproduce is true when the trace carries its table (read from
	// CLOG2): COMMEVT markers are then written as they are.
	reproduce bool
	// selfID is the id of the MPI_COMM_SELF entry synthesized for a rank
	// (reproduce mode: only ranks without COMMEVT markers).
	selfID map[int32]int32
	// member lists, per rank, the communicators other than the world it
	// belongs to (synthesized mode), as Trace.Comms indexes.
	member [][]int
	byID   map[int32]int
}

// uuidFor returns a deterministic UUID random part for a synthesized
// communicator.
func uuidFor(key string) int32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int32(h.Sum32() & 0x7fffffff)
}

// planComms decides the communicator ids and table. needCommEvt tells which
// ranks have no COMMEVT marker.
func (pl *plan) planComms(needCommEvt []bool) (*commPlan, error) {
	t := pl.t
	cp := &commPlan{selfID: map[int32]int32{}}
	if s, ok := t.Attr(attrCommTable); ok {
		lines := strings.Split(s, "\n")
		if len(lines) == len(t.Comms) {
			ids := make([]int32, len(t.Comms))
			maxID := int32(-1)
			for i, l := range lines {
				e, err := parseCommEntry(l)
				if err != nil {
					return nil, fmt.Errorf("clog2: attribute %s line %d: %v", attrCommTable, i+1, err)
				}
				e.id = t.Comms[i].ID
				ids[i] = e.id
				maxID = max(maxID, e.id)
				cp.entries = append(cp.entries, e)
			}
			if ids[0] == 0 {
				cp.reproduce = true
				pl.setCommIDs(ids)
				if err := cp.putSelves(t); err != nil {
					return nil, err
				}
				for _, e := range cp.entries {
					maxID = max(maxID, e.id)
				}
				for w, need := range needCommEvt {
					if need {
						maxID++
						cp.selfID[int32(w)] = maxID
						cp.entries = append(cp.entries, commEntry{rand: uuidFor(fmt.Sprintf("self %d", w)), host: synthesizedHost, id: maxID, kind: kindUnknown})
					}
				}
				return cp, nil
			}
		}
	}
	// Build the table as MPE's CLOG_CommSet_merge does: every rank's local
	// table (world, self, its other communicators in creation order) is
	// gathered by recursive doubling, appending ids not seen yet.
	P := t.Size()
	cp.member = make([][]int, P)
	for ci := 1; ci < len(t.Comms); ci++ {
		c := &t.Comms[ci]
		if c.Ranks == nil {
			for w := range P {
				cp.member[w] = append(cp.member[w], ci)
			}
			continue
		}
		seen := map[int32]bool{}
		for _, w := range c.Ranks {
			if !seen[w] {
				seen[w] = true
				cp.member[w] = append(cp.member[w], ci)
			}
		}
	}
	// Keys: -1 world, -2-w self of rank w, ci >= 1 a trace communicator.
	// A self key is in one table only, so only the others need a set of
	// what a table has (the world and the trace's communicators): the
	// merge then costs O(P log P) appends of integers, not map inserts.
	tables := make([][]int, P)
	shared := make([]map[int]bool, P)
	for w := range P {
		tables[w] = append([]int{-1, -2 - w}, cp.member[w]...)
	}
	has := func(w, k int) bool {
		if k == -1 {
			return true // every rank's table starts with the world
		}
		return shared[w][k]
	}
	for w := range P {
		for _, k := range cp.member[w] {
			if shared[w] == nil {
				shared[w] = map[int]bool{}
			}
			shared[w][k] = true
		}
	}
	for sep := 1; sep < P; sep <<= 1 {
		for w := 0; w+sep < P; w += 2 * sep {
			for _, k := range tables[w+sep] {
				if k <= -2 {
					tables[w] = append(tables[w], k)
					continue
				}
				if !has(w, k) {
					if shared[w] == nil {
						shared[w] = map[int]bool{}
					}
					shared[w][k] = true
					tables[w] = append(tables[w], k)
				}
			}
			tables[w+sep], shared[w+sep] = nil, nil
		}
	}
	rootHas := map[int]bool{}
	for _, k := range append([]int{-1, -2}, cp.member[0]...) {
		rootHas[k] = true
	}
	ids := make([]int32, len(t.Comms))
	for pos, k := range tables[0] {
		e := commEntry{id: int32(pos), host: synthesizedHost, kind: kindUnknown}
		if rootHas[k] {
			e.kind = kindIntra
		}
		switch {
		case k == -1:
			e.rand = uuidFor("world")
			ids[0] = int32(pos)
		case k <= -2:
			e.rand = uuidFor(fmt.Sprintf("self %d", -2-k))
			cp.selfID[int32(-2-k)] = int32(pos)
		default:
			e.rand = uuidFor(fmt.Sprintf("comm %d", k))
			ids[k] = int32(pos)
		}
		cp.entries = append(cp.entries, e)
	}
	// Trace communicators no rank belongs to still need an id.
	for ci := 1; ci < len(t.Comms); ci++ {
		if ids[ci] == 0 && !has(0, ci) {
			ids[ci] = int32(len(cp.entries))
			cp.entries = append(cp.entries, commEntry{rand: uuidFor(fmt.Sprintf("comm %d", ci)), host: synthesizedHost, id: ids[ci], kind: kindUnknown})
		}
	}
	pl.setCommIDs(ids)
	return cp, nil
}

// putSelves puts the table entries of attrCommSelves back in their places.
func (cp *commPlan) putSelves(t *tracefmt.Trace) error {
	s, ok := t.Attr(attrCommSelves)
	if !ok {
		return nil
	}
	lines := strings.Split(s, "\n")
	all := make([]commEntry, 0, len(cp.entries)+len(lines))
	kept := cp.entries
	for i, l := range lines {
		pos, rest, ok1 := strings.Cut(l, " ")
		id, text, ok2 := strings.Cut(rest, " ")
		p, err1 := strconv.Atoi(pos)
		n, err2 := strconv.ParseInt(id, 10, 32)
		e, err3 := parseCommEntry(text)
		if !ok1 || !ok2 || err1 != nil || err2 != nil || err3 != nil || p < len(all) {
			return fmt.Errorf("clog2: attribute %s line %d: expected a place in the table (increasing), an id and an entry", attrCommSelves, i+1)
		}
		for len(all) < p && len(kept) > 0 {
			all = append(all, kept[0])
			kept = kept[1:]
		}
		e.id = int32(n)
		all = append(all, e)
	}
	cp.entries = append(all, kept...)
	return nil
}

func decodeHex(s string, dst []byte) (int, error) {
	if len(s) != 2*len(dst) {
		return 0, fmt.Errorf("length")
	}
	for i := range dst {
		hi, ok1 := unhex(s[2*i])
		lo, ok2 := unhex(s[2*i+1])
		if !ok1 || !ok2 {
			return 0, fmt.Errorf("digit")
		}
		dst[i] = hi<<4 | lo
	}
	return len(dst), nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
