package otf2

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tracesim/tracesim/tracefmt"
)

// Opener opens a file of an archive by its path relative to the directory
// of the anchor file ("traces.def", "traces/0.evt").
type Opener func(name string) (io.ReadCloser, error)

// DirOpener opens files relative to dir.
func DirOpener(dir string) Opener {
	return func(name string) (io.ReadCloser, error) {
		return os.Open(filepath.Join(dir, filepath.FromSlash(name)))
	}
}

// Stats counts what a read went through, for comparing with otf2-print.
type Stats struct {
	// Locations is the number of locations whose events were read.
	Locations int
	// EventRecords counts the event records read (timestamps and
	// attribute lists excluded), of every type.
	EventRecords int
	// GlobalDefs counts the global definition records.
	GlobalDefs int
}

// ReadFile reads the archive whose anchor file is path.
func ReadFile(path string) (*tracefmt.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, _, err := Read(path, f, DirOpener(filepath.Dir(path)))
	return t, err
}

// Read reads an archive: r is its anchor file, named path in errors and
// naming the archive (path "dir/traces.otf2" has its definitions in
// "traces.def" and its locations' files in "traces/"); open opens those
// relative to the anchor's directory. The ranks are read on up to
// GOMAXPROCS goroutines: open is called from several at once, and each
// file it returns is read by one.
func Read(path string, r io.Reader, open Opener) (*tracefmt.Trace, *Stats, error) {
	return read(path, r, open, runtime.GOMAXPROCS(0))
}

// read is Read on up to workers goroutines.
func read(path string, r io.Reader, open Opener, workers int) (*tracefmt.Trace, *Stats, error) {
	a, err := readAnchor(path, r)
	if err != nil {
		return nil, nil, err
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	rd := &reader{anchor: a, open: open, base: base, dir: filepath.Dir(path), stats: &Stats{}, workers: workers}
	if err := rd.readDefs(); err != nil {
		return nil, nil, err
	}
	t, err := rd.readEvents()
	if err != nil {
		return nil, nil, err
	}
	return t, rd.stats, nil
}

// reader holds what one Read call knows.
type reader struct {
	// times are the ranks' MessageTimes, rank after rank as resolved.
	times  []tracefmt.MessageTime
	anchor *Anchor
	open   Opener
	base   string
	dir    string
	defs   *Defs
	stats  *Stats
	// ranks lists, per world rank, its locations: the master thread first.
	ranks [][]Location
	// rankOfLoc maps a location id to its world rank.
	rankOfLoc map[uint64]int
	// worldAt is the offset in the global definitions of the record that
	// declares the world: the MPI ranks' group, else the first process.
	worldAt int64
	comms   map[uint32]*commInfo
	states  map[stateKey]tracefmt.StateID
	// commByID holds the communicators of small ids, for the same reason.
	commByID []*commInfo
	b        *tracefmt.Builder
	scale    float64
	// workers is how many goroutines read ranks.
	workers int
}

// commInfo is a communicator resolved to world ranks.
type commInfo struct {
	index uint16 // in Trace.Comms
	ranks []int32
	self  bool
	name  string
	id    uint32
	// selfIndex holds, for MPI_COMM_SELF-like communicators, the trace
	// communicator made for each rank.
	selfIndex map[int]uint16
}

type stateKey struct {
	region uint32
	thread int
}

// fileName returns the path of an archive file shown in errors.
func (rd *reader) fileName(rel string) string { return filepath.Join(rd.dir, filepath.FromSlash(rel)) }

// defErr is an error about the global definition record at offset at.
func (rd *reader) defErr(at int64, format string, args ...any) error {
	return &FormatError{File: rd.fileName(rd.base + ".def"), Offset: at, Msg: fmt.Sprintf(format, args...)}
}

// readDefs reads the global definitions and derives ranks and
// communicators from them.
func (rd *reader) readDefs() error {
	rel := rd.base + ".def"
	f, err := rd.open(rel)
	if err != nil {
		return fmt.Errorf("%s: global definitions of the archive: %w", rd.fileName(rel), err)
	}
	defer f.Close()
	d, err := readGlobalDefs(rd.fileName(rel), f, int(rd.anchor.DefChunk))
	if err != nil {
		return err
	}
	rd.defs = d
	rd.stats.GlobalDefs = d.Records
	if err := rd.mapRanks(); err != nil {
		return err
	}
	return rd.mapComms()
}

// mapRanks makes world ranks of the location groups. The MPI
// COMM_LOCATIONS group lists the location of each MPI_COMM_WORLD rank in
// rank order; without one (a trace of no MPI), every process location
// group is a rank, in the order of their ids.
func (rd *reader) mapRanks() error {
	d := rd.defs
	rankOfGroup := map[uint32]int{}
	rd.rankOfLoc = map[uint64]int{}
	locGroup := map[uint64]uint32{}
	for _, l := range d.Locations {
		locGroup[l.ID] = l.Group
	}
	var world *Group
	for _, id := range sortedKeys(d.Groups) {
		g := d.Groups[id]
		if g.Type == groupCommLocations && g.Paradigm == paradigmMPI {
			world = &g
			break
		}
	}
	masters := map[int]uint64{}
	rd.worldAt = d.End
	if world != nil {
		rd.worldAt = world.At
		for i, loc := range world.Members {
			lg, ok := locGroup[loc]
			if !ok {
				return rd.defErr(world.At, "MPI rank %d is location %d, which no location definition names", i, loc)
			}
			if _, dup := rankOfGroup[lg]; dup {
				return rd.defErr(world.At, "MPI ranks share location group %d", lg)
			}
			rankOfGroup[lg] = i
			masters[i] = loc
		}
	} else {
		groups := slices.Clone(d.LocationGroups)
		slices.SortFunc(groups, func(x, y LocationGroup) int { return int(x.ID) - int(y.ID) })
		for _, g := range groups {
			if g.Type == locationGroupProcess || g.Type == 0 {
				if _, dup := rankOfGroup[g.ID]; dup {
					// A second definition would number a rank past the
					// ranks there are.
					return rd.defErr(g.At, "location group %d is defined twice", g.ID)
				}
				if len(rankOfGroup) == 0 {
					rd.worldAt = g.At
				}
				rankOfGroup[g.ID] = len(rankOfGroup)
			}
		}
	}
	if len(rankOfGroup) == 0 {
		// Said at the end of the definitions, where the reader gave up
		// looking.
		return rd.defErr(rd.defs.End, "no process location group and no MPI rank is defined: the archive has no ranks")
	}
	rd.ranks = make([][]Location, len(rankOfGroup))
	locs := slices.Clone(d.Locations)
	slices.SortFunc(locs, func(x, y Location) int {
		switch {
		case x.ID < y.ID:
			return -1
		case x.ID > y.ID:
			return 1
		}
		return 0
	})
	for _, l := range locs {
		r, ok := rankOfGroup[l.Group]
		if !ok {
			continue
		}
		if m, ok := masters[r]; ok && m == l.ID {
			rd.ranks[r] = append([]Location{l}, rd.ranks[r]...)
		} else {
			rd.ranks[r] = append(rd.ranks[r], l)
		}
		rd.rankOfLoc[l.ID] = r
	}
	return nil
}

// mapComms resolves every communicator to the world ranks of its local
// ranks. The first communicator over all ranks in order that has no
// parent is MPI_COMM_WORLD, Trace.Comms[0].
func (rd *reader) mapComms() error {
	d := rd.defs
	p := len(rd.ranks)
	rd.comms = map[uint32]*commInfo{}
	worldSeen := false
	// A COMM_GROUP's members index the COMM_LOCATIONS group of its
	// paradigm (Score-P defines one for MPI and one for its own
	// process-by-threads communicator).
	locsOf := map[uint8][]uint64{}
	for _, id := range sortedKeys(d.Groups) {
		if g := d.Groups[id]; g.Type == groupCommLocations {
			if _, ok := locsOf[g.Paradigm]; !ok {
				locsOf[g.Paradigm] = g.Members
			}
		}
	}
	for _, c := range d.Comms {
		g, ok := d.Groups[c.Group]
		if !ok {
			return rd.defErr(c.At, "communicator %d names group %d, which is not defined", c.ID, c.Group)
		}
		ci := &commInfo{name: d.name(c.Name), id: c.ID}
		switch {
		case g.Type == groupCommSelf:
			ci.self = true
		case g.Type == groupCommLocations || g.Flags&groupGlobalMembers != 0:
			for _, loc := range g.Members {
				r, ok := rd.rankOfLoc[loc]
				if !ok {
					return rd.defErr(g.At, "communicator %q: location %d is no rank's", ci.name, loc)
				}
				ci.ranks = append(ci.ranks, int32(r))
			}
		default:
			locs, viaLocs := locsOf[g.Paradigm]
			for _, m := range g.Members {
				if viaLocs {
					if m >= uint64(len(locs)) {
						return rd.defErr(g.At, "communicator %q: member %d outside its %d locations", ci.name, m, len(locs))
					}
					r, ok := rd.rankOfLoc[locs[m]]
					if !ok {
						return rd.defErr(g.At, "communicator %q: location %d is no rank's", ci.name, locs[m])
					}
					m = uint64(r)
				}
				if m >= uint64(p) {
					return rd.defErr(g.At, "communicator %q: member rank %d outside the world of %d ranks", ci.name, m, p)
				}
				ci.ranks = append(ci.ranks, int32(m))
			}
		}
		if !worldSeen && !ci.self && g.Paradigm == paradigmMPI && c.Parent == undefined32 && isIdentity(ci.ranks, p) {
			worldSeen = true
			ci.index = 0
			ci.ranks = nil
		} else {
			ci.index = 0xFFFF // assigned when the builder exists
		}
		rd.comms[c.ID] = ci
		if c.ID < maxDenseID {
			if int(c.ID) >= len(rd.commByID) {
				rd.commByID = slices.Grow(rd.commByID, int(c.ID)+1-len(rd.commByID))[:c.ID+1]
			}
			rd.commByID[c.ID] = ci
		}
	}
	return nil
}

func isIdentity(r []int32, p int) bool {
	if len(r) != p {
		return false
	}
	for i, x := range r {
		if int(x) != i {
			return false
		}
	}
	return true
}

func sortedKeys[V any](m map[uint32]V) []uint32 {
	k := make([]uint32, 0, len(m))
	for id := range m {
		k = append(k, id)
	}
	slices.Sort(k)
	return k
}

// unit picks the trace unit from the timer resolution: the coarsest of
// s, ms, µs and ns that is not coarser than a tick.
func unit(res uint64) tracefmt.Unit {
	switch {
	case res <= 1:
		return tracefmt.Second
	case res <= 1e3:
		return tracefmt.Millisecond
	case res <= 1e6:
		return tracefmt.Microsecond
	}
	return tracefmt.Nanosecond
}

// readEvents reads every rank's locations and builds the trace.
func (rd *reader) readEvents() (*tracefmt.Trace, error) {
	u := unit(rd.defs.Resolution)
	rd.scale = 1 / (float64(rd.defs.Resolution) * u.Seconds())
	rd.b = tracefmt.NewLazyBuilder(len(rd.ranks), true, u)
	rd.states = map[stateKey]tracefmt.StateID{}
	t := rd.b.Trace()
	t.Format = "otf2"
	t.SetAttr("otf2.creator", rd.anchor.Creator)
	t.SetAttr("otf2.version", fmt.Sprintf("%d.%d.%d", rd.anchor.Version[0], rd.anchor.Version[1], rd.anchor.Version[2]))
	t.SetAttr("otf2.timer_resolution", fmt.Sprint(rd.defs.Resolution))
	t.SetAttr("otf2.global_offset", fmt.Sprint(rd.defs.Offset))
	for _, c := range rd.defs.Comms {
		ci := rd.comms[c.ID]
		if ci.index == 0 {
			t.Comms[0].Name, t.Comms[0].ID = ci.name, int32(ci.id)
			continue
		}
		if ci.self {
			continue
		}
		idx, err := rd.b.AddComm(tracefmt.Comm{Name: ci.name, Ranks: ci.ranks, ID: int32(ci.id)})
		if err != nil {
			return nil, err
		}
		ci.index = idx
	}
	if err := rd.readRanks(); err != nil {
		return nil, err
	}
	if err := tracefmt.CheckBuilt(t, len(rd.ranks)); err != nil {
		return nil, rd.defErr(rd.worldAt, "the world of %d ranks defined here: %v", len(rd.ranks), err)
	}
	t, err := rd.b.Finish()
	if err != nil {
		return nil, rd.finishError(err)
	}
	if len(rd.times) > 0 {
		t.SetMessageTimes(rd.times)
		rd.times = nil
	}
	return t, nil
}

// finishError says where in the archive the event an error of the
// builder's Finish is about came from. Offsets are not kept per event:
// the rank's locations are read again up to the record that made the
// event, and the error names that record's file, location and offset.
func (rd *reader) finishError(err error) error {
	var ee *tracefmt.EventError
	if !errors.As(err, &ee) || ee.Rank < 0 || ee.Rank >= len(rd.ranks) || len(rd.ranks[ee.Rank]) == 0 {
		return fmt.Errorf("%s: %w", rd.fileName(rd.base+".otf2"), err)
	}
	var stop atomic.Int64
	stop.Store(int64(len(rd.ranks)))
	if rs := rd.readRankTo(ee.Rank, &stop, ee.Index); rs.found != nil {
		f := rs.found
		return &FormatError{File: f.file, Offset: f.at, Msg: fmt.Sprintf("location %d (rank %d): %s: the rank's event %d (%s): %s", f.loc, ee.Rank, recName(f.typ), ee.Index, ee.Kind, ee.Msg)}
	}
	// No record made the event (the re-read stopped before it): name
	// the master location's file, where the rank's events start.
	l := rd.ranks[ee.Rank][0]
	return fmt.Errorf("%s: location %d (rank %d): the rank's event %d (%s): %s", rd.fileName(fmt.Sprintf("%s/%d.evt", rd.base, l.ID)), l.ID, ee.Rank, ee.Index, ee.Kind, ee.Msg)
}

// foundRecord is the record that made the event a re-read looks for.
type foundRecord struct {
	file string
	loc  uint64
	typ  byte
	at   int64
}

// location is one location's event stream while its rank is read.
type location struct {
	Location
	thread int
	file   string
	f      io.Closer
	ev     *evtScanner
	local  *localDefs
	iv     int
	rec    record
	done   bool
	// begin is the index of the placeholder collective event of an open
	// MpiCollectiveBegin, or -1.
	begin int
}

// readRanks reads the ranks on GOMAXPROCS goroutines, each converting a
// rank at a time into a stream of its own (rankState), and hands the
// streams to the builder in rank order (resolve): the trace and the error
// reported are those of reading the ranks one after the other, however
// the goroutines were scheduled.
func (rd *reader) readRanks() error {
	n := len(rd.ranks)
	workers := max(min(rd.workers, n), 1)
	var next atomic.Int64
	// stop is the highest rank still worth reading: a rank after one that
	// failed is not (its error or trace would never be used).
	var stop atomic.Int64
	stop.Store(int64(n))
	done := make(chan *rankState, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				r := next.Add(1) - 1
				if r >= int64(n) || r > stop.Load() {
					return
				}
				rs := rd.readRank(int(r), &stop)
				if rs.err != nil {
					lowerStop(&stop, r)
				}
				done <- rs
			}
		})
	}
	go func() {
		wg.Wait()
		close(done)
	}()
	waiting := map[int]*rankState{}
	want := 0
	var err error
	for rs := range done {
		if err != nil {
			continue // drain until every worker has closed its files
		}
		waiting[rs.r] = rs
		for ; waiting[want] != nil; want++ {
			rs := waiting[want]
			delete(waiting, want)
			if err = rd.resolve(rs); err != nil {
				lowerStop(&stop, -1)
				break
			}
		}
	}
	if err == nil && want != n {
		err = fmt.Errorf("%s: read %d of %d ranks", rd.fileName(rd.base+".otf2"), want, n)
	}
	return err
}

// lowerStop lowers stop to r.
func lowerStop(stop *atomic.Int64, r int64) {
	for {
		cur := stop.Load()
		if r >= cur || stop.CompareAndSwap(cur, r) {
			return
		}
	}
}

// errStopped ends the read of a rank after one that failed.
var errStopped = errors.New("stopped: an earlier rank failed")

// stopCheck is how many records a rank's read goes between looks at
// whether it should stop.
const stopCheck = 1 << 12

// readRank converts rank r's records, merging its locations' files by
// time, into a stream of its own; the returned state's err says where it
// stopped.
func (rd *reader) readRank(r int, stop *atomic.Int64) *rankState {
	return rd.readRankTo(r, stop, -1)
}

// readRankTo is readRank that, for a find of 0 or more, stops at the
// record that makes the rank's event find and notes it in found.
func (rd *reader) readRankTo(r int, stop *atomic.Int64, find int) *rankState {
	rs := &rankState{r: r, nextReq: 1, rb: tracefmt.NewRankBuilder(r, tracefmt.PairNewest)}
	var locs []*location
	defer func() {
		for _, l := range locs {
			if l.f != nil {
				l.f.Close()
			}
		}
	}()
	for i, l := range rd.ranks[r] {
		loc, err := rd.openLocation(rs, l, i)
		if err != nil {
			rs.err = err
			return rs
		}
		if loc == nil {
			continue
		}
		locs = append(locs, loc)
		if err := rd.advance(rs, loc); err != nil {
			rs.err = err
			return rs
		}
	}
	rs.rb.Grow(expectedEvents(locs))
	for n := 1; ; n++ {
		next := rd.earliest(locs)
		if next == nil {
			break
		}
		if err := rd.event(rs, next, &next.rec); err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) {
				// The trace model refused the event: say which record.
				err = next.errAt(&next.rec, "%v", err)
			}
			rs.err = err
			return rs
		}
		if find >= 0 && len(rs.rb.Events()) > find {
			rs.found = &foundRecord{file: next.file, loc: next.ID, typ: next.rec.typ, at: next.rec.at}
			return rs
		}
		if err := rd.advance(rs, next); err != nil {
			rs.err = err
			return rs
		}
		if n%stopCheck == 0 && int64(r) > stop.Load() {
			rs.err = errStopped
			return rs
		}
	}
	rd.finishRank(rs, locs)
	return rs
}

// resolve gives rank rs's states, markers and per-rank communicators
// their ids in the trace, in the order a read of the ranks one after the
// other would define them, and hands its stream to the builder; or
// returns the error the rank's read stopped at.
func (rd *reader) resolve(rs *rankState) error {
	ev := rs.rb.Events()
	comms := make([]uint16, len(rs.selfFirst))
	for i, u := range rs.selfFirst {
		idx, err := rd.commIndex(rs.r, u.ci)
		if err != nil {
			return &FormatError{File: u.file, Offset: u.at, Msg: u.what + err.Error()}
		}
		comms[i] = idx
	}
	if rs.err != nil {
		return rs.err
	}
	for _, u := range rs.selfUses {
		ev[u.event].Comm = comms[u.comm]
	}
	rd.stats.Locations += rs.locations
	rd.stats.EventRecords += rs.records
	rd.times = append(rd.times, rs.times...)
	states := make([]tracefmt.StateID, rs.names)
	same := true
	for _, k := range rs.stateKeys {
		l, g := rs.localState[k], rd.globalState(k)
		states[l] = g
		same = same && l == g
	}
	markers := make([]tracefmt.MarkerID, len(rs.markers))
	for i, name := range rs.markers {
		markers[i] = rd.b.Marker(name)
		same = same && markers[i] == tracefmt.MarkerID(i)
	}
	if !same {
		for i := range ev {
			switch e := &ev[i]; e.Kind {
			case tracefmt.KindEnter, tracefmt.KindLeave:
				e.Peer = int32(states[e.Peer])
			case tracefmt.KindMarker:
				e.Peer = int32(markers[e.Peer])
			}
		}
	}
	if len(ev) == 0 {
		return nil
	}
	return rd.b.SetEvents(rs.r, ev)
}

// earliest returns the location whose next record comes first (the
// master thread on ties), or nil when all are done.
func (rd *reader) earliest(locs []*location) *location {
	if len(locs) == 1 {
		if locs[0].done {
			return nil
		}
		return locs[0]
	}
	var next *location
	for _, l := range locs {
		if !l.done && (next == nil || l.rec.time < next.rec.time) {
			next = l
		}
	}
	return next
}

// expectedEvents returns the number of events to reserve room for on a
// rank: what the location definitions announce, believed only as far as
// the event files' sizes allow (a record takes two bytes at least), and
// up to a million per location when a size is unknown.
func expectedEvents(locs []*location) int {
	n := 0
	for _, l := range locs {
		c := l.Events
		limit := uint64(1 << 20)
		if st, ok := l.f.(interface{ Stat() (fs.FileInfo, error) }); ok {
			if fi, err := st.Stat(); err == nil {
				limit = uint64(fi.Size() / 2)
			}
		}
		n += int(min(c, limit))
	}
	return n
}

// openLocation opens a location's definition and event files; nil when
// it has no event file (a location that recorded nothing).
func (rd *reader) openLocation(rs *rankState, l Location, thread int) (*location, error) {
	loc := &location{Location: l, thread: thread, begin: -1, local: &localDefs{}}
	relDef := fmt.Sprintf("%s/%d.def", rd.base, l.ID)
	if f, err := rd.open(relDef); err == nil {
		loc.local, err = readLocalDefs(rd.fileName(relDef), f, int(rd.anchor.DefChunk))
		f.Close()
		if err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", rd.fileName(relDef), err)
	}
	relEvt := fmt.Sprintf("%s/%d.evt", rd.base, l.ID)
	f, err := rd.open(relEvt)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && l.Events == 0 {
			return nil, nil
		}
		// No offset in a file that cannot be opened: the definition that
		// asks for it has one.
		return nil, fmt.Errorf("%s: events of location %d (%s offset %d: %d events): %w", rd.fileName(relEvt), l.ID, rd.fileName(rd.base+".def"), l.At, l.Events, err)
	}
	loc.f = f
	loc.file = rd.fileName(relEvt)
	loc.ev = newEvtScanner(loc.file, f, int(rd.anchor.EventChunk))
	rs.locations++
	return loc, nil
}

// advance reads a location's next event record, applying its clock
// offsets and id mappings.
func (rd *reader) advance(rs *rankState, l *location) error {
	err := l.ev.next(&l.rec)
	if err == errEnd {
		l.done = true
		return nil
	}
	if err != nil {
		return err
	}
	rs.records++
	l.rec.time = l.local.correct(l.rec.time, &l.iv)
	switch l.rec.typ {
	case evEnter, evLeave:
		l.rec.a = uint32(l.local.mapID(mapRegion, uint64(l.rec.a)))
	case evMpiSend, evMpiIsend, evMpiRecv, evMpiIrecv, evMpiCollectiveEnd:
		l.rec.comm = uint32(l.local.mapID(mapComm, uint64(l.rec.comm)))
	}
	return nil
}

// mapID maps an event file's local id to its global id.
func (l *localDefs) mapID(kind int, id uint64) uint64 {
	if m := l.maps[kind]; m != nil {
		if g, ok := m[id]; ok {
			return g
		}
	}
	return id
}

// rankState is what one rank's conversion keeps between records, and
// what it hands to resolve.
type rankState struct {
	r  int
	rb *tracefmt.RankBuilder
	// times are the posting times of the rank's completed MPI_Irecvs
	// (Trace.MessageTimes), in stream order.
	times []tracefmt.MessageTime
	// err is the error the rank's read stopped at.
	err error
	// found is the record readRankTo looked for, once read.
	found *foundRecord
	// locations and records count what the rank's read went through.
	locations, records int
	// The rank's states, markers and MPI_COMM_SELF-like communicators
	// have ids of its own in its stream until resolve gives them the
	// trace's (the order of definition in the trace depends on the ranks
	// before). A state's id is that of its name (regions of one name are
	// one state, as in the trace); stateKeys lists the regions and
	// threads in the order of their first use, masterLocal caches the
	// ids of the master thread's regions (id + 1).
	stateKeys   []stateKey
	localState  map[stateKey]tracefmt.StateID
	stateNames  map[string]tracefmt.StateID
	names       int
	masterLocal []tracefmt.StateID
	markers     []string
	// selfFirst lists the per-rank communicators in the order of first
	// use, with that use's record (where a failure to add one is told);
	// selfUses the events that name one.
	selfFirst []selfFirst
	selfIndex map[*commInfo]int
	selfUses  []selfUse
	// reqs holds, per thread (OTF2 request ids are a location's own),
	// the pending requests by id: a map with a 64-bit key per thread
	// costs half the hashing of one keyed by thread and id together, and
	// every non-blocking call goes through it twice.
	reqs    []map[uint64]pendingReq
	nextReq int64
}

// selfFirst is the first use of a per-rank communicator on a rank.
type selfFirst struct {
	ci   *commInfo
	file string
	at   int64
	// what prefixes an error at the use (the record's name for a
	// point-to-point record).
	what string
}

// selfUse is an event that names a per-rank communicator (selfFirst
// index comm).
type selfUse struct {
	event int32
	comm  int32
}

// useSelf notes that event i names ci, a per-rank communicator, first
// used at rec when no event before named it.
func (rs *rankState) useSelf(i int, ci *commInfo, l *location, rec *record) {
	c, ok := rs.selfIndex[ci]
	if !ok {
		what := ""
		if rec.typ != evMpiCollectiveEnd {
			what = recName(rec.typ) + ": "
		}
		c = len(rs.selfFirst)
		rs.selfFirst = append(rs.selfFirst, selfFirst{ci: ci, file: l.file, at: rec.at, what: what})
		if rs.selfIndex == nil {
			rs.selfIndex = map[*commInfo]int{}
		}
		rs.selfIndex[ci] = c
	}
	rs.selfUses = append(rs.selfUses, selfUse{event: int32(i), comm: int32(c)})
}

// marker returns the rank's own id of the named marker.
func (rs *rankState) marker(name string) tracefmt.MarkerID {
	for i, m := range rs.markers {
		if m == name {
			return tracefmt.MarkerID(i)
		}
	}
	rs.markers = append(rs.markers, name)
	return tracefmt.MarkerID(len(rs.markers) - 1)
}

// pendingReq is a non-blocking operation not yet completed: its request
// in the trace and, for a receive, the index of its placeholder event.
type pendingReq struct {
	req int64
	// recv tells a receive posted by MpiIrecvRequest, at posted; its
	// event is added when it completes (MpiIrecv).
	recv   bool
	posted float64
}

// errAt returns an error at a record of a location.
func (l *location) errAt(rec *record, format string, args ...any) error {
	return &FormatError{File: l.file, Offset: rec.at, Msg: fmt.Sprintf(format, args...)}
}

// event turns a location's current record into trace events.
func (rd *reader) event(rs *rankState, l *location, rec *record) error {
	tm := float64(float64(int64(rec.time-rd.defs.Offset)) * rd.scale)
	switch rec.typ {
	case evMpiSend, evMpiIsend, evMpiRecv, evMpiIrecv, evMpiCollectiveEnd:
		// OTF2's byte counts are unsigned 64-bit; the trace model's are
		// signed, and a count past 2^63−1 is no real message.
		if rec.n > math.MaxInt64 || (rec.typ == evMpiCollectiveEnd && rec.req > math.MaxInt64) {
			return l.errAt(rec, "%s: a byte count beyond %d", recName(rec.typ), int64(math.MaxInt64))
		}
	}
	switch rec.typ {
	case evEnter, evLeave:
		st, err := rd.state(rs, rec.a, l.thread)
		if err != nil {
			return l.errAt(rec, "%v", err)
		}
		e := tracefmt.Enter(tm, st)
		if rec.typ == evLeave {
			e = tracefmt.Leave(tm, st)
		}
		_, err = rs.rb.Add(e)
		return err
	case evMpiSend, evMpiIsend:
		ci, peer, err := rd.peer(rs.r, rec.comm, rec.a)
		if err != nil {
			return l.errAt(rec, "%s: %v", recName(rec.typ), err)
		}
		e := tracefmt.Send(tm, peer, int32(rec.tag), ci.index, int64(rec.n))
		if rec.typ == evMpiIsend {
			e.Flags |= tracefmt.FlagNonBlocking
			if err := rs.dropPending(l.thread, rec.req, tm); err != nil {
				return err
			}
			e.SetRequest(rs.newReq(l.thread, rec.req, false, 0))
		}
		i, err := rs.rb.Add(e)
		if err == nil && ci.self {
			rs.useSelf(i, ci, l, rec)
		}
		return err
	case evMpiIsendComplete:
		p, ok := rs.req(l.thread, rec.req)
		if !ok {
			return nil // completes a send the trace did not record
		}
		if p.recv {
			return l.errAt(rec, "MpiIsendComplete: request %d is the pending MPI_Irecv's of MpiIrecvRequest, not an MPI_Isend's", rec.req)
		}
		delete(rs.reqs[l.thread], rec.req)
		_, err := rs.rb.Add(tracefmt.Wait(tm, p.req))
		return err
	case evMpiIrecvRequest:
		// The receive is posted here. Its event stands at its arrival,
		// as every receive's in the trace model (the clock condition
		// and the Timeline's arrows are about it): MpiIrecv adds it
		// when the receive completes, with this posting time beside
		// (Trace.PostedAt). The replay posts it at its MPI_Irecv call.
		if err := rs.dropPending(l.thread, rec.req, tm); err != nil {
			return err
		}
		rs.newReq(l.thread, rec.req, true, tm)
		return nil
	case evMpiRecv, evMpiIrecv:
		ci, peer, err := rd.peer(rs.r, rec.comm, rec.a)
		if err != nil {
			return l.errAt(rec, "%s: %v", recName(rec.typ), err)
		}
		if rec.typ == evMpiIrecv {
			if p, ok := rs.req(l.thread, rec.req); ok && p.recv {
				delete(rs.reqs[l.thread], rec.req)
				e := tracefmt.Recv(tm, peer, int32(rec.tag), ci.index, int64(rec.n))
				e.Flags |= tracefmt.FlagNonBlocking
				e.SetRequest(p.req)
				i, err := rs.rb.Add(e)
				if err != nil {
					return err
				}
				if ci.self {
					rs.useSelf(i, ci, l, rec)
				}
				if d := p.posted - tm; d != 0 {
					rs.times = append(rs.times, tracefmt.MessageTime{Event: tracefmt.EventRef{Rank: int32(rs.r), Index: int32(i)}, Delta: d})
				}
				_, err = rs.rb.Add(tracefmt.Wait(tm, p.req))
				return err
			}
		}
		i, err := rs.rb.Add(tracefmt.Recv(tm, peer, int32(rec.tag), ci.index, int64(rec.n)))
		if err == nil && ci.self {
			rs.useSelf(i, ci, l, rec)
		}
		return err
	case evMpiRequestCancelled:
		if p, ok := rs.req(l.thread, rec.req); ok {
			delete(rs.reqs[l.thread], rec.req)
			if p.recv {
				return rs.unposted(tm, "MPI_Irecv cancelled")
			}
		}
		return nil
	case evMpiCollectiveBegin:
		// A placeholder at the call's start keeps the rank's events in
		// time order; MpiCollectiveEnd fills it in.
		i, err := rs.rb.Add(tracefmt.Collective(tm, tracefmt.OpOther, -1, 0, 0, 0))
		if err != nil {
			return err
		}
		l.begin = i
		return nil
	case evMpiCollectiveEnd:
		ci, ok := rd.comm(rec.comm)
		if !ok {
			return l.errAt(rec, "MpiCollectiveEnd: communicator %d is not defined", rec.comm)
		}
		op := collOp(rec.op)
		root := -1
		if op.Rooted() && rec.a != undefined32 {
			w, err := rd.world(rs.r, ci, rec.a)
			if err != nil {
				return l.errAt(rec, "MpiCollectiveEnd: root: %v", err)
			}
			root = w
		}
		e := tracefmt.Collective(tm, op, root, ci.index, int64(rec.n), int64(rec.req))
		i := l.begin
		if i < 0 {
			var err error
			if i, err = rs.rb.Add(e); err != nil {
				return err
			}
		} else {
			ev := &rs.rb.Events()[i]
			e.Time = ev.Time
			*ev = e
			ev.Match = -1
			l.begin = -1
		}
		if ci.self {
			rs.useSelf(i, ci, l, rec)
		}
		return nil
	}
	return nil
}

// finishRank turns what never completed into markers, so that no
// receive is left without a sender.
func (rd *reader) finishRank(rs *rankState, locs []*location) {
	end := 0.0
	if ev := rs.rb.Events(); len(ev) > 0 {
		end = ev[len(ev)-1].Time
	}
	for _, reqs := range rs.reqs {
		for _, p := range reqs {
			if p.recv {
				if err := rs.unposted(max(end, p.posted), "MPI_Irecv never completed"); err != nil && rs.err == nil {
					rs.err = err
				}
			}
		}
	}
	for _, l := range locs {
		if l.begin >= 0 {
			ev := &rs.rb.Events()[l.begin]
			*ev = tracefmt.Mark(ev.Time, rs.marker("MPI collective never ended"))
		}
	}
}

// dropPending forgets a pending request whose id a new request reuses
// before it completed (a broken or truncated trace): a receive posted
// under that id can no longer be completed, and a marker at tm says so.
func (rs *rankState) dropPending(thread int, id uint64, tm float64) error {
	if p, ok := rs.req(thread, id); ok && p.recv {
		return rs.unposted(tm, "MPI_Irecv request id reused before completion")
	}
	return nil
}

// unposted adds a marker at tm for a posted receive that did not complete.
func (rs *rankState) unposted(tm float64, what string) error {
	_, err := rs.rb.Add(tracefmt.Mark(tm, rs.marker(what)))
	return err
}

// newReq gives request id of a thread's location a trace request id; a
// receive's (recv) was posted at posted.
func (rs *rankState) newReq(thread int, id uint64, recv bool, posted float64) int64 {
	if thread >= len(rs.reqs) {
		rs.reqs = append(rs.reqs, make([]map[uint64]pendingReq, thread+1-len(rs.reqs))...)
	}
	if rs.reqs[thread] == nil {
		rs.reqs[thread] = map[uint64]pendingReq{}
	}
	req := rs.nextReq
	rs.nextReq++
	rs.reqs[thread][id] = pendingReq{req: req, recv: recv, posted: posted}
	return req
}

// req returns the pending request id of a thread's location.
func (rs *rankState) req(thread int, id uint64) (pendingReq, bool) {
	if thread >= len(rs.reqs) {
		return pendingReq{}, false
	}
	p, ok := rs.reqs[thread][id]
	return p, ok
}

// state returns the rank's own id of the state of a region on a thread
// (see rankState), or an error when the region is not defined.
func (rd *reader) state(rs *rankState, region uint32, thread int) (tracefmt.StateID, error) {
	if thread == 0 && int64(region) < int64(len(rs.masterLocal)) && rs.masterLocal[region] > 0 {
		return rs.masterLocal[region] - 1, nil
	}
	k := stateKey{region, thread}
	if id, ok := rs.localState[k]; ok {
		return id, nil
	}
	d, err := rd.stateDef(k)
	if err != nil {
		return 0, err
	}
	if rs.localState == nil {
		rs.localState, rs.stateNames = map[stateKey]tracefmt.StateID{}, map[string]tracefmt.StateID{}
	}
	id, ok := rs.stateNames[d.Name]
	if !ok {
		id = tracefmt.StateID(rs.names)
		rs.names++
		rs.stateNames[d.Name] = id
	}
	rs.localState[k] = id
	rs.stateKeys = append(rs.stateKeys, k)
	if thread == 0 && region < maxDenseID {
		if int(region) >= len(rs.masterLocal) {
			rs.masterLocal = slices.Grow(rs.masterLocal, int(region)+1-len(rs.masterLocal))[:region+1]
		}
		rs.masterLocal[region] = id + 1
	}
	return id, nil
}

// globalState returns the trace state of a region on a thread, defining
// it when new.
func (rd *reader) globalState(k stateKey) tracefmt.StateID {
	if id, ok := rd.states[k]; ok {
		return id
	}
	// A rank's read checked that the region is defined.
	d, _ := rd.stateDef(k)
	id := rd.b.DefineState(d)
	rd.states[k] = id
	return id
}

// stateDef returns the definition of the state of a region on a thread:
// non-master threads get states of their own ("name (thread 1)"), so that
// their intervals pair among themselves on the rank's single stream.
func (rd *reader) stateDef(k stateKey) (tracefmt.StateDef, error) {
	g, ok := rd.defs.Regions[k.region]
	if !ok {
		return tracefmt.StateDef{}, fmt.Errorf("region %d is not defined", k.region)
	}
	name := rd.defs.name(g.Name)
	full := name
	if k.thread > 0 {
		full = fmt.Sprintf("%s (thread %d)", name, k.thread)
	}
	return tracefmt.StateDef{Name: full, Category: category(name, g)}, nil
}

// Region roles that say what a region is.
const (
	roleCollOne2All = 23
	roleCollOther   = 26
	roleFileIO      = 27
	rolePoint2Point = 28
)

// category classifies a region by its role, else by its name.
func category(name string, g Region) tracefmt.Category {
	switch {
	case g.Role >= roleCollOne2All && g.Role <= roleCollOther:
		return tracefmt.CatCollective
	case g.Role == roleFileIO:
		return tracefmt.CatIO
	case g.Role == rolePoint2Point:
		return tracefmt.CatP2P
	}
	c := tracefmt.CategoryOf(name)
	if c == tracefmt.CatUser && g.Paradigm == paradigmMPI {
		return tracefmt.CatOther
	}
	return c
}

// peer resolves the peer of a point-to-point record: its communicator
// and world rank.
func (rd *reader) peer(r int, comm, local uint32) (*commInfo, int, error) {
	ci, ok := rd.comm(comm)
	if !ok {
		return nil, 0, fmt.Errorf("communicator %d is not defined", comm)
	}
	w, err := rd.world(r, ci, local)
	if err != nil {
		return nil, 0, err
	}
	return ci, w, nil
}

// maxDenseID bounds the region and communicator ids cached in slices.
const maxDenseID = 1 << 16

// comm returns the communicator of an id.
func (rd *reader) comm(id uint32) (*commInfo, bool) {
	if int64(id) < int64(len(rd.commByID)) && rd.commByID[id] != nil {
		return rd.commByID[id], true
	}
	ci, ok := rd.comms[id]
	return ci, ok
}

// world returns the world rank of local rank local of a communicator.
func (rd *reader) world(r int, ci *commInfo, local uint32) (int, error) {
	switch {
	case ci.self:
		if local != 0 {
			return 0, fmt.Errorf("rank %d of %s, which has one rank", local, ci.name)
		}
		return r, nil
	case ci.ranks == nil:
		if int64(local) >= int64(len(rd.ranks)) {
			return 0, fmt.Errorf("rank %d of %s, which has %d ranks", local, ci.name, len(rd.ranks))
		}
		return int(local), nil
	case int64(local) >= int64(len(ci.ranks)):
		return 0, fmt.Errorf("rank %d of %s, which has %d ranks", local, ci.name, len(ci.ranks))
	}
	return int(ci.ranks[local]), nil
}

// commIndex returns the trace communicator of ci on rank r.
func (rd *reader) commIndex(r int, ci *commInfo) (uint16, error) {
	if !ci.self {
		return ci.index, nil
	}
	if idx, ok := ci.selfIndex[r]; ok {
		return idx, nil
	}
	idx, err := rd.b.AddComm(tracefmt.Comm{Name: ci.name, Ranks: []int32{int32(r)}, ID: int32(ci.id)})
	if err != nil {
		return 0, err
	}
	if ci.selfIndex == nil {
		ci.selfIndex = map[int]uint16{}
	}
	ci.selfIndex[r] = idx
	return idx, nil
}

// OTF2 collective operations, as numbered in MpiCollectiveEnd.
var collOps = [...]tracefmt.CollOp{
	0:  tracefmt.OpBarrier,
	1:  tracefmt.OpBcast,
	2:  tracefmt.OpGather,
	3:  tracefmt.OpGatherv,
	4:  tracefmt.OpScatter,
	5:  tracefmt.OpScatterv,
	6:  tracefmt.OpAllgather,
	7:  tracefmt.OpAllgatherv,
	8:  tracefmt.OpAlltoall,
	9:  tracefmt.OpAlltoallv,
	10: tracefmt.OpAlltoallv, // ALLTOALLW: per-peer types, the same traffic shape
	11: tracefmt.OpAllreduce,
	12: tracefmt.OpReduce,
	13: tracefmt.OpReduceScatter,
	14: tracefmt.OpScan,
	15: tracefmt.OpExscan,
	16: tracefmt.OpReduceScatter, // REDUCE_SCATTER_BLOCK
}

// collOp maps an OTF2 collective operation; handle creation and the like
// are OpOther.
func collOp(op uint8) tracefmt.CollOp {
	if int(op) < len(collOps) {
		return collOps[op]
	}
	return tracefmt.OpOther
}

// recName names an event record type in errors.
func recName(t byte) string {
	switch t {
	case evMpiSend:
		return "MpiSend"
	case evMpiIsend:
		return "MpiIsend"
	case evMpiRecv:
		return "MpiRecv"
	case evMpiIrecv:
		return "MpiIrecv"
	}
	return fmt.Sprintf("record type %d", t)
}
