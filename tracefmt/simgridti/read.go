package simgridti

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Special rank values of SMPI (smpi.h) that may appear in peer fields.
const (
	anySource = -555 // MPI_ANY_SOURCE
	undefined = -333 // MPI_UNDEFINED, written by SimGrid 3.32's tracer for wildcard receives
	anyTag    = -444 // MPI_ANY_TAG
	procNull  = -666 // MPI_PROC_NULL
)

// MaxRanks bounds the world size the reader accepts, so that a corrupt rank
// field cannot make it allocate gigabytes.
const MaxRanks = 1 << 20

// maxLine bounds the length of one line (alltoallv lines of large worlds
// are long, but not this long).
const maxLine = 64 << 20

// Opener opens a file named in an index file.
type Opener func(name string) (io.ReadCloser, error)

// DirOpener returns an Opener that resolves relative names against dir,
// the directory of the index file (SimGrid resolves them against the
// directory smpirun runs in, which is where its tracer writes the index).
func DirOpener(dir string) Opener {
	return func(name string) (io.ReadCloser, error) {
		return os.Open(listedPath(dir, name))
	}
}

// listedPath resolves a name an index lists against the index's directory.
func listedPath(dir, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(dir, name)
}

// Read parses a TI trace from r, which holds either the actions of every
// rank or an index listing one file per line (opened with open; nil allows
// single-file traces only). Error positions carry no file name.
func Read(r io.Reader, open Opener) (*tracefmt.Trace, error) {
	return ReadNamed("", r, open)
}

// ReadFile reads the TI trace at path, opening the files of an index
// relative to path's directory.
func ReadFile(path string) (*tracefmt.Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadNamed(path, f, DirOpener(filepath.Dir(path)))
}

// ReadNamed is Read for the content of the file called name, which its
// errors then cite as "name:line:col". The format table's reader calls
// it with DirOpener(filepath.Dir(name)).
func ReadNamed(name string, r io.Reader, open Opener) (*tracefmt.Trace, error) {
	return readNamed(name, r, open, false)
}

// ReadNamedContext is ReadNamed that stops when ctx is done, returning
// ctx.Err(): the blocks of a large file parsed on every CPU stop at the
// next block, a serial read within checkEvery lines.
func ReadNamedContext(ctx context.Context, name string, r io.Reader, open Opener) (*tracefmt.Trace, error) {
	p := newParser(ctx, false, 0)
	return p.read(name, r, open)
}

// readNamed is ReadNamed; general leaves out the fast path (tests check
// that both paths read every input alike).
func readNamed(name string, r io.Reader, open Opener, general bool) (*tracefmt.Trace, error) {
	return readSized(name, r, open, general, 0)
}

// readSized is readNamed parsing blocks of blockSize bytes (0: the
// default) when it parses on several goroutines.
func readSized(name string, r io.Reader, open Opener, general bool, blockSize int) (*tracefmt.Trace, error) {
	return newParser(context.Background(), general, blockSize).read(name, r, open)
}

// newParser returns a parser of one read (see readSized for general and
// blockSize) that stops when ctx is done.
func newParser(ctx context.Context, general bool, blockSize int) *parser {
	return &parser{ctx: ctx, blockSize: blockSize, maxRank: -1, peerMax: -1, markerIDs: map[string]tracefmt.MarkerID{}, textIDs: map[string]int{}, general: general}
}

// read reads the trace whose index or actions file name r holds.
func (p *parser) read(name string, r io.Reader, open Opener) (*tracefmt.Trace, error) {
	if err := p.ctx.Err(); err != nil {
		return nil, err
	}
	lr := newLineReader(r)
	src := &source{name: name, rank: -1}
	p.slab = &eventSlab{input: inputSize(r)}
	if fs := p.firstLine(src, lr); fs != nil {
		if len(fs) == 1 {
			if _, isRank := parseRank(fs[0].s); !isRank {
				return p.readIndex(src, lr, fs[0], open)
			}
			return nil, src.errAt(fs[0], "expected a rank and an action (such as \"%s compute 1e6\"), got a single field", fs[0].s)
		}
		if err := p.parseLine(src, fs); err != nil {
			return nil, err
		}
		if err := p.parseAll(src, lr); err != nil {
			return nil, err
		}
		return p.finish()
	}
	if err := scanErr(src, lr); err != nil {
		return nil, err
	}
	return nil, &ParseError{File: name, Line: src.line + 1, Col: 1, Msg: `no actions found (expected lines such as "0 init" or an index of per-rank files)`}
}

// inputSize returns the bytes r holds if it knows (an in-memory reader,
// a regular file), else 0.
func inputSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return 0
}

// firstLine returns the fields of the first line that is not blank or a
// comment, or nil at the end of the input.
func (p *parser) firstLine(src *source, lr *lineReader) []field {
	for {
		line, ok := lr.next()
		if !ok {
			return nil
		}
		src.line++
		if skipLine(line) {
			continue
		}
		p.fields = splitFields(line, p.fields[:0])
		return p.fields
	}
}

// source is the file being parsed: its name for errors and the rank its
// lines must belong to (-1 in a file holding every rank).
type source struct {
	name string
	rank int
	line int
}

func (s *source) errAt(f field, format string, args ...any) *ParseError {
	return &ParseError{File: s.name, Line: s.line, Col: f.col, Msg: fmt.Sprintf(format, args...)}
}

// position names a field for errors raised after parsing.
type position struct {
	file      string
	line, col int
}

// indexEntry is a file an index lists, and the index line naming it.
type indexEntry struct {
	path string
	line int
}

// scanIndex reads the rest of an index file whose first path is first.
func (p *parser) scanIndex(src *source, lr *lineReader, first field) ([]indexEntry, error) {
	files := []indexEntry{{strings.Clone(first.s), src.line}}
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		src.line++
		if skipLine(line) {
			continue
		}
		fs := splitFields(line, p.fields[:0])
		p.fields = fs
		if len(fs) != 1 {
			return nil, src.errAt(fs[1], "expected one file name per line in an index file, got %d fields", len(fs))
		}
		if len(files) == MaxRanks {
			return nil, src.errAt(fs[0], "index lists more than %d files", MaxRanks)
		}
		files = append(files, indexEntry{strings.Clone(fs[0].s), src.line})
	}
	if err := scanErr(src, lr); err != nil {
		return nil, err
	}
	return files, nil
}

// IndexFiles returns the files that the TI index at path lists, resolved
// as ReadFile opens them, or nil when path holds actions rather than an
// index. Writers use it to refuse an output that would replace a file
// the trace was read from.
func IndexFiles(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := &parser{}
	lr := newLineReader(f)
	src := &source{name: path, rank: -1}
	if fs := p.firstLine(src, lr); fs != nil {
		if len(fs) != 1 {
			return nil, nil
		}
		if _, isRank := parseRank(fs[0].s); isRank {
			return nil, nil
		}
		files, err := p.scanIndex(src, lr, fs[0])
		if err != nil {
			return nil, err
		}
		out := make([]string, len(files))
		for i, e := range files {
			out[i] = listedPath(filepath.Dir(path), e.path)
		}
		return out, nil
	}
	return nil, scanErr(src, lr)
}

// readIndex reads the rest of an index file whose first path is first.
func (p *parser) readIndex(src *source, lr *lineReader, first field, open Opener) (*tracefmt.Trace, error) {
	files, err := p.scanIndex(src, lr, first)
	if err != nil {
		return nil, err
	}
	if open == nil {
		return nil, &ParseError{File: src.name, Line: files[0].line, Col: 1, Msg: "this is an index of per-rank files, but no way to open them was given (read it with ReadFile)"}
	}
	// SimGrid: a single line names one file holding every rank.
	if len(files) > 1 {
		p.world = len(files)
		p.gen++
		p.slab.world = p.world
	}
	if p.chained(files) {
		if err := p.readChain(src.name, files, open); err != nil {
			return nil, err
		}
		return p.finish()
	}
	for k, e := range files {
		if err := p.ctx.Err(); err != nil {
			return nil, err
		}
		rank := k
		if len(files) == 1 {
			rank = -1
		}
		lines, err := p.readListed(src.name, e.path, e.line, rank, open)
		if err != nil {
			return nil, err
		}
		if len(files) == 1 && p.maxRank < 0 {
			// The one file holding every rank has none: say which file
			// and which index line named it, rather than leave finish to
			// refuse a trace without ranks with no place to name.
			via := fmt.Sprintf("index line %d", e.line)
			if src.name != "" {
				via = fmt.Sprintf("%s:%d", src.name, e.line)
			}
			return nil, &ParseError{File: e.path, Line: lines + 1, Col: 1,
				Msg: fmt.Sprintf(`no actions found in the file %s lists (expected lines such as "0 init")`, via)}
		}
	}
	return p.finish()
}

// readListed parses the file an index lists at line and returns how many
// lines it has.
func (p *parser) readListed(index, path string, line, rank int, open Opener) (int, error) {
	rc, err := open(path)
	if err != nil {
		if index != "" {
			return 0, fmt.Errorf("%s:%d: opening %s: %w", index, line, path, err)
		}
		return 0, fmt.Errorf("index line %d: opening %s: %w", line, path, err)
	}
	defer rc.Close()
	src := &source{name: path, rank: rank}
	err = p.parseAll(src, newLineReader(rc))
	return src.line, err
}

// parseText parses one line of actions (blank and comment lines add
// nothing).
func (p *parser) parseText(src *source, line []byte) error {
	if !p.general && p.fastLine(src, line) {
		return nil
	}
	return p.parseGeneral(src, line)
}

// parseGeneral parses one line of actions on the general path.
func (p *parser) parseGeneral(src *source, line []byte) error {
	if skipLine(line) {
		return nil
	}
	fs := splitFields(line, p.fields[:0])
	p.fields = fs
	if len(fs) < 2 {
		return src.errAt(fs[0], "expected a rank and an action (such as \"%s compute 1e6\"), got a single field", fs[0].s)
	}
	return p.parseLine(src, fs)
}

// parser accumulates the events of every rank.
type parser struct {
	// ctx stops the read when it is done.
	ctx context.Context
	// blockSize is the text of a block parsed on one goroutine (0:
	// blockBytes); tests make it small to cross blocks.
	blockSize int
	ranks     []*rankState
	last      *rankState // the rank of the latest line
	lastRank  int        // its number
	world     int        // world size fixed by an index, 0 when inferred from the ranks seen
	maxRank   int
	commSize  int
	// rankPos and sizePos are where the highest rank and the largest
	// comm_size appear, for an error about the world they imply.
	rankPos, sizePos position
	// peerMax is the highest rank named as a peer or root; checked
	// against the world size once it is known.
	peerMax int
	peerPos position
	// legacy and current record evidence of the pre-3.20 grammar (no tags,
	// argument-less waits, camel-case collectives) and of the current one;
	// they decide how ambiguous three-argument sends and receives read.
	legacy, current bool
	deferred        []deferredColl
	markers         []string
	markerIDs       map[string]tracefmt.MarkerID
	texts           []string
	textIDs         map[string]int
	ignoredWaits    int
	wildcards       bool
	anySources      int // MPI_ANY_SOURCE receives (-555): no sender recorded
	removals        bool
	fields          []field
	// states are the MPI calls (and Compute) the actions stand for;
	// stateIDs indexes them by action.
	states   []tracefmt.StateDef
	stateIDs map[string]int32
	// recent lists the first actions actionState resolved (nrecent of
	// them), checked before stateIDs.
	recent  [8]recentAction
	nrecent int
	// fastStates are the states of the fast path's actions, plus one
	// (0: not defined yet).
	fastStates [numFastActs]int32
	general    bool // no fast path (see readNamed)
	// slab hands out the streams' memory in a whole read (nil in a
	// streamed one, whose streams are the caller's buffers).
	slab *eventSlab
	// memo remembers decoded lines (see lineMemo; nil until a serial
	// read or a stream first needs it), tm how the lines it gave
	// applied (made with it).
	memo *lineMemo
	tm   templates
	// memoBits is the size of the memo to make (0: minMemoBits).
	memoBits int
	// gen counts the changes of what decides how a fast line applies
	// (see templates): every general line, the world, the grammar.
	gen uint64
}

// lineMemo returns the parser's memo of decoded lines, made on first
// use.
func (p *parser) lineMemo() *lineMemo {
	if p.memo == nil {
		bits := max(p.memoBits, minMemoBits)
		p.memo = newLineMemo(bits)
		p.tm = newTemplates(bits)
	}
	return p.memo
}

type rankState struct {
	events []tracefmt.Event
	// hint is the capacity the stream grows to first (see parser.rank).
	hint int
	// base is how many of the rank's events a stream handed out before
	// events[0] (0 when the whole trace is read).
	base      int32
	dtDefault Datatype
	nextReq   int64
	// slab hands out the stream's memory in a whole read (nil: the
	// heap).
	slab    *eventSlab
	pending []pendingReq
}

// pendingReq is an isend or irecv not yet completed by a wait, with the
// key SimGrid identifies it by: (sender, receiver, tag). A wildcard
// receive has src anySource; a receive of any tag has tag anyTag.
type pendingReq struct {
	id            int64
	src, dst, tag int32
	recv          bool
}

// deferredColl is a collective whose arguments depend on the world size,
// which a single-file trace only reveals at its end.
type deferredColl struct {
	rank     int
	index    int // of the collective event; a reduce-scatter's flops follow it
	action   field
	args     []field
	pos      position
	defaultT Datatype
}

func (p *parser) rank(r int) *rankState {
	if r >= len(p.ranks) {
		n := max(2*len(p.ranks), r+1)
		n = min(n, MaxRanks)
		grown := make([]*rankState, n)
		copy(grown, p.ranks)
		p.ranks = grown
	}
	if p.ranks[r] == nil {
		p.ranks[r] = &rankState{dtDefault: Byte, slab: p.slab}
	}
	if rs := p.ranks[r]; rs != p.last {
		// Ranks of one program have streams of similar lengths, and
		// files list them one after the other: a rank's stream grows
		// at once to the length of the rank read before, which spares
		// the copies of doubling.
		if p.last != nil {
			rs.hint = len(p.last.events)
		}
		p.last, p.lastRank = rs, r
	}
	if r > p.maxRank {
		p.maxRank = r
	}
	return p.ranks[r]
}

func (p *parser) notePeer(src *source, f field, r int) {
	if r > p.peerMax {
		p.peerMax = r
		p.peerPos = position{src.name, src.line, f.col}
	}
}

func (p *parser) legacyMode() bool { return p.legacy && !p.current }

func (p *parser) marker(name string) tracefmt.MarkerID {
	if id, ok := p.markerIDs[name]; ok {
		return id
	}
	id := tracefmt.MarkerID(len(p.markers))
	name = strings.Clone(name) // the line's text does not outlive it
	p.markers = append(p.markers, name)
	p.markerIDs[name] = id
	return id
}

func (p *parser) text(s string) int {
	if i, ok := p.textIDs[s]; ok {
		return i
	}
	i := len(p.texts)
	p.texts = append(p.texts, s)
	p.textIDs[s] = i
	return i
}

// finish settles what needed the whole trace (world size, deferred
// collectives, wildcard sources) and builds the trace.
func (p *parser) finish() (*tracefmt.Trace, error) {
	P := p.world
	fromIndex := P > 0
	if P == 0 {
		P = max(p.maxRank+1, p.commSize)
	}
	if P == 0 {
		// Every path that reads no action reports where (readNamed,
		// readIndex); this guards the invariant.
		return nil, fmt.Errorf("simgridti: no action names a rank (expected lines such as \"0 init\")")
	}
	if p.peerMax >= P {
		pos := p.peerPos
		return nil, &ParseError{File: pos.file, Line: pos.line, Col: pos.col,
			Msg: fmt.Sprintf("rank %d is outside the world of %d ranks (ranks seen: 0 to %d)", p.peerMax, P, P-1)}
	}
	p.world = P // now peers and roots are checked as they are parsed
	p.gen++
	withEvents := 0
	for _, rs := range p.ranks {
		if rs != nil { // a rank with only init and finalize counts
			withEvents++
		}
	}
	// Before the wildcard sweep and the builder allocate per rank.
	if err := tracefmt.CheckWorld(P, withEvents); err != nil {
		pos := p.rankPos
		if p.commSize > p.maxRank+1 {
			pos = p.sizePos
		}
		if fromIndex || pos.line == 0 {
			return nil, fmt.Errorf("simgridti: %w", err)
		}
		return nil, &ParseError{File: pos.file, Line: pos.line, Col: pos.col, Msg: err.Error()}
	}
	for i := range p.deferred {
		if err := p.settle(&p.deferred[i], P); err != nil {
			return nil, err
		}
	}
	if p.removals {
		for _, rs := range p.ranks {
			if rs != nil {
				rs.events = compact(rs.events)
			}
		}
	}
	if p.wildcards {
		resolveWildcards(p.ranks, P)
	}
	b := tracefmt.NewLazyBuilder(P, false, tracefmt.Second)
	t := b.Trace()
	t.Format = "ti"
	for _, m := range p.markers {
		b.Marker(m)
	}
	for _, s := range p.states {
		b.DefineState(s)
	}
	for _, s := range p.texts {
		b.Text(s)
	}
	if p.ignoredWaits > 0 {
		t.SetAttr("ti.ignored_waits", strconv.Itoa(p.ignoredWaits))
	}
	if p.anySources > 0 {
		// The senders the reader chose for them are a guess.
		t.SetAttr(tracefmt.AttrUnrecordedSources, strconv.Itoa(p.anySources))
	}
	for r, rs := range p.ranks {
		if rs != nil {
			// The action states are paired as they are added: the
			// streams go to the builder's trace as they are, and Finish
			// matches the messages.
			if err := b.SetEvents(r, rs.events); err != nil {
				return nil, fmt.Errorf("simgridti: %w", err)
			}
			p.ranks[r] = nil
		}
	}
	return b.Finish()
}

// settle parses a deferred collective now that the world size is known.
func (p *parser) settle(d *deferredColl, P int) error {
	rs := p.ranks[d.rank]
	src := &source{name: d.pos.file, rank: -1, line: d.pos.line}
	saved := rs.dtDefault
	rs.dtDefault = d.defaultT
	l := line{p: p, src: src, rank: d.rank, rs: rs, act: d.action, args: d.args}
	e := &rs.events[d.index]
	op := e.Op()
	c, err := l.parseColl(op, P)
	rs.dtDefault = saved
	if err != nil {
		return err
	}
	*e = tracefmt.Collective(0, op, c.root, 0, c.sent, c.recvd)
	if op == tracefmt.OpReduceScatter {
		if c.flops > 0 {
			rs.events[d.index+1] = tracefmt.ComputeWork(0, c.flops)
		} else {
			rs.events[d.index+1].Kind = 0 // removed by compact
			p.removals = true
		}
	}
	return nil
}

// compact drops the events marked removed (Kind 0) and pairs the action
// states again, whose indices moved.
func compact(ev []tracefmt.Event) []tracefmt.Event {
	out := ev[:0]
	enter := int32(-1)
	for _, e := range ev {
		switch e.Kind {
		case 0:
			continue
		case tracefmt.KindEnter:
			enter = int32(len(out))
		case tracefmt.KindLeave:
			e.Match = enter
			out[enter].Match = int32(len(out))
		}
		out = append(out, e)
	}
	return out
}
