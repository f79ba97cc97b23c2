package tsim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/lineblock"
)

// A tsim file interleaves its ranks' records, so a rank's events cannot
// be read apart without knowing where they are. A Source reads the file
// once to index it (the index pass, parsing every record in blocks on
// every CPU, as Read does): the blocks (chunks) of the file, and for each
// rank the runs of chunks that hold its records. A rank's cursor then
// reads its chunks with ReadAt and decodes them; a chunk decoded for one
// rank hands its records to every rank whose next chunk it is too, so a
// file whose ranks advance together (the usual order: by time) is
// decoded about once, and a file written rank after rank is read as
// ranks ask. A rank that is far ahead of the others in the file keeps at
// most queueCap events waiting; past that it decodes its chunks again
// itself. The chunks are read and decoded in the file's order by a
// goroutine (chunkAhead) a few chunks ahead of the cursors, on the
// second core while the replay works; the cursors resolve the records
// and take their events.
//
// An enter's Match is its leave's index, later in the stream: the index
// pass pairs every rank's states (as the Builder does) and lists the
// enters whose leave is more than lookahead events later or never comes;
// a cursor pairs the others itself within its lookahead, and returns an
// event only once every enter before it is paired. Messages are not
// matched (Match -1 on sends and receives), as in simgridti's Source.

// recordsStart is where a file's records start: the byte offset and the
// line of the first record; at is -1 when the file has none.
type recordsStart struct {
	at   int64
	line int
}

// Source streams a tsim file rank by rank (see tracefmt.Source). The
// events are those Read gives, except that messages are not matched
// (Match is -1 on sends and receives). Its header's States, Markers and
// Texts are complete once the file is indexed: by Prescan, or by the
// first ReadRank. The file's errors are Read's, met by the index pass.
type Source struct {
	f    *os.File
	path string
	size int64
	p    *parser
	hdr  *tracefmt.Trace
	rs   recordsStart
	// indexed is set once the index pass ran (err: its error).
	indexed bool
	err     error
	chunks  []chunkPos
	ranks   []rankCursor
	// lookahead is how far (in events) a rank's cursor pairs enters
	// itself; queueCap how many events a rank keeps waiting.
	lookahead, queueCap int
	// front is the first chunk not yet decoded in the file's order.
	front int32
	// blockSize is the text of a chunk (blockBytes; smaller in tests).
	blockSize int
	blk       decodedBlock
	buf       []byte
	// seq counts the chunks decoded for the cursors; taken lists the
	// ranks that took the last one's events.
	seq   int32
	taken []int32
	// ahead reads and decodes the chunks in the file's order on a
	// goroutine of its own, nil until the first chunk is wanted.
	ahead *chunkAhead
}

// chunkAhead is the goroutine that reads and decodes the chunks the
// cursors will want next, in the file's order, while the replay works:
// it hands them over in done and takes back in free the blocks whose
// events the cursors took; stop ends it.
type chunkAhead struct {
	done, free chan *aheadBlock
	stop       chan struct{}
	exited     chan struct{}
	// err is the read error that ended the goroutine, returned again
	// to every later call (nothing more comes in done).
	err error
}

// aheadBlock is chunk k read (buf) and decoded (d), or its read error.
type aheadBlock struct {
	k   int32
	buf []byte
	d   decodedBlock
	err error
}

// aheadBlocks is the blocks chunkAhead cycles: the one the cursors take
// events from and two decoded ahead, for the chunks a replay step
// wants at once.
const aheadBlocks = 3

// chunkPos is one block of the records: its bytes and its first line.
type chunkPos struct {
	off  int64
	size int32
	line int
}

// chunkSpan is a run of consecutive chunks holding a rank's records.
type chunkSpan struct{ from, to int32 }

// longPair is an enter whose leave is farther than the lookahead, or
// that is never left (leave -1).
type longPair struct{ enter, leave int32 }

// noLeave marks, while an event waits in a cursor, an enter known to be
// never left (returned as Match -1).
const noLeave = -2

// rankCursor is a rank's place in the file and the events it decoded
// and has not returned yet.
type rankCursor struct {
	spans []chunkSpan
	span  int
	// next is the next chunk to decode (-1: none).
	next  int32
	total int32
	long  []longPair
	// longAt is the index in long of the next enter to meet.
	longAt int
	// n is the number of events decoded (the next one's index).
	n int32
	// q holds the events decoded and not returned from q[head]; q[0]
	// is event qBase of the stream; q[head:ready] can be returned.
	q           []tracefmt.Event
	head, ready int
	qBase       int32
	open        pairer
	// seen is the Source's seq of the last chunk decoded that held
	// records of the rank, and take whether the rank took them.
	seen int32
	take bool
}

// OpenSource opens the tsim file at path as a tracefmt.Source. It reads
// the header only; the records are indexed by Prescan or the first
// ReadRank. The errors of the header are Read's.
func OpenSource(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	s := &Source{f: f, path: path, size: st.Size()}
	p := newParser(f, readOptions{})
	p.opts.header = &s.rs
	if _, err := p.run(context.Background()); err != nil {
		f.Close()
		return nil, err
	}
	p.lr = lineReader{}
	s.p = p
	s.hdr = &tracefmt.Trace{Format: "tsim", Unit: p.unit, Timed: p.timed, Comms: p.comms,
		Attrs: p.attrs, Ranks: make([]tracefmt.Rank, p.ranks)}
	s.tables()
	s.lookahead = min(max((1<<20)/p.ranks, 64), 4096)
	s.queueCap = min(max((1<<20)/p.ranks, 64), 1<<13)
	// Chunks hold about 64 bytes (two records) per rank: a rank's
	// records then lie in consecutive chunks, one run, in a file of
	// many ranks in time order (with 256 KiB chunks at 65,536 ranks, a
	// rank had a record in one chunk of eight: a run each).
	s.blockSize = min(max(blockBytes, 64*p.ranks), 16<<20)
	return s, nil
}

// tables sets the header's tables to the parser's, which grow as the
// index pass meets new names.
func (s *Source) tables() {
	s.hdr.States, s.hdr.Markers, s.hdr.Texts = s.p.t.States, s.p.t.Markers, s.p.t.Texts
}

// Header returns the trace's header (see tracefmt.Source).
func (s *Source) Header() *tracefmt.Trace { return s.hdr }

// Close stops the read-ahead and closes the file.
func (s *Source) Close() error {
	if a := s.ahead; a != nil {
		s.ahead = nil
		close(a.stop)
		<-a.exited
	}
	return s.f.Close()
}

// Pairing returns how the trace pairs leaves with enters.
func (s *Source) Pairing() tracefmt.Pairing { return s.p.pairing }

// Prescan indexes the file, calling fn with the events of each run of a
// rank's records in a block of the file, in the file's order (a rank's
// events in its order, first being the index of ev[0] in its stream):
// for a consumer that needs facts of the whole trace before reading it
// rank by rank. Leaves carry the index of the enter they close as Match
// (-1: none); enters and messages Match -1. fn may read Header, whose
// tables hold the names defined so far. Prescan runs once, before any
// ReadRank; an error of fn stops it and is returned.
func (s *Source) Prescan(fn func(rank int, first int32, ev []tracefmt.Event) error) error {
	if s.indexed {
		return errors.New("tsim: Prescan after the file was indexed")
	}
	return s.index(context.Background(), fn)
}

// index runs the index pass (once).
func (s *Source) index(ctx context.Context, fn func(int, int32, []tracefmt.Event) error) error {
	if s.indexed {
		return s.err
	}
	s.indexed = true
	s.err = s.indexPass(ctx, fn)
	s.tables()
	return s.err
}

func (s *Source) indexPass(ctx context.Context, fn func(int, int32, []tracefmt.Event) error) error {
	p := s.p
	s.ranks = make([]rankCursor, p.ranks)
	if s.rs.at < 0 {
		return nil
	}
	// Line numbers of a block count from the first record's line.
	base := s.rs.line - 1
	sr := io.NewSectionReader(s.f, s.rs.at, max(s.size-s.rs.at, 0))
	o := lineblock.Options{BlockSize: s.blockSize, MaxLine: maxLine}
	rf := &p.rf
	err := lineblock.Run(ctx, sr, o, func(b *lineblock.Block, d *decodedBlock) error {
		return rf.decodeBlock(b, d)
	}, func(b *lineblock.Block, d *decodedBlock) error {
		first := base + b.Line
		return s.indexBlock(b, d, first, fn)
	})
	if le := (*lineblock.Error)(nil); errors.As(err, &le) {
		if err = le.Err; errors.Is(err, lineblock.ErrLineTooLong) {
			err = errLineTooLong{}
		}
		return readError(base+le.Line, err)
	}
	if err != nil {
		return err
	}
	withEvents := 0
	for r := range s.ranks {
		c := &s.ranks[r]
		if c.total > 0 {
			withEvents++
		}
		// Enters never left are paired by no cursor: listed.
		c.open.each(func(i int32) { c.long = append(c.long, longPair{i, -1}) })
		slices.SortFunc(c.long, func(a, b longPair) int { return int(a.enter - b.enter) })
		c.open = pairer{}
		c.next = -1
		if len(c.spans) > 0 {
			c.next = c.spans[0].from
		}
	}
	if err := tracefmt.CheckWorld(p.ranks, withEvents); err != nil {
		return &ParseError{Line: p.ranksLine, Col: 1, Msg: "ranks " + strconv.Itoa(p.ranks) + ": " + err.Error()}
	}
	return nil
}

// indexBlock notes a decoded block of the index pass: its chunk, each
// rank's records in it, the states they pair.
func (s *Source) indexBlock(b *lineblock.Block, d *decodedBlock, first int, fn func(int, int32, []tracefmt.Event) error) error {
	p := s.p
	if err := s.resolveBlock(b, d, first); err != nil {
		return err
	}
	s.tables() // for fn: the names defined so far
	chunk := int32(len(s.chunks))
	s.chunks = append(s.chunks, chunkPos{off: s.rs.at + b.Offset, size: int32(len(b.Data)), line: first})
	for k := range d.runs {
		run := &d.runs[k]
		ev := d.events(run)
		c := &s.ranks[run.rank]
		if int64(c.total)+int64(len(ev)) > maxRankEvents {
			return s.tooMany(b, first, run.rank)
		}
		if k := len(c.spans); k > 0 && c.spans[k-1].to == chunk-1 {
			c.spans[k-1].to = chunk
		} else {
			if len(c.spans) == cap(c.spans) {
				// Room for four at once: a rank of a file in time
				// order has a few, and growing from one cost three
				// allocations a rank.
				c.spans = slices.Grow(c.spans, max(len(c.spans), 4))
			}
			c.spans = append(c.spans, chunkSpan{chunk, chunk})
		}
		i0 := c.total
		for j := range ev {
			e := &ev[j]
			i := i0 + int32(j)
			e.Match = -1
			switch e.Kind {
			case tracefmt.KindEnter:
				c.open.push(e.State(), i)
			case tracefmt.KindLeave:
				if k := c.open.pop(p.pairing, e.State()); k >= 0 {
					e.Match = k
					if int(i-k) > s.lookahead {
						c.long = append(c.long, longPair{k, i})
					}
				}
			}
		}
		c.total += int32(len(ev))
		if fn != nil {
			if err := fn(int(run.rank), i0, ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// resolveBlock groups a decoded block's events by rank and resolves
// the records the workers left to the parser, in file order, as Read's
// applyBlock; a line that
// fails is parsed again alone, which words its error.
func (s *Source) resolveBlock(b *lineblock.Block, d *decodedBlock, first int) error {
	d.group()
	return s.resolveRecs(b, d, first)
}

// resolveRecs resolves the records the workers left to the parser, in
// file order (see resolveBlock), the block grouped or not.
func (s *Source) resolveRecs(b *lineblock.Block, d *decodedBlock, first int) error {
	p := s.p
	for i := range d.recs {
		br := &d.recs[i]
		if br.decoded {
			if err := p.resolveRec(&br.r); err == nil {
				d.setEvent(br)
				continue
			}
		}
		return s.lineError(b.Data[br.lo:br.hi], first+int(br.no))
	}
	return nil
}

// lineError returns the error of the record line numbered no, as the
// serial read gives it.
func (s *Source) lineError(line []byte, no int) error {
	p := s.p
	line = trimCR(line)
	p.s = lineScanner{line: line, no: no}
	p.s.more()
	var r rec
	if err := p.rf.decode(&p.s, &r); err != nil {
		if r.named {
			if err := p.resolve(&r); err != nil {
				return err
			}
		}
		return err
	}
	if err := p.resolveRec(&r); err != nil {
		return err
	}
	return fmt.Errorf("tsim: line %d: the record failed in a block but not alone", no)
}

// tooMany returns the error of the record that gives rank more than
// maxRankEvents records, in block b.
func (s *Source) tooMany(b *lineblock.Block, first int, rank int32) error {
	n := int64(s.ranks[rank].total)
	var err error
	b.Lines(func(no int, _ int64, line []byte) error {
		sc := lineScanner{line: line, no: first + no - b.Line}
		if !sc.more() {
			return nil
		}
		var r rec
		if s.p.rf.decodeFast(line, sc.pos, &r) || s.p.rf.decode(&sc, &r) == nil {
			if r.rank == rank {
				if n == maxRankEvents {
					err = sc.errAt(int(r.rankOff), "expected at most %d records per rank, got more on rank %d", maxRankEvents, rank)
					return err
				}
				n++
			}
		}
		return nil
	})
	if err == nil {
		err = fmt.Errorf("tsim: rank %d has more than %d records", rank, maxRankEvents)
	}
	return err
}

// ReadRank fills dst with rank r's next events (see tracefmt.Source).
func (s *Source) ReadRank(r int, dst []tracefmt.Event) (int, error) {
	if err := s.index(context.Background(), nil); err != nil {
		return 0, err
	}
	if r < 0 || r >= len(s.ranks) {
		return 0, fmt.Errorf("tsim: rank %d outside the world of %d ranks", r, len(s.ranks))
	}
	c := &s.ranks[r]
	n := 0
	for n < len(dst) {
		if c.head < c.ready {
			k := copy(dst[n:], c.q[c.head:c.ready])
			for j := n; j < n+k; j++ {
				if dst[j].Match == noLeave {
					dst[j].Match = -1
				}
			}
			n += k
			c.head += k
			if c.head == len(c.q) && c.next < 0 {
				// The rank is done: its buffers go.
				*c = rankCursor{next: -1, total: c.total, n: c.n}
			}
			continue
		}
		if c.next < 0 {
			if c.ready < len(c.q) {
				// Enters the index did not list and no leave closed:
				// the file changed since it was indexed.
				return n, fmt.Errorf("tsim: %s: rank %d: enter at event %d not left within %d events: the file changed since it was indexed", s.path, r, c.qBase+int32(c.ready), s.lookahead)
			}
			break
		}
		if k := c.next; k >= s.front {
			// Chunks are decoded in the file's order, each for every
			// rank it holds records of: a rank whose records skip a
			// chunk finds it decoded when it gets there.
			for ; s.front <= k; s.front++ {
				if err := s.decodeChunk(s.front, r); err != nil {
					return n, err
				}
			}
		} else if err := s.decodeChunk(k, r); err != nil {
			// A rank behind the others (it had queueCap events
			// waiting when its chunk was decoded) decodes it again.
			return n, err
		}
	}
	if n == 0 && len(dst) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

// compact drops the returned events from the front of q.
func (c *rankCursor) compact() {
	if c.head == 0 {
		return
	}
	if c.head == len(c.q) || c.head >= cap(c.q)/2 {
		k := copy(c.q, c.q[c.head:])
		c.q = c.q[:k]
		c.qBase += int32(c.head)
		c.ready -= c.head
		c.head = 0
	}
}

// decodeChunk decodes chunk k of the file for rank want, handing every
// rank whose next chunk it is its records (but those that already keep
// queueCap events waiting, except want). The chunk at the front comes
// from the read-ahead; a chunk behind it is read and decoded again here.
func (s *Source) decodeChunk(k int32, want int) error {
	ch := s.chunks[k]
	if k < s.front {
		if err := s.readChunk(k, &s.buf, &s.blk); err != nil {
			return err
		}
		return s.takeChunk(k, want, s.buf[:ch.size], &s.blk)
	}
	if s.ahead == nil {
		s.startAhead(k)
	}
	if s.ahead.err != nil {
		return s.ahead.err
	}
	a := <-s.ahead.done
	if a.err == nil && a.k != k {
		a.err = fmt.Errorf("tsim: %s: chunk %d read ahead where chunk %d was wanted", s.path, a.k, k)
	}
	if a.err != nil {
		s.ahead.err = a.err
		return a.err
	}
	err := s.takeChunk(k, want, a.buf[:ch.size], &a.d)
	s.ahead.free <- a
	return err
}

// startAhead starts reading and decoding the chunks from chunk from on,
// in the file's order, on a goroutine of its own: the second core
// decodes while the replay works (the index pass decoded the file on
// every core; this is the second decode, which ran inline before).
func (s *Source) startAhead(from int32) {
	a := &chunkAhead{done: make(chan *aheadBlock, aheadBlocks), free: make(chan *aheadBlock, aheadBlocks),
		stop: make(chan struct{}), exited: make(chan struct{})}
	for range aheadBlocks {
		a.free <- &aheadBlock{}
	}
	s.ahead = a
	go func() {
		defer close(a.exited)
		for k := from; int(k) < len(s.chunks); k++ {
			var b *aheadBlock
			select {
			case b = <-a.free:
			case <-a.stop:
				return
			}
			b.k, b.err = k, s.readChunk(k, &b.buf, &b.d)
			select {
			case a.done <- b:
			case <-a.stop:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
}

// readChunk reads chunk k into *buf (grown as needed) and decodes it
// into d. It touches no state of the Source but the file, which it
// reads with ReadAt: the read-ahead calls it.
func (s *Source) readChunk(k int32, buf *[]byte, d *decodedBlock) error {
	ch := s.chunks[k]
	if cap(*buf) < int(ch.size) {
		*buf = make([]byte, ch.size)
	}
	b := (*buf)[:ch.size]
	if n, err := s.f.ReadAt(b, ch.off); n < len(b) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("tsim: %s: line %d: reading the records again: %w", s.path, ch.line, err)
	}
	return s.p.rf.decodeBlock(&lineblock.Block{Data: b, Line: 1}, d)
}

// takeChunk resolves chunk k, read (buf) and decoded (d), and hands its
// records to the ranks whose next chunk it is (see decodeChunk).
func (s *Source) takeChunk(k int32, want int, buf []byte, d *decodedBlock) error {
	b := lineblock.Block{Data: buf, Line: 1}
	if err := s.resolveRecs(&b, d, s.chunks[k].line); err != nil {
		return err
	}
	// The events in file order, each to its rank's queue, without
	// grouping them by rank first (at 65,536 ranks a rank has one or
	// two events in a chunk: the grouping cost more than the runs it
	// saved). A rank takes the chunk or not at its first event in it,
	// as it stands before the chunk.
	s.seq++
	seq, rule := s.seq, s.p.pairing
	taken := s.taken[:0]
	for i, r := range d.ranks {
		c := &s.ranks[r]
		if c.seen != seq {
			c.seen = seq
			c.take = c.next == k && (int(r) == want || len(c.q)-c.head <= s.queueCap)
			if c.take {
				// A rank other ranks' reads feed may never decode
				// a chunk itself: its returned events are dropped
				// here.
				c.compact()
				taken = append(taken, r)
			}
		}
		if c.take {
			c.add(&d.flat[i], rule)
		}
	}
	for _, r := range taken {
		c := &s.ranks[r]
		c.settle()
		c.advance(k)
	}
	s.taken = taken
	return nil
}

// add appends an event of the rank's next chunk, pairing its states.
func (c *rankCursor) add(ev *tracefmt.Event, rule tracefmt.Pairing) {
	if len(c.q) == cap(c.q) {
		// The queue doubles, from 64 events, but never past what the
		// rank has left: a rank of 30 events takes room for 30, once.
		left := len(c.q) + int(c.total-c.n)
		q := make([]tracefmt.Event, len(c.q), max(len(c.q)+1, min(left, max(2*cap(c.q), 64))))
		copy(q, c.q)
		c.q = q
	}
	c.q = append(c.q, *ev)
	e := &c.q[len(c.q)-1]
	i := c.n
	c.n++
	e.Match = -1
	switch e.Kind {
	case tracefmt.KindEnter:
		if c.longAt < len(c.long) && c.long[c.longAt].enter == i {
			if e.Match = c.long[c.longAt].leave; e.Match < 0 {
				e.Match = noLeave
			}
			c.longAt++
		}
		c.open.push(e.State(), i)
	case tracefmt.KindLeave:
		if k := c.open.pop(rule, e.State()); k >= 0 {
			e.Match = k
			if at := int(k - c.qBase); at >= c.head && at < len(c.q)-1 && c.q[at].Match == -1 {
				c.q[at].Match = i
			}
		}
	}
}

// settle moves the rank's ready mark past the events it can return: up
// to the first enter not paired yet.
func (c *rankCursor) settle() {
	for c.ready < len(c.q) {
		if e := &c.q[c.ready]; e.Kind == tracefmt.KindEnter && e.Match == -1 {
			break
		}
		c.ready++
	}
}

// advance moves the rank past chunk k, which it has decoded.
func (c *rankCursor) advance(k int32) {
	if k < c.spans[c.span].to {
		c.next = k + 1
		return
	}
	c.span++
	c.next = -1
	if c.span < len(c.spans) {
		c.next = c.spans[c.span].from
	}
	if c.next < 0 {
		// The end of the rank: an enter still waiting was never left
		// within the file (the index lists those; a file changed since
		// would leave it).
		c.open = pairer{}
	}
}

// pairer holds a rank's open enters, paired with leaves as the Builder
// pairs them (the newest open enter of the leave's state: a stack per
// state; the oldest: a queue). The first few open at once are kept in
// few, in the order they were entered, without an allocation: a rank of
// a typical trace has one or two calls open, and per-state lists of its
// own cost 65,536 ranks two allocations each, in both passes, and the
// collector's time to scan them. More than len(few) open at once move
// to the per-state lists, for good.
type pairer struct {
	few   [4]openEnter
	n     int32
	lists []openList
}

// openEnter is an open enter: its state and index in the stream.
type openEnter struct {
	st tracefmt.StateID
	i  int32
}

type openList struct {
	idx  []int32
	head int
}

func (p *pairer) push(st tracefmt.StateID, i int32) {
	if p.lists == nil {
		if int(p.n) < len(p.few) {
			p.few[p.n] = openEnter{st, i}
			p.n++
			return
		}
		// The enters open so far go to their lists in their order.
		for _, o := range p.few[:p.n] {
			p.pushList(o.st, o.i)
		}
		p.n = 0
	}
	p.pushList(st, i)
}

// pushList appends enter i to the list of state st.
func (p *pairer) pushList(st tracefmt.StateID, i int32) {
	if int(st) >= len(p.lists) {
		// Room for a few states at once: a rank enters several, and
		// growing the lists one state at a time cost as many copies.
		n := max(int(st)+1, 2*len(p.lists), 4)
		p.lists = slices.Grow(p.lists, n-len(p.lists))[:n]
	}
	l := &p.lists[st]
	l.idx = append(l.idx, i)
}

// pop returns the enter a leave of state st closes, or -1.
func (p *pairer) pop(rule tracefmt.Pairing, st tracefmt.StateID) int32 {
	if p.lists == nil {
		few := p.few[:p.n]
		j := -1
		if rule == tracefmt.PairOldest {
			for k := range few {
				if few[k].st == st {
					j = k
					break
				}
			}
		} else {
			for k := len(few) - 1; k >= 0; k-- {
				if few[k].st == st {
					j = k
					break
				}
			}
		}
		if j < 0 {
			return -1
		}
		i := few[j].i
		// No call: most often j is the last (a stack), or the
		// first of one or two (a queue).
		for k := j + 1; k < len(few); k++ {
			few[k-1] = few[k]
		}
		p.n--
		return i
	}
	if int(st) >= len(p.lists) {
		return -1
	}
	l := &p.lists[st]
	if l.head == len(l.idx) {
		return -1
	}
	var i int32
	if rule == tracefmt.PairOldest {
		i = l.idx[l.head]
		l.head++
	} else {
		i = l.idx[len(l.idx)-1]
		l.idx = l.idx[:len(l.idx)-1]
	}
	if l.head == len(l.idx) {
		l.idx, l.head = l.idx[:0], 0
	}
	return i
}

// each calls fn with every open enter.
func (p *pairer) each(fn func(int32)) {
	for _, o := range p.few[:p.n] {
		fn(o.i)
	}
	for _, l := range p.lists {
		for _, i := range l.idx[l.head:] {
			fn(i)
		}
	}
}
