package clog2

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Write writes t as a merged CLOG-02.44 file in MPE's layout (see the
// package documentation). A trace read by Read is written back byte for
// byte. The trace must be timed: untimed traces need times assigned first
// (tracefmt.AssignTimes).
func Write(w io.Writer, t *tracefmt.Trace) error {
	if !t.Timed {
		return errors.New("clog2: the trace is untimed and CLOG2 stores timestamps: assign times first (a CPU speed, --cpu-speed)")
	}
	if t.Size() == 0 {
		return errors.New("clog2: the trace has no ranks")
	}
	if t.Size() > maxRanks {
		return fmt.Errorf("clog2: %d ranks; CLOG2 files hold at most %d", t.Size(), maxRanks)
	}
	if err := t.Validate(); err != nil {
		return fmt.Errorf("clog2: %w", err)
	}
	t = recordsOf(t)
	wr, err := newWriter(t)
	if err != nil {
		return err
	}
	return wr.write(w)
}

// writer holds what Write works out before emitting records.
type writer struct {
	t     *tracefmt.Trace
	pl    *plan
	cp    *commPlan
	pv    preambleValues
	scale float64
	// needCommEvt marks ranks that get synthesized COMMEVT records.
	needCommEvt []bool
	hasShift    []bool
	anyConstDef bool
	// defined STATEDEF ids and EVENTDEF etypes present as markers.
	stateDefs, eventDefs map[int32]bool
	undefStates          map[int32]bool
	undefEvents          map[int32]bool
	order                *orderSpec
	blockRecs            []int64
	terminators          map[int64]terminator
	fillerZero           bool
	fillers              map[int64][]byte
}

// terminator is a stored ENDBLOCK/ENDLOG header.
type terminator struct {
	time                float64
	icomm, rank, thread int32
}

func newWriter(t *tracefmt.Trace) (*writer, error) {
	P := t.Size()
	wr := &writer{
		t: t, pl: &plan{t: t}, scale: t.Unit.Seconds(),
		needCommEvt: make([]bool, P), hasShift: make([]bool, P),
		stateDefs: map[int32]bool{}, eventDefs: map[int32]bool{},
	}
	var err error
	if wr.undefStates, err = intSet(t, attrUndefStates); err != nil {
		return nil, err
	}
	if wr.undefEvents, err = intSet(t, attrUndefEvents); err != nil {
		return nil, err
	}
	// The marker kinds before the ids: which state ids the trace's own
	// records define decides which states sharing an id get a new one.
	kind := make([]uint8, len(t.Markers))
	for i, m := range t.Markers {
		kind[i] = markerKind(m.Name)
	}
	for r := range t.Ranks {
		hasComm := false
		ev := t.Ranks[r].Events
		for i := range ev {
			e := &ev[i]
			if e.Kind != tracefmt.KindMarker {
				continue
			}
			switch kind[e.Marker()] {
			case mkCommEvt:
				hasComm = true
			case mkTimeShift:
				wr.hasShift[r] = true
			case mkConstDef:
				wr.anyConstDef = true
			case mkStateDef, mkEventDef:
				p, err := parsePayload(t.Text(e))
				if err != nil {
					return nil, wr.markerErr(r, i, err)
				}
				rd := p.reader()
				if kind[e.Marker()] == mkStateDef {
					id, start, end := rd.int32("id"), rd.int32("start"), rd.int32("end")
					wr.stateDefs[id] = true
					wr.pl.zeroDef = wr.pl.zeroDef || id == 0 && start == 0 && end == 0
				} else {
					wr.eventDefs[rd.int32("etype")] = true
				}
				if rd.err != nil {
					return nil, wr.markerErr(r, i, rd.err)
				}
			}
		}
		wr.needCommEvt[r] = !hasComm
	}
	wr.pl.ownIDs = make(map[int32]bool, len(wr.stateDefs)+len(wr.undefStates))
	for _, ids := range []map[int32]bool{wr.stateDefs, wr.undefStates} {
		for id := range ids {
			wr.pl.ownIDs[id] = true
		}
	}
	wr.pl.zeroEvent = wr.eventDefs[0] || wr.undefEvents[0]
	wr.pl.assignIDs()
	// A trace read from CLOG2 is written as it was read: its bookkeeping
	// records are all in its markers. Other traces get MPE's.
	_, fromCLOG2 := t.Attr(attrVersion)
	if fromCLOG2 {
		clear(wr.needCommEvt)
	}
	if wr.cp, err = wr.pl.planComms(wr.needCommEvt); err != nil {
		return nil, err
	}
	if !wr.cp.reproduce {
		for r := range wr.needCommEvt {
			wr.needCommEvt[r] = true
		}
	} else if fromCLOG2 {
		wr.anyConstDef = true // none to add
	}
	if err := wr.preambleValues(); err != nil {
		return nil, err
	}
	if s, ok := t.Attr(attrOrder); ok {
		if o, err := parseOrderSpec(s, P); err == nil {
			wr.order = o
		}
	}
	if s, ok := t.Attr(attrBlocks); ok {
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.ParseInt(f, 10, 64)
			if err != nil || n < 0 {
				wr.blockRecs = nil
				break
			}
			wr.blockRecs = append(wr.blockRecs, n)
		}
	}
	wr.terminators = map[int64]terminator{}
	if s, ok := t.Attr(attrTerminators); ok && s != "" {
		for _, line := range strings.Split(s, "\n") {
			p, err := parsePayload(line)
			if err != nil {
				return nil, fmt.Errorf("clog2: attribute %s: %v", attrTerminators, err)
			}
			rd := p.reader()
			k := rd.int32("block")
			tm := terminator{time: rd.float("time"), icomm: rd.int32("icomm"), rank: rd.int32("rank"), thread: rd.int32("thread")}
			if rd.err != nil {
				return nil, fmt.Errorf("clog2: attribute %s: %v", attrTerminators, rd.err)
			}
			wr.terminators[int64(k)] = tm
		}
	}
	wr.fillers = map[int64][]byte{}
	for _, a := range t.Attrs {
		if a.Key == attrFiller {
			wr.fillerZero = a.Value == "zero"
		}
		if k, ok := strings.CutPrefix(a.Key, attrFiller+"."); ok {
			n, err := strconv.ParseInt(k, 10, 64)
			if err != nil {
				continue
			}
			if a.Value == "zero" {
				wr.fillers[n] = nil
			} else if b, err := hex.DecodeString(a.Value); err == nil {
				wr.fillers[n] = b
			}
		}
	}
	return wr, nil
}

func (wr *writer) markerErr(r, i int, err error) error {
	e := &wr.t.Ranks[r].Events[i]
	return fmt.Errorf("clog2: rank %d event %d: marker %q: %v", r, i, wr.t.Markers[e.Marker()].Name, err)
}

func intSet(t *tracefmt.Trace, key string) (map[int32]bool, error) {
	m := map[int32]bool{}
	s, ok := t.Attr(key)
	if !ok || s == "" {
		return m, nil
	}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.ParseInt(f, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("clog2: attribute %s: %q is not an integer", key, clip(f))
		}
		m[int32(n)] = true
	}
	return m, nil
}

// preambleValues takes the preamble numbers from the trace's attributes,
// or MPE's defaults and the counts of the trace.
func (wr *writer) preambleValues() error {
	t := wr.t
	get := func(key string, def int) (int, error) {
		s, ok := t.Attr(key)
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(s)
		if err != nil || n != int(int32(n)) {
			return 0, fmt.Errorf("clog2: attribute %s=%q is not a 32-bit integer", key, clip(s))
		}
		return n, nil
	}
	userStates, userSolo := 0, 0
	for i := range t.States {
		if id := int(wr.pl.stateID(i)); id >= userStateIDStart {
			userStates = max(userStates, id-userStateIDStart+1)
		}
	}
	for i, k := range wr.pl.mkKind {
		if et := int(wr.pl.mkEtype[i]); k == mkUser && et >= userSoloEventIDStart {
			userSolo = max(userSolo, et-userSoloEventIDStart+1)
		}
	}
	v := &wr.pv
	v.worldSize = t.Size()
	var err error
	for _, f := range []struct {
		dst *int
		key string
		def int
	}{
		{&v.blockSize, "clog2.block_size", defaultBlockSize},
		{&v.numBuffered, "clog2.num_buffered_blocks", defaultBufferedBlocks},
		{&v.threadCount, "clog2.max_thread_count", 1},
		{&v.knownEventStart, "clog2.known_eventID_start", knownEventIDStart},
		{&v.userEventStart, "clog2.user_eventID_start", userEventIDStart},
		{&v.knownSoloStart, "clog2.known_solo_eventID_start", knownSoloEventIDStart},
		{&v.userSoloStart, "clog2.user_solo_eventID_start", userSoloEventIDStart},
		{&v.knownStateCount, "clog2.known_stateID_count", knownStateIDCount},
		{&v.userStateCount, "clog2.user_stateID_count", userStates},
		{&v.knownSoloCount, "clog2.known_solo_eventID_count", 0},
		{&v.userSoloCount, "clog2.user_solo_eventID_count", userSolo},
	} {
		if *f.dst, err = get(f.key, f.def); err != nil {
			return err
		}
	}
	if v.blockSize < minBlockSize || v.blockSize > maxBlockSize || v.blockSize%8 != 0 {
		return fmt.Errorf("clog2: block size %d: expected a multiple of 8 between %d and %d", v.blockSize, minBlockSize, maxBlockSize)
	}
	return nil
}

// write emits the file: a dry run counts the blocks for commtable_fptr,
// then the preamble, blocks and communicator table are written.
func (wr *writer) write(w io.Writer) error {
	n, err := wr.emit(nil)
	if err != nil && (wr.order != nil || wr.blockRecs != nil) {
		// A stored order or block layout that does not fit the trace
		// (edited since it was read) gives way to MPE's rules.
		wr.order, wr.blockRecs = nil, nil
		n, err = wr.emit(nil)
	}
	if err != nil {
		return err
	}
	B := int64(wr.pv.blockSize)
	commtable := preambleLen + n*B
	pre := make([]byte, preambleLen)
	if err := writePreamble(pre, &wr.pv, commtable); err != nil {
		return err
	}
	if _, err := w.Write(pre); err != nil {
		return err
	}
	if _, err := wr.emit(w); err != nil {
		return err
	}
	return wr.writeCommTable(w)
}

func (wr *writer) writeCommTable(w io.Writer) error {
	es := wr.cp.entries
	buf := make([]byte, 4, 4+40*len(es))
	binary.BigEndian.PutUint32(buf, uint32(len(es)))
	var ent [40]byte
	for _, e := range es {
		be.PutUint32(ent[0:], uint32(e.rand))
		be.PutUint64(ent[4:], math.Float64bits(e.time))
		putStr(ent[12:32], e.host)
		be.PutUint32(ent[32:], uint32(e.id))
		be.PutUint32(ent[36:], uint32(e.kind))
		buf = append(buf, ent[:]...)
	}
	_, err := w.Write(buf)
	return err
}

// emit runs the records through MPE's merge into blocks, writing them to
// out (nil: a dry run), and returns the number of blocks.
func (wr *writer) emit(out io.Writer) (int64, error) {
	P := wr.t.Size()
	srcs := make([]source, P)
	streams := make([]*stream, P)
	for r := range P {
		s, err := wr.newStream(int32(r))
		if err != nil {
			return 0, err
		}
		streams[r], srcs[r] = s, s
	}
	bw := &blockWriter{wr: wr, out: out, B: wr.pv.blockSize}
	if out != nil {
		bw.buf = make([]byte, bw.B)
	}
	if wr.order != nil {
		om := newOrderMerger(srcs, wr.order)
		for {
			r, err := om.headRank()
			if err != nil {
				return 0, fmt.Errorf("clog2: stored record order: %v", err)
			}
			if r < 0 {
				break
			}
			if err := bw.put(srcs[r].head()); err != nil {
				return 0, err
			}
			if err := om.pop(r); err != nil {
				return 0, err
			}
		}
	} else {
		root := buildMergeTree(srcs, 0)
		for {
			h := root.headRec()
			if h == nil {
				break
			}
			if err := bw.put(h); err != nil {
				return 0, err
			}
			if err := root.pop(); err != nil {
				return 0, err
			}
		}
	}
	for _, s := range streams {
		if s.err != nil {
			return 0, s.err
		}
	}
	return bw.finish()
}

// blockWriter packs records into blocks as MPE's merger does.
type blockWriter struct {
	wr    *writer
	out   io.Writer
	B     int
	buf   []byte
	used  int
	block int64
	inBlk int64
}

func (bw *blockWriter) put(r *record) error {
	size := recSize[r.typ]
	full := bw.used+size+headerSize >= bw.B
	if recs := bw.wr.blockRecs; recs != nil {
		if bw.block >= int64(len(recs)) {
			return errors.New("clog2: stored block layout has too few blocks")
		}
		full = bw.inBlk >= recs[bw.block]
	}
	if full {
		if err := bw.terminate(recEndBlock, r.time); err != nil {
			return err
		}
	}
	if bw.used+size+headerSize > bw.B {
		return errors.New("clog2: stored block layout overflows a block")
	}
	if bw.buf != nil {
		r.encode(bw.buf[bw.used:])
	}
	bw.used += size
	bw.inBlk++
	return nil
}

// terminate ends the current block with ENDBLOCK (time of the record that
// did not fit, MPE's choice) or ENDLOG and flushes it.
func (bw *blockWriter) terminate(typ int32, t float64) error {
	if bw.buf != nil {
		tm := terminator{time: t}
		if s, ok := bw.wr.terminators[bw.block]; ok {
			tm = s
		}
		putHeader(bw.buf[bw.used:], tm.time, tm.icomm, tm.rank, tm.thread, typ)
		end := bw.used + headerSize
		if f, ok := bw.wr.fillers[bw.block]; ok && f == nil {
			clear(bw.buf[end:])
		} else if ok && len(f) == bw.B-end {
			copy(bw.buf[end:], f)
		} else if bw.wr.fillerZero {
			clear(bw.buf[end:])
		}
		// MPE reuses its block buffer without clearing it, so the rest of
		// the block keeps the previous block's bytes.
		if _, err := bw.out.Write(bw.buf); err != nil {
			return err
		}
	}
	bw.block++
	bw.used, bw.inBlk = 0, 0
	return nil
}

func (bw *blockWriter) finish() (int64, error) {
	if recs := bw.wr.blockRecs; recs != nil {
		// Empty blocks at the end of a stored layout.
		for bw.block < int64(len(recs))-1 && bw.inBlk == recs[bw.block] {
			if err := bw.terminate(recEndBlock, 0); err != nil {
				return 0, err
			}
		}
		if int64(len(recs)) != bw.block+1 || recs[bw.block] != bw.inBlk {
			return 0, errors.New("clog2: stored block layout does not fit the records")
		}
	}
	if err := bw.terminate(recEndLog, maxTime); err != nil {
		return 0, err
	}
	return bw.block, nil
}
