package otf2

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Chunk sizes written, the OTF2 library's defaults.
const (
	writeEventChunk = 1 << 20
	writeDefChunk   = 4 << 20
)

// Creator writes the archive file rel (relative to the anchor file's
// directory, "traces.def", "traces/0.evt") with fn; the directories it
// names must be created as needed.
type Creator func(rel string, fn func(w io.Writer) error) error

// Write writes t as an OTF2 archive: w receives the anchor file path, and
// create the other files, named after path ("traces.otf2" has
// "traces.def" and "traces/N.evt", "traces/N.def"). Each rank is a
// process with one thread. Enter and leave events become Enter and Leave
// records of one region per state name used (in the order of first use,
// rank by rank, as the reader defines states); sends and receives MpiSend, MpiRecv,
// MpiIsend with MpiIsendComplete at the wait that completes it, and
// MpiIrecvRequest with MpiIrecv at its wait; collectives
// MpiCollectiveBegin and MpiCollectiveEnd at the event's time. Compute
// bursts and markers have no record (time passes between records).
// A NUL byte in a name, which OTF2's strings cannot hold, is written as
// U+FFFD. Timestamps are nanoseconds (or the trace's unit when it is finer),
// offset so that none is negative, or the ticks and offset of
// the OTF2 archive the trace was read from. A rank's timestamps never
// decrease: an event earlier than the one before it is written at that
// one's time.
func Write(path string, w io.Writer, t *tracefmt.Trace, create Creator) error {
	if !t.Timed {
		return fmt.Errorf("otf2: the trace is untimed; OTF2 needs timestamps")
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	wr := &writer{t: t, strings: map[string]uint32{}}
	wr.clock()
	wr.regions()
	counts := make([]uint64, len(t.Ranks))
	for r := range t.Ranks {
		rel := fmt.Sprintf("%s/%d.evt", base, r)
		err := create(rel, func(w io.Writer) error {
			n, err := wr.rankEvents(w, r)
			counts[r] = n
			return err
		})
		if err != nil {
			return err
		}
		// Local definitions: none (ids are global), but readers look
		// for the file.
		if err := create(fmt.Sprintf("%s/%d.def", base, r), func(w io.Writer) error {
			c := newChunkWriter(w, writeDefChunk, false)
			return c.close()
		}); err != nil {
			return err
		}
	}
	var ndefs uint64
	if err := create(base+".def", func(w io.Writer) error {
		var err error
		ndefs, err = wr.globalDefs(w, counts)
		return err
	}); err != nil {
		return err
	}
	return writeAnchor(w, &Anchor{
		TraceFormat: 2,
		Version:     [3]uint8{3, 0, 2},
		EventChunk:  writeEventChunk,
		DefChunk:    writeDefChunk,
		Locations:   uint64(len(t.Ranks)),
		GlobalDefs:  ndefs,
		Creator:     "tracesim",
	})
}

// writer holds what one Write call derives from the trace.
type writer struct {
	t *tracefmt.Trace
	// ticks per trace unit and the tick of time 0
	perUnit    float64
	resolution uint64
	offset     uint64
	first      uint64
	last       uint64
	strings    map[string]uint32
	defs       [][]byte
	// regionOf is the region of each state; region lists, per region,
	// the first state of its name.
	regionOf []uint32
	region   []tracefmt.StateID
}

// regions gives a region to each state name entered or left, in the order
// of first use rank by rank: the order in which the reader defines the
// states of an archive (one per region name, on use), so that a trace
// read back writes the same regions. A state no event uses gets no
// region (the reader would not define it).
func (wr *writer) regions() {
	t := wr.t
	wr.regionOf = make([]uint32, len(t.States))
	for i := range wr.regionOf {
		wr.regionOf[i] = undefined32
	}
	byName := map[string]uint32{}
	for r := range t.Ranks {
		for i := range t.Ranks[r].Events {
			e := &t.Ranks[r].Events[i]
			if e.Kind != tracefmt.KindEnter && e.Kind != tracefmt.KindLeave || wr.regionOf[e.State()] != undefined32 {
				continue
			}
			name := t.States[e.State()].Name
			id, ok := byName[name]
			if !ok {
				id = uint32(len(wr.region))
				byName[name] = id
				wr.region = append(wr.region, e.State())
			}
			wr.regionOf[e.State()] = id
		}
	}
}

// clock chooses the timer: the OTF2 source's when the trace came from
// one, else ticks of the trace unit (nanoseconds at the finest).
func (wr *writer) clock() {
	t := wr.t
	res, _ := strconv.ParseUint(attr(t, "otf2.timer_resolution"), 10, 64)
	off, errOff := strconv.ParseUint(attr(t, "otf2.global_offset"), 10, 64)
	if res == 0 || errOff != nil {
		res = 1e9
		if t.Unit < tracefmt.Nanosecond {
			res = uint64(math.Round(1 / t.Unit.Seconds()))
		}
		off = 0
		start, _ := t.Span()
		if s := start * float64(res) * t.Unit.Seconds(); s < 0 {
			off = uint64(math.Ceil(-s))
		}
	}
	wr.resolution, wr.offset = res, off
	wr.perUnit = float64(res) * t.Unit.Seconds()
	wr.first = math.MaxUint64
}

func attr(t *tracefmt.Trace, k string) string {
	v, _ := t.Attr(k)
	return v
}

// tick converts a trace time to a timestamp.
func (wr *writer) tick(x float64) uint64 {
	v := math.Round(x*wr.perUnit) + float64(wr.offset)
	if v < 0 {
		return 0
	}
	return uint64(v)
}

// OTF2 numbers of the trace's collective operations.
var otf2Ops = map[tracefmt.CollOp]uint8{
	tracefmt.OpBarrier: 0, tracefmt.OpBcast: 1, tracefmt.OpGather: 2, tracefmt.OpGatherv: 3,
	tracefmt.OpScatter: 4, tracefmt.OpScatterv: 5, tracefmt.OpAllgather: 6, tracefmt.OpAllgatherv: 7,
	tracefmt.OpAlltoall: 8, tracefmt.OpAlltoallv: 9, tracefmt.OpAllreduce: 11, tracefmt.OpReduce: 12,
	tracefmt.OpReduceScatter: 13, tracefmt.OpScan: 14, tracefmt.OpExscan: 15,
}

// opOther is the number written for operations OTF2 has no name for
// (CREATE_HANDLE: a collective that moves no data).
const opOther = 17

// earlyRequest is a non-blocking receive whose posting the trace keeps
// (Trace.PostedAt) before its event: its MpiIrecvRequest goes out at
// posted, before event at of the rank.
type earlyRequest struct {
	at, recv int
	posted   float64
}

// earlyRequests lists rank r's receives posted before their events, by
// the event before which each was posted.
func earlyRequests(t *tracefmt.Trace, r int) []earlyRequest {
	var out []earlyRequest
	ev := t.Ranks[r].Events
	for _, m := range t.MessageTimesOf(r) {
		i := int(m.Event.Index)
		if m.Delta >= 0 || i >= len(ev) {
			continue
		}
		e := &ev[i]
		if e.Kind != tracefmt.KindRecv || !e.Flags.Has(tracefmt.FlagNonBlocking) || e.Request() == 0 {
			continue
		}
		posted := e.Time + m.Delta
		at := sort.Search(i, func(j int) bool { return ev[j].Time > posted })
		out = append(out, earlyRequest{at: at, recv: i, posted: posted})
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].at < out[b].at })
	return out
}

// rankEvents writes rank r's event file and returns its number of events.
func (wr *writer) rankEvents(w io.Writer, r int) (uint64, error) {
	t := wr.t
	c := newChunkWriter(w, writeEventChunk, true)
	ev := t.Ranks[r].Events
	var now uint64
	// Outstanding non-blocking operations by request: the send or
	// receive event's index.
	pending := map[int64]int{}
	var order []int64
	var rec []byte
	emit := func(x float64, typ byte, payload []byte, singleton bool) {
		tm := wr.tick(x)
		if tm < now {
			tm = now
		}
		now = tm
		wr.first, wr.last = min(wr.first, tm), max(wr.last, tm)
		rec = appendRecord(rec[:0], typ, payload, singleton)
		c.event(tm, rec)
	}
	complete := func(x float64, req int64) error {
		i := pending[req]
		delete(pending, req)
		e := &ev[i]
		if e.Kind == tracefmt.KindSend {
			emit(x, evMpiIsendComplete, appendU64(nil, uint64(req)), true)
			return nil
		}
		p, err := wr.p2p(r, e, evMpiIrecv)
		if err != nil {
			return err
		}
		emit(x, evMpiIrecv, appendU64(p, uint64(req)), false)
		return nil
	}
	early := earlyRequests(t, r)
	var posted map[int]bool // receives whose MpiIrecvRequest went out early
	if len(early) > 0 {
		posted = map[int]bool{}
	}
	for i := range ev {
		for len(early) > 0 && early[0].at == i {
			x := early[0]
			early = early[1:]
			req := ev[x.recv].Request()
			if _, dup := pending[req]; dup {
				continue // its id still names another request: posted at its event
			}
			pending[req] = x.recv
			order = append(order, req)
			posted[x.recv] = true
			emit(x.posted, evMpiIrecvRequest, appendU64(nil, uint64(req)), true)
		}
		e := &ev[i]
		switch e.Kind {
		case tracefmt.KindEnter:
			emit(e.Time, evEnter, appendU32(nil, wr.regionOf[e.State()]), true)
		case tracefmt.KindLeave:
			emit(e.Time, evLeave, appendU32(nil, wr.regionOf[e.State()]), true)
		case tracefmt.KindSend, tracefmt.KindRecv:
			typ := byte(evMpiSend)
			if e.Kind == tracefmt.KindRecv {
				typ = evMpiRecv
			}
			if posted[i] {
				delete(posted, i)
				continue // MpiIrecvRequest at its posting, MpiIrecv at its wait
			}
			if e.Flags.Has(tracefmt.FlagNonBlocking) && e.Request() != 0 {
				if _, dup := pending[e.Request()]; !dup {
					pending[e.Request()] = i
					order = append(order, e.Request())
					if e.Kind == tracefmt.KindRecv {
						emit(e.Time, evMpiIrecvRequest, appendU64(nil, uint64(e.Request())), true)
						continue
					}
					typ = evMpiIsend
				}
			}
			p, err := wr.p2p(r, e, typ)
			if err != nil {
				return 0, err
			}
			if typ == evMpiIsend {
				p = appendU64(p, uint64(e.Request()))
			}
			emit(e.Time, typ, p, false)
		case tracefmt.KindWait:
			if e.Flags.Has(tracefmt.FlagAll) {
				for _, req := range order {
					if _, ok := pending[req]; ok {
						if err := complete(e.Time, req); err != nil {
							return 0, err
						}
					}
				}
				order = order[:0]
				continue
			}
			if _, ok := pending[e.Request()]; ok {
				if err := complete(e.Time, e.Request()); err != nil {
					return 0, err
				}
			}
		case tracefmt.KindCollective:
			comm := &t.Comms[e.Comm]
			root := uint32(undefined32)
			if e.Root() >= 0 {
				l := comm.Local(e.Root())
				if l < 0 {
					return 0, fmt.Errorf("otf2: rank %d event %d: root %d is not in communicator %q", r, i, e.Root(), comm.Name)
				}
				root = uint32(l)
			}
			op, ok := otf2Ops[e.Op()]
			if !ok {
				op = opOther
			}
			emit(e.Time, evMpiCollectiveBegin, nil, false)
			p := append([]byte{op}, appendU32(nil, uint32(e.Comm))...)
			p = appendU32(p, root)
			p = appendU64(p, uint64(e.Size))
			p = appendU64(p, uint64(e.RecvBytes()))
			emit(e.Time, evMpiCollectiveEnd, p, false)
		}
	}
	// What the trace never completed completes at its last event, so
	// that every receive has its sender.
	end := 0.0
	if len(ev) > 0 {
		end = ev[len(ev)-1].Time
	}
	for _, req := range order {
		if _, ok := pending[req]; ok {
			if err := complete(end, req); err != nil {
				return 0, err
			}
		}
	}
	return c.events, c.close()
}

// p2p returns the fields of a point-to-point record of event e: peer
// rank in the communicator, communicator, tag, length.
func (wr *writer) p2p(r int, e *tracefmt.Event, typ byte) ([]byte, error) {
	comm := &wr.t.Comms[e.Comm]
	l := comm.Local(int(e.Peer))
	if l < 0 {
		return nil, fmt.Errorf("otf2: rank %d: %s peer %d is not in communicator %q", r, recName(typ), e.Peer, comm.Name)
	}
	p := appendU32(nil, uint32(l))
	p = appendU32(p, uint32(e.Comm))
	p = appendU32(p, uint32(e.Tag))
	return appendU64(p, uint64(e.Size)), nil
}

// str interns a string definition.
func (wr *writer) str(s string) uint32 {
	if id, ok := wr.strings[s]; ok {
		return id
	}
	id := uint32(len(wr.strings))
	wr.strings[s] = id
	// An OTF2 string ends at its first NUL byte: one inside a name would
	// cut it short when read ("\x000" read back as "", then written as
	// "communicator 1"), so it is written as U+FFFD, which reads back as
	// itself.
	written := s
	if strings.IndexByte(s, 0) >= 0 {
		written = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	wr.def(defString, append(append(appendU32(nil, id), written...), 0))
	return id
}

// def appends a global definition record.
func (wr *writer) def(typ byte, payload []byte) {
	wr.defs = append(wr.defs, appendRecord(nil, typ, payload, false))
}

// OTF2 definition values the writer uses.
const (
	regionRoleFunction = 1
	paradigmUser       = 1
	// group types before OTF2 1.2, still written beside the new ones
	preMPIGroup     = 4
	preMPILocations = 6
	systemTreeNode  = 12
)

// globalDefs writes the global definition file and returns its number of
// records.
func (wr *writer) globalDefs(w io.Writer, counts []uint64) (uint64, error) {
	t := wr.t
	if wr.first == math.MaxUint64 {
		wr.first, wr.last = wr.offset, wr.offset
	}
	p := appendU64(nil, wr.resolution)
	p = appendU64(p, wr.offset)
	p = appendU64(p, wr.last-wr.offset)
	wr.def(defClockProperties, appendU64(p, math.MaxUint64))
	wr.str("")
	node := wr.str("node")
	wr.def(systemTreeNode, append(appendU32(appendU32(appendU32(nil, 0), node), 0), 0xff))
	for r := range t.Ranks {
		name := wr.str(fmt.Sprintf("MPI Rank %d", r))
		p := appendU32(appendU32(nil, uint32(r)), name)
		p = append(p, locationGroupProcess)
		wr.def(defLocationGroup, append(appendU32(p, 0), 0xff))
	}
	master := wr.str("Master thread")
	for r := range t.Ranks {
		p := appendU32(appendU64(nil, uint64(r)), master)
		p = append(p, 1) // CPU thread
		p = appendU64(p, counts[r])
		wr.def(defLocation, appendU32(p, uint32(r)))
	}
	for i, st := range wr.region {
		s := t.States[st]
		name := wr.str(s.Name)
		par := uint8(paradigmUser)
		if s.Category.IsMPI() || strings.HasPrefix(s.Name, "MPI_") {
			par = paradigmMPI
		}
		p := appendU32(appendU32(nil, uint32(i)), name)
		p = appendU32(p, 0)           // description ""
		p = append(p, 3)              // region type of OTF2 1.0: function
		p = appendU32(p, undefined32) // no source file
		p = appendU32(appendU32(p, 0), 0)
		p = appendU32(p, name) // canonical name
		p = append(p, regionRoleFunction, par)
		wr.def(defRegion, appendU32(p, 0))
	}
	group := func(id uint32, name string, pre, typ uint8, members []uint64) {
		p := appendU32(appendU32(nil, id), wr.str(name))
		p = append(p, pre)
		p = appendU32(p, uint32(len(members)))
		for _, m := range members {
			p = appendU64(p, m)
		}
		p = append(p, typ, paradigmMPI)
		wr.def(defGroup, appendU32(p, 0))
	}
	world := make([]uint64, len(t.Ranks))
	for i := range world {
		world[i] = uint64(i)
	}
	group(0, "", preMPILocations, groupCommLocations, world)
	for i, c := range t.Comms {
		members := world
		if c.Ranks != nil {
			members = make([]uint64, len(c.Ranks))
			for j, x := range c.Ranks {
				members[j] = uint64(x)
			}
		}
		group(uint32(i+1), commName(i, c), preMPIGroup, groupCommGroup, members)
	}
	for i, c := range t.Comms {
		p := appendU32(appendU32(nil, uint32(i)), wr.str(commName(i, c)))
		p = appendU32(p, uint32(i+1))
		parent := uint32(undefined32)
		if i > 0 {
			parent = 0
		}
		wr.def(defComm, appendU32(appendU32(p, parent), 0))
	}
	c := newChunkWriter(w, writeDefChunk, false)
	for _, d := range wr.defs {
		c.def(d)
	}
	return uint64(len(wr.defs)), c.close()
}

// commName is the name written for communicator i and for its group: the
// same for both, so that a trace read back writes the same definitions
// (the group of an unnamed communicator was written unnamed, and named
// once read back).
func commName(i int, c tracefmt.Comm) string {
	if c.Name == "" {
		return fmt.Sprintf("communicator %d", i)
	}
	return c.Name
}

// appendU32 appends a compressed 32-bit unsigned integer.
func appendU32(b []byte, v uint32) []byte {
	if v == math.MaxUint32 {
		return append(b, 0xff)
	}
	return appendCompressed(b, uint64(v))
}

// appendU64 appends a compressed 64-bit unsigned integer.
func appendU64(b []byte, v uint64) []byte {
	if v == math.MaxUint64 {
		return append(b, 0xff)
	}
	return appendCompressed(b, v)
}

// appendCompressed appends a size byte and the value's significant bytes,
// little-endian.
func appendCompressed(b []byte, v uint64) []byte {
	if v == 0 {
		return append(b, 0)
	}
	n := (64 - bits.LeadingZeros64(v) + 7) / 8
	b = append(b, byte(n))
	for i := 0; i < n; i++ {
		b = append(b, byte(v>>(8*i)))
	}
	return b
}

// appendRecord appends a record: its type, then for records that are not
// singletons its length (one byte, or 0xff and eight for long ones).
func appendRecord(b []byte, typ byte, payload []byte, singleton bool) []byte {
	b = append(b, typ)
	if !singleton {
		if len(payload) < 0xff {
			b = append(b, byte(len(payload)))
		} else {
			b = append(b, 0xff)
			b = binary.LittleEndian.AppendUint64(b, uint64(len(payload)))
		}
	}
	return append(b, payload...)
}

// chunkWriter writes a chunked file: records packed into chunks of a fixed
// size, each opened by a header and, in event files, the current
// timestamp, and padded with END_OF_CHUNK bytes.
type chunkWriter struct {
	w      io.Writer
	buf    []byte
	size   int
	timed  bool
	events uint64
	time   uint64
	err    error
}

func newChunkWriter(w io.Writer, size int, timed bool) *chunkWriter {
	// The buffer grows to the chunk size only as records fill it: a
	// rank with few events, and every rank's empty local definitions,
	// would otherwise cost a zeroed 1 MiB and 4 MiB each (45 GB
	// allocated for 9,120 ranks with no events).
	c := &chunkWriter{w: w, size: size, timed: timed, buf: make([]byte, 0, min(size, 4096))}
	c.header()
	return c
}

// header starts a chunk: the first event number, and the last, which
// flush fills in.
func (c *chunkWriter) header() {
	c.buf = append(c.buf[:0], recChunkHeader, littleEndian)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, c.events+1)
	c.buf = binary.LittleEndian.AppendUint64(c.buf, 0)
}

// fit makes room for n bytes, moving to a new chunk when they do not fit
// with the END_OF_CHUNK byte after them; it reports whether a chunk was
// started.
func (c *chunkWriter) fit(n int) bool {
	if len(c.buf)+n < c.size {
		return false
	}
	c.flush(true)
	c.header()
	return true
}

// flush writes the chunk held, padded to the chunk size unless it is the
// file's last.
func (c *chunkWriter) flush(pad bool) {
	if c.timed {
		binary.LittleEndian.PutUint64(c.buf[10:], c.events)
	}
	if pad {
		for len(c.buf) < c.size {
			c.buf = append(c.buf, recEndOfChunk)
		}
	}
	if c.err == nil {
		_, c.err = c.w.Write(c.buf)
	}
}

// event appends an event record at time tm.
func (c *chunkWriter) event(tm uint64, rec []byte) {
	ts := 0
	if tm != c.time || c.events == 0 {
		ts = 9
	}
	if c.fit(ts+len(rec)) || ts > 0 {
		c.buf = append(c.buf, recTimestamp)
		c.buf = binary.LittleEndian.AppendUint64(c.buf, tm)
		c.time = tm
	}
	c.buf = append(c.buf, rec...)
	c.events++
}

// def appends a definition record.
func (c *chunkWriter) def(rec []byte) {
	c.fit(len(rec))
	c.buf = append(c.buf, rec...)
}

// close ends the file: END_OF_FILE and END_OF_BUFFER, as the OTF2
// library writes them.
func (c *chunkWriter) close() error {
	c.fit(2)
	c.buf = append(c.buf, recEndOfFile, recEndOfBuffer)
	c.flush(false)
	return c.err
}
