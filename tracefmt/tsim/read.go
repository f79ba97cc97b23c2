package tsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/tracesim/tracesim/tracefmt/decimal"
	"io"
	"maps"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/internal/hugepage"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// Version is the version of the format this package reads and writes.
const Version = 1

// MaxRanks is the largest world size the reader accepts.
const MaxRanks = 1 << 20

// maxMembers bounds the communicator members a header may list in total,
// so that short range lists ("0-999999") cannot exhaust memory.
const maxMembers = 1 << 26

// headerKeywords lists the header lines, for error messages.
const headerKeywords = "ranks, unit, timed, untimed, pairing, attr, world, comm, state, marker"

// kindList lists the record kinds, for error messages.
const kindList = "enter, leave, send, recv, wait, coll, compute, marker"

// flagList lists the flag words, for error messages.
const flagList = "nb, sync, sendrecv, anysrc, anytag, all, test"

// Read parses a tsim trace from r. It streams the input: line by line
// with one CPU; with more, the records after the first in blocks of
// lines decoded on every CPU, a few blocks in memory at a time (besides
// the trace being built), with the same trace and errors.
// Errors are *ParseError values naming the line, the column and what was
// expected, except read errors of r, which are wrapped with the line
// number. The trace's Format is "tsim".
func Read(r io.Reader) (*tracefmt.Trace, error) {
	return read(context.Background(), r, readOptions{})
}

// ReadContext is Read that stops when ctx is done, returning ctx.Err():
// a large input is parsed on every CPU, and a cancelled load stops
// them all and returns promptly.
func ReadContext(ctx context.Context, r io.Reader) (*tracefmt.Trace, error) {
	return read(ctx, r, readOptions{})
}

// newParser returns a parser of r with the defaults of a tsim file
// before its header: times in seconds, the world communicator alone.
func newParser(r io.Reader, o readOptions) *parser {
	return &parser{
		opts:      o,
		lr:        newLineReader(r),
		unit:      tracefmt.Second,
		timed:     true,
		stateIDs:  map[string]tracefmt.StateID{},
		markerIDs: map[string]tracefmt.MarkerID{},
		textIDs:   map[string]int{},
		comms:     []tracefmt.Comm{{Name: "MPI_COMM_WORLD"}},
	}
}

func read(ctx context.Context, r io.Reader, o readOptions) (*tracefmt.Trace, error) {
	p := newParser(r, o)
	if ra, ok := r.(io.ReaderAt); ok && !o.noCount {
		// Counted from where r stands (a file or bytes.Reader read
		// partly), else from the start (formats.Open's reader).
		var off int64
		if sk, ok := r.(io.Seeker); ok {
			if at, err := sk.Seek(0, io.SeekCurrent); err == nil {
				off = at
			}
		}
		// Shared on the CPUs that decode (blocks.go) when the input
		// says its size (bytes.Reader, formats.Open's file).
		var size int64
		if sz, ok := r.(interface{ Size() int64 }); ok {
			size = sz.Size()
		}
		workers := o.workers
		if workers == 0 {
			workers = runtime.GOMAXPROCS(0)
		}
		counts, err := countRecords(ctx, ra, off, size, workers, MaxRanks)
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil {
			// A read error is the parse's to report, at its line.
			p.counts = counts
		}
	}
	return p.run(ctx)
}

// parser holds the state of one Read.
type parser struct {
	lr   lineReader
	s    lineScanner
	opts readOptions

	version bool
	// Lines on which header settings were given (0: not given), to
	// reject repetitions.
	ranksLine, unitLine, timedLine, pairingLine, worldLine int

	ranks   int
	unit    tracefmt.Unit
	timed   bool
	pairing tracefmt.Pairing
	states  []tracefmt.StateDef
	markers []tracefmt.MarkerDef
	comms   []tracefmt.Comm
	attrs   []tracefmt.Attr
	members int

	stateIDs map[string]tracefmt.StateID
	// recent lists the first state names stateRef resolved (nrecent of
	// them), checked before stateIDs.
	recent  [8]recentState
	nrecent int
	// lastRecent is the index in recent of the last name found there.
	lastRecent int
	markerIDs  map[string]tracefmt.MarkerID
	textIDs    map[string]int
	// rf is what decoding records needs, set with the builder.
	rf recordFormat
	// r is the record being read, and lastState the header states
	// resolveHeader found last (the serial read's).
	r         rec
	lastState [2]int

	// b is nil while the header is read.
	b *tracefmt.Builder
	t *tracefmt.Trace
	// pending holds each rank's events until the end of the input, for
	// the ranks up to the highest seen so far: the declared world is
	// judged against the ranks that have events (tracefmt.CheckWorld)
	// before anything is allocated for all of them.
	pending []rankBuffer
	// fill is where each counted rank's next event goes in arena (the
	// streams of every counted rank, cut from one array) while its
	// counted stream has room: 16 bytes a rank read and written per
	// record, where its rankBuffer is 64, so that the ranks' cursors
	// stay in cache at 65,536 ranks as at 64. A rank's pending entry is
	// stale while its slot is in use (end >= 0); takeBack brings it up
	// to date and retires the slot before anything else reads it.
	fill  []fillSlot
	arena []tracefmt.Event
	// slabs hold the small chunks of pending, a slab for each range of
	// slabRanks ranks.
	slabs     [][]tracefmt.Event
	slabRanks int
	// counts are each rank's records as the count pass found them (nil:
	// not counted), see count.go.
	counts []int32
	// applied counts the records added to pending, all ranks together:
	// while it is below maxRankEvents, so is every rank's.
	applied int
}

func (p *parser) run(ctx context.Context) (*tracefmt.Trace, error) {
	for {
		if p.lr.line&(checkEvery-1) == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		// Where the next line starts (a stream's index starts there at
		// the first record): the bytes read less those not yet used.
		at := p.lr.total - int64(p.lr.end-p.lr.start)
		line, err := p.lr.next()
		if err != nil {
			if err == io.EOF {
				break
			}
			return nil, readError(p.lr.line+1, err)
		}
		if p.lr.line == 1 && len(line) >= 3 && string(line[:3]) == "\uFEFF" {
			line = line[3:] // a byte order mark some editors write
		}
		p.s = lineScanner{line: line, no: p.lr.line}
		// A record's line nearly always starts with its time: the
		// scanner's look for blanks and comments is for the others.
		if (len(line) == 0 || line[0] <= ' ' || line[0] == '#') && !p.s.more() {
			continue
		}
		if p.b == nil {
			if !p.version {
				if err := p.versionLine(); err != nil {
					return nil, err
				}
				continue
			}
			if isLetter(line[p.s.pos]) {
				if err := p.headerLine(); err != nil {
					return nil, err
				}
				continue
			}
			if err := p.startRecords(); err != nil {
				return nil, err
			}
			if p.opts.header != nil {
				// A stream's header ends here; its index reads the
				// records from this line (source.go).
				p.opts.header.at, p.opts.header.line = at, p.s.no
				return nil, nil
			}
			if err := p.record(); err != nil {
				return nil, err
			}
			if p.pipelined() {
				if err := p.readBlocks(ctx); err != nil {
					return nil, err
				}
				break
			}
			continue
		}
		if err := p.record(); err != nil {
			return nil, err
		}
	}
	if !p.version {
		return nil, &ParseError{Line: p.lr.line + 1, Col: 1, Msg: `expected the header line "tsim 1", got end of file`}
	}
	if p.b == nil {
		p.s = lineScanner{no: p.lr.line + 1}
		if p.ranksLine == 0 {
			return nil, p.s.errAt(0, "expected ranks N in the header, got end of file")
		}
		if err := p.startRecords(); err != nil {
			return nil, err
		}
	}
	if p.opts.header != nil {
		// A stream without records: its world is judged now.
		p.opts.header.at = -1
		if err := tracefmt.CheckWorld(p.ranks, 0); err != nil {
			return nil, &ParseError{Line: p.ranksLine, Col: 1, Msg: "ranks " + strconv.Itoa(p.ranks) + ": " + err.Error()}
		}
		return nil, nil
	}
	p.takeBackAll()
	withEvents := 0
	for i := range p.pending {
		if p.pending[i].n > 0 {
			withEvents++
		}
	}
	if err := tracefmt.CheckWorld(p.ranks, withEvents); err != nil {
		return nil, &ParseError{Line: p.ranksLine, Col: 1, Msg: "ranks " + strconv.Itoa(p.ranks) + ": " + err.Error()}
	}
	if err := p.flush(); err != nil {
		return nil, err
	}
	t, err := p.b.Finish()
	if err != nil {
		return nil, fmt.Errorf("tsim: %w", err)
	}
	return t, nil
}

// checkEvery is how many lines the serial read parses between looks at
// its context (a power of two).
const checkEvery = 1 << 14

// readError is the error of reading line no that failed with err.
func readError(no int, err error) error {
	if errors.As(err, new(errLineTooLong)) {
		return &ParseError{Line: no, Col: 1, Msg: fmt.Sprintf("expected lines of at most %d MiB, got a longer one", maxLine>>20)}
	}
	return fmt.Errorf("tsim: line %d: %w", no, err)
}

func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

func (p *parser) versionLine() error {
	s := &p.s
	f := s.bare()
	if string(f.b) != "tsim" {
		return s.errAt(f.off, `expected the header line "tsim %d" first, got %s`, Version, show(f.b))
	}
	if !s.more() {
		return s.errAt(s.pos, "expected the format version after tsim, got end of line")
	}
	v := s.bare()
	n, ok := parseUint(v.b)
	if !ok {
		return s.errAt(v.off, "expected the format version (an integer) after tsim, got %s", show(v.b))
	}
	if n != Version {
		return s.errAt(v.off, "expected format version %d, got version %d (written by a newer tracesim?)", Version, n)
	}
	p.version = true
	return s.end()
}

// once records the line of a header setting, rejecting a repetition.
func (p *parser) once(at *int, what string, off int) error {
	if *at != 0 {
		return p.s.errAt(off, "expected %s only once, got it again (first on line %d)", what, *at)
	}
	*at = p.s.no
	return nil
}

func (p *parser) headerLine() error {
	s := &p.s
	kw := s.bare()
	switch string(kw.b) {
	case "ranks":
		if err := p.once(&p.ranksLine, "ranks", kw.off); err != nil {
			return err
		}
		v, err := p.need(kw, "the number of ranks")
		if err != nil {
			return err
		}
		n, ok := parseUint(v.b)
		if !ok || n < 1 || n > MaxRanks {
			return s.errAt(v.off, "expected the number of ranks (an integer from 1 to %d), got %s", MaxRanks, show(v.b))
		}
		p.ranks = int(n)
	case "unit":
		if err := p.once(&p.unitLine, "unit", kw.off); err != nil {
			return err
		}
		v, err := p.need(kw, "a time unit (s, ms, us, ns, ps)")
		if err != nil {
			return err
		}
		u, ok := tracefmt.ParseUnit(string(v.b))
		if !ok {
			return s.errAt(v.off, "expected a time unit (s, ms, us, ns, ps), got %s", show(v.b))
		}
		p.unit = u
	case "timed", "untimed":
		if err := p.once(&p.timedLine, "timed or untimed", kw.off); err != nil {
			return err
		}
		p.timed = kw.b[0] == 't'
	case "pairing":
		if err := p.once(&p.pairingLine, "pairing", kw.off); err != nil {
			return err
		}
		v, err := p.need(kw, "newest or oldest")
		if err != nil {
			return err
		}
		switch string(v.b) {
		case "newest":
			p.pairing = tracefmt.PairNewest
		case "oldest":
			p.pairing = tracefmt.PairOldest
		default:
			return s.errAt(v.off, "expected newest or oldest after pairing, got %s", show(v.b))
		}
	case "attr":
		k, err := p.s.needWord(kw, "an attribute name")
		if err != nil {
			return err
		}
		v, err := p.s.needWord(kw, "the value of attribute "+strconv.Quote(string(k.b)))
		if err != nil {
			return err
		}
		p.attrs = append(p.attrs, tracefmt.Attr{Key: string(k.b), Value: string(v.b)})
	case "world", "comm":
		return p.commLine(kw)
	case "state", "marker":
		return p.defLine(kw)
	case "tsim":
		return s.errAt(kw.off, "expected one tsim line, at the top of the file, got a second one")
	default:
		return s.errAt(kw.off, "expected a header line (%s) or a record (TIME RANK KIND ...), got %s", headerKeywords, show(kw.b))
	}
	return s.end()
}

// need reads the bare field that must follow a keyword.
func (p *parser) need(kw tok, what string) (tok, error) {
	if !p.s.more() {
		return tok{}, p.s.errAt(p.s.pos, "expected %s after %s, got end of line", what, kw.b)
	}
	return p.s.bare(), nil
}

// needWord reads the bare or quoted field that must follow a keyword.
func (s *lineScanner) needWord(kw tok, what string) (tok, error) {
	if !s.more() {
		return tok{}, s.errAt(s.pos, "expected %s after %s, got end of line", what, kw.b)
	}
	return s.word()
}

// name reads the name field of a definition or a record.
func (s *lineScanner) name(kw tok, what string) (tok, error) {
	if s.more() && s.line[s.pos] != '"' {
		// A bare name, as nearly every record has: read here, without
		// the calls of the general case, looking for an = in the same
		// pass.
		line, start := s.line, s.pos
		i, eq := start, false
		for ; i < len(line) && !isBlank(line[i]); i++ {
			eq = eq || line[i] == '='
		}
		if !eq {
			s.pos = i
			return tok{b: line[start:i], off: start}, nil
		}
		// The general case words the error, from the name's start.
	}
	f, err := s.needWord(kw, what)
	if err != nil {
		return f, err
	}
	if !f.quoted {
		if i := bytes.IndexByte(f.b, '='); i >= 0 {
			return f, s.errAt(f.off, "expected %s after %s, got %s (write names containing = in quotes)", what, kw.b, show(f.b))
		}
	}
	return f, nil
}

// argOff is the offset of an argument: its key, or the bare word.
func argOff(k, v tok) int {
	if k.b != nil {
		return k.off
	}
	return v.off
}

// commLine parses "world NAME [id=N] [ranks=LIST]" and "comm NAME ...".
func (p *parser) commLine(kw tok) error {
	s := &p.s
	world := kw.b[0] == 'w'
	if world {
		if err := p.once(&p.worldLine, "world", kw.off); err != nil {
			return err
		}
	}
	if p.ranksLine == 0 {
		return s.errAt(kw.off, "expected ranks N before the first %s line, got a %s line", kw.b, kw.b)
	}
	nm, err := p.s.name(kw, "a communicator name")
	if err != nil {
		return err
	}
	c := tracefmt.Comm{Name: string(nm.b)}
	var seenID, seenRanks bool
	for s.more() {
		k, v, err := s.arg()
		if err != nil {
			return err
		}
		switch string(k.b) {
		case "id":
			if seenID {
				return s.errAt(k.off, "expected id= only once, got it twice")
			}
			seenID = true
			n, ok := parseInt(v.b)
			if !ok || n != int64(int32(n)) {
				return s.errAt(v.off, "expected a communicator id (a 32-bit integer), got %s", show(v.b))
			}
			c.ID = int32(n)
		case "ranks":
			if seenRanks {
				return s.errAt(k.off, "expected ranks= only once, got it twice")
			}
			seenRanks = true
			if c.Ranks, err = p.rankList(v); err != nil {
				return err
			}
		default:
			off := argOff(k, v)
			return s.errAt(off, "expected id=N or ranks=LIST in a %s line, got %s", kw.b, show(s.bareAt(off)))
		}
	}
	if world {
		p.comms[0] = c
		return nil
	}
	if len(p.comms) > 0xFFFF {
		return s.errAt(kw.off, "expected at most 65536 communicators, got more")
	}
	p.comms = append(p.comms, c)
	return nil
}

// rankList parses "0,2,4-7": world ranks in local-rank order, with
// ranges of consecutive ranks.
func (p *parser) rankList(v tok) ([]int32, error) {
	s := &p.s
	if v.quoted {
		return nil, s.errAt(v.off, "expected a list of ranks such as 0,2,4-7, got a quoted string")
	}
	b := v.b
	out := []int32{}
	for i := 0; i <= len(b); {
		j := i
		for j < len(b) && b[j] != ',' {
			j++
		}
		item := b[i:j]
		off := v.off + i
		lo, hi := item, item
		if k := bytes.IndexByte(item, '-'); k >= 0 {
			lo, hi = item[:k], item[k+1:]
		}
		a, ok1 := parseUint(lo)
		z, ok2 := parseUint(hi)
		if !ok1 || !ok2 {
			got := show(item)
			if len(item) == 0 {
				got = "an empty item in " + show(b)
			}
			return nil, s.errAt(off, "expected a rank or a range of ranks (such as 3 or 4-7), got %s", got)
		}
		if a > z {
			return nil, s.errAt(off, "expected a range LOW-HIGH with LOW ≤ HIGH, got %s", show(item))
		}
		if z >= int64(p.ranks) {
			return nil, s.errAt(off, "expected ranks from 0 to %d (the world has %d ranks), got %s", p.ranks-1, p.ranks, show(item))
		}
		p.members += int(z - a + 1)
		if p.members > maxMembers {
			return nil, s.errAt(off, "expected at most %d communicator members in all, got more", maxMembers)
		}
		for r := a; r <= z; r++ {
			out = append(out, int32(r))
		}
		i = j + 1
	}
	return out, nil
}

// defLine parses "state NAME [cat=C] [color=C] [format=S] [src=I,S,E]"
// and "marker NAME [color=C] [format=S] [src=I,S,E]".
func (p *parser) defLine(kw tok) error {
	s := &p.s
	state := kw.b[0] == 's'
	what := "a marker name"
	if state {
		what = "a state name"
	}
	nm, err := p.s.name(kw, what)
	if err != nil {
		return err
	}
	name := string(nm.b)
	cat := tracefmt.CategoryOf(name)
	var color, format string
	var src tracefmt.SourceIDs
	var seen [4]bool
	for s.more() {
		k, v, err := s.arg()
		if err != nil {
			return err
		}
		i := -1
		switch string(k.b) {
		case "cat":
			if state {
				i = 0
			}
		case "color":
			i = 1
		case "format":
			i = 2
		case "src":
			i = 3
		}
		if i < 0 {
			args := "color=, format=, src="
			if state {
				args = "cat=, " + args
			}
			off := argOff(k, v)
			return s.errAt(off, "expected an argument of a %s definition (%s), got %s", kw.b, args, show(s.bareAt(off)))
		}
		if seen[i] {
			return s.errAt(k.off, "expected %s= only once, got it twice", k.b)
		}
		seen[i] = true
		switch i {
		case 0:
			c, ok := tracefmt.ParseCategory(string(v.b))
			if !ok {
				return s.errAt(v.off, "expected a category (p2p, collective, wait, compute, io, user, other), got %s", show(v.b))
			}
			cat = c
		case 1:
			color = string(v.b)
		case 2:
			format = string(v.b)
		case 3:
			if src, err = p.sourceIDs(v); err != nil {
				return err
			}
		}
	}
	if state {
		if _, ok := p.stateIDs[name]; !ok {
			p.stateIDs[name] = tracefmt.StateID(len(p.states))
		}
		p.states = append(p.states, tracefmt.StateDef{Name: name, Color: color, Category: cat, Format: format, Source: src})
		return nil
	}
	if _, ok := p.markerIDs[name]; !ok {
		p.markerIDs[name] = tracefmt.MarkerID(len(p.markers))
	}
	p.markers = append(p.markers, tracefmt.MarkerDef{Name: name, Color: color, Format: format, Source: src})
	return nil
}

// sourceIDs parses "ID[,START[,END]]".
func (p *parser) sourceIDs(v tok) (tracefmt.SourceIDs, error) {
	var ids [3]int32
	b := v.b
	n := 0
	for i := 0; i <= len(b); n++ {
		j := i
		for j < len(b) && b[j] != ',' {
			j++
		}
		x, ok := parseInt(b[i:j])
		if n == 3 || !ok || x != int64(int32(x)) {
			return tracefmt.SourceIDs{}, p.s.errAt(v.off, "expected src=ID[,START[,END]] (up to three 32-bit integers), got %s", show(v.b))
		}
		ids[n] = int32(x)
		i = j + 1
	}
	return tracefmt.SourceIDs{ID: ids[0], Start: ids[1], End: ids[2]}, nil
}

// startRecords ends the header: it checks it and creates the builder.
func (p *parser) startRecords() error {
	if p.ranksLine == 0 {
		return p.s.errAt(0, "expected ranks N in the header before the first record, got a record")
	}
	p.slabRanks = max(1, (p.ranks+slabRanges-1)/slabRanges)
	if n := min(len(p.counts), p.ranks); n > 0 {
		// Each counted rank's stream, at its size: the records are
		// decoded into place, and handed to the builder as they are.
		// The streams are cut from one array: allocated apart, each
		// would be rounded up to whole pages (4 % more at 4,096 ranks
		// of 1,150 events).
		total := 0
		for _, c := range p.counts[:n] {
			total += int(c)
		}
		arena := make([]tracefmt.Event, total)
		// Its pages are touched first as the records land: as huge
		// pages, a fault brings in 2 MiB, not 4 KiB (info of a 94 MB
		// cg trace: 31.2 k faults before, 3.6 k with the advice).
		hugepage.Advise(arena)
		// 64 bytes a rank, 4 MiB at 65,536 ranks, touched in the
		// ranks' file order: as huge pages too.
		p.pending = make([]rankBuffer, n)
		hugepage.Advise(p.pending)
		p.arena, p.fill = arena, make([]fillSlot, n)
		at := 0
		for r, c := range p.counts[:n] {
			p.fill[r] = fillSlot{at: -1, end: -1}
			if c > 0 {
				p.pending[r] = rankBuffer{cur: arena[:0:c], owned: true}
				arena = arena[c:]
				p.fill[r] = fillSlot{at: at, end: at + int(c)}
				at += int(c)
			}
		}
	}
	p.counts = nil
	p.b = tracefmt.NewLazyBuilder(p.ranks, p.timed, p.unit)
	p.b.SetPairing(p.pairing)
	t := p.b.Trace()
	t.Format = "tsim"
	t.States, t.Markers, t.Comms, t.Attrs = p.states, p.markers, p.comms, p.attrs
	p.t = t
	commIDs := make(map[string]uint16, len(p.comms))
	for i, c := range p.comms {
		if _, ok := commIDs[c.Name]; !ok {
			commIDs[c.Name] = uint16(i)
		}
	}
	p.rf = recordFormat{ranks: p.ranks, timed: p.timed, unit: p.unit, firstRecord: p.s.no, commIDs: commIDs, ncomms: len(p.comms)}
	// The states the header defines, for the workers: their names
	// resolve as stateRef would, whatever the lines before. (stateIDs
	// itself grows with the names the records define.)
	if len(p.stateIDs) > maxHeaderStates {
		p.rf.stateIDs = maps.Clone(p.stateIDs)
	} else {
		for _, d := range p.states {
			// A name defined twice keeps its first id.
			if !slices.ContainsFunc(p.rf.headerStates, func(s recentState) bool { return s.name == d.Name }) {
				id := p.stateIDs[d.Name]
				p.rf.headerStates = append(p.rf.headerStates, recentState{d.Name, id})
				if sw, ok := newStateWord(d.Name, id); ok {
					if p.rf.stateWords == nil {
						p.rf.stateWords = new([stateSlots]stateWord)
					}
					if slot := &p.rf.stateWords[stateSlot(sw.w0, sw.w1, sw.n)]; slot.n == 0 {
						*slot = sw
					}
				}
			}
		}
	}
	return nil
}

// Argument bits of a record.
const (
	argTo = 1 << iota
	argFrom
	argTag
	argSize
	argComm
	argReq
	argRoot
	argSent
	argRecv
	argDur
	argFlops
	argText
	numArgs = iota
)

// argNames names the argument bits, in bit order.
var argNames = [numArgs]string{"to", "from", "tag", "size", "comm", "req", "root", "sent", "recv", "dur", "flops", "text"}

// kindArgs lists the arguments each record kind takes.
var kindArgs = [...]uint16{
	tracefmt.KindEnter:      argText,
	tracefmt.KindLeave:      0,
	tracefmt.KindSend:       argTo | argTag | argSize | argComm | argReq,
	tracefmt.KindRecv:       argFrom | argTag | argSize | argComm | argReq,
	tracefmt.KindWait:       argReq,
	tracefmt.KindCollective: argRoot | argSent | argRecv | argComm,
	tracefmt.KindCompute:    argDur | argFlops,
	tracefmt.KindMarker:     argText,
}

func argBit(key []byte) uint16 {
	switch string(key) {
	case "to":
		return argTo
	case "from":
		return argFrom
	case "tag":
		return argTag
	case "size":
		return argSize
	case "comm":
		return argComm
	case "req":
		return argReq
	case "root":
		return argRoot
	case "sent":
		return argSent
	case "recv":
		return argRecv
	case "dur":
		return argDur
	case "flops":
		return argFlops
	case "text":
		return argText
	}
	return 0
}

// argList names the arguments in mask for error messages: "to=, tag=".
func argList(mask uint16) string {
	var parts []string
	for i, n := range argNames {
		if mask&(1<<i) != 0 {
			parts = append(parts, n+"=")
		}
	}
	if len(parts) == 0 {
		return "no arguments"
	}
	return strings.Join(parts, ", ")
}

func flagBit(w []byte) (tracefmt.Flags, bool) {
	switch string(w) {
	case "nb":
		return tracefmt.FlagNonBlocking, true
	case "sync":
		return tracefmt.FlagSync, true
	case "sendrecv":
		return tracefmt.FlagSendrecv, true
	case "anysrc":
		return tracefmt.FlagAnySource, true
	case "anytag":
		return tracefmt.FlagAnyTag, true
	case "all":
		return tracefmt.FlagAll, true
	case "test":
		return tracefmt.FlagTest, true
	}
	return 0, false
}

// recordFormat is what decoding a record needs of the header. It is
// fixed once the first record is reached, so that the goroutines
// decoding blocks of records share it read-only.
type recordFormat struct {
	ranks int
	timed bool
	unit  tracefmt.Unit
	// firstRecord is the line of the first record.
	firstRecord int
	commIDs     map[string]uint16
	ncomms      int
	// headerStates are the states the header defines, by name, when
	// they are few (maxHeaderStates), else stateIDs maps their names.
	headerStates []recentState
	stateIDs     map[string]tracefmt.StateID
	// stateWords are the header states decodeFast resolves itself, by
	// stateSlot (an empty slot has n 0); nil when there are none.
	stateWords *[stateSlots]stateWord
}

// maxHeaderStates is the most header states the workers look up by
// comparing names rather than in a map.
const maxHeaderStates = 16

// rec is a decoded record: its event and rank, with what only the lines
// before can resolve (a state or marker name, an info text) left as
// fields of the line.
type rec struct {
	e    tracefmt.Event
	rank int32
	// rankOff is the rank field's offset, for the error of a rank with
	// too many records.
	rankOff int32
	// named says name was read (also when decoding failed after it).
	named   bool
	hasText bool
	// state says decodeFast set the state of an enter or leave, named
	// by a state of the header (headerState).
	state bool
	// name is the state or marker name of an enter, leave or marker
	// (decodeFast leaves it unset for an enter or leave it sets state
	// for, unless the record has a text); text the info text of an
	// enter or marker (hasText).
	name, text tok
}

// record parses one record line: TIME RANK KIND [NAME] {ARG | FLAG}.
func (p *parser) record() error {
	// The record is set field by field, not zeroed whole: decodeFast
	// sets every field but the name and text, which the flags cleared
	// here make it ignore.
	r := &p.r
	r.named, r.hasText, r.state = false, false, false
	if p.rf.decodeFast(p.s.line, p.s.pos, r) {
		return p.apply(r)
	}
	*r = rec{}
	if err := p.rf.decode(&p.s, r); err != nil {
		if r.named {
			// The name is resolved before the arguments are checked.
			if err := p.resolve(r); err != nil {
				return err
			}
		}
		return err
	}
	return p.apply(r)
}

// resolve sets the state or marker id of an enter, leave or marker.
func (p *parser) resolve(r *rec) error {
	switch r.e.Kind {
	case tracefmt.KindEnter, tracefmt.KindLeave:
		id, err := p.stateRef(r.name)
		if err != nil {
			return err
		}
		r.e.Peer = int32(id)
	case tracefmt.KindMarker:
		id, err := p.markerRef(r.name)
		if err != nil {
			return err
		}
		r.e.Peer = int32(id)
	}
	return nil
}

// apply adds a decoded record to its rank's events, resolving its names
// and text. The errors it gives are those of decoding p.s's line again
// and applying that (see readBlocks), and it changes nothing before
// failing.
func (p *parser) apply(r *rec) error {
	rank := int(r.rank)
	if rank < len(p.fill) {
		if s := &p.fill[rank]; s.at < s.end {
			// Nearly always: room in the rank's counted stream (below
			// maxRankEvents, the most a count holds).
			if !p.rf.headerDone(r, &p.lastState) {
				if err := p.resolveRec(r); err != nil {
					return err
				}
			}
			p.applied++
			p.arena[s.at] = r.e
			s.at++
			return nil
		}
		p.takeBack(rank)
	}
	if rank >= len(p.pending) {
		p.pending = slices.Grow(p.pending, rank+1-len(p.pending))[:rank+1]
	}
	rb := &p.pending[rank]
	if rb.n == maxRankEvents {
		return p.s.errAt(int(r.rankOff), "expected at most %d records per rank, got more on rank %d", maxRankEvents, rank)
	}
	// A record naming no state, or one of the header by its name, is
	// resolved as the workers of a block resolve it (stateRef's answer).
	if !p.rf.headerDone(r, &p.lastState) {
		if err := p.resolveRec(r); err != nil {
			return err
		}
	}
	p.applied++
	if n := len(rb.cur); n < cap(rb.cur) {
		// Nearly always: room in the rank's counted stream.
		rb.cur = rb.cur[:n+1]
		rb.cur[n] = r.e
		rb.n++
		return nil
	}
	p.add(rank, &r.e)
	return nil
}

// fillSlot is a counted rank's cursor in parser.arena: its next event
// goes to arena[at], while at < end (the end of its counted stream).
// A retired slot (or a rank not counted) has at = end = -1.
type fillSlot struct {
	at, end int
}

// takeBack brings rank r's pending entry up to date with its fill slot
// (the events written through it) and retires the slot: from then on
// the entry alone says where the rank's events go.
func (p *parser) takeBack(r int) {
	if r >= len(p.fill) {
		return
	}
	s := &p.fill[r]
	if s.end < 0 {
		return
	}
	rb := &p.pending[r]
	n := cap(rb.cur) - (s.end - s.at)
	rb.n += n - len(rb.cur)
	rb.cur = rb.cur[:n]
	*s = fillSlot{at: -1, end: -1}
}

// takeBackAll is takeBack for every rank.
func (p *parser) takeBackAll() {
	for r := range p.fill {
		p.takeBack(r)
	}
}

// grow makes room in pending for rank r.
func (p *parser) grow(r int) {
	if r >= len(p.pending) {
		p.pending = slices.Grow(p.pending, r+1-len(p.pending))[:r+1]
	}
}

// add appends e to rank r's events (r within pending once grown).
func (p *parser) add(r int, e *tracefmt.Event) {
	p.grow(r)
	rb := &p.pending[r]
	if len(rb.cur) == cap(rb.cur) {
		rb.next(p.slab(r))
	}
	rb.cur = append(rb.cur, *e)
	rb.n++
}

// resolveRec resolves a decoded record's names and text, as apply does
// before adding it.
func (p *parser) resolveRec(r *rec) error {
	if err := p.resolve(r); err != nil {
		return err
	}
	if r.hasText {
		r.e.SetTextRef(p.text(r.text.b))
	}
	return nil
}

// decode decodes the record at s's cursor into r. It depends on nothing
// but the header and the line, so blocks of lines decode on several
// goroutines.
func (f *recordFormat) decode(s *lineScanner, out *rec) error {
	if isLetter(s.line[s.pos]) {
		kw := s.bareAt(s.pos)
		switch string(kw) {
		case "ranks", "unit", "timed", "untimed", "pairing", "attr", "world", "comm", "state", "marker", "tsim":
			return s.errAt(s.pos, "expected a record (TIME RANK KIND ...) after the first record (line %d), got header line %s (header lines go above the records)", f.firstRecord, show(kw))
		}
	}
	tf := s.bare()
	var tm float64
	if f.timed {
		v, ok := decimal.Parse(tf.b)
		if !ok {
			return s.errAt(tf.off, "expected a time (a number in %s) at the start of a record, got %s", f.unit, show(tf.b))
		}
		tm = v
	} else if len(tf.b) != 1 || tf.b[0] != '-' {
		return s.errAt(tf.off, "expected - for the time (the trace is untimed), got %s", show(tf.b))
	}
	if !s.more() {
		return s.errAt(s.pos, "expected a rank after the time, got end of line")
	}
	rf := s.bare()
	r, ok := parseUint(rf.b)
	if !ok {
		return s.errAt(rf.off, "expected a rank (an integer from 0 to %d), got %s", f.ranks-1, show(rf.b))
	}
	if r >= int64(f.ranks) {
		return s.errAt(rf.off, "expected a rank from 0 to %d (the world has %d ranks), got %d", f.ranks-1, f.ranks, r)
	}
	if !s.more() {
		return s.errAt(s.pos, "expected an event kind (%s), got end of line", kindList)
	}
	kf := s.bare()
	var kind tracefmt.Kind
	switch string(kf.b) {
	case "enter":
		kind = tracefmt.KindEnter
	case "leave":
		kind = tracefmt.KindLeave
	case "send":
		kind = tracefmt.KindSend
	case "recv":
		kind = tracefmt.KindRecv
	case "wait":
		kind = tracefmt.KindWait
	case "coll":
		kind = tracefmt.KindCollective
	case "compute":
		kind = tracefmt.KindCompute
	case "marker":
		kind = tracefmt.KindMarker
	default:
		return s.errAt(kf.off, "expected an event kind (%s), got %s", kindList, show(kf.b))
	}

	var e tracefmt.Event
	switch kind {
	case tracefmt.KindEnter, tracefmt.KindLeave:
		nm, err := s.name(kf, "a state name")
		if err != nil {
			return err
		}
		out.name, out.named, out.e.Kind = nm, true, kind
		if kind == tracefmt.KindEnter {
			e = tracefmt.Enter(tm, 0)
		} else {
			e = tracefmt.Leave(tm, 0)
		}
	case tracefmt.KindMarker:
		nm, err := s.name(kf, "a marker name")
		if err != nil {
			return err
		}
		out.name, out.named, out.e.Kind = nm, true, kind
		e = tracefmt.Mark(tm, 0)
	case tracefmt.KindCollective:
		nm, err := s.name(kf, "a collective operation")
		if err != nil {
			return err
		}
		op, ok := tracefmt.ParseCollOp(string(nm.b))
		if !ok || nm.quoted {
			return s.errAt(nm.off, "expected a collective operation (barrier, bcast, reduce, allreduce, gather, gatherv, scatter, scatterv, allgather, allgatherv, alltoall, alltoallv, reducescatter, scan, exscan, other), got %s", show(nm.b))
		}
		e = tracefmt.Collective(tm, op, -1, 0, 0, 0)
	default:
		e = tracefmt.Event{Time: tm, Kind: kind}
	}

	allowed := kindArgs[kind]
	var seen uint16
	var size, recvd int64
	var amount float64
	for s.more() {
		k, v, err := s.plainArg()
		if err != nil {
			return err
		}
		if k.b == nil && kind == tracefmt.KindCollective && string(v.b) == "sizeunknown" && !v.quoted {
			e.Flags |= tracefmt.FlagSizeUnknown
			continue
		}
		if k.b == nil {
			f, ok := flagBit(v.b)
			if !ok || v.quoted {
				return s.errAt(v.off, "expected an argument of %s (%s) or a flag (%s), got %s", kf.b, argList(allowed), flagList, show(v.b))
			}
			e.Flags |= f
			continue
		}
		bit := argBit(k.b)
		if bit&allowed == 0 {
			return s.errAt(k.off, "expected an argument of %s (%s) or a flag (%s), got %s", kf.b, argList(allowed), flagList, show(s.bareAt(k.off)))
		}
		if seen&bit != 0 {
			return s.errAt(k.off, "expected %s= only once, got it twice", k.b)
		}
		seen |= bit
		switch bit {
		case argTo, argFrom:
			n, ok := parseUint(v.b)
			if !ok || v.quoted {
				return s.errAt(v.off, "expected a rank (an integer from 0 to %d) after %s=, got %s", f.ranks-1, k.b, show(v.b))
			}
			if n >= int64(f.ranks) {
				return s.errAt(v.off, "expected a rank from 0 to %d after %s= (the world has %d ranks), got %d", f.ranks-1, k.b, f.ranks, n)
			}
			e.Peer = int32(n)
		case argRoot:
			n, ok := parseInt(v.b)
			if !ok || v.quoted || n < -1 {
				return s.errAt(v.off, "expected a root rank (an integer from 0 to %d, or -1 for none), got %s", f.ranks-1, show(v.b))
			}
			if n >= int64(f.ranks) {
				return s.errAt(v.off, "expected a root rank from 0 to %d, or -1 for none (the world has %d ranks), got %d", f.ranks-1, f.ranks, n)
			}
			e.Peer = int32(n)
		case argTag:
			n, ok := parseInt(v.b)
			if !ok || v.quoted || n != int64(int32(n)) {
				return s.errAt(v.off, "expected a tag (a 32-bit integer), got %s", show(v.b))
			}
			e.Tag = int32(n)
		case argSize, argSent, argRecv:
			n, err := s.size(k, v)
			if err != nil {
				return err
			}
			if bit == argRecv {
				recvd = n
			} else {
				size = n
			}
		case argComm:
			c, err := f.commRef(s, v)
			if err != nil {
				return err
			}
			e.Comm = c
		case argReq:
			n, ok := parseInt(v.b)
			if !ok || v.quoted {
				return s.errAt(v.off, "expected a request id (an integer) after req=, got %s", show(v.b))
			}
			e.SetRequest(n)
		case argDur:
			if seen&argFlops != 0 {
				return s.errAt(k.off, "expected either dur= or flops= in a compute record, got both")
			}
			d, ok := f.duration(v.b)
			if !ok || v.quoted {
				return s.errAt(v.off, "expected a duration (a non-negative number, in %s or with a unit such as 5us), got %s", f.unit, show(v.b))
			}
			amount = d
		case argFlops:
			if seen&argDur != 0 {
				return s.errAt(k.off, "expected either dur= or flops= in a compute record, got both")
			}
			f, ok := flops(v.b)
			if !ok || v.quoted {
				return s.errAt(v.off, "expected an amount of work (a non-negative number of flops such as 2e9 or 2Gf), got %s", show(v.b))
			}
			amount = f
			e.Flags |= tracefmt.FlagWork
		case argText:
			out.text, out.hasText = v, true
		}
	}

	switch kind {
	case tracefmt.KindSend:
		if seen&argTo == 0 {
			return s.errAt(len(s.line), "expected to=RANK (the destination) in a send, got end of line")
		}
		e.Size = size
	case tracefmt.KindRecv:
		if seen&argFrom == 0 {
			return s.errAt(len(s.line), "expected from=RANK (the actual source, also for anysrc receives) in a recv, got end of line")
		}
		e.Size = size
	case tracefmt.KindCollective:
		if seen&argRoot == 0 && e.Op().Rooted() {
			return s.errAt(len(s.line), "expected root=RANK in a %s, got end of line", e.Op())
		}
		e.Size = size
		e.SetRequest(recvd)
	case tracefmt.KindCompute:
		if seen&(argDur|argFlops) == 0 {
			return s.errAt(len(s.line), "expected dur=DURATION or flops=AMOUNT in a compute record, got end of line")
		}
		e.SetRequest(int64(math.Float64bits(amount)))
	}

	out.e, out.rank, out.rankOff = e, int32(r), int32(rf.off)
	return nil
}

// maxRankEvents is the most events a rank's stream can hold (event
// indices are int32).
const maxRankEvents = 1<<31 - 1

// rankBuffer collects a rank's events in chunks while the file is read.
// Ranks interleave in the file and their counts are unknown until the
// end, so growing one slice per rank would copy every stream several
// times over; chunks are copied once, into a slice of the exact size.
//
// A rank the count pass counted starts with cur the stream's own slice
// of the counted size (owned): while it holds all of the rank's events,
// flush hands it to the builder without copying.
type rankBuffer struct {
	full  [][]tracefmt.Event
	cur   []tracefmt.Event
	n     int
	owned bool
}

// Chunk sizes grow from minChunk to maxChunk events, so that a world of
// many ranks with few events each stays small.
const (
	minChunk = 16
	maxChunk = 8192
)

// addAll appends ev, filling the current chunk and starting new ones.
func (rb *rankBuffer) addAll(ev []tracefmt.Event, slab *[]tracefmt.Event) {
	for len(ev) > 0 {
		if len(rb.cur) == cap(rb.cur) {
			rb.next(slab)
		}
		k := copy(rb.cur[len(rb.cur):cap(rb.cur)], ev)
		rb.cur = rb.cur[:len(rb.cur)+k]
		rb.n += k
		ev = ev[k:]
	}
}

// next starts a new chunk once the current one is full: a small one is
// cut from slab, the free end of an array shared by the ranks of one
// range (see parser.slab), a large one allocated alone.
func (rb *rankBuffer) next(slab *[]tracefmt.Event) {
	rb.owned = false
	if rb.cur != nil {
		rb.full = append(rb.full, rb.cur)
	}
	n := min(max(2*cap(rb.cur), minChunk), maxChunk)
	if n > maxSlabChunk {
		rb.cur = make([]tracefmt.Event, 0, n)
		return
	}
	if cap(*slab) < n {
		*slab = make([]tracefmt.Event, 0, slabLen)
	}
	s := *slab
	rb.cur, *slab = s[:0:n], s[n:cap(s)][:0]
}

// Small chunks (of an input read once, or a rank beyond its count) come
// from slabs of slabLen events, each shared by the ranks of one range of
// slabRanges (ranks/64 and more): one allocation for many chunks.
const (
	slabLen      = 8192
	maxSlabChunk = 512
	slabRanges   = 64
)

// slab returns the slab of rank r's range.
func (p *parser) slab(r int) *[]tracefmt.Event {
	i := r / p.slabRanks
	if i >= len(p.slabs) {
		p.slabs = slices.Grow(p.slabs, i+1-len(p.slabs))[:i+1]
	}
	return &p.slabs[i]
}

// flush hands the buffered events to the builder, which pairs states
// rank by rank on every CPU. A rank whose events are all in its own
// stream (counted, see count.go) is handed over in place; the others'
// chunks are copied into a stream of the exact size and released.
func (p *parser) flush() error {
	chunks := make([][][]tracefmt.Event, len(p.pending))
	// A counted rank's one chunk, cut from one array: allocated apart,
	// they were 65,536 allocations at as many ranks.
	single := make([][]tracefmt.Event, len(p.pending))
	for r := range p.pending {
		rb := &p.pending[r]
		if n := len(rb.cur); rb.owned && n > 0 && cap(rb.cur)-n <= n/32 {
			// AddChunks then appends the stream to itself: no
			// allocation, no copy elsewhere. (A stream much larger
			// than its events, counted in a file that changed, is
			// copied to its size as chunks are.)
			if err := p.b.SetEvents(r, rb.cur[:0]); err != nil {
				return fmt.Errorf("tsim: %w", err)
			}
			single[r] = rb.cur
			chunks[r] = single[r : r+1 : r+1]
		} else {
			chunks[r] = append(rb.full, rb.cur)
		}
		*rb = rankBuffer{}
	}
	p.pending, p.slabs, p.fill, p.arena = nil, nil, nil, nil
	if err := p.b.AddChunks(chunks); err != nil {
		return fmt.Errorf("tsim: %w", err)
	}
	return nil
}

// stateRef resolves a state name, or an index into the state table when
// the field is an unquoted integer. Unknown names define a state with a
// category guessed from the name.
func (p *parser) stateRef(f tok) (tracefmt.StateID, error) {
	if !f.quoted && allDigits(f.b) {
		n, ok := parseUint(f.b)
		if !ok || n >= int64(len(p.t.States)) {
			return 0, p.s.errAt(f.off, "expected a state name or the index of a defined state (0 to %d), got %s (write names made of digits in quotes)", len(p.t.States)-1, show(f.b))
		}
		return tracefmt.StateID(n), nil
	}
	// A trace's records name a handful of states: comparing with the
	// first few names resolved saves hashing the name on every enter
	// and leave.
	// Records in a row often name the same state (a rank's leave
	// after its enter, the ranks in turn entering one state): the
	// name of the last hit is tried first.
	if r := &p.recent[p.lastRecent]; r.name == string(f.b) && p.nrecent > 0 {
		return r.id, nil
	}
	for i := range p.nrecent {
		if r := &p.recent[i]; r.name == string(f.b) {
			p.lastRecent = i
			return r.id, nil
		}
	}
	id, ok := p.stateIDs[string(f.b)]
	if !ok {
		name := string(f.b)
		id = tracefmt.StateID(len(p.t.States))
		p.t.States = append(p.t.States, tracefmt.StateDef{Name: name, Category: tracefmt.CategoryOf(name)})
		p.stateIDs[name] = id
	}
	if p.nrecent < len(p.recent) {
		p.recent[p.nrecent] = recentState{string(f.b), id}
		p.nrecent++
	}
	return id, nil
}

// recentState is a state name stateRef resolved and its id.
type recentState struct {
	name string
	id   tracefmt.StateID
}

// markerRef is stateRef for markers.
func (p *parser) markerRef(f tok) (tracefmt.MarkerID, error) {
	if !f.quoted && allDigits(f.b) {
		n, ok := parseUint(f.b)
		if !ok || n >= int64(len(p.t.Markers)) {
			return 0, p.s.errAt(f.off, "expected a marker name or the index of a defined marker (0 to %d), got %s (write names made of digits in quotes)", len(p.t.Markers)-1, show(f.b))
		}
		return tracefmt.MarkerID(n), nil
	}
	if id, ok := p.markerIDs[string(f.b)]; ok {
		return id, nil
	}
	name := string(f.b)
	id := tracefmt.MarkerID(len(p.t.Markers))
	p.t.Markers = append(p.t.Markers, tracefmt.MarkerDef{Name: name})
	p.markerIDs[name] = id
	return id, nil
}

// commRef resolves a communicator name or index; communicators must be
// defined in the header.
func (rf *recordFormat) commRef(s *lineScanner, f tok) (uint16, error) {
	if !f.quoted && allDigits(f.b) {
		n, ok := parseUint(f.b)
		if ok && n < int64(rf.ncomms) {
			return uint16(n), nil
		}
	} else if id, ok := rf.commIDs[string(f.b)]; ok {
		return id, nil
	}
	return 0, s.errAt(f.off, "expected a communicator defined in the header (a comm line's name, or its index from 0 for the world to %d), got %s", rf.ncomms-1, show(f.b))
}

// text interns an info text.
func (p *parser) text(b []byte) int {
	if i, ok := p.textIDs[string(b)]; ok {
		return i
	}
	s := string(b)
	i := p.b.Text(s)
	p.textIDs[s] = i
	return i
}

// size parses a byte count: an integer, or a number with a unit (4KiB).
func (s *lineScanner) size(k, v tok) (int64, error) {
	if !v.quoted && allDigits(v.b) {
		if n, ok := parseInt(v.b); ok {
			return n, nil
		}
	} else if !v.quoted {
		if n, err := units.ParseSize(string(v.b)); err == nil {
			return n, nil
		}
	}
	return 0, s.errAt(v.off, "expected a byte count after %s= (such as 4096 or 4KiB; units B, KB, KiB, MB, MiB, GB, GiB), got %s", k.b, show(v.b))
}

// duration parses a compute duration into trace units: a bare number is
// in trace units, a suffixed one is converted exactly as far as float64
// allows (one multiplication or division by a power of ten).
func (rf *recordFormat) duration(b []byte) (float64, bool) {
	u := rf.unit
	if n := len(b); n > 1 && b[n-1] == 's' {
		num, sfx := b[:n-1], byte(0)
		if m := len(num); m > 0 {
			switch c := num[m-1]; c {
			case 'm', 'u', 'n', 'p':
				num, sfx = num[:m-1], c
			case 0xB5: // µ in UTF-8 is C2 B5
				if m > 1 && num[m-2] == 0xC2 {
					num, sfx = num[:m-2], 'u'
				}
			}
		}
		switch sfx {
		case 0:
			u = tracefmt.Second
		case 'm':
			u = tracefmt.Millisecond
		case 'u':
			u = tracefmt.Microsecond
		case 'n':
			u = tracefmt.Nanosecond
		case 'p':
			u = tracefmt.Picosecond
		}
		b = num
	}
	v, ok := decimal.Parse(b)
	if !ok || v < 0 {
		return 0, false
	}
	switch d := int(u) - int(rf.unit); {
	case d > 0:
		v *= pow10[d]
	case d < 0:
		v /= pow10[-d]
	}
	if math.IsInf(v, 0) {
		return 0, false
	}
	return v, true
}

// flops parses an amount of work: a number, or one with a unit (2Gf).
func flops(b []byte) (float64, bool) {
	v, ok := decimal.Parse(b)
	if !ok {
		var err error
		if v, err = units.ParseFlops(string(b)); err != nil {
			return 0, false
		}
	}
	if v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}
