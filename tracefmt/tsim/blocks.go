package tsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/lineblock"
)

// Once the first record is read, the rest of a large input is parsed in
// blocks of lines on every CPU when the process has more than one:
// workers cut a block into lines and decode each record (recordFormat's
// decodeFast, else decode: field splitting, number parsing, argument
// checks, most of the work), and the parser applies the decoded records in file order
// (parser.apply: state, marker and text names, the per-rank buffers).
// A line a worker could not decode, or whose names the parser could not
// resolve, is parsed again in order by the serial path, which words its
// error: the trace, the errors and their positions are those of the
// serial read.

// blockBytes is the text of a block: about 7,000 typical lines, whose
// decoded records (~150 B each) cost ~1 MB a block; with 2×workers
// blocks in flight the read holds a few MB whatever the file's size.
const blockBytes = 256 << 10

// blockRec is a line of a block the parser applies itself, in file
// order: a record naming what only the lines before resolve (a state
// not in the header, a marker, an index, a text), or one the worker
// could not decode.
type blockRec struct {
	// r is the decoded line (decoded): its names and text are bytes
	// of the block, valid while the block is consumed.
	r       rec
	no      int32 // line number, from the block's first
	lo, hi  int32 // the line's text in the block
	decoded bool
	// idx places a decoded record's event: its index in d.flat while
	// the block is decoded, then in d.sorted (see decodedBlock.group).
	idx int32
}

// decodedBlock is what a worker leaves of a block: each rank's events
// in file order, and the lines the parser applies itself.
type decodedBlock struct {
	// runs are the ranks of the block, in order of first record, and
	// their events, slices of sorted; the events of decoded recs are
	// set by the parser (setEvent).
	runs []rankRun
	recs []blockRec
	// runOf is the index in runs of a rank's run plus one (0: none
	// yet), for the ranks up to the highest in the block; it is all 0
	// between blocks.
	runOf []int32
	last  int32 // the last line's number, from the block's first
	// lastState is the index in the header's states of the last name
	// the worker found there for an enter ([0]) and for a leave ([1]).
	lastState [2]int
	// flat holds the block's events in file order, and ranks their
	// ranks; group sorts them by rank, stably, into sorted. Appending
	// to one array each, whatever the ranks, costs the same at 64
	// ranks as at 65,536, where a run of its own for each rank grew a
	// slice of one or two events per rank and block.
	flat   []tracefmt.Event
	ranks  []int32
	sorted []tracefmt.Event
	// grouped says group ran: ranks then hold run indices, and the
	// decoded recs' indices are into sorted.
	grouped bool
}

// rankRun is a rank's events in a decoded block: sorted[off:off+n]
// (decodedBlock.events). It holds no pointer, so that filling the runs
// of 65,536 ranks costs no write barriers.
type rankRun struct {
	rank int32
	// at is where group puts the run's next event in sorted.
	off, n, at int32
}

// events returns the events of run.
func (d *decodedBlock) events(run *rankRun) []tracefmt.Event {
	return d.sorted[run.off : run.off+run.n : run.off+run.n]
}

// setEvent sets the event of a decoded record the parser resolved.
func (d *decodedBlock) setEvent(br *blockRec) {
	if d.grouped {
		d.sorted[br.idx] = br.r.e
	} else {
		d.flat[br.idx] = br.r.e
	}
}

// readOptions tune how Read parses; the zero value is Read's choice.
type readOptions struct {
	// workers decode blocks (0: GOMAXPROCS); with one, the input is
	// read line by line on the calling goroutine.
	workers int
	// blockSize is the text of a block (0: blockBytes). A positive
	// value also pipelines inputs too small to be worth it, for tests.
	blockSize int
	// noCount skips the count pass of an input that could be read
	// twice (count.go), for tests of the reading in chunks.
	noCount bool
	// header, when set, stops the read at the first record (or the end
	// of the input) and says where the records start: OpenSource reads
	// the header so.
	header *recordsStart
}

// pipelined reports whether the rest of the input, after the first
// record, is parsed in blocks: with a second CPU, for an input not
// known to be small (it fills the line reader's first buffer and has
// not ended), or any input when the options set a block size.
func (p *parser) pipelined() bool {
	workers := p.opts.workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	lr := &p.lr
	switch {
	case workers < 2 || lr.err != nil && lr.start == lr.end:
		return false
	case p.opts.blockSize > 0:
		return true
	}
	// A reader may return less than it has: formats.Open's first read
	// gives only the bytes it sniffed, which left every file it opened
	// on the serial path. Reading on until the buffer is full tells a
	// small input from a short read.
	lr.fill()
	return lr.err == nil
}

// readBlocks parses every line after the current one in blocks.
func (p *parser) readBlocks(ctx context.Context) error {
	lr := &p.lr
	// The rest of the input: what lr has buffered, then its reader.
	var rest io.Reader = bytes.NewReader(lr.buf[lr.start:lr.end])
	if lr.err == nil {
		rest = io.MultiReader(rest, lr.r)
	}
	readErr := lr.err
	lr.start, lr.scanned, lr.err = lr.end, lr.end, io.EOF
	base := lr.line // the first block's line 1 is base+1
	size := p.opts.blockSize
	if size == 0 {
		size = blockBytes
	}
	o := lineblock.Options{BlockSize: size, MaxLine: maxLine, Workers: p.opts.workers}
	rf := &p.rf
	err := lineblock.Run(ctx, rest, o, func(b *lineblock.Block, d *decodedBlock) error {
		return rf.decodeBlock(b, d)
	}, func(b *lineblock.Block, d *decodedBlock) error {
		first := base + b.Line
		if err := p.applyBlock(b, d, first); err != nil {
			return err
		}
		lr.line = first + int(d.last)
		return nil
	})
	if le := (*lineblock.Error)(nil); errors.As(err, &le) {
		lr.line = base + le.Line - 1
		if err = le.Err; errors.Is(err, lineblock.ErrLineTooLong) {
			err = errLineTooLong{}
		}
		return readError(lr.line+1, err)
	}
	if err == nil && readErr != nil && readErr != io.EOF {
		return readError(lr.line+1, readErr)
	}
	return err
}

// decodeBlock cuts b into lines, leaving out blank and comment ones,
// decodes each and adds its event to its rank's run, resolved where the
// header tells the state; the other lines are left in d.recs.
func (rf *recordFormat) decodeBlock(b *lineblock.Block, d *decodedBlock) error {
	for i := range d.runs {
		d.runOf[d.runs[i].rank] = 0
	}
	d.runs, d.recs = d.runs[:0], d.recs[:0]
	d.flat, d.ranks, d.grouped = d.flat[:0], d.ranks[:0], false
	if cap(d.flat) == 0 {
		// Room for the lines of a typical block (records of about
		// 32 bytes) at once, rather than the garbage of doubling.
		n := len(b.Data)/28 + 1
		d.flat, d.ranks = make([]tracefmt.Event, 0, n), make([]int32, 0, n)
	}
	// The lines as Block.Lines cuts them, in a loop of its own: no call
	// a line.
	var r rec
	data := b.Data
	// no counts the lines: the last one's number is d.last.
	no := int32(0)
	for pos := 0; pos < len(data); no++ {
		line := data[pos:]
		lo := int32(pos)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
			pos += i + 1
		} else {
			pos = len(data)
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		// A record's line nearly always starts with its time: the
		// scanner's look for blanks and comments is for the others.
		at := 0
		if len(line) == 0 || line[0] <= ' ' || line[0] == '#' {
			s := lineScanner{line: line}
			if !s.more() {
				continue
			}
			at = s.pos
		}
		// The record is set field by field, not zeroed whole:
		// decodeFast sets every field but the name and text, which the
		// flags cleared here make it ignore, and state, set for the
		// enters and leaves only.
		r.named, r.hasText, r.state = false, false, false
		ok := rf.decodeFast(line, at, &r)
		if !ok {
			r = rec{}
			s := lineScanner{line: line, pos: at}
			ok = rf.decode(&s, &r) == nil
		}
		done := ok && rf.headerDone(&r, &d.lastState)
		var idx int32
		if ok {
			idx = int32(len(d.flat))
			d.flat = append(d.flat, r.e)
			d.ranks = append(d.ranks, r.rank)
		}
		if !done {
			d.recs = append(d.recs, blockRec{r: r, no: no, lo: lo, hi: lo + int32(len(line)), decoded: ok, idx: idx})
		}
	}
	if no > 0 {
		d.last = no - 1
	}
	return nil
}

// group sorts the block's events by rank into d.sorted (once), each rank's in
// file order, and cuts the runs from it: one pass counts each rank's
// events (ranks in order of first record), one places them. The decoded
// recs' indices move with their events.
func (d *decodedBlock) group() {
	if d.grouped {
		return
	}
	d.grouped = true
	for i, rk := range d.ranks {
		r := int(rk)
		if r >= len(d.runOf) {
			d.runOf = slices.Grow(d.runOf, r+1-len(d.runOf))[:r+1]
		}
		k := d.runOf[r]
		if k == 0 {
			d.runs = append(d.runs, rankRun{rank: rk})
			k = int32(len(d.runs))
			d.runOf[r] = k
		}
		d.runs[k-1].n++
		// The run's index, for the pass that places the events.
		d.ranks[i] = k - 1
	}
	n := len(d.flat)
	if cap(d.sorted) < n {
		d.sorted = make([]tracefmt.Event, n, cap(d.flat))
	}
	d.sorted = d.sorted[:n]
	var off int32
	for k := range d.runs {
		run := &d.runs[k]
		run.at, run.off = off, off
		off += run.n
	}
	// The next decoded rec, by its event's index in flat.
	ri, next := d.nextDecoded(0)
	for i, k := range d.ranks {
		run := &d.runs[k]
		d.sorted[run.at] = d.flat[i]
		if int32(i) == next {
			d.recs[ri].idx = run.at
			ri, next = d.nextDecoded(ri + 1)
		}
		run.at++
	}
}

// nextDecoded returns the first decoded rec from d.recs[i] on and the
// index in d.flat of its event (-1: none).
func (d *decodedBlock) nextDecoded(i int) (int, int32) {
	for ; i < len(d.recs); i++ {
		if d.recs[i].decoded {
			return i, d.recs[i].idx
		}
	}
	return i, -1
}

// headerDone is resolveHeader with its common answers first, without a
// call: a record without text, of a kind that names nothing or naming a
// state decodeFast found in the header (r.state, set for the record
// decoded last), is done; resolveHeader judges the others.
func (rf *recordFormat) headerDone(r *rec, lasts *[2]int) bool {
	// The kinds from send to compute name nothing (the kinds wrap).
	return !r.hasText && (r.state || r.e.Kind-tracefmt.KindSend <= tracefmt.KindCompute-tracefmt.KindSend || rf.resolveHeader(r, lasts))
}

// resolveHeader resolves what a decoded record needs with what the
// header defines, reporting whether nothing is left for the parser: a
// record with no name and no text, or an enter or leave naming a state
// of the header by its name (stateRef's answer, which no later line
// changes).
func (rf *recordFormat) resolveHeader(r *rec, lasts *[2]int) bool {
	if r.hasText {
		return false
	}
	switch r.e.Kind {
	case tracefmt.KindMarker:
		return false
	case tracefmt.KindEnter, tracefmt.KindLeave:
		if r.state {
			return true // decodeFast found the name in the header
		}
	default:
		return true
	}
	nm := r.name
	if !nm.quoted && allDigits(nm.b) {
		return false // an index, judged against the states so far
	}
	if rf.stateIDs != nil {
		id, ok := rf.stateIDs[string(nm.b)]
		r.e.Peer = int32(id)
		return ok
	}
	// A few states: comparing names costs less than hashing one, the
	// last ones found first: the kind's (ranks in turn enter one state
	// and leave another), then the other's (a leave follows its enter).
	k := 0
	if r.e.Kind == tracefmt.KindLeave {
		k = 1
	}
	last := &lasts[k]
	hs := rf.headerStates
	for _, i := range [2]int{*last, lasts[1-k]} {
		if i < len(hs) && hs[i].name == string(nm.b) {
			*last = i
			r.e.Peer = int32(hs[i].id)
			return true
		}
	}
	for i := range hs {
		if hs[i].name == string(nm.b) {
			*last = i
			r.e.Peer = int32(hs[i].id)
			return true
		}
	}
	return false
}

// applyBlock adds the records of a decoded block to their ranks' events
// in file order: the ones left to it one by one (as the serial read
// would), then the block's events in file order, each to its rank's.
// Where a rank would exceed its limit, the block is parsed line by line
// instead, which words the error.
func (p *parser) applyBlock(b *lineblock.Block, d *decodedBlock, first int) error {
	if p.applied > maxRankEvents-len(d.flat) {
		// Some rank may pass the limit in this block: judged by rank.
		d.group()
		for _, run := range d.runs {
			r := int(run.rank)
			p.takeBack(r)
			if r < len(p.pending) && p.pending[r].n > maxRankEvents-int(run.n) {
				return p.applyLines(b, first)
			}
		}
	}
	for i := range d.recs {
		br := &d.recs[i]
		if br.decoded {
			if err := p.resolveRec(&br.r); err == nil {
				d.setEvent(br)
				continue
			}
		}
		// The serial path parses the line again and words the error
		// (a worker's decoding, or resolving, failed: so does it).
		p.s = lineScanner{line: b.Data[br.lo:br.hi], no: first + int(br.no)}
		p.s.more()
		if err := p.record(); err != nil {
			return err
		}
		return fmt.Errorf("tsim: line %d: the record failed in a block but not alone", p.s.no)
	}
	if d.grouped {
		for k := range d.runs {
			run := &d.runs[k]
			p.takeBack(int(run.rank))
			p.grow(int(run.rank))
			p.pending[run.rank].addAll(d.events(run), p.slab(int(run.rank)))
		}
	} else {
		// One event at a time, as they come: at 65,536 ranks a rank
		// has one or two events in a block, and runs of them cost more
		// than they save. Each goes where its rank's fill slot says.
		fill, arena := p.fill, p.arena
		for i, r := range d.ranks {
			if int(r) < len(fill) {
				// Nearly always: room in the rank's counted stream.
				if s := &fill[r]; s.at < s.end {
					arena[s.at] = d.flat[i]
					s.at++
					continue
				}
			}
			p.takeBack(int(r))
			p.add(int(r), &d.flat[i])
		}
	}
	p.applied += len(d.flat)
	return nil
}

// applyLines parses a block's lines one by one in file order, as the
// serial read does.
func (p *parser) applyLines(b *lineblock.Block, first int) error {
	return b.Lines(func(no int, _ int64, line []byte) error {
		p.s = lineScanner{line: line, no: first + no - b.Line}
		if !p.s.more() {
			return nil
		}
		return p.record()
	})
}
