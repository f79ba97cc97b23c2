package clog2

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/tracesim/tracesim/tracefmt"
)

// maxReadRanks bounds the world size Read accepts, so that a corrupt
// preamble cannot make it allocate gigabytes.
const maxReadRanks = 1 << 20

// Provisional kinds of events whose meaning is known only once the whole
// file is read (STATEDEFs come last, peers may be defined later).
const (
	// provEvent is a BAREEVT/CARGOEVT: Peer = etype, aux = text ref + 1
	// (0 for BAREEVT), Match = header rank, Comm = header communicator.
	provEvent tracefmt.Kind = 200 + iota
	// provMsg is a MSGEVT: Peer = world peer (-1 none, -2 unresolved),
	// aux = msg icomm << 32 | partner, Tag, Size, Flags = 1 for receives.
	provMsg
	// provColl is a COLLEVT: Peer = world root (-1 none, -2 unresolved,
	// -3 no rank), Tag = etype, Size, aux = raw root.
	provColl
)

const (
	peerNone       = -1
	peerUnresolved = -2
	peerNoRank     = -3
)

// Read parses a CLOG2 file (versions 02.40 to 02.44, merged or per
// process, either byte order) into a trace in seconds. It reads the file
// block by block, decoding a merged big-endian file's blocks on
// GOMAXPROCS goroutines with a few blocks per goroutine in flight. Errors
// name the byte offset and what was expected.
func Read(r io.Reader) (*tracefmt.Trace, error) {
	return newReader(r, parallelResolveEvents, runtime.GOMAXPROCS(0)).read()
}

// newReader returns a reader of r that resolves ranks on the given number
// of goroutines when the file has at least parMin events.
// It decodes blocks on workers goroutines from parDecodeBlocks blocks on
// (parMin 0: from 2 blocks on).
func newReader(r io.Reader, parMin, workers int) *reader {
	decodeMin := parDecodeBlocks
	if parMin == 0 {
		decodeMin = 0
	}
	return &reader{
		src: r, textIdx: map[string]int32{}, cargoIdx: map[[cargoLen]byte]int32{},
		markerIdx: map[string]int32{}, consts: map[string]int32{}, commMap: map[uint64]int32{},
		commEtype: map[int32]int32{}, exc: map[uint64]rawExtra{},
		fillStale: true, fillZero: true, packOK: true,
		parMin: parMin, workers: workers, decodeMin: decodeMin,
	}
}

func (rd *reader) read() (*tracefmt.Trace, error) {
	if err := rd.readPreamble(); err != nil {
		return nil, err
	}
	if err := rd.readBlocks(); err != nil {
		return nil, err
	}
	if err := rd.readCommTable(); err != nil {
		return nil, err
	}
	return rd.finish()
}

// rankBuf holds one rank's provisional events and its clock shift. The
// slice becomes the rank's stream in the trace (converted in place), so it
// is sized from an estimate of the rank's final count rather than by
// doubling. Decoding writes the events in place: the reader's goroutine
// reserves a block's places (extending len) and the workers fill them
// (see takeBlock), so the array only moves once no worker writes to it.
type rankBuf struct {
	ev    []tracefmt.Event
	tdiff float64
}

// grow makes room for need more events of rb, read at offset u of block
// blk. When the preamble says how many blocks the file has, the rank's
// count so far is extrapolated to the end of the file (1% more, 2% in the
// first quarter: the builder keeps a slice whose spare room is under
// 1/32, and moving a whole rank's events again late costs as much as
// reading them); otherwise, or
// while too little is known, capacity doubles. No worker may be writing to
// rb's events (see drain).
func (rd *reader) grow(rb *rankBuf, blk, u, need int) {
	n := len(rb.ev)
	want := max(2*n, 16)
	if nb := rd.p.numBlocks(); nb > 0 && blk >= 4 && int64(blk) >= nb/32 {
		done := float64(blk) + float64(u)/float64(rd.p.blockSize)
		// Early on the rate so far may fall short of the file's (its first
		// blocks hold the ranks' prologues): 2% more before a quarter.
		margin := 1.01
		if done < float64(nb)/4 {
			margin = 1.02
		}
		est := float64(n) * float64(nb) / done * margin
		want = max(int(min(est, 1<<31)), n+n/64+16)
	}
	want = max(want, n+need)
	// Exactly want: slices.Grow would round up to append's growth.
	ev := make([]tracefmt.Event, n, want)
	copy(ev, rb.ev)
	rb.ev = ev
}

// rank returns world rank w's buffer, making room for it in rd.ranks.
func (rd *reader) rank(w int32) *rankBuf {
	if int(w) >= len(rd.ranks) {
		rd.growRanks(w)
	}
	return &rd.ranks[w]
}

func (rd *reader) growRanks(w int32) {
	ranks := make([]rankBuf, min(max(int(w)+1, 2*len(rd.ranks), 16), rd.P))
	copy(ranks, rd.ranks)
	rd.ranks = ranks
}

// reserve extends rb's events by n places for events read at offset u of
// the current block and returns the index of the first.
func (rd *reader) reserve(rb *rankBuf, n, u int) int {
	i := len(rb.ev)
	if cap(rb.ev)-i < n {
		rd.drain()
		rd.grow(rb, rd.block, u, n)
	}
	rb.ev = rb.ev[:i+n]
	return i
}

// rawExtra keeps a record's thread and pad when they are not zero.
type rawExtra struct {
	thread int32
	pad    [4]byte
}

type deferredRef struct {
	rank int32
	idx  int32
	off  int64
	blk  int
}

type stateDefRec struct {
	id, start, end      int32
	color, name, format string
}

type eventDefRec struct {
	etype               int32
	color, name, format string
}

type reader struct {
	src    io.Reader
	p      *preamble
	le     bool
	apply  bool
	P      int
	pos    int64 // offset of the current block
	block  int
	buf    []byte
	prev   []byte
	nBlock int64

	// ranks holds the decoded events per world rank; inflight lists the
	// blocks whose workers may still be writing their events there (see
	// takeBlock and drain).
	ranks    []rankBuf
	inflight []*blockJob

	texts    []string
	textIdx  map[string]int32
	cargoIdx map[[cargoLen]byte]int32
	// anyColl is set by the first COLLEVT record.
	anyColl bool

	markers   []tracefmt.MarkerDef
	markerIdx map[string]int32

	stateDefs []stateDefRec
	eventDefs []eventDefRec
	consts    map[string]int32
	commMap   map[uint64]int32
	commEtype map[int32]int32
	usedComm  []bool
	exc       map[uint64]rawExtra
	deferred  []deferredRef

	// ord follows the global order.
	ord *orderCheck

	// Block layout checks (merged files).
	blockRecs  []int64
	inBlock    int64
	packOK     bool
	endU       int // offset of the last ENDBLOCK in its block, -1 none
	pendTerm   *terminator
	terms      []string
	fillStale  bool
	fillZero   bool
	fillerAttr map[int64]string

	table    []commEntry
	hasTable bool
	tableOff int64

	// Resolution runs on workers goroutines from parMin events on, and
	// so does decoding from decodeMin blocks on (see parallelDecode).
	parMin, workers, decodeMin int
	// byRecord has a sequential read decode every record with record (the
	// reference the tests compare the other ways with).
	byRecord bool
}

func (rd *reader) i32(b []byte) int32 {
	if rd.le {
		return int32(binary.LittleEndian.Uint32(b))
	}
	return int32(binary.BigEndian.Uint32(b))
}

func (rd *reader) f64(b []byte) float64 {
	if rd.le {
		return math.Float64frombits(binary.LittleEndian.Uint64(b))
	}
	return math.Float64frombits(binary.BigEndian.Uint64(b))
}

func (rd *reader) readPreamble() error {
	buf := make([]byte, preambleLen)
	n, err := io.ReadFull(rd.src, buf)
	if err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			if n == 0 || !Sniff(buf[:n]) {
				return errAt(0, -1, "not a CLOG2 file: %d bytes, expected a 1024-byte preamble starting with \"CLOG-02.\"", n)
			}
			return errAt(int64(n), -1, "truncated preamble: the file ends after %d of its 1024 bytes", n)
		}
		return fmt.Errorf("clog2: reading the preamble: %w", err)
	}
	p, err := parsePreamble(buf)
	if err != nil {
		return err
	}
	if p.worldSize > maxReadRanks {
		return errAt(0, -1, "max_comm_world_size %d: at most %d ranks are supported", p.worldSize, maxReadRanks)
	}
	rd.p, rd.le, rd.apply, rd.P = p, !p.bigEndian, !p.finalized, p.worldSize
	rd.pos = preambleLen
	rd.ord = &orderCheck{sorted: true}
	rd.endU = -1
	rd.usedComm = make([]bool, maxComms)
	rd.usedComm[0] = true
	return nil
}

// readBlock reads the next block into rd.buf, growing the buffer as data
// arrives so that a huge block_size in a short file does not allocate much.
func (rd *reader) readBlock() (int, error) {
	B := rd.p.blockSize
	if rd.buf == nil {
		rd.buf = make([]byte, min(B, 1<<20))
	}
	n := 0
	for n < B {
		if n == len(rd.buf) {
			rd.buf = append(rd.buf, make([]byte, min(B-n, len(rd.buf)))...)
		}
		k, err := io.ReadFull(rd.src, rd.buf[n:])
		n += k
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return n, io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	return n, nil
}

func (rd *reader) readBlocks() error {
	if rd.parallelDecode() {
		return rd.readBlocksParallel()
	}
	nb := rd.p.numBlocks()
	B := rd.p.blockSize
	// A merged big-endian file's blocks are scanned, taken in and written
	// as the workers of readBlocksParallel do, but on this goroutine: half
	// the instructions of decoding every record with record.
	var j *blockJob
	if !rd.byRecord && rd.p.finalized && !rd.le {
		j = &blockJob{}
		if rd.ord.post == nil {
			rd.ord.post = postOrder(rd.P)
		}
	}
	for k := int64(0); nb < 0 || k < nb; k++ {
		n, err := rd.readBlock()
		if err != nil {
			if err == io.ErrUnexpectedEOF {
				if n == 0 && k > 0 && nb < 0 {
					return errAt(rd.pos, int(k), "the file ends after block %d, which ends with ENDBLOCK: expected another block", k-1)
				}
				return errAt(rd.pos+int64(n), int(k), "truncated block: the file ends %d bytes into a block of %d", n, B)
			}
			return fmt.Errorf("clog2: reading block %d: %w", k, err)
		}
		rd.block = int(k)
		var last bool
		if j != nil {
			j.buf = rd.buf[:B]
			rd.scan(j)
			last, err = rd.takeBlock(j, nil)
		} else {
			last, err = rd.parseBlock(rd.buf[:B])
		}
		if err != nil {
			return err
		}
		rd.nBlock = k + 1
		if last {
			if nb >= 0 && k != nb-1 {
				return errAt(rd.pos, int(k), "ENDLOG in block %d, but commtable_fptr announces %d blocks", k, nb)
			}
			rd.pos += int64(B)
			return nil
		}
		if nb >= 0 && k == nb-1 {
			return errAt(rd.pos+int64(B)-1, int(k), "the last block (commtable_fptr announces %d) ends with ENDBLOCK: expected ENDLOG", nb)
		}
		if rd.p.finalized {
			if rd.prev == nil {
				rd.prev = make([]byte, len(rd.buf))
			}
			rd.prev, rd.buf = rd.buf, rd.prev
		}
		rd.pos += int64(B)
	}
	return nil
}

// parseBlock decodes the records of one block and reports whether it ended
// with ENDLOG.
func (rd *reader) parseBlock(buf []byte) (bool, error) {
	return rd.parseFrom(buf, 0)
}

// parseFrom is parseBlock from the record at offset u of the block.
func (rd *reader) parseFrom(buf []byte, u int) (bool, error) {
	B := len(buf)
	blk := rd.block
	for {
		off := rd.pos + int64(u)
		if u+headerSize > B {
			return false, errAt(off, blk, "%d bytes left in the block, too few for a record header: expected ENDBLOCK or ENDLOG before the block end", B-u)
		}
		rt := rd.i32(buf[u+20:])
		if rt < 0 || rt >= numRecTypes {
			return false, errAt(off, blk, "record type %d out of range 0..%d", rt, numRecTypes-1)
		}
		size := recSize[rt]
		if u+size > B {
			return false, errAt(off, blk, "%s record of %d bytes crosses the block end (%d bytes left)", recNames[rt], size, B-u)
		}
		rec := buf[u : u+size]
		if rt == recEndBlock || rt == recEndLog {
			rd.terminate(buf, u, rt)
			return rt == recEndLog, nil
		}
		if err := rd.record(rec, rt, off, u); err != nil {
			return false, err
		}
		u += size
	}
}

// terminate checks an ENDBLOCK/ENDLOG and the block's filler against what
// MPE's merger writes.
func (rd *reader) terminate(buf []byte, u int, rt int32) {
	rd.blockRecs = append(rd.blockRecs, rd.inBlock)
	rd.inBlock = 0
	if !rd.p.finalized {
		return
	}
	h := buf[u:]
	tm := terminator{time: rd.f64(h[0:]), icomm: rd.i32(h[8:]), rank: rd.i32(h[12:]), thread: rd.i32(h[16:])}
	if rd.endU >= 0 {
		// The previous block's ENDBLOCK is followed by an empty block: not
		// MPE's packing, and no record gives its time.
		rd.packOK = false
		rd.addTerm(int64(rd.block-1), *rd.pendTerm)
		rd.endU, rd.pendTerm = -1, nil
	}
	if rt == recEndLog {
		if math.Float64bits(tm.time) != math.Float64bits(maxTime) || tm.icomm != 0 || tm.rank != 0 || tm.thread != 0 {
			rd.addTerm(int64(rd.block), tm)
		}
		rd.pendTerm = nil
	} else {
		rd.pendTerm = &tm
		rd.endU = u
	}
	end := u + headerSize
	filler := buf[end:]
	zero := allZero(filler)
	stale := zero
	if rd.block > 0 {
		stale = bytes.Equal(filler, rd.prev[end:len(buf)])
	}
	rd.fillStale = rd.fillStale && stale
	rd.fillZero = rd.fillZero && zero
	if !stale {
		if rd.fillerAttr == nil {
			rd.fillerAttr = map[int64]string{}
		}
		if zero {
			rd.fillerAttr[int64(rd.block)] = "zero"
		} else {
			rd.fillerAttr[int64(rd.block)] = fmt.Sprintf("%x", filler)
		}
	}
}

func (rd *reader) addTerm(block int64, tm terminator) {
	var f fields
	f.int("block", block).float("time", tm.time).int("icomm", int64(tm.icomm)).int("rank", int64(tm.rank)).int("thread", int64(tm.thread))
	rd.terms = append(rd.terms, f.String())
}

func allZero(b []byte) bool {
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// world returns the world rank of (icomm, rank) in a record header.
func (rd *reader) world(icomm, rank int32, off int64) (int32, error) {
	if icomm == 0 {
		if rank < 0 || int(rank) >= rd.P {
			return 0, errAt(off, rd.block, "rank %d outside the world of %d ranks", rank, rd.P)
		}
		return rank, nil
	}
	if w, ok := rd.commMap[commKey(icomm, rank)]; ok {
		return w, nil
	}
	return 0, errAt(off, rd.block, "record on communicator %d rank %d, which no earlier COMMEVT maps to a world rank", icomm, rank)
}

func commKey(icomm, rank int32) uint64 { return uint64(uint32(icomm))<<32 | uint64(uint32(rank)) }

func (rd *reader) checkComm(icomm int32, off int64, what string) error {
	if icomm < 0 || icomm >= maxComms {
		return errAt(off, rd.block, "%s communicator id %d out of range 0..%d", what, icomm, maxComms-1)
	}
	rd.usedComm[icomm] = true
	return nil
}

// commEvtID checks the communicator id a COMMEVT creates. MPE's ids are
// 32-bit indexes of its merged communicator table (CLOG_CommLID_t), which
// holds every process's MPI_COMM_SELF besides the world, so a world of
// 65,536 ranks or more has ids beyond 65,535; only the communicators that
// records run on need a Trace.Comms index (see buildComms).
func (rd *reader) commEvtID(icomm int32, off int64) error {
	if icomm < 0 {
		return errAt(off, rd.block, "COMMEVT communicator id %d: expected 0 or more", icomm)
	}
	return nil
}

// record decodes one record at file offset off (block offset u).
func (rd *reader) record(rec []byte, rt int32, off int64, u int) error {
	t := rd.f64(rec[0:])
	icomm, hrank, thread := rd.i32(rec[8:]), rd.i32(rec[12:]), rd.i32(rec[16:])
	if uint32(icomm) >= maxComms {
		return rd.checkComm(icomm, off, "header")
	}
	rd.usedComm[icomm] = true
	if rt == recCommEvt {
		if err := rd.commEvt(rec, off); err != nil {
			return err
		}
	}
	w := hrank
	if icomm != 0 || uint32(hrank) >= uint32(rd.P) {
		var err error
		if w, err = rd.world(icomm, hrank, off); err != nil {
			return err
		}
	}
	rb := rd.rank(w)
	if rd.apply {
		if rt == recTimeShift {
			rb.tdiff = rd.f64(rec[24:])
		}
		t += rb.tdiff
	}
	if rd.p.finalized {
		if u+len(rec)+headerSize >= rd.p.blockSize || rd.endU >= 0 {
			rd.checkPacking(t, u, len(rec))
		}
	}
	rd.inBlock++

	// The event is built in its place; it counts once len covers it.
	i := len(rb.ev)
	if i == cap(rb.ev) {
		rd.drain()
		rd.grow(rb, rd.block, u, 1)
	}
	e := &rb.ev[:i+1][i]
	*e = tracefmt.Event{Time: t, Comm: uint16(icomm), Match: hrank}
	switch rt {
	case recBareEvt:
		e.Kind, e.Peer = provEvent, rd.i32(rec[24:])
	case recCargoEvt:
		e.Kind, e.Peer = provEvent, rd.i32(rec[24:])
		e.SetTextRef(int(rd.cargoText(rec[32:64])))
	case recMsgEvt:
		if err := rd.msgEvt(e, rec, w, off); err != nil {
			return err
		}
	case recCollEvt:
		if err := rd.collEvt(e, rec, icomm, w, off); err != nil {
			return err
		}
	default:
		rd.bookkeeping(e, rec, rt)
	}
	if p := padAt[rt]; thread != 0 || (p != 0 && binary.LittleEndian.Uint32(rec[p:]) != 0) {
		var x rawExtra
		x.thread = thread
		if p != 0 {
			copy(x.pad[:], rec[p:p+4])
		}
		rd.exc[uint64(w)<<32|uint64(i)] = x
	}
	rd.follow(t, w)
	rb.ev = rb.ev[:i+1]
	return nil
}

// orderCheck follows the global record order: sorted stays true while
// records follow MPE's merge order of time-sorted streams; hash covers
// every record's rank. It lives apart from the reader, whose fields the
// decoder writes all the time, so that the two goroutines do not share
// cache lines.
type orderCheck struct {
	sorted bool
	lastT  float64
	lastW  int32
	nrec   int64
	hash   uint64
	order  *orderSpec
	post   []int32
	_      [64]byte
}

// orderMul is the multiplier of the order hash: h = h*orderMul + w + 1
// over the records' world ranks w. A polynomial hash, so that a block's
// hash, computed on its own, joins the file's: H(ab) = H(a)*orderMul^|b| +
// H(b).
const orderMul = 1099511628211

// follow checks the global order with the next record, of time t and world
// rank w, and hashes its rank. The common cases (ties of ranks in MPE's
// merge order once checkOrder has the order's table) are inline.
func (rd *reader) follow(t float64, w int32) {
	o := rd.ord
	o.hash = o.hash*orderMul + uint64(uint32(w)) + 1
	if !o.sorted || !(t > o.lastT || t == o.lastT && (w == o.lastW || o.post != nil && o.post[o.lastW] < o.post[w])) {
		rd.checkOrder(t, w)
	}
	o.lastT, o.lastW = t, w
	o.nrec++
}

// powMul returns orderMul^n.
func powMul(n int) uint64 {
	r, b := uint64(1), uint64(orderMul)
	for ; n > 0; n >>= 1 {
		if n&1 != 0 {
			r *= b
		}
		b *= b
	}
	return r
}

// checkOrder follows the global order: in a merged file of time-sorted
// streams MPE's merge gives non-decreasing times, equal times in the
// post-order of its tree. The first record that breaks this starts a
// stored order (kept only if the merge replay disagrees with the file).
// follow has hashed the rank and handles the common cases itself; it
// calls checkOrder before the event counts in its rank's buffer.
func (rd *reader) checkOrder(t float64, w int32) {
	o := rd.ord
	if o.sorted && o.nrec > 0 && !(t > o.lastT || (t == o.lastT && (w == o.lastW || rd.postBefore(o.lastW, w)))) {
		o.sorted = false
		o.order = &orderSpec{prefix: make([]int64, rd.P)}
		for r := range rd.ranks {
			o.order.prefix[r] = int64(len(rd.ranks[r].ev))
		}
	}
	if !o.sorted {
		if n := len(o.order.runs); n > 0 && o.order.runs[n-1].rank == w {
			o.order.runs[n-1].n++
		} else {
			o.order.runs = append(o.order.runs, orderRun{rank: w, n: 1})
		}
	}
}

// postBefore is postLess through a table of post-order positions, built
// on the first tie.
func (rd *reader) postBefore(a, b int32) bool {
	o := rd.ord
	if o.post == nil {
		o.post = postOrder(rd.P)
	}
	return o.post[a] < o.post[b]
}

// checkPacking compares the block layout with MPE's rule: a record goes
// into the block when used+size+24 < block_size, else ENDBLOCK (stamped
// with the record's time) closes the block.
func (rd *reader) checkPacking(t float64, u, size int) {
	B := rd.p.blockSize
	if u+size+headerSize >= B {
		rd.packOK = false
	}
	if rd.endU >= 0 {
		// First record of a block: the previous block's ENDBLOCK.
		if rd.endU+size+headerSize < B {
			rd.packOK = false
		}
		if tm := rd.pendTerm; tm != nil {
			if math.Float64bits(tm.time) != math.Float64bits(t) || tm.icomm != 0 || tm.rank != 0 || tm.thread != 0 {
				rd.addTerm(int64(rd.block-1), *tm)
			}
		}
		rd.endU, rd.pendTerm = -1, nil
	}
}

// cargoText interns 32 cargo bytes as a text (trailing NULs dropped).
func (rd *reader) cargoText(raw []byte) int32 {
	var k [cargoLen]byte
	copy(k[:], raw)
	if i, ok := rd.cargoIdx[k]; ok {
		return i
	}
	i := rd.text(string(trimNUL(raw)))
	rd.cargoIdx[k] = i
	return i
}

func (rd *reader) text(s string) int32 {
	if i, ok := rd.textIdx[s]; ok {
		return i
	}
	i := int32(len(rd.texts))
	rd.texts = append(rd.texts, s)
	rd.textIdx[s] = i
	return i
}

func (rd *reader) marker(name string) int32 {
	if i, ok := rd.markerIdx[name]; ok {
		return i
	}
	i := int32(len(rd.markers))
	rd.markers = append(rd.markers, tracefmt.MarkerDef{Name: name})
	rd.markerIdx[name] = i
	return i
}

// commEvt registers the (communicator, rank) -> world rank mapping that a
// COMMEVT record announces.
func (rd *reader) commEvt(rec []byte, off int64) error {
	etype, ic, r, wr := rd.i32(rec[24:]), rd.i32(rec[28:]), rd.i32(rec[32:]), rd.i32(rec[36:])
	if etype == commFree || ic < 0 {
		return nil
	}
	if err := rd.commEvtID(ic, off); err != nil {
		return err
	}
	if wr < 0 || int(wr) >= rd.P {
		return errAt(off, rd.block, "COMMEVT world rank %d outside the world of %d ranks", wr, rd.P)
	}
	if r < 0 || int(r) >= rd.P {
		return errAt(off, rd.block, "COMMEVT rank %d in communicator %d outside 0..%d (no communicator is larger than the world)", r, ic, rd.P-1)
	}
	if ic == 0 {
		if r != wr {
			return errAt(off, rd.block, "COMMEVT maps MPI_COMM_WORLD rank %d to world rank %d: expected the same rank", r, wr)
		}
		if etype != commWorldCreate {
			return errAt(off, rd.block, "COMMEVT of type %d creates communicator 0, which CLOG2 reserves for MPI_COMM_WORLD", etype)
		}
	} else if etype == commWorldCreate {
		return errAt(off, rd.block, "COMMEVT WORLD_CREATE for communicator %d: expected 0", ic)
	}
	if _, ok := rd.commEtype[ic]; !ok {
		rd.commEtype[ic] = etype
	}
	if ic != 0 {
		if _, ok := rd.commMap[commKey(ic, r)]; !ok {
			rd.commMap[commKey(ic, r)] = wr
		}
	}
	return nil
}

func (rd *reader) special(v int32) bool {
	for _, name := range []string{"MPI_PROC_NULL", "MPI_ANY_SOURCE", "MPI_ROOT"} {
		if c, ok := rd.consts[name]; ok && c == v {
			return true
		}
	}
	return false
}

func (rd *reader) msgEvt(e *tracefmt.Event, rec []byte, w int32, off int64) error {
	etype, mc, partner, tag, size := rd.i32(rec[24:]), rd.i32(rec[28:]), rd.i32(rec[32:]), rd.i32(rec[36:]), rd.i32(rec[40:])
	if etype != etypeSend && etype != etypeRecv {
		return errAt(off, rd.block, "MSGEVT event type %d: expected -101 (send) or -102 (receive)", etype)
	}
	if size < 0 {
		return errAt(off, rd.block, "negative message size %d", size)
	}
	if rd.apply {
		// A per-process file leaves the message's communicator to the
		// merge, which takes the header's.
		mc = int32(e.Comm)
	} else if err := rd.checkComm(mc, off, "MSGEVT"); err != nil {
		return err
	}
	e.Kind, e.Tag, e.Size = provMsg, tag, int64(size)
	e.SetRequest(int64(mc)<<32 | int64(uint32(partner)))
	if etype == etypeRecv {
		e.Flags = 1
	}
	e.Peer = rd.resolvePeer(mc, partner)
	if mc != 0 && rd.commEtype[mc] == commInterCreate {
		// MPE's merge replaces an intercommunicator by its groups; a
		// message still naming one (a per-process file) has no peer we
		// can tell: it stays a record.
		e.Peer = peerNone
	}
	if e.Peer == peerUnresolved {
		if mc == 0 && partner >= 0 {
			return errAt(off, rd.block, "MSGEVT partner rank %d outside the world of %d ranks", partner, rd.P)
		}
		rd.deferred = append(rd.deferred, deferredRef{rank: w, idx: int32(len(rd.ranks[w].ev)), off: off, blk: rd.block})
	}
	return nil
}

// resolvePeer maps a partner or root rank of communicator c to a world
// rank: peerNone for a CONSTDEF'd special value, peerUnresolved when no
// COMMEVT (seen so far) maps it.
func (rd *reader) resolvePeer(c, r int32) int32 {
	if c == 0 && r >= 0 && int(r) < rd.P {
		return r
	}
	if rd.special(r) {
		return peerNone
	}
	if c != 0 && r >= 0 {
		if w, ok := rd.commMap[commKey(c, r)]; ok {
			return w
		}
	}
	return peerUnresolved
}

func (rd *reader) collEvt(e *tracefmt.Event, rec []byte, hc, w int32, off int64) error {
	etype, root, size := rd.i32(rec[24:]), rd.i32(rec[28:]), rd.i32(rec[32:])
	if size < 0 {
		return errAt(off, rd.block, "negative collective size %d", size)
	}
	e.Kind, e.Tag, e.Size = provColl, etype, int64(size)
	rd.anyColl = true
	e.SetRequest(int64(root))
	e.Peer = peerNone
	if root != -1 {
		e.Peer = rd.resolvePeer(hc, root)
		if e.Peer == peerNone {
			e.Peer = peerNoRank
		}
	}
	if e.Peer == peerUnresolved {
		if hc == 0 && root >= 0 {
			return errAt(off, rd.block, "COLLEVT root rank %d outside the world of %d ranks", root, rd.P)
		}
		rd.deferred = append(rd.deferred, deferredRef{rank: w, idx: int32(len(rd.ranks[w].ev)), off: off, blk: rd.block})
	}
	return nil
}

// bookkeeping turns a record with no MPI meaning into a marker whose text
// lists its fields.
func (rd *reader) bookkeeping(e *tracefmt.Event, rec []byte, rt int32) {
	var f fields
	var name string
	switch rt {
	case recTimeShift:
		name = markTimeShift
		shift := rd.f64(rec[24:])
		if rd.apply {
			shift = -shift // what MPE's merge stores
		}
		f.float("shift", shift)
	case recCommEvt:
		name = markCommEvt
		f.int("etype", int64(rd.i32(rec[24:]))).int("icomm", int64(rd.i32(rec[28:]))).int("rank", int64(rd.i32(rec[32:])))
		f.int("wrank", int64(rd.i32(rec[36:]))).int("rand", int64(rd.i32(rec[40:]))).float("time", rd.f64(rec[44:])).str("host", rec[52:72])
	case recConstDef:
		name = markConstDef
		etype, value := rd.i32(rec[24:]), rd.i32(rec[28:])
		f.int("etype", int64(etype)).int("value", int64(value)).str("name", rec[32:64])
		cname := rec[32:64]
		if i := bytes.IndexByte(cname, 0); i >= 0 {
			cname = cname[:i]
		}
		rd.consts[string(cname)] = value
	case recStateDef:
		name = markStateDef
		d := stateDefRec{id: rd.i32(rec[24:]), start: rd.i32(rec[28:]), end: rd.i32(rec[32:]),
			color: cString(rec[40:64]), name: cString(rec[64:96]), format: cString(rec[96:136])}
		rd.stateDefs = append(rd.stateDefs, d)
		f.int("id", int64(d.id)).int("start", int64(d.start)).int("end", int64(d.end))
		f.str("color", rec[40:64]).str("name", rec[64:96]).str("format", rec[96:136])
	case recEventDef:
		name = markEventDef
		d := eventDefRec{etype: rd.i32(rec[24:]), color: cString(rec[32:56]), name: cString(rec[56:88]), format: cString(rec[88:128])}
		rd.eventDefs = append(rd.eventDefs, d)
		f.int("etype", int64(d.etype)).str("color", rec[32:56]).str("name", rec[56:88]).str("format", rec[88:128])
	case recSrcLoc:
		name = markSrcLoc
		f.int("id", int64(rd.i32(rec[24:]))).int("line", int64(rd.i32(rec[28:]))).str("file", rec[32:72])
	}
	e.Kind, e.Peer = tracefmt.KindMarker, rd.marker(name)
	e.SetTextRef(int(rd.text(f.String())))
}

// cString returns a fixed string field up to its first NUL.
func cString(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// readCommTable reads the communicator table that follows the blocks.
func (rd *reader) readCommTable() error {
	rd.tableOff = rd.pos
	var cnt [4]byte
	n, err := io.ReadFull(rd.src, cnt[:])
	if err != nil {
		if (errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)) && n == 0 && rd.p.numBlocks() < 0 {
			return nil // no table (before 02.42, or an unfinished file)
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return errAt(rd.pos+int64(n), -1, "truncated communicator table: the file ends %d bytes into its 4-byte count", n)
		}
		return fmt.Errorf("clog2: reading the communicator table: %w", err)
	}
	count := rd.i32(cnt[:])
	// A table lists the world and every process's MPI_COMM_SELF at least;
	// each entry takes 40 bytes, so a count beyond what the rest of the
	// file could hold is an error rather than an allocation.
	if count < 1 || count > maxComms+int32(min(rd.P, maxReadRanks)) {
		return errAt(rd.pos, -1, "communicator table of %d entries: expected 1 to %d", count, maxComms+min(rd.P, maxReadRanks))
	}
	rd.pos += 4
	var ent [40]byte
	for i := range count {
		n, err := io.ReadFull(rd.src, ent[:])
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return errAt(rd.pos+int64(n), -1, "truncated communicator table: %d entries announced, the file ends in entry %d", count, i)
			}
			return fmt.Errorf("clog2: reading the communicator table: %w", err)
		}
		e := commEntry{rand: rd.i32(ent[0:]), time: rd.f64(ent[4:]), host: string(trimNUL(ent[12:32])), id: rd.i32(ent[32:]), kind: rd.i32(ent[36:])}
		if e.id < 0 {
			return errAt(rd.pos+32, -1, "communicator table entry %d: id %d: expected 0 or more", i, e.id)
		}
		if i == 0 && e.id != 0 {
			return errAt(rd.pos+32, -1, "communicator table starts with id %d: expected MPI_COMM_WORLD, id 0", e.id)
		}
		rd.table = append(rd.table, e)
		rd.pos += 40
	}
	rd.hasTable = true
	var one [1]byte
	if n, _ := io.ReadFull(rd.src, one[:]); n > 0 {
		return errAt(rd.pos, -1, "unexpected data after the communicator table: expected the end of the file")
	}
	return nil
}
