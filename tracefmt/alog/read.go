package alog

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Record types.
const (
	typeCreator    = -1
	typeNumProcs   = -3
	typeEventName  = -9
	typeEventFmt   = -10
	typeRollover   = -11
	typeStateDef   = -13
	minHeaderType  = -100 // -1..-100 are headers (-100 is clock sync)
	typeSend       = -101
	typeRecv       = -102
	maxExactMicros = 1 << 53
)

// MaxRanks bounds the world size the reader accepts, so that a corrupt
// process number cannot make it allocate gigabytes.
const MaxRanks = 1 << 20

// maxLine bounds the length of a line; ALOG comments are short (nupshot
// reads at most 1024 bytes).
const maxLine = 64 << 10

// Error reports a malformed ALOG line: its 1-based line number, the
// 1-based column (byte offset in the line) of the offending field, and
// what was expected.
type Error struct {
	Line, Col int
	Msg       string
}

// Error returns "alog: line:col: message".
func (e *Error) Error() string { return fmt.Sprintf("alog: %d:%d: %s", e.Line, e.Col, e.Msg) }

func errAt(line, col int, format string, args ...any) error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// fieldNames names the six integer fields, for errors.
var fieldNames = [6]string{"type", "process", "task", "data", "cycle", "timestamp"}

// pos is a place in the file.
type pos struct{ line, col int }

// event is the compact form in which events wait for the end of the file.
type event struct {
	time    float64 // absolute microseconds
	typ     int32
	proc    int32
	partner int32
	tag     int32
	size    int32
	text    int32 // index + 1 into reader.texts; 0: none
}

const chunkLen = 1 << 14

type stateDef struct {
	start, end  int32
	color, name string
}

// reader holds what a pass over the file collects.
type reader struct {
	chunks [][]event
	count  []int

	np         int
	npAt       struct{ line, col int } // of the process count
	maxProc    int32
	maxProcAt  pos // of the process field naming maxProc
	maxPartner int32
	partnerAt  pos

	rollover   uint64
	cycles     bool // an event with a non-zero cycle was read
	creator    string
	states     []stateDef
	eventNames map[int32]string
	eventFmts  map[int32]string
	texts      []string
	textIdx    map[string]int32
}

// Read parses an ALOG file from r, line by line.
func Read(r io.Reader) (*tracefmt.Trace, error) {
	p := &reader{
		maxProc: -1, maxPartner: -1,
		eventNames: map[int32]string{}, eventFmts: map[int32]string{}, textIdx: map[string]int32{},
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	line := 0
	for sc.Scan() {
		line++
		if err := p.line(sc.Bytes(), line); err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, errAt(line+1, 1, "line longer than %d bytes", maxLine)
		}
		return nil, fmt.Errorf("alog: reading line %d: %w", line+1, err)
	}
	return p.build(line)
}

// field is one whitespace-separated field and its 1-based column.
type field struct {
	b   []byte
	col int
}

// split cuts a line into its six integer fields and the comment (without
// surrounding blanks), which starts at column commentCol. It returns fewer
// than six fields when the line is short.
func split(s []byte) (fs [6]field, n int, comment []byte, commentCol int) {
	i := 0
	for n < 6 {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		if i == len(s) {
			return fs, n, nil, i + 1
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' {
			j++
		}
		fs[n] = field{s[i:j], i + 1}
		n++
		i = j
	}
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return fs, n, trimSpace(s[i:]), i + 1
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// parseInt parses a decimal integer with an optional sign that fits in
// 32 bits.
func parseInt(b []byte) (int32, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
		if v > 1<<31 {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 {
		return 0, false
	}
	return int32(v), true
}

// parseUint parses an unsigned decimal integer of up to 64 bits.
func parseUint(b []byte) (uint64, bool) {
	if len(b) > 0 && b[0] == '+' {
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		hi, lo := bits.Mul64(v, 10)
		lo, carry := bits.Add64(lo, uint64(c-'0'), 0)
		if hi != 0 || carry != 0 {
			return 0, false
		}
		v = lo
	}
	return v, true
}

// skipLine reports whether a line carries no record (blank or '#').
func skipLine(s []byte) bool {
	s = trimSpace(s)
	return len(s) == 0 || s[0] == '#'
}

// line handles one line of the file.
func (p *reader) line(s []byte, ln int) error {
	if n := len(s); n > 0 && s[n-1] == '\r' {
		s = s[:n-1]
	}
	if skipLine(s) {
		return nil
	}
	fs, n, comment, commentCol := split(s)
	if n < 6 {
		return errAt(ln, commentCol, "expected 6 integer fields `type process task data cycle timestamp`, found %d (missing %s)", n, fieldNames[n])
	}
	var v [5]int32
	for i := range v {
		x, ok := parseInt(fs[i].b)
		if !ok {
			return errAt(ln, fs[i].col, "%s %q: expected a 32-bit integer", fieldNames[i], fs[i].b)
		}
		v[i] = x
	}
	ts, ok := parseUint(fs[5].b)
	if !ok {
		return errAt(ln, fs[5].col, "timestamp %q: expected an unsigned integer number of microseconds", fs[5].b)
	}
	typ, proc, task, data, cycle := v[0], v[1], v[2], v[3], v[4]

	if typ < 0 && typ >= minHeaderType {
		return p.header(typ, task, data, ts, clean(comment), ln, fs, commentCol)
	}
	if proc < 0 || proc >= MaxRanks {
		return errAt(ln, fs[1].col, "process %d outside 0..%d", proc, MaxRanks-1)
	}
	if cycle < 0 {
		return errAt(ln, fs[4].col, "negative cycle %d", cycle)
	}
	if cycle > 0 {
		if p.rollover == 0 {
			return errAt(ln, fs[4].col, "cycle %d, but no timer roll-over point (-11 header) before it gives the length of a cycle", cycle)
		}
		p.cycles = true
	}
	at, ok := p.absTime(cycle, ts)
	if !ok {
		return errAt(ln, fs[5].col, "time of cycle %d, timestamp %d (roll-over point %d) exceeds 2^53 microseconds", cycle, ts, p.rollover)
	}
	if proc > p.maxProc {
		p.maxProc, p.maxProcAt = proc, pos{ln, fs[1].col}
	}
	e := event{time: at, typ: typ, proc: proc}
	if typ == typeSend || typ == typeRecv {
		if data < 0 || data >= MaxRanks {
			what := "receiver"
			if typ == typeRecv {
				what = "sender"
			}
			return errAt(ln, fs[3].col, "%s %d is not a process in 0..%d", what, data, MaxRanks-1)
		}
		tag, size, err := parseTagSize(comment)
		if err != nil {
			return errAt(ln, commentCol, "message comment %q: %v", clean(comment), err)
		}
		if data > p.maxPartner {
			p.maxPartner, p.partnerAt = data, pos{ln, fs[3].col}
		}
		e.partner, e.tag, e.size = data, tag, size
	} else {
		e.text = p.text(comment)
	}
	p.add(e)
	return nil
}

// header handles a header record.
func (p *reader) header(typ, task, data int32, ts uint64, cmt string, ln int, fs [6]field, commentCol int) error {
	switch typ {
	case typeCreator:
		p.creator = cmt
	case typeNumProcs:
		if data < 0 || data > MaxRanks {
			return errAt(ln, fs[3].col, "number of processes %d outside 0..%d", data, MaxRanks)
		}
		p.np = int(data)
		p.npAt.line, p.npAt.col = ln, fs[3].col
	case typeEventName:
		if _, dup := p.eventNames[data]; !dup {
			p.eventNames[data] = cmt
		}
	case typeEventFmt:
		if _, dup := p.eventFmts[data]; !dup {
			p.eventFmts[data] = cmt
		}
	case typeRollover:
		if p.cycles && ts != p.rollover {
			return errAt(ln, fs[5].col, "roll-over point %d differs from %d, which earlier cycles used", ts, p.rollover)
		}
		p.rollover = ts
	case typeStateDef:
		color, name, ok := parseStateDef(cmt)
		if !ok {
			return errAt(ln, commentCol, "state definition: expected `color:bitmap name` after the six fields, found %q", cmt)
		}
		p.states = append(p.states, stateDef{start: task, end: data, color: color, name: name})
	}
	return nil
}

// parseStateDef splits a -13 comment into colour and name: "color:bitmap
// name" or "color name"; the bitmap (a monochrome pattern) is dropped.
func parseStateDef(c string) (color, name string, ok bool) {
	w, rest, _ := strings.Cut(c, " ")
	if i := strings.IndexAny(w, "\t"); i >= 0 {
		w, rest = w[:i], w[i+1:]+" "+rest
	}
	color, _, _ = strings.Cut(w, ":")
	name = strings.TrimSpace(rest)
	return color, name, name != ""
}

// parseTagSize parses the "tag size" comment of a message record.
func parseTagSize(b []byte) (tag, size int32, err error) {
	var f [2][]byte
	n := 0
	for {
		b = trimSpace(b)
		if len(b) == 0 {
			break
		}
		if n == 2 {
			n++
			break
		}
		i := bytes.IndexAny(b, " \t")
		if i < 0 {
			i = len(b)
		}
		f[n], b = b[:i], b[i:]
		n++
	}
	if n != 2 {
		return 0, 0, errors.New(`expected "tag size"`)
	}
	t, ok1 := parseInt(f[0])
	z, ok2 := parseInt(f[1])
	if !ok1 || !ok2 {
		return 0, 0, errors.New(`expected two integers "tag size"`)
	}
	if z < 0 {
		return 0, 0, fmt.Errorf("negative message size %d", z)
	}
	return t, z, nil
}

// clean returns a comment with invalid UTF-8 and control characters
// replaced, so that it is safe to print and to write in line formats.
func clean(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s))
}

func (p *reader) add(e event) {
	if n := len(p.chunks); n == 0 || len(p.chunks[n-1]) == chunkLen {
		p.chunks = append(p.chunks, make([]event, 0, chunkLen))
	}
	c := &p.chunks[len(p.chunks)-1]
	*c = append(*c, e)
	for int(e.proc) >= len(p.count) {
		p.count = append(p.count, 0)
	}
	p.count[e.proc]++
}

// text interns the cleaned form of the comment b and returns its index +
// 1, or 0 for an empty comment. A lookup by the raw bytes avoids an
// allocation for comments seen before.
func (p *reader) text(b []byte) int32 {
	if len(b) == 0 {
		return 0
	}
	if i, ok := p.textIdx[string(b)]; ok {
		return i + 1
	}
	i := int32(len(p.texts))
	p.texts = append(p.texts, clean(b))
	p.textIdx[string(b)] = i
	return i + 1
}

type stateRef struct {
	id    tracefmt.StateID
	start bool
}

// build turns what the lines gave into a trace; lines is how many the
// file has.
func (p *reader) build(lines int) (*tracefmt.Trace, error) {
	world := max(p.np, int(p.maxProc)+1)
	if world == 0 && lines == 0 {
		return nil, errAt(1, 1, "empty file: expected a process count (-3 header) or an event")
	}
	if world == 0 {
		// Said at the end of the file, where the reader gave up looking.
		return nil, errAt(lines+1, 1, "the file ends without an event or a process count (-3 header): nothing to read")
	}
	if int(p.maxPartner) >= world {
		return nil, errAt(p.partnerAt.line, p.partnerAt.col, "message partner %d outside the world of %d processes", p.maxPartner, world)
	}
	withEvents := 0
	for _, n := range p.count {
		if n > 0 {
			withEvents++
		}
	}
	if err := tracefmt.CheckWorld(world, withEvents); err != nil {
		if world > int(p.maxProc)+1 {
			// The -3 header claims more processes than have events.
			return nil, errAt(p.npAt.line, p.npAt.col, "number of processes %d: %v", world, err)
		}
		// The world reaches the highest process an event names.
		return nil, errAt(p.maxProcAt.line, p.maxProcAt.col, "process %d: %v", p.maxProc, err)
	}
	b := tracefmt.NewLazyBuilder(world, true, tracefmt.Microsecond)
	b.SetPairing(tracefmt.PairOldest)
	t := b.Trace()
	t.Format = "alog"
	if p.creator != "" {
		t.SetAttr("alog.creator", p.creator)
	}
	if p.rollover != 0 {
		t.SetAttr("alog.rollover", strconv.FormatUint(p.rollover, 10))
	}

	etypes := map[int32]stateRef{}
	for _, d := range p.states {
		_, dupStart := etypes[d.start]
		_, dupEnd := etypes[d.end]
		if d.start == d.end || dupStart || dupEnd {
			continue
		}
		id := b.DefineState(tracefmt.StateDef{
			Name: d.name, Color: d.color, Category: tracefmt.CategoryOf(d.name),
			Source: tracefmt.SourceIDs{Start: d.start, End: d.end}, // ALOG has no state ids
		})
		etypes[d.start] = stateRef{id, true}
		etypes[d.end] = stateRef{id, false}
	}
	for r, n := range p.count {
		b.Grow(r, n)
	}
	textRef := make([]int, len(p.texts))
	for i := range textRef {
		textRef[i] = -1
	}
	withText := func(ev tracefmt.Event, a int32) tracefmt.Event {
		if a > 0 {
			if textRef[a-1] < 0 {
				textRef[a-1] = b.Text(p.texts[a-1])
			}
			ev.SetTextRef(textRef[a-1])
		}
		return ev
	}
	markers := map[int32]tracefmt.MarkerID{}
	marker := func(typ int32) tracefmt.MarkerID {
		if m, ok := markers[typ]; ok {
			return m
		}
		name := p.eventNames[typ]
		if name == "" {
			name = fmt.Sprintf("event %d", typ)
		}
		m := b.DefineMarker(tracefmt.MarkerDef{Name: name, Format: p.eventFmts[typ], Source: tracefmt.SourceIDs{Start: typ}})
		markers[typ] = m
		return m
	}

	for ci, chunk := range p.chunks {
		for i := range chunk {
			e := &chunk[i]
			at := e.time
			var ev tracefmt.Event
			switch {
			case e.typ == typeSend:
				ev = tracefmt.Send(at, int(e.partner), e.tag, 0, int64(e.size))
			case e.typ == typeRecv:
				ev = tracefmt.Recv(at, int(e.partner), e.tag, 0, int64(e.size))
			default:
				if s, ok := etypes[e.typ]; ok {
					if s.start {
						ev = withText(tracefmt.Enter(at, s.id), e.text)
					} else {
						ev = tracefmt.Leave(at, s.id)
					}
				} else {
					ev = withText(tracefmt.Mark(at, marker(e.typ)), e.text)
				}
			}
			if _, err := b.Add(int(e.proc), ev); err != nil {
				return nil, fmt.Errorf("alog: %w", err)
			}
		}
		p.chunks[ci] = nil // hand the memory back as the model grows
	}
	tr, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("alog: %w", err)
	}
	// MPE's wrappers log collectives as states, without their sizes.
	tr.DeriveCollectives(nil)
	return tr, nil
}

// absTime returns cycle × (rollover+1) + ts in microseconds, and false when
// it exceeds 2^53 (where float64 stops being exact).
func (p *reader) absTime(cycle int32, ts uint64) (float64, bool) {
	v := ts
	if cycle > 0 {
		period, carry := bits.Add64(p.rollover, 1, 0)
		hi, lo := bits.Mul64(uint64(cycle), period)
		if carry != 0 || hi != 0 {
			return 0, false
		}
		var c uint64
		v, c = bits.Add64(lo, ts, 0)
		if c != 0 {
			return 0, false
		}
	}
	if v > maxExactMicros {
		return 0, false
	}
	return float64(v), true
}
