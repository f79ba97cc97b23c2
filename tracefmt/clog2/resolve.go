package clog2

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tracesim/tracesim/tracefmt"
)

// resolver turns the provisional events into the trace once every
// definition of the file is known.
type resolver struct {
	rd       *reader
	b        *tracefmt.Builder
	t        *tracefmt.Trace
	pl       *plan
	ids      []int32
	idIndex  map[int32]int
	identity bool // comm ids equal their indexes
	// keptEntry marks the communicator table entries that have a
	// Trace.Comms entry (nil: all of them; see omitSelves).
	keptEntry []bool
	// exact marks communicators whose Ranks map back every (rank, world
	// rank) pair of the COMMEVT records: derived header ranks and peers
	// then equal the file's.
	exact      []bool
	etypeState map[int32]stateRef
	etypeMark  map[int32]tracefmt.MarkerID
	undefSt    []int32
	undefEv    []int32
	// dense caches classify for event types 0..denseEtypes-1.
	dense       []etypeClass
	excCount    map[int32]int
	markerNames map[string]bool // names taken, for uniqueMarkerName
	// cargo lists, per rank, the end events that carried cargo (MPE logs
	// an MPI_Alltoall's byte counts there).
	cargo [][]leaveCargo
	// meta lists, per rank, the records kept out of the stream for
	// Trace.Meta (see takeMeta).
	meta [][]metaRef
	// mkMeta and mkFinal say, per marker id, whether the marker's events
	// go to Trace.Meta and, if not, the id the marker has once those
	// markers leave the table (see fate).
	mkMeta  []bool
	mkFinal []tracefmt.MarkerID
	nMeta   int
}

// metaRef is a record kept out of a rank's stream: the event it was read
// as and the index of the stream's event it precedes.
type metaRef struct {
	before int32
	e      tracefmt.Event
}

// leaveCargo is a leave event's index in its rank's stream and the
// rd.texts index of its cargo.
type leaveCargo struct{ idx, text int32 }

// denseEtypes covers MPE's known and usual user event types.
const denseEtypes = 4096

type etypeClass struct {
	ok      bool
	isState bool
	exact   bool // the writer derives this event type back
	ref     stateRef
	marker  tracefmt.MarkerID
	// meta and final are the marker's fate (see resolver.fate).
	meta  bool
	final tracefmt.MarkerID
}

type stateRef struct {
	id    tracefmt.StateID
	start bool
}

// openRef is an open state of a rank: its enter's index in the stream and
// info text.
type openRef struct {
	text  int32
	index int32
}

func (rd *reader) finish() (*tracefmt.Trace, error) {
	P := rd.P
	if P > 1<<16 && int64(P) > rd.pos/8 {
		return nil, errAt(0, -1, "max_comm_world_size %d is implausible for a file of %d bytes", P, rd.pos)
	}
	if err := rd.resolveDeferred(); err != nil {
		return nil, err
	}
	b := tracefmt.NewBuilder(P, true, tracefmt.Second)
	b.SetPairing(tracefmt.PairOldest)
	rs := &resolver{rd: rd, b: b, t: b.Trace(), etypeState: map[int32]stateRef{}, etypeMark: map[int32]tracefmt.MarkerID{}}
	t := rs.t
	t.Format = "clog2"
	if err := rs.buildComms(); err != nil {
		return nil, err
	}
	for _, m := range rd.markers {
		b.DefineMarker(m)
	}
	for _, d := range rd.eventDefs {
		def := tracefmt.MarkerDef{Name: d.name, Color: d.color, Format: d.format, Source: tracefmt.SourceIDs{ID: d.etype}}
		if id, ok := rs.etypeMark[d.etype]; ok {
			def.Name = t.Markers[id].Name
			t.Markers[id] = def
			continue
		}
		def.Name = rs.uniqueMarkerName(d.name, d.etype)
		rs.etypeMark[d.etype] = b.DefineMarker(def)
	}
	stateOf := map[int32]tracefmt.StateID{}
	for _, d := range rd.stateDefs {
		def := tracefmt.StateDef{Name: d.name, Color: d.color, Format: d.format, Category: rs.category(d.name, d.id),
			Source: tracefmt.SourceIDs{ID: d.id, Start: d.start, End: d.end}}
		sid, ok := stateOf[d.id]
		if ok {
			def.Name = t.States[sid].Name
			t.States[sid] = def
		} else {
			def.Name = rs.uniqueStateName(d.name, d.id)
			sid = b.DefineState(def)
			stateOf[d.id] = sid
		}
		rs.etypeState[d.start] = stateRef{sid, true}
		rs.etypeState[d.end] = stateRef{sid, false}
	}
	for _, s := range rd.texts {
		b.Text(s)
	}
	rd.p.setAttrs(t)
	if rd.hasTable {
		lines := make([]string, 0, len(rd.table))
		for i, e := range rd.table {
			if rs.keptEntry == nil || rs.keptEntry[i] {
				lines = append(lines, e.text())
			}
		}
		t.SetAttr(attrCommTable, strings.Join(lines, "\n"))
	}
	rs.pl = &plan{t: t}
	for _, d := range rd.stateDefs {
		rs.pl.zeroDef = rs.pl.zeroDef || d.id == 0 && d.start == 0 && d.end == 0
	}
	for _, d := range rd.eventDefs {
		rs.pl.zeroEvent = rs.pl.zeroEvent || d.etype == 0
	}
	rs.pl.assignIDs()
	rs.pl.setCommIDs(rs.ids)
	if err := rs.resolveRanks(); err != nil {
		return nil, err
	}
	rs.setAttrs()
	tr, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("clog2: %w", err)
	}
	rs.takeMeta(tr)
	if o := rd.ord; o.order != nil {
		if h, err := mergedOrderHash(tr.WithMeta()); err != nil || h != o.hash {
			tr.SetAttr(attrOrder, o.order.encode())
		}
	}
	// MPE logs collectives as states only; a file with COLLEVT records
	// was written from a model that had collective events (see Write).
	// Insert moves the Meta records' places with the events.
	if !rd.anyColl && tr.DeriveCollectives(rs.cargoSizes) > 0 {
		tr.SetAttr(attrDerivedColls, "true")
	}
	return tr, nil
}

func (rs *resolver) setAttrs() {
	rd, t := rs.rd, rs.t
	list := func(key string, v []int32) {
		if len(v) == 0 {
			return
		}
		slices.Sort(v)
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = strconv.Itoa(int(x))
		}
		t.SetAttr(key, strings.Join(s, ","))
	}
	list(attrUndefStates, rs.undefSt)
	list(attrUndefEvents, rs.undefEv)
	if !rd.p.finalized {
		return
	}
	if !rd.packOK {
		s := make([]string, len(rd.blockRecs))
		for i, n := range rd.blockRecs {
			s[i] = strconv.FormatInt(n, 10)
		}
		t.SetAttr(attrBlocks, strings.Join(s, ","))
	}
	if !rd.fillStale {
		if rd.fillZero {
			t.SetAttr(attrFiller, "zero")
		} else {
			keys := make([]int64, 0, len(rd.fillerAttr))
			for k := range rd.fillerAttr {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				t.SetAttr(fmt.Sprintf("%s.%d", attrFiller, k), rd.fillerAttr[k])
			}
		}
	}
	if len(rd.terms) > 0 {
		t.SetAttr(attrTerminators, strings.Join(rd.terms, "\n"))
	}
}

// resolveDeferred maps the peers and roots that needed COMMEVT or CONSTDEF
// records found later in the file. A rank of another communicator that no
// COMMEVT maps (a per-process file knows only its own process; a
// communicator created while logging was off) leaves the record as it is,
// in a marker; a negative world rank that no CONSTDEF names is an error.
func (rd *reader) resolveDeferred() error {
	for _, d := range rd.deferred {
		pe := &rd.ranks[d.rank].ev[d.idx]
		switch pe.Kind {
		case provMsg:
			mc, p := int32(pe.Request()>>32), int32(pe.Request())
			pe.Peer = rd.resolvePeer(mc, p)
			if pe.Peer != peerUnresolved {
				continue
			}
			if mc == 0 {
				return errAt(d.off, d.blk, "MSGEVT partner rank %d outside the world of %d ranks (and no CONSTDEF names it)", p, rd.P)
			}
			pe.Peer = peerNone
		case provColl:
			hc, root := int32(pe.Comm), int32(pe.Request())
			pe.Peer = rd.resolvePeer(hc, root)
			if pe.Peer == peerUnresolved && hc == 0 {
				return errAt(d.off, d.blk, "COLLEVT root %d outside the world of %d ranks (and no CONSTDEF names it)", root, rd.P)
			}
			if pe.Peer < 0 {
				pe.Peer = peerNoRank
			}
		}
	}
	return nil
}

// buildComms makes Trace.Comms from the communicator table (or, without
// one, from the communicator ids the records use) and the COMMEVT
// mappings.
func (rs *resolver) buildComms() error {
	rd := rs.rd
	var ids []int32
	var err error
	if rd.hasTable {
		for _, e := range rd.table {
			ids = append(ids, e.id)
		}
	} else {
		for id, used := range rd.usedComm {
			if used {
				ids = append(ids, int32(id))
			}
		}
		for id := range rd.commEtype {
			if !rd.usedComm[id] {
				ids = append(ids, id)
			}
		}
		slices.Sort(ids)
	}
	if rd.hasTable {
		inTable := make(map[int32]bool, len(rd.table))
		for _, e := range rd.table {
			inTable[e.id] = true
		}
		for id := range rd.commEtype {
			if !inTable[id] {
				return errAt(rd.tableOff, -1, "a COMMEVT creates communicator %d, which the communicator table lacks", id)
			}
		}
	}
	if ids, err = rs.omitSelves(ids); err != nil {
		return err
	}
	rs.ids = ids
	rs.idIndex = make(map[int32]int, len(ids))
	rs.identity = true
	for i, id := range ids {
		if _, ok := rs.idIndex[id]; !ok {
			rs.idIndex[id] = i
		}
		if id != int32(i) {
			rs.identity = false
		}
	}
	for id, used := range rd.usedComm {
		if _, ok := rs.idIndex[int32(id)]; used && !ok {
			return errAt(rd.tableOff, -1, "the records use communicator %d, which the communicator table lacks", id)
		}
	}
	// Bucket the COMMEVT mappings by communicator; only a communicator
	// with as many mappings as its highest rank + 1 can be dense, so no
	// other gets a slice (a corrupt file cannot make this allocate more
	// than its mappings).
	type span struct{ n, top int32 }
	spans := map[int32]span{}
	for k := range rd.commMap {
		ic, r := int32(k>>32), int32(uint32(k))
		sp := spans[ic]
		sp.n++
		sp.top = max(sp.top, r)
		spans[ic] = sp
	}
	members := map[int32][]int32{}
	for k, w := range rd.commMap {
		ic, r := int32(k>>32), int32(uint32(k))
		sp := spans[ic]
		if sp.n != sp.top+1 {
			continue
		}
		m := members[ic]
		if m == nil {
			m = make([]int32, sp.n)
			members[ic] = m
		}
		m[r] = w
	}
	comms := make([]tracefmt.Comm, len(ids))
	rs.exact = make([]bool, len(ids))
	for i, id := range ids {
		c := tracefmt.Comm{ID: id, Name: fmt.Sprintf("communicator %d", id)}
		m := members[id]
		switch {
		case id == 0:
			c.Name = "MPI_COMM_WORLD"
			rs.exact[i] = true
		case spans[id].n == 0:
			rs.exact[i] = true // no COMMEVT: no record can use it
		case m != nil && dense(m):
			c.Ranks = m
			rs.exact[i] = true
		}
		switch rd.commEtype[id] {
		case commSelfCreate:
			c.Name = fmt.Sprintf("MPI_COMM_SELF (communicator %d)", id)
			if len(c.Ranks) == 1 {
				c.Name = fmt.Sprintf("MPI_COMM_SELF of rank %d", c.Ranks[0])
			}
		case commInterCreate:
			c.Name = fmt.Sprintf("intercommunicator %d", id)
		}
		comms[i] = c
	}
	rs.t.Comms = comms
	return nil
}

// omitSelves leaves out of ids, when they are more than Trace.Comms can
// index, the MPI_COMM_SELF communicators no record runs on: MPE's table
// holds one for every process, so a world of 65,536 ranks has 65,537
// entries or more. Their table entries are kept in attrCommSelves with
// their place in the table, so that Write puts them back; their COMMEVT
// records stay markers, as every COMMEVT does.
func (rs *resolver) omitSelves(ids []int32) ([]int32, error) {
	rd := rs.rd
	if len(ids) <= maxComms {
		return ids, nil
	}
	omit := func(id int32) bool {
		return id != 0 && (id >= maxComms || !rd.usedComm[id]) && rd.commEtype[id] == commSelfCreate
	}
	kept := ids[:0:0]
	for _, id := range ids {
		if !omit(id) {
			kept = append(kept, id)
		}
	}
	if len(kept) > maxComms {
		return nil, errAt(rd.tableOff, -1, "%d communicators besides unused MPI_COMM_SELFs: at most %d are supported", len(kept), maxComms)
	}
	rs.keptEntry = make([]bool, len(rd.table))
	var lines []string
	for i, e := range rd.table {
		if omit(e.id) {
			lines = append(lines, fmt.Sprintf("%d %d %s", i, e.id, e.text()))
		} else {
			rs.keptEntry[i] = true
		}
	}
	if len(lines) > 0 {
		rs.t.SetAttr(attrCommSelves, strings.Join(lines, "\n"))
	}
	return kept, nil
}

// dense reports whether a local-to-world map maps no two local ranks to
// the same world rank (every local rank has one).
func dense(m []int32) bool {
	seen := make(map[int32]bool, len(m))
	for _, w := range m {
		if seen[w] {
			return false
		}
		seen[w] = true
	}
	return true
}

func (rs *resolver) commIndex(id int32) int {
	if rs.identity {
		return int(id)
	}
	return rs.idIndex[id]
}

// category classifies a state by its name; user states (ids from
// known_stateID_count on) are not MPI calls whatever their name says.
func (rs *resolver) category(name string, id int32) tracefmt.Category {
	c := tracefmt.CategoryOf(name)
	if id >= rs.rd.p.knownStates() && c.IsMPI() {
		return tracefmt.CatUser
	}
	return c
}

func (rs *resolver) uniqueStateName(name string, id int32) string {
	if name == "" {
		name = fmt.Sprintf("state %d", id)
	}
	if _, taken := rs.b.LookupState(name); taken {
		name = fmt.Sprintf("%s (state %d)", name, id)
	}
	for k := 2; ; k++ {
		if _, taken := rs.b.LookupState(name); !taken {
			return name
		}
		name = fmt.Sprintf("%s #%d", name, k)
	}
}

func (rs *resolver) uniqueMarkerName(name string, etype int32) string {
	if name == "" || IsBookkeeping(name) {
		name = fmt.Sprintf("event %d", etype)
	}
	if rs.markerNames == nil {
		rs.markerNames = map[string]bool{}
		for _, m := range rs.t.Markers {
			rs.markerNames[m.Name] = true
		}
	}
	if rs.markerNames[name] {
		name = fmt.Sprintf("%s (event %d)", name, etype)
	}
	for k := 2; rs.markerNames[name]; k++ {
		name = fmt.Sprintf("%s #%d", name, k)
	}
	rs.markerNames[name] = true
	return name
}

// marker returns the id of a bookkeeping marker, defining it when new.
func (rs *resolver) marker(name string) tracefmt.MarkerID {
	n := len(rs.t.Markers)
	id := rs.b.Marker(name)
	if len(rs.t.Markers) > n {
		rs.pl.mkEtype = append(rs.pl.mkEtype, 0)
		rs.pl.mkKind = append(rs.pl.mkKind, markerKind(name))
		if rs.markerNames != nil {
			rs.markerNames[name] = true
		}
	}
	return id
}

// classify says what a BAREEVT/CARGOEVT event type is: a state's start or
// end (STATEDEF'd, or in MPE's state ranges), else a solo event.
func (rs *resolver) classify(etype int32) etypeClass {
	if etype >= 0 && etype < denseEtypes {
		if rs.dense == nil {
			rs.dense = make([]etypeClass, denseEtypes)
		}
		c := &rs.dense[etype]
		if !c.ok {
			*c = rs.classifyFull(etype)
		}
		return *c
	}
	return rs.classifyFull(etype)
}

func (rs *resolver) classifyFull(etype int32) etypeClass {
	c := etypeClass{ok: true}
	c.ref, c.marker, c.isState = rs.classifySlow(etype)
	switch {
	case !c.isState:
		c.exact = rs.pl.mkEtype[c.marker] == etype
		c.meta, c.final = rs.fate(c.marker)
	case c.ref.start:
		c.exact = rs.pl.stStart[c.ref.id] == etype
	default:
		c.exact = rs.pl.stEnd[c.ref.id] == etype
	}
	return c
}

func (rs *resolver) classifySlow(etype int32) (stateRef, tracefmt.MarkerID, bool) {
	if ref, ok := rs.etypeState[etype]; ok {
		return ref, 0, true
	}
	if id, start, ok := rs.rd.p.stateRange(etype); ok {
		name := ""
		if id < rs.rd.p.knownStates() {
			name = knownStateName(id)
		}
		if name == "" {
			name = fmt.Sprintf("state %d", id)
		}
		def := tracefmt.StateDef{Name: rs.uniqueStateName(name, id), Category: rs.category(name, id), Source: tracefmt.SourceIDs{ID: id, Start: start, End: start + 1}}
		sid := rs.b.DefineState(def)
		rs.pl.stStart = append(rs.pl.stStart, start)
		rs.pl.stEnd = append(rs.pl.stEnd, start+1)
		rs.etypeState[start] = stateRef{sid, true}
		rs.etypeState[start+1] = stateRef{sid, false}
		rs.undefSt = append(rs.undefSt, id)
		return rs.etypeState[etype], 0, true
	}
	if id, ok := rs.etypeMark[etype]; ok {
		return stateRef{}, id, false
	}
	def := tracefmt.MarkerDef{Name: rs.uniqueMarkerName("", etype), Source: tracefmt.SourceIDs{ID: etype}}
	id := rs.b.DefineMarker(def)
	rs.pl.mkEtype = append(rs.pl.mkEtype, etype)
	rs.pl.mkKind = append(rs.pl.mkKind, mkUser)
	rs.etypeMark[etype] = id
	rs.undefEv = append(rs.undefEv, etype)
	return stateRef{}, id, false
}

// rankJob is one rank's resolution in progress: the provisional events
// are converted in place (the rank's stream grows in the slice that holds
// them, behind the one being read), so a job can stop at any event and be
// resumed there.
type rankJob struct {
	w      int32
	src    []tracefmt.Event
	j      int  // next event to read in src
	idx    int  // index of that event among all of the rank's records
	shared bool // the stream is written into src's array
	// open holds the rank's open states, a queue per state: MPE pairs
	// an end with the oldest open start of its state, and a queue makes
	// that O(1) however deep the nesting.
	// The queues of the first denseOpen state ids sit in a slice (an
	// index per start, end and lookup, where a map lookup was 5 % of a
	// read's instructions); the others in a map.
	open      []*openQueue
	openAbove map[tracefmt.StateID]*openQueue
	cargo     []leaveCargo
	meta      []metaRef
	err       error
	// out is the rank's stream; run stores it in the trace when it
	// returns.
	out []tracefmt.Event
}

// openQueue is the open starts of one state of a rank, oldest at head.
type openQueue struct {
	refs []openRef
	head int
}

// denseOpen is how many state ids get their open queues in a slice per
// rank: MPE's own states and a program's few user states.
const denseOpen = 64

// queue returns the open queue of state id, nil when it has none.
func (jb *rankJob) queue(id tracefmt.StateID) *openQueue {
	if uint32(id) < uint32(len(jb.open)) {
		return jb.open[id]
	}
	return jb.openAbove[id]
}

// push adds an open start of state id.
func (jb *rankJob) push(id tracefmt.StateID, o openRef) {
	q := jb.queue(id)
	if q == nil {
		q = &openQueue{}
		switch {
		case uint32(id) < denseOpen:
			if int(id) >= len(jb.open) {
				jb.open = slices.Grow(jb.open, int(id)+1-len(jb.open))[:id+1]
			}
			jb.open[id] = q
		default:
			if jb.openAbove == nil {
				jb.openAbove = map[tracefmt.StateID]*openQueue{}
			}
			jb.openAbove[id] = q
		}
	}
	q.refs = append(q.refs, o)
}

// oldest returns the oldest open start of state id.
func (jb *rankJob) oldest(id tracefmt.StateID) (openRef, bool) {
	q := jb.queue(id)
	if q == nil || q.head == len(q.refs) {
		return openRef{}, false
	}
	return q.refs[q.head], true
}

// pop removes the oldest open start of state id, which must exist.
func (jb *rankJob) pop(id tracefmt.StateID) {
	q := jb.queue(id)
	q.head++
	if q.head == len(q.refs) {
		// Drained: reuse the storage from the start.
		q.refs, q.head = q.refs[:0], 0
	}
}

// startRank makes the array of rank w's provisional events its stream's.
func (rs *resolver) startRank(w int32) *rankJob {
	rb := &rs.rd.ranks[w]
	src := rb.ev
	rb.ev = nil
	if extra := rs.excCount[w]; extra > 0 {
		// Room for the "CLOG2 record" markers, for the builder's exact
		// allocation.
		src = slices.Grow(src, extra)
	}
	return &rankJob{w: w, src: src, shared: true, out: src[:0]}
}

// run resolves the job's remaining events. With frozen set it resolves
// only events that need nothing but frozen (a snapshot of event type
// classes) and stops before the first that would define a state, marker
// or text; it touches nothing shared with other ranks but the rank's
// stream, so jobs of different ranks can run at once. Without frozen it
// resolves every event, defining as it goes.
func (rs *resolver) run(jb *rankJob, frozen []etypeClass) {
	defer func() {
		rs.t.Ranks[jb.w].Events = jb.out
		rs.cargo[jb.w] = jb.cargo
		rs.meta[jb.w] = jb.meta
	}()
	noExc := len(rs.rd.exc) == 0
	for {
		if noExc {
			rs.runFast(jb, frozen)
		}
		if jb.j >= len(jb.src) {
			return
		}
		pe := jb.src[jb.j]
		done, err := rs.event(jb, &pe, frozen)
		if err != nil {
			jb.err = err
			return
		}
		if !done {
			return
		}
		jb.j, jb.idx = jb.j+1, jb.idx+1
	}
}

// resolveRanks resolves every rank's events, in parallel when the trace is
// large: workers resolve ranks as far as frozen classes allow, and this
// goroutine finishes each rank in rank order, so that definitions get the
// same ids, in the same order, as when resolving one rank after another.
func (rs *resolver) resolveRanks() error {
	rd := rs.rd
	rs.excCount = map[int32]int{}
	rs.cargo = make([][]leaveCargo, rd.P)
	rs.meta = make([][]metaRef, rd.P)
	for k := range rd.exc {
		rs.excCount[int32(k>>32)]++
	}
	n := min(rd.P, len(rd.ranks))
	total := 0
	for w := range n {
		total += len(rd.ranks[w].ev)
	}
	workers := min(rd.workers, n)
	if total < rd.parMin || workers < 2 {
		for w := range n {
			jb := rs.startRank(int32(w))
			rs.run(jb, nil)
			if jb.err != nil {
				return jb.err
			}
		}
		return nil
	}
	frozen := rs.freeze()
	var next atomic.Int64
	results := make(chan *rankJob, workers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				w := int32(next.Add(1) - 1)
				if int(w) >= n {
					return
				}
				jb := rs.startRank(w)
				rs.run(jb, frozen)
				select {
				case results <- jb:
				case <-stop:
					return
				}
			}
		})
	}
	defer func() {
		close(stop)
		wg.Wait()
	}()
	// Workers take ranks in order, so few jobs wait here.
	ready := map[int32]*rankJob{}
	for w := range int32(n) {
		jb := ready[w]
		for jb == nil {
			r := <-results
			if r.w == w {
				jb = r
			} else {
				ready[r.w] = r
			}
		}
		delete(ready, w)
		if jb.err == nil {
			rs.run(jb, nil)
		}
		if jb.err != nil {
			return jb.err
		}
	}
	return nil
}

// parallelResolveEvents is the number of events from which resolveRanks
// starts workers.
const parallelResolveEvents = 1 << 16

// freeze returns the classes of the event types 0..denseEtypes-1 that are
// known without defining anything (from STATEDEF and EVENTDEF records);
// the others are left not ok.
func (rs *resolver) freeze() []etypeClass {
	f := make([]etypeClass, denseEtypes)
	for et := range int32(denseEtypes) {
		_, state := rs.etypeState[et]
		_, mark := rs.etypeMark[et]
		_, start, inRange := rs.rd.p.stateRange(et)
		if inRange && state {
			// The first event of the other etype of the range defines
			// a state for both (classifySlow), and from then on this
			// etype is that state's, not the one it has now.
			other := start
			if et == start {
				other = start + 1
			}
			_, state = rs.etypeState[other]
		}
		if state || mark && !inRange {
			f[et] = rs.classifyFull(et)
		}
	}
	return f
}

// event resolves provisional event pe, the next of job jb, and adds it,
// preceded by a "CLOG2 record" marker when the writer could not derive all
// its fields. With frozen set (see run), it returns false, having changed
// nothing, when the event needs a definition.
func (rs *resolver) event(jb *rankJob, pe *tracefmt.Event, frozen []etypeClass) (bool, error) {
	rd, b, w := rs.rd, rs.b, jb.w
	hdrComm, hdrRank := int32(pe.Comm), pe.Match
	ci := rs.commIndex(hdrComm)
	// fast: nothing the writer derives can differ from the file.
	fast := rs.exact[ci]
	var e tracefmt.Event
	checkEtype, isLeave := false, false
	rawEtype, rawMcomm, rawPeer := int32(0), int32(0), int32(0)
	checkMsg, checkPeer := false, false
	leaveText := -1
	var c etypeClass
	openAt := -1
	// The fate of e when it is a marker: bookkeeping records go to
	// Trace.Meta, the others get their marker's final id.
	meta, final := false, tracefmt.MarkerID(0)
	switch pe.Kind {
	case provEvent:
		rawEtype, checkEtype = pe.Peer, true
		if frozen == nil {
			c = rs.classify(pe.Peer)
		} else if uint32(pe.Peer) < denseEtypes {
			c = frozen[pe.Peer]
		}
		if !c.ok {
			return false, nil
		}
		fast = fast && c.exact
		switch {
		case !c.isState:
			e = tracefmt.Mark(pe.Time, c.marker)
			e.SetTextRef(pe.TextRef())
			meta, final = c.meta, c.final
		case c.ref.start:
			e = tracefmt.Enter(pe.Time, c.ref.id)
			e.SetTextRef(pe.TextRef())
		default:
			e = tracefmt.Leave(pe.Time, c.ref.id)
			isLeave = true
			if op, ok := jb.oldest(c.ref.id); ok {
				leaveText, openAt = int(op.text), int(op.index)
			}
			fast = fast && leaveText == pe.TextRef()
		}
		e.Comm = uint16(ci)
	case provMsg:
		mc, partner := int32(pe.Request()>>32), int32(pe.Request())
		etype := int32(etypeSend)
		if pe.Flags == 1 {
			etype = etypeRecv
		}
		if pe.Peer < 0 {
			if frozen != nil {
				return false, nil
			}
			var f fields
			f.int("etype", int64(etype)).int("icomm", int64(mc)).int("peer", int64(partner)).int("tag", int64(pe.Tag)).int("size", pe.Size)
			e = tracefmt.Mark(pe.Time, rs.marker(markMsgEvt))
			e.SetTextRef(b.Text(f.String()))
			e.Comm = uint16(ci)
			meta, final = rs.fate(e.Marker())
			break
		}
		fast = fast && mc == hdrComm
		if etype == etypeSend {
			e = tracefmt.Send(pe.Time, int(pe.Peer), pe.Tag, uint16(ci), pe.Size)
		} else {
			e = tracefmt.Recv(pe.Time, int(pe.Peer), pe.Tag, uint16(rs.commIndex(mc)), pe.Size)
		}
		rawMcomm, rawPeer, checkMsg, checkPeer = mc, partner, true, true
	case provColl:
		root := int32(pe.Request())
		if pe.Peer == peerNoRank {
			if frozen != nil {
				return false, nil
			}
			var f fields
			f.int("etype", int64(pe.Tag)).int("root", int64(root)).int("size", pe.Size)
			e = tracefmt.Mark(pe.Time, rs.marker(markCollEvt))
			e.SetTextRef(b.Text(f.String()))
			e.Comm = uint16(ci)
			meta, final = rs.fate(e.Marker())
			break
		}
		op := collOp(pe.Tag)
		fast = fast && collEtype(op) == pe.Tag
		e = tracefmt.Collective(pe.Time, op, int(pe.Peer), uint16(ci), pe.Size, 0)
		rawEtype, checkEtype, rawPeer, checkPeer = pe.Tag, true, root, true
	default:
		// A record the reader kept as a marker of its own (see
		// reader.bookkeeping): every such marker is bookkeeping.
		e = *pe
		e.Comm = uint16(ci)
		meta = true
	}
	var x rawExtra
	hasX := false
	if len(rd.exc) > 0 {
		x, hasX = rd.exc[uint64(w)<<32|uint64(jb.idx)]
	}
	if !fast || hasX {
		if frozen != nil {
			return false, nil
		}
		d := rs.pl.derive(&e, w)
		if hasX || d.icomm != hdrComm || d.rank != hdrRank || checkEtype && d.etype != rawEtype ||
			checkMsg && d.mcomm != rawMcomm || checkPeer && d.peer != rawPeer || isLeave && leaveText != pe.TextRef() {
			var o override
			o.thread, o.hasThread = x.thread, x.thread != 0
			o.pad, o.hasPad = x.pad, x.pad != [4]byte{}
			o.icomm, o.hasIcomm = hdrComm, d.icomm != hdrComm
			o.rank, o.hasRank = hdrRank, d.rank != hdrRank
			o.etype, o.hasEtype = rawEtype, checkEtype && d.etype != rawEtype
			o.mcomm, o.hasMcomm = rawMcomm, checkMsg && d.mcomm != rawMcomm
			o.peer, o.hasPeer = rawPeer, checkPeer && d.peer != rawPeer
			if isLeave && leaveText != pe.TextRef() {
				if pe.TextRef() < 0 {
					o.noCgo = true
				} else {
					o.hasCargo = true
					copy(o.cargo[:], rd.texts[pe.TextRef()])
				}
			}
			m := tracefmt.Mark(pe.Time, rs.marker(markRecord))
			m.SetTextRef(b.Text(o.text()))
			mMeta, mFinal := rs.fate(m.Marker())
			// The marker goes to slot i, the event to i+1: if slot j+1
			// is not read yet, the events not read yet move to a copy.
			if i := len(jb.out); jb.shared && !mMeta && i+1 > jb.j {
				jb.src, jb.j, jb.shared = slices.Clone(jb.src[jb.j+1:]), -1, false
			}
			if err := jb.put(&m, mMeta, mFinal); err != nil {
				return false, err
			}
		}
	}
	// The event is taken. The job's open states are those the builder
	// would keep for the rank (MPE pairs an end with the oldest open start
	// of its state, PairOldest), so the pairing is done here rather than
	// through Builder.Add, which cost a third of the resolution.
	ev := jb.out
	e.Match = -1
	if pe.Kind == provEvent && c.isState {
		if c.ref.start {
			jb.push(c.ref.id, openRef{int32(pe.TextRef()), int32(len(ev))})
		} else if openAt >= 0 {
			j := int32(openAt)
			e.Match, ev[j].Match = j, int32(len(ev))
			jb.pop(c.ref.id)
		}
		if isLeave && pe.TextRef() >= 0 {
			jb.cargo = append(jb.cargo, leaveCargo{int32(len(ev)), int32(pe.TextRef())})
		}
	}
	if err := jb.put(&e, meta, final); err != nil {
		return false, err
	}
	return true, nil
}

// runFast resolves the job's events from the next one on for as long as
// their records follow from the events in every field: a state's enter
// or leave (with the cargo the writer would give it), a message to a
// rank or a collective with a root or none, on a communicator whose
// ranks map back exactly (most events). It
// stops before the first event that needs the general checks of event,
// having changed nothing for it. The loop keeps the stream in locals: the
// events are written in place over the ones read (out never passes src).
func (rs *resolver) runFast(jb *rankJob, frozen []etypeClass) {
	src, out, exact := jb.src, jb.out, rs.exact
	j := jb.j
	classes := frozen
	if frozen == nil {
		classes = rs.dense
	}
	// The stream may not pass 2^31 events: the loop stops where it would
	// (rather than testing every event), and event says why.
	end := len(src)
	if room := j + math.MaxInt32 - len(out); room < end {
		end = room
	}
	identity := rs.identity
loop:
	for ; j < end; j++ {
		pe := &src[j]
		// With ids equal to indexes, communicator 0 is the world's,
		// exact: most events need no look-up.
		ci := int(pe.Comm)
		if ci != 0 || !identity {
			if !identity {
				ci = rs.idIndex[int32(pe.Comm)]
			}
			if !exact[ci] {
				break
			}
		}
		// The event is written in its place, which may be pe's own
		// (the fields are read before): a local Event would be built on
		// the stack and copied, and append would test the capacity again.
		n := len(out)
		if n == cap(out) {
			break loop // only once out no longer shares src's array (see event)
		}
		out = out[:n+1]
		e := &out[n]
		switch pe.Kind {
		case provEvent:
			// The classes of dense event types are read in place; without
			// frozen, classify fills in those not known yet.
			var c *etypeClass
			if t := uint32(pe.Peer); t < uint32(len(classes)) && classes[t].ok {
				c = &classes[t]
			} else if frozen == nil {
				cl := rs.classify(pe.Peer)
				c, classes = &cl, rs.dense
			} else {
				out = out[:n]
				break loop
			}
			if !c.isState || !c.exact {
				out = out[:n]
				break loop
			}
			id, text, t := c.ref.id, pe.TextRef(), pe.Time
			q := jb.queue(id)
			if c.ref.start {
				*e = tracefmt.Event{Time: t, Kind: tracefmt.KindEnter, Peer: int32(id), Match: -1, Comm: uint16(ci)}
				e.SetTextRef(text)
				if q != nil && len(q.refs) < cap(q.refs) {
					q.refs = append(q.refs, openRef{text: int32(text), index: int32(n)})
				} else {
					jb.push(id, openRef{text: int32(text), index: int32(n)})
				}
				break
			}
			open := q != nil && q.head < len(q.refs)
			leaveText := int32(-1)
			if open {
				leaveText = q.refs[q.head].text
			}
			if int(leaveText) != text {
				out = out[:n]
				break loop // the writer would give the end another cargo
			}
			*e = tracefmt.Event{Time: t, Kind: tracefmt.KindLeave, Peer: int32(id), Match: -1, Comm: uint16(ci)}
			if open {
				oi := q.refs[q.head].index
				e.Match, out[oi].Match = oi, int32(n)
				if q.head++; q.head == len(q.refs) {
					// Drained: reuse the storage from the start.
					q.refs, q.head = q.refs[:0], 0
				}
			}
			if text >= 0 {
				jb.cargo = append(jb.cargo, leaveCargo{int32(n), int32(text)})
			}
		case provMsg:
			if pe.Peer < 0 || int32(pe.Request()>>32) != int32(pe.Comm) {
				out = out[:n]
				break loop
			}
			k := tracefmt.KindSend
			if pe.Flags == 1 {
				k = tracefmt.KindRecv
			}
			*e = tracefmt.Event{Time: pe.Time, Size: pe.Size, Kind: k, Peer: pe.Peer, Tag: pe.Tag, Match: -1, Comm: uint16(ci)}
		case provColl:
			// A root of the world, or none; the writer derives the
			// event type back from the operation.
			op := collOp(pe.Tag)
			if pe.Peer == peerNoRank || collEtype(op) != pe.Tag {
				out = out[:n]
				break loop
			}
			*e = tracefmt.Collective(pe.Time, op, int(pe.Peer), uint16(ci), pe.Size, 0)
		default:
			out = out[:n]
			break loop
		}
	}
	jb.idx += j - jb.j
	jb.j, jb.out = j, out
}

// put appends e, paired already, to the rank's stream; a marker whose
// events go to Trace.Meta (meta) is kept aside instead, with its place,
// and any other marker gets its final id. MoveToMeta did this after the
// trace was built, at two more passes over every event.
func (jb *rankJob) put(e *tracefmt.Event, meta bool, final tracefmt.MarkerID) error {
	if e.Kind == tracefmt.KindMarker {
		if meta {
			jb.meta = append(jb.meta, metaRef{int32(len(jb.out)), *e})
			return nil
		}
		e.Peer = int32(final)
	}
	if len(jb.out) >= math.MaxInt32 {
		return fmt.Errorf("clog2: rank %d has more than 2^31 events", jb.w)
	}
	jb.out = append(jb.out, *e)
	return nil
}

// isMetaMarker says which markers' events Read keeps in Trace.Meta:
// CLOG2's bookkeeping records and MPE's own solo events.
func (rs *resolver) isMetaMarker(m *tracefmt.MarkerDef) bool {
	return IsBookkeeping(m.Name) || rs.rd.p.isKnownSolo(m.Source.ID)
}

// fate says whether the events of marker id go to Trace.Meta and, if not,
// the marker's id once the markers of those leave the table. Markers are
// only ever added, so both are known when the marker is defined: its
// final id is its id less the Meta markers defined before it.
// Only the goroutine that defines markers may call it.
func (rs *resolver) fate(id tracefmt.MarkerID) (bool, tracefmt.MarkerID) {
	rs.syncFates()
	return rs.mkMeta[id], rs.mkFinal[id]
}

// syncFates extends the fates to the markers defined since.
func (rs *resolver) syncFates() {
	for n := len(rs.mkMeta); n < len(rs.t.Markers); n++ {
		m := rs.isMetaMarker(&rs.t.Markers[n])
		rs.mkMeta = append(rs.mkMeta, m)
		rs.mkFinal = append(rs.mkFinal, tracefmt.MarkerID(n-rs.nMeta))
		if m {
			rs.nMeta++
		}
	}
}

// takeMeta moves the records kept aside into t.Meta, rank after rank in
// stream order, and drops their markers from the table (the events of
// the others have their final ids already): what Trace.MoveToMeta would
// make of the trace with those records in the streams.
func (rs *resolver) takeMeta(t *tracefmt.Trace) {
	for r, refs := range rs.meta {
		for i := range refs {
			m := &refs[i]
			def := t.Markers[m.e.Marker()]
			t.Meta = append(t.Meta, tracefmt.MetaRecord{Rank: int32(r), Before: m.before, Time: m.e.Time, Comm: m.e.Comm,
				Name: def.Name, Def: def, Text: t.Text(&m.e)})
		}
	}
	rs.meta = nil
	rs.syncFates()
	if rs.nMeta == 0 {
		return
	}
	var kept []tracefmt.MarkerDef // nil when none is left, as MoveToMeta leaves it
	for i := range t.Markers {
		if !rs.mkMeta[i] {
			kept = append(kept, t.Markers[i])
		}
	}
	t.Markers = kept
}
