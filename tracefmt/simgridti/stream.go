package simgridti

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/tracesim/tracesim/tracefmt"
)

// ErrNotStreamable is returned by OpenSource for a trace whose layout
// holds several ranks in one file: only per-rank files stream.
var ErrNotStreamable = errors.New("simgridti: only a trace of per-rank files (an index listing one file per rank) streams")

// maxOpenFiles bounds the per-rank files a Source keeps open; the files
// of ranks beyond it are opened for each read.
const maxOpenFiles = 256

// Source streams the trace of an index of per-rank files (the layout of
// `smpirun -trace-ti`): each rank's events are read from its file as a
// consumer asks for them, so that only a few lines per rank are in
// memory at a time. The events are those ReadFile gives, except that a
// wildcard receive (-555) keeps Peer -555 (what it matched is the
// replay's business, see tracefmt.AttrUnrecordedSources) and that
// messages are not matched (Match is set on state enters and leaves
// only). States are defined up front, one per action the reader knows;
// Markers and Texts grow as lines define them.
type Source struct {
	p     *parser
	hdr   *tracefmt.Trace
	index string
	files []rankFile
	open  int
	// bufSize is the read-ahead buffer of each rank file: ranks share a
	// budget (readAhead), and each gets at least minReadAhead.
	bufSize int
}

// readAhead is the bytes the rank files' buffers share; minReadAhead and
// maxReadAhead bound one file's.
const (
	readAhead    = 1 << 20
	minReadAhead = 4 << 10
	maxReadAhead = 64 << 10
)

type rankFile struct {
	path string
	f    *os.File
	off  int64 // where the next read starts
	// buf[lo:hi] are the bytes read and not yet parsed; eof tells that
	// the file has no more.
	buf    []byte
	lo, hi int
	eof    bool
	src    source
	done   bool
	// memoAt is where the memo's guesses stood (lineMemo's prev, guess
	// and alt) when the rank's last call ended, for its next call to go
	// on from (see ReadRank).
	memoAt [3]uint16
}

// OpenSource opens the TI trace at path as a tracefmt.Source if it is an
// index listing one file per rank; ErrNotStreamable when it is not (a
// single file, or an index of one file holding every rank): read it
// with ReadFile then. Every listed file must exist.
func OpenSource(path string) (*Source, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p := newParser(context.Background(), false, 0)
	lr := newLineReader(f)
	src := &source{name: path, rank: -1}
	fs := p.firstLine(src, lr)
	if fs == nil {
		if err := scanErr(src, lr); err != nil {
			return nil, err
		}
		return nil, ErrNotStreamable
	}
	if len(fs) != 1 {
		return nil, ErrNotStreamable
	}
	if _, isRank := parseRank(fs[0].s); isRank {
		return nil, ErrNotStreamable
	}
	entries, err := p.scanIndex(src, lr, fs[0])
	if err != nil {
		return nil, err
	}
	if len(entries) < 2 {
		return nil, ErrNotStreamable
	}
	dir := filepath.Dir(path)
	s := &Source{p: p, index: path, files: make([]rankFile, len(entries)),
		bufSize: min(max(readAhead/len(entries), minReadAhead), maxReadAhead)}
	for r, e := range entries {
		full := listedPath(dir, e.path)
		if _, err := os.Stat(full); err != nil {
			return nil, fmt.Errorf("%s:%d: opening %s: %w", path, e.line, e.path, err)
		}
		s.files[r] = rankFile{path: full, src: source{name: e.path, rank: r}}
	}
	p.world = len(entries)
	p.memoBits = memoBitsFor(len(entries)) // the ranks take turns in one memo
	p.gen++
	for _, act := range streamStates {
		p.actionState(act)
	}
	s.hdr = &tracefmt.Trace{
		Format: "ti",
		Unit:   tracefmt.Second,
		Comms:  []tracefmt.Comm{{Name: "MPI_COMM_WORLD"}},
		Ranks:  make([]tracefmt.Rank, len(entries)),
		States: p.states,
	}
	// Whether the trace has -555 receives is known once they are read.
	s.hdr.SetAttr(tracefmt.AttrUnrecordedSources, "")
	return s, nil
}

// streamStates are the actions that add events, in the order a Source
// defines their states.
var streamStates = []string{
	"compute", "sleep", "send", "isend", "ssend", "issend", "bsend", "ibsend", "rsend", "irsend",
	"recv", "irecv", "sendrecv", "wait", "test", "waitall", "waitany", "testany", "testall", "testsome",
	"start", "startall", "barrier", "bcast", "reduce", "allreduce", "alltoall", "alltoallv", "gather",
	"gatherv", "allgather", "allgatherv", "scatter", "scatterv", "reducescatter", "scan", "exscan",
}

// Header returns the trace's header (see tracefmt.Source).
func (s *Source) Header() *tracefmt.Trace { return s.hdr }

// ReadRank fills dst with rank r's next events (see tracefmt.Source).
// Lines are parsed straight into dst; only the events of a line that
// does not fit wait for the next call.
func (s *Source) ReadRank(r int, dst []tracefmt.Event) (int, error) {
	if r < 0 || r >= len(s.files) {
		return 0, fmt.Errorf("simgridti: rank %d outside the world of %d ranks", r, len(s.files))
	}
	rf := &s.files[r]
	// The memo's guesses are the rank's own from its last call: the
	// rank's loop goes on where it stopped, so the call's first lines
	// apply from their templates, not after a lookup of their bytes (a
	// guess is checked against the line, so one that other ranks' lines
	// overwrote since only misses). The smaller a call, the more it
	// pays: `sim --preset simgrid` on the 256-rank SimGrid stencil
	// (callgrind, GOMAXPROCS=1) reading 128 events a rank ahead took
	// 4,244 M instructions instead of 4,267 M, reading 512 4,129 M
	// instead of 4,132 M.
	m := s.p.memo
	if m != nil {
		m.prev, m.guess, m.alt = rf.memoAt[0], rf.memoAt[1], rf.memoAt[2]
	}
	n, err := s.readRank(r, rf, dst)
	if m = s.p.memo; m != nil {
		rf.memoAt = [3]uint16{m.prev, m.guess, m.alt}
	}
	return n, err
}

// readRank is ReadRank for rank r, whose file is rf.
func (s *Source) readRank(r int, rf *rankFile, dst []tracefmt.Event) (int, error) {
	rs := s.p.rank(r)
	n := 0
	for n < len(dst) {
		if len(rs.events) > 0 {
			k := copy(dst[n:], rs.events)
			rs.events = rs.events[:copy(rs.events, rs.events[k:])]
			rs.base += int32(k)
			n += k
			continue
		}
		if rf.done {
			break
		}
		room := len(dst) - n
		if room < maxLineEvents {
			// Too little room for a line: parse one into the rank's
			// own buffer, handed out above. One line's room is all it
			// needs (grow would give it 64 events, 2.5 KiB a rank for
			// the whole run: 640 KiB of a 256-rank heap's 13 MiB).
			if cap(rs.events) < maxLineEvents {
				rs.events = make([]tracefmt.Event, 0, maxLineEvents)
			}
			if err := s.parseSome(rf, rs, 1); err != nil {
				return n, err
			}
			continue
		}
		pending := rs.events
		rs.events = dst[n:n:len(dst)]
		err := s.parseSome(rf, rs, room-maxLineEvents+1)
		k := len(rs.events)
		rs.events = pending
		rs.base += int32(k)
		n += k
		if err != nil {
			return n, err
		}
	}
	s.syncHeader()
	if n == 0 && rf.done {
		return 0, io.EOF
	}
	return n, nil
}

// maxLineEvents is the most events one action line adds: the enter and
// the leave of its state around a sendRecv's send and receive, or a
// collective and the compute of its reduction.
const maxLineEvents = 4

// parseSome parses lines of rank file rf until the rank has want events
// pending or its file ends.
func (s *Source) parseSome(rf *rankFile, rs *rankState, want int) error {
	for len(rs.events) < want {
		data := rf.buf[rf.lo:rf.hi]
		if len(data) >= len(lineBuf{}) && !s.p.general {
			if s.p.memo != nil && s.p.last == rs && s.templateLines(rf, rs, want) {
				continue
			}
			// A line of the tight form is decoded where it is.
			var fr fastRec
			if n, ok := s.p.lineMemo().decode((*lineBuf)(data[:len(lineBuf{})]), &fr); ok {
				rf.lo += n + 1
				rf.src.line++
				if !s.p.applyMemo(&rf.src, &fr, s.p.tm) {
					if err := s.p.parseGeneral(&rf.src, data[:n]); err != nil {
						return err
					}
				}
				continue
			}
		}
		i := bytes.IndexByte(data, '\n')
		var line []byte
		switch {
		case i >= 0:
			line = data[:i]
			rf.lo += i + 1
		case rf.eof && len(data) > 0:
			line = data
			rf.lo = rf.hi
		case rf.eof:
			s.finish(rf)
			return nil
		default:
			if err := s.refill(rf); err != nil {
				return err
			}
			continue
		}
		rf.src.line++
		if err := s.p.parseText(&rf.src, trimCR(line)); err != nil {
			return err
		}
	}
	if rf.eof && rf.lo == rf.hi {
		s.finish(rf)
	}
	return nil
}

// templateLines applies the lines of rank file rf (whose rank is rs,
// the parser's last) from its buffer's unparsed bytes on, while the rank
// has fewer than want events and they are the lines the memo guesses
// (see decodedBlock.tightRun) and their templates hold; it reports
// whether it applied any. Any other line is parseSome's.
func (s *Source) templateLines(rf *rankFile, rs *rankState, want int) bool {
	p, m := s.p, s.p.memo
	// What a template must hold (see applyTemplates).
	rid, gen := uint64(uint32(rf.src.rank))<<32, p.gen
	lo := rf.lo
	for len(rs.events) < want && lo <= rf.hi-len(lineBuf{}) {
		gi := m.guess
		if gi == 0 || m.left <= 1 || m.rest != 0 {
			break
		}
		b := (*lineBuf)(rf.buf[lo : lo+len(lineBuf{})])
		// (memoSlot.holds, written out: too large to be inlined.)
		for k := 0; gi != 0; k++ {
			g := &m.slots[gi-1]
			d := (load8(b, 0)^g.key[0])&g.mask[0] | (load8(b, 8)^g.key[1])&g.mask[1] |
				(load8(b, 16)^g.key[2])&g.mask[2] | (load8(b, 24)^g.key[3])&g.mask[3]
			if d == 0 && g.n != 0 {
				break
			}
			if gi = 0; k == 0 {
				gi = m.alt
			}
		}
		if gi == 0 {
			break
		}
		g := &m.slots[gi-1]
		id := g.fr.id
		if id == 0 {
			break
		}
		t := p.tm.of(id)
		if t.rid != rid|uint64(id) || t.gen != gen {
			break
		}
		m.left--
		m.prev, m.guess, m.alt = gi, g.next, g.alt
		lo += g.n + 1
		rf.src.line++
		p.fromTemplate(rs, t)
	}
	applied := lo != rf.lo
	rf.lo = lo
	return applied
}

// refill moves the unparsed bytes of rf's buffer to its start and reads
// the file on after them. The buffer stays the rank's between calls, so
// each byte of the file is read once however few events a call wants
// (a shared buffer sized to the call read 4 KiB for a few hundred bytes
// of lines and read the rest again on the next call).
func (s *Source) refill(rf *rankFile) error {
	if rf.buf == nil {
		rf.buf = make([]byte, s.bufSize)
	}
	rf.hi = copy(rf.buf, rf.buf[rf.lo:rf.hi])
	rf.lo = 0
	if rf.hi == len(rf.buf) {
		// A line longer than the buffer: read it whole.
		if len(rf.buf) >= maxLine {
			return &ParseError{File: rf.src.name, Line: rf.src.line + 1, Col: 1, Msg: errLineTooLong.Error()}
		}
		grown := make([]byte, min(2*len(rf.buf), maxLine))
		copy(grown, rf.buf[:rf.hi])
		rf.buf = grown
	}
	room := rf.buf[rf.hi:]
	n, err := s.readAt(rf, room)
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: line %d: %w", rf.src.name, rf.src.line+1, err)
	}
	rf.off += int64(n)
	rf.hi += n
	rf.eof = n < len(room)
	return nil
}

// finish marks rank file rf read to its end, closing it and dropping its
// buffer.
func (s *Source) finish(rf *rankFile) {
	rf.done = true
	rf.buf, rf.lo, rf.hi = nil, 0, 0
	s.closeFile(rf)
}

// readAt reads rank file rf from its offset, keeping the file open while
// few are.
func (s *Source) readAt(rf *rankFile, buf []byte) (int, error) {
	f := rf.f
	if f == nil {
		var err error
		if f, err = os.Open(rf.path); err != nil {
			return 0, err
		}
		if s.open < maxOpenFiles {
			rf.f = f
			s.open++
		} else {
			defer f.Close()
		}
	}
	n, err := f.ReadAt(buf, rf.off)
	if err == io.EOF {
		err = nil
	}
	return n, err
}

func (s *Source) closeFile(rf *rankFile) {
	if rf.f != nil {
		rf.f.Close()
		rf.f = nil
		s.open--
	}
}

// syncHeader adds the markers and texts the lines defined to the header.
func (s *Source) syncHeader() {
	for i := len(s.hdr.Markers); i < len(s.p.markers); i++ {
		s.hdr.Markers = append(s.hdr.Markers, tracefmt.MarkerDef{Name: s.p.markers[i]})
	}
	for i := len(s.hdr.Texts); i < len(s.p.texts); i++ {
		s.hdr.Texts = append(s.hdr.Texts, s.p.texts[i])
	}
}

// Close closes the files the source holds open.
func (s *Source) Close() error {
	for i := range s.files {
		s.closeFile(&s.files[i])
	}
	return nil
}

var _ tracefmt.Source = (*Source)(nil)
