package clog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt"
)

// Record types (MPE 1.x clog.h).
const (
	recEndLog   = -2
	recEndBlock = -1
	recUndef    = 0
	recRaw      = 1
	recMsg      = 2
	recColl     = 3
	recComm     = 4
	recEventDef = 5
	recStateDef = 6
	recSrcLoc   = 7
	recShift    = 8
)

// Block sizes and limits.
const (
	// BlockSize is the block size of MPE as shipped with MPICH 1.2.
	BlockSize = 65536
	// OldBlockSize is the block size of MPICH 1.1.2 and earlier.
	OldBlockSize = 1024
	// MaxRanks bounds the world size the reader accepts, so that a corrupt
	// procid cannot make it allocate gigabytes.
	MaxRanks = 1 << 20

	headerLen = 24
)

// Special event types of RAW records.
const (
	etypeSend     = -101 // LOG_MESG_SEND: data = destination, string = "tag size"
	etypeRecv     = -102 // LOG_MESG_RECV: data = source, string = "tag size"
	etypeConstDef = -201 // a constant's definition, not an event
)

// recordWords returns the length in 8-byte words, header included, of a
// record of the given type, or 0 when the type has no fixed length (UNDEF)
// or is out of range.
func recordWords(rectype int32) int32 {
	switch rectype {
	case recEndLog, recEndBlock:
		return 3
	case recRaw:
		return 7
	case recMsg, recColl, recEventDef:
		return 6
	case recComm:
		return 5
	case recStateDef:
		return 10
	case recSrcLoc:
		return 9
	case recShift:
		return 4
	}
	return 0
}

// recordName returns MPE's name of a record type.
func recordName(rectype int32) string {
	switch rectype {
	case recEndLog:
		return "ENDLOG"
	case recEndBlock:
		return "ENDBLOCK"
	case recUndef:
		return "UNDEF"
	case recRaw:
		return "RAW"
	case recMsg:
		return "MSG"
	case recColl:
		return "COLL"
	case recComm:
		return "COMM"
	case recEventDef:
		return "EVENTDEF"
	case recStateDef:
		return "STATEDEF"
	case recSrcLoc:
		return "SRCLOC"
	case recShift:
		return "SHIFT"
	}
	return fmt.Sprintf("type %d", rectype)
}

// Error reports a malformed CLOG file: what is wrong and the byte offset
// in the file where it was found.
type Error struct {
	Offset int64
	Msg    string
}

// Error returns "clog: offset N: message".
func (e *Error) Error() string { return fmt.Sprintf("clog: offset %d: %s", e.Offset, e.Msg) }

func errAt(off int64, format string, args ...any) error {
	return &Error{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// evKind says what a buffered event becomes once the definitions are known.
type evKind uint8

const (
	evRaw      evKind = iota // a state start or end, or a point event, by etype
	evSend                   // a message sent to partner
	evRecv                   // a message received from partner
	evColl                   // a COLL record: a point event
	evMsgOther               // a MSG record with an etype other than send/receive
)

// event is the compact form in which events wait for the end of the file
// (see the package documentation).
type event struct {
	time  float64
	rank  int32
	etype int32
	a     int32 // partner of a message; text index + 1 of other kinds (0: none)
	tag   int32
	size  int32
	kind  evKind
}

// chunkLen is the number of events per buffered chunk (512 KiB).
const chunkLen = 1 << 14

type stateDef struct {
	id, start, end int32
	color, name    string
}

// reader holds what a pass over the file collects.
type reader struct {
	order  binary.ByteOrder
	bs     int
	blocks int

	chunks [][]event
	count  []int // events per rank, for Builder.Grow

	maxProc, maxPartner int32
	partnerOff          int64 // where the largest partner was found
	procOff             int64 // where the largest procid was found
	endOff              int64 // where the ENDLOG record is

	states     []stateDef
	eventNames map[int32]string
	texts      []string
	textIdx    map[string]int32
}

// Read parses a merged CLOG file from r, block by block.
func Read(r io.Reader) (*tracefmt.Trace, error) {
	p := &reader{maxProc: -1, maxPartner: -1, eventNames: map[int32]string{}, textIdx: map[string]int32{}}
	if err := p.scan(r); err != nil {
		return nil, err
	}
	return p.build()
}

// readBlock fills buf from r and returns how many bytes it got; a short
// count means the file ended.
func readBlock(r io.Reader, buf []byte, off int64) (int, error) {
	n, err := io.ReadFull(r, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return n, fmt.Errorf("clog: reading at offset %d: %w", off+int64(n), err)
	}
	return n, nil
}

// scan reads every block and collects definitions and events.
func (p *reader) scan(r io.Reader) error {
	head := make([]byte, OldBlockSize)
	n, err := readBlock(r, head, 0)
	if err != nil {
		return err
	}
	if n == 0 {
		return errAt(0, "empty file: expected a CLOG record header")
	}
	if n < headerLen {
		return errAt(0, "file of %d bytes is shorter than a 24-byte record header", n)
	}
	order, ok := detectOrder(head[:n])
	if !ok {
		typ := int32(binary.BigEndian.Uint32(head[8:]))
		words := int32(binary.BigEndian.Uint32(head[12:]))
		return errAt(0, "not a CLOG record header: record type %d, length %d words (expected a type in -2..8 with its length, in either byte order)", typ, words)
	}
	p.order = order
	p.bs = detectBlockSize(head[:n], order)
	buf := make([]byte, p.bs)
	copy(buf, head[:n])
	avail := n
	if n == len(head) && p.bs > n {
		m, err := readBlock(r, buf[n:], int64(n))
		if err != nil {
			return err
		}
		avail += m
	}
	var base int64
	for block := 0; ; block++ {
		done, err := p.walkBlock(buf[:avail], base, block)
		if err != nil || done {
			p.blocks = block + 1
			return err
		}
		base += int64(p.bs)
		if avail, err = readBlock(r, buf, base); err != nil {
			return err
		}
		if avail == 0 {
			return errAt(base, "file ends after block %d without an ENDLOG record (truncated?)", block)
		}
	}
}

// detectOrder recognises the byte order from the first record header.
func detectOrder(head []byte) (binary.ByteOrder, bool) {
	for _, o := range []binary.ByteOrder{binary.BigEndian, binary.LittleEndian} {
		typ := int32(o.Uint32(head[8:]))
		words := int32(o.Uint32(head[12:]))
		if typ >= recEndLog && typ <= recShift && typ != recUndef && words == recordWords(typ) {
			return o, true
		}
	}
	return nil, false
}

// detectBlockSize tells 1024-byte blocks from 65536-byte ones: only the
// former have their first ENDBLOCK within the first 1024 bytes.
func detectBlockSize(head []byte, o binary.ByteOrder) int {
	for pos := 0; pos+headerLen <= len(head); {
		typ := int32(o.Uint32(head[pos+8:]))
		words := int32(o.Uint32(head[pos+12:]))
		if typ < recEndLog || typ > recShift || words < 3 || int64(words)*8 > int64(len(head)-pos) {
			break
		}
		if typ == recEndBlock {
			return OldBlockSize
		}
		if typ == recEndLog {
			break
		}
		pos += int(words) * 8
	}
	return BlockSize
}

// walkBlock parses the records of one block (b holds the bytes read, fewer
// than a block when the file ended) and reports whether it ended the log.
func (p *reader) walkBlock(b []byte, base int64, block int) (bool, error) {
	o := p.order
	for pos := 0; ; {
		off := base + int64(pos)
		if pos+headerLen > len(b) {
			if len(b) < p.bs {
				return false, errAt(off, "file ends inside block %d: expected a 24-byte record header (truncated?)", block)
			}
			return false, errAt(off, "block %d has no ENDBLOCK or ENDLOG record", block)
		}
		h := b[pos:]
		t := math.Float64frombits(o.Uint64(h))
		typ := int32(o.Uint32(h[8:]))
		words := int32(o.Uint32(h[12:]))
		proc := int32(o.Uint32(h[16:]))
		if typ < recEndLog || typ > recShift {
			return false, errAt(off, "record type %d out of range -2..8", typ)
		}
		if want := recordWords(typ); want != 0 && words != want {
			return false, errAt(off, "%s record of length %d words, expected %d", recordName(typ), words, want)
		}
		if words < 3 {
			return false, errAt(off, "%s record of length %d words, expected at least 3 (the header)", recordName(typ), words)
		}
		size := int64(words) * 8
		if int64(pos)+size > int64(p.bs) {
			return false, errAt(off, "%s record of %d bytes crosses the end of block %d at offset %d", recordName(typ), size, block, base+int64(p.bs))
		}
		if int64(pos)+size > int64(len(b)) {
			return false, errAt(off, "file ends inside a %s record of %d bytes (truncated?)", recordName(typ), size)
		}
		switch typ {
		case recEndLog:
			p.endOff = off
			return true, nil
		case recEndBlock:
			return false, nil
		}
		if proc < 0 || proc >= MaxRanks {
			return false, errAt(off+16, "procid %d outside 0..%d", proc, MaxRanks-1)
		}
		if err := p.record(typ, t, proc, h[headerLen:size], off); err != nil {
			return false, err
		}
		pos += int(size)
	}
}

// record handles one record other than a terminator; body follows the
// header and off is the record's offset.
func (p *reader) record(typ int32, t float64, proc int32, body []byte, off int64) error {
	o := p.order
	i32 := func(at int) int32 { return int32(o.Uint32(body[at:])) }
	if proc > p.maxProc {
		p.maxProc, p.procOff = proc, off+16
	}
	switch typ {
	case recRaw, recMsg, recColl:
		if math.IsNaN(t) || math.IsInf(t, 0) {
			return errAt(off, "%s record with time %v: expected a finite number of seconds", recordName(typ), t)
		}
	}
	switch typ {
	case recRaw:
		etype, data := i32(0), i32(4)
		str := nulTrim(body[16:32])
		switch etype {
		case etypeSend, etypeRecv:
			tag, size, err := parseTagSize(str)
			if err != nil {
				return errAt(off+headerLen+16, "message event string %q: %v", clean(str), err)
			}
			return p.message(t, proc, etype, data, tag, size, off+headerLen+4)
		case etypeConstDef:
			return nil
		}
		p.add(event{time: t, rank: proc, etype: etype, a: p.text(str), kind: evRaw})
	case recMsg:
		etype, tag, partner, comm, size := i32(0), i32(4), i32(8), i32(12), i32(16)
		switch etype {
		case etypeSend, etypeRecv:
			if size < 0 {
				return errAt(off+headerLen+16, "negative message size %d", size)
			}
			return p.message(t, proc, etype, partner, tag, size, off+headerLen+8)
		}
		txt := fmt.Sprintf("partner %d, tag %d, comm %d, %d bytes", partner, tag, comm, size)
		p.add(event{time: t, rank: proc, etype: etype, a: p.text([]byte(txt)), kind: evMsgOther})
	case recColl:
		etype, root, comm, size := i32(0), i32(4), i32(8), i32(12)
		txt := fmt.Sprintf("root %d, comm %d, %d bytes", root, comm, size)
		p.add(event{time: t, rank: proc, etype: etype, a: p.text([]byte(txt)), kind: evColl})
	case recEventDef:
		etype := i32(0)
		if _, dup := p.eventNames[etype]; !dup {
			p.eventNames[etype] = cString(body[8:24])
		}
	case recStateDef:
		// Colours are upshot's "color:bitmap"; the bitmap (a monochrome
		// fill pattern) has no place in the model.
		color, _, _ := strings.Cut(cString(body[16:40]), ":")
		p.states = append(p.states, stateDef{
			id: i32(0), start: i32(4), end: i32(8),
			color: color, name: cString(body[40:56]),
		})
	}
	return nil
}

// message buffers a send or receive after checking its partner; partnerOff
// is the offset of the partner field.
func (p *reader) message(t float64, proc, etype, partner, tag, size int32, partnerOff int64) error {
	if partner < 0 || partner >= MaxRanks {
		return errAt(partnerOff, "message partner %d is not a rank in 0..%d", partner, MaxRanks-1)
	}
	if partner > p.maxPartner {
		p.maxPartner, p.partnerOff = partner, partnerOff
	}
	k := evSend
	if etype == etypeRecv {
		k = evRecv
	}
	p.add(event{time: t, rank: proc, etype: etype, a: partner, tag: tag, size: size, kind: k})
	return nil
}

func (p *reader) add(e event) {
	if n := len(p.chunks); n == 0 || len(p.chunks[n-1]) == chunkLen {
		p.chunks = append(p.chunks, make([]event, 0, chunkLen))
	}
	c := &p.chunks[len(p.chunks)-1]
	*c = append(*c, e)
	for int(e.rank) >= len(p.count) {
		p.count = append(p.count, 0)
	}
	p.count[e.rank]++
}

// text interns the cleaned form of the raw string b and returns its index
// + 1, or 0 for the empty string. Strings repeat (every start of a state
// logs the same one), so a lookup by the raw bytes avoids an allocation.
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

// parseTagSize parses MPE's "tag size" message string.
func parseTagSize(b []byte) (tag, size int32, err error) {
	var f [2][]byte
	n := 0
	for len(b) > 0 {
		b = bytes.TrimLeft(b, " \t")
		if len(b) == 0 {
			break
		}
		i := bytes.IndexAny(b, " \t")
		if i < 0 {
			i = len(b)
		}
		if n == 2 {
			n++
			break
		}
		f[n], b = b[:i], b[i:]
		n++
	}
	if n != 2 {
		return 0, 0, errors.New(`expected "tag size"`)
	}
	t, ok1 := parseInt32(f[0])
	z, ok2 := parseInt32(f[1])
	if !ok1 || !ok2 {
		return 0, 0, errors.New(`expected two integers "tag size"`)
	}
	if z < 0 {
		return 0, 0, fmt.Errorf("negative message size %d", z)
	}
	return t, z, nil
}

// parseInt32 parses a decimal integer with an optional sign.
func parseInt32(b []byte) (int32, bool) {
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
		if v = v*10 + int64(c-'0'); v > 1<<31 {
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

// nulTrim returns the NUL-terminated string at the start of b without
// surrounding blanks.
func nulTrim(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return bytes.TrimSpace(b)
}

// cString returns the NUL-terminated string at the start of b, cleaned.
func cString(b []byte) string { return clean(nulTrim(b)) }

// clean returns b as text with invalid UTF-8 and control characters
// replaced, so that it is safe to print and to write in line formats.
func clean(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

type stateRef struct {
	id    tracefmt.StateID
	start bool
}

// build turns what scan collected into a trace.
func (p *reader) build() (*tracefmt.Trace, error) {
	world := int(p.maxProc) + 1
	if world == 0 {
		// Said at the ENDLOG record, where the reader stopped looking.
		return nil, errAt(p.endOff, "ENDLOG record, but the log has no records of any process")
	}
	if int(p.maxPartner) >= world {
		return nil, errAt(p.partnerOff, "message partner %d outside the world of %d ranks (the largest procid is %d)", p.maxPartner, world, p.maxProc)
	}
	withEvents := 0
	for _, n := range p.count {
		if n > 0 {
			withEvents++
		}
	}
	if err := tracefmt.CheckWorld(world, withEvents); err != nil {
		// Else the builder's Finish refuses it with no place in the file.
		return nil, errAt(p.procOff, "procid %d: %v", p.maxProc, err)
	}
	b := tracefmt.NewLazyBuilder(world, true, tracefmt.Second)
	b.SetPairing(tracefmt.PairOldest)
	t := b.Trace()
	t.Format = "clog"
	t.SetAttr("clog.block_size", strconv.Itoa(p.bs))
	t.SetAttr("clog.blocks", strconv.Itoa(p.blocks))
	if p.order == binary.LittleEndian {
		t.SetAttr("clog.byte_order", "little-endian")
	} else {
		t.SetAttr("clog.byte_order", "big-endian")
	}

	etypes := map[int32]stateRef{}
	for _, d := range p.states {
		// A definition whose start and end coincide cannot tell them
		// apart; its events stay point events.
		_, dupStart := etypes[d.start]
		_, dupEnd := etypes[d.end]
		if d.start == d.end || dupStart || dupEnd {
			continue
		}
		name := d.name
		if name == "" {
			name = fmt.Sprintf("state %d", d.id)
		}
		id := b.DefineState(tracefmt.StateDef{
			Name: name, Color: d.color, Category: tracefmt.CategoryOf(name),
			Source: tracefmt.SourceIDs{ID: d.id, Start: d.start, End: d.end},
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
	markers := map[[2]int32]tracefmt.MarkerID{}
	marker := func(k evKind, etype int32) tracefmt.MarkerID {
		key := [2]int32{int32(k), etype}
		if m, ok := markers[key]; ok {
			return m
		}
		var name string
		switch k {
		case evColl:
			name = fmt.Sprintf("collective event %d", etype)
		case evMsgOther:
			name = fmt.Sprintf("message event %d", etype)
		default:
			name = p.eventNames[etype]
			if name == "" {
				name = fmt.Sprintf("event %d", etype)
			}
		}
		m := b.DefineMarker(tracefmt.MarkerDef{Name: name, Source: tracefmt.SourceIDs{Start: etype}})
		markers[key] = m
		return m
	}

	for ci, chunk := range p.chunks {
		for i := range chunk {
			e := &chunk[i]
			var ev tracefmt.Event
			switch e.kind {
			case evSend:
				ev = tracefmt.Send(e.time, int(e.a), e.tag, 0, int64(e.size))
			case evRecv:
				ev = tracefmt.Recv(e.time, int(e.a), e.tag, 0, int64(e.size))
			case evRaw:
				if s, ok := etypes[e.etype]; ok {
					if s.start {
						ev = withText(tracefmt.Enter(e.time, s.id), e.a)
					} else {
						ev = tracefmt.Leave(e.time, s.id)
					}
					break
				}
				fallthrough
			default:
				ev = withText(tracefmt.Mark(e.time, marker(e.kind, e.etype)), e.a)
			}
			if _, err := b.Add(int(e.rank), ev); err != nil {
				return nil, fmt.Errorf("clog: %w", err)
			}
		}
		p.chunks[ci] = nil // hand the memory back as the model grows
	}
	tr, err := b.Finish()
	if err != nil {
		return nil, fmt.Errorf("clog: %w", err)
	}
	// MPE's wrappers log collectives as states, without their sizes.
	tr.DeriveCollectives(nil)
	return tr, nil
}
