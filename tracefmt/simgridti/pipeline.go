package simgridti

import (
	"bytes"
	"errors"
	"io"
	"math"
	"runtime"
	"sort"

	"github.com/tracesim/tracesim/tracefmt/lineblock"
)

// A file of actions is parsed in blocks on every CPU when the process
// has more than one: workers cut a block into lines and decode the fast
// lines from their bytes (decodeFast: field splitting and number
// parsing, most of the work); the parser applies the decoded lines in
// file order (applyFast: ranks, requests, states, events) and parses
// the others on the general path. Everything that depends on the lines
// before happens in that in-order step, so the trace, the errors and
// their positions are those of the serial read.

// blockBytes is the text of a block: about 14,000 typical lines, whose
// decoded records (64 B each) cost ~1 MB a block; with 2×workers blocks
// in flight the read holds a few MB whatever the file's size.
const blockBytes = 256 << 10

// blockLine is a line of a block as a worker leaves it: its number and
// text, and how it was decoded (kind).
type blockLine struct {
	no     int32 // line number, from the block's first
	lo, hi int32 // the line's text in the block
	// id is, for a line of kind lineNamed, the id the block's memo
	// named its bytes by (see templates, parser.memoRec); for kind
	// lineFast, otherID plus the index of its record in
	// decodedBlock.recs; for kind lineGeneral, otherID.
	id   uint32
	kind lineKind
}

// lineKind says how a worker decoded a line.
type lineKind uint8

const (
	lineGeneral lineKind = iota // not decoded: the general path parses it
	lineFast                    // decoded into a record of recs
	lineNamed                   // of the tight form, named by the memo
)

// otherID is the top bit of the id of a line not named by the memo,
// which no memo's id has (see maxID): its id finds no template.
const otherID = 1 << 31

// decodedBlock is a block's non-blank lines, decoded where they can be.
type decodedBlock struct {
	lines []blockLine
	// recs are the records of the lines of kind lineFast; scratch is
	// where a tight line the memo does not name is decoded first.
	recs    []fastRec
	scratch fastRec
	last    int32 // the last line's number, from the block's first
	// memo stays with the block's slot of the pipeline, block after
	// block; tm is how the lines it named applied, which only the
	// goroutine applying the blocks reads and writes.
	memo lineMemo
	tm   templates
}

// pipelined reports whether parseAll parses lr's input in blocks on
// several goroutines: with a second CPU, for an input not known to be
// small (a short string or per-rank file is not worth the goroutines),
// on the fast path.
func (p *parser) pipelined(lr *lineReader) bool {
	return len(lr.buf) >= readChunk && runtime.GOMAXPROCS(0) > 1 && !p.general && lr.err == nil
}

// checkEvery is how many lines a serial read parses between looks at
// its context (a power of two).
const checkEvery = 1 << 14

// parseAll parses every remaining line of lr.
func (p *parser) parseAll(src *source, lr *lineReader) error {
	if !p.pipelined(lr) {
		var memo *lineMemo
		for {
			if w := lr.window(); w != nil && !p.general {
				// A line of the tight form, decoded where it is.
				if memo == nil {
					memo = p.lineMemo()
				}
				var fr fastRec
				if n, ok := memo.decode(w, &fr); ok {
					start := lr.start
					lr.skip(n)
					if err := p.nextLine(src, lr); err != nil {
						return err
					}
					if p.applyMemo(src, &fr, p.tm) {
						continue
					}
					if err := p.parseGeneral(src, lr.buf[start:start+n]); err != nil {
						return err
					}
					continue
				}
			}
			line, ok := lr.next()
			if !ok {
				break
			}
			if err := p.nextLine(src, lr); err != nil {
				return err
			}
			// parseText, one call fewer a line.
			if !p.general && p.fastLine(src, line) {
				continue
			}
			if err := p.parseGeneral(src, line); err != nil {
				return err
			}
		}
		return scanErr(src, lr)
	}
	// The rest of the input: what lr has buffered, then its reader.
	var rest io.Reader = bytes.NewReader(lr.buf[lr.start:lr.end])
	if !lr.eof {
		rest = io.MultiReader(rest, lr.r)
	}
	lr.start, lr.eof = lr.end, true
	done := lr.done  // the bytes before the first block
	base := src.line // the first block's line 1 is src.line+1
	size := p.blockSize
	if size == 0 {
		size = blockBytes
	}
	o := lineblock.Options{BlockSize: size, MaxLine: maxLine}
	err := lineblock.Run(p.ctx, rest, o, decodeBlock, func(b *lineblock.Block, d *decodedBlock) error {
		first := base + b.Line
		if p.slab != nil && src.rank < 0 {
			p.slab.consumed = done + b.Offset + int64(len(b.Data))
		}
		if _, err := p.applyDecoded(src, b.Data, d, 0, math.MaxInt32, first); err != nil {
			return err
		}
		src.line = first + int(d.last)
		return nil
	})
	var le *lineblock.Error
	if errors.As(err, &le) {
		src.line = base + le.Line - 1
		if errors.Is(le.Err, lineblock.ErrLineTooLong) {
			lr.err = errLineTooLong
		} else {
			lr.err = le.Err
		}
		return scanErr(src, lr)
	}
	return err
}

// nextLine counts a line of a serial read: it looks at the context now
// and then (a non-nil error: it is done) and tells the slab how much of
// the input is parsed. It is small enough to be inlined: the work of
// every 1,024th line is everyLines'.
func (p *parser) nextLine(src *source, lr *lineReader) error {
	if src.line++; src.line&1023 != 0 {
		return nil
	}
	return p.everyLines(src, lr)
}

// everyLines is nextLine's work on every 1,024th line.
func (p *parser) everyLines(src *source, lr *lineReader) error {
	if src.line&(checkEvery-1) == 0 {
		if err := p.ctx.Err(); err != nil {
			return err
		}
	}
	if p.slab != nil && src.rank < 0 {
		p.slab.consumed = lr.done // for the size of the next block
	}
	return nil
}

// applyDecoded applies the lines of d (a block whose text is data) in
// order from its i-th, up to the first whose number from the block's
// first is stop or more, all of them lines of src, whose line number is
// first plus that number; it returns the index of the first line it did
// not apply. Runs of lines whose templates hold are applied by
// applyTemplates; the others one by one, from their record (applyMemo)
// or on the general path.
func (p *parser) applyDecoded(src *source, data []byte, d *decodedBlock, i int, stop int32, first int) (int, error) {
	if d.tm == nil {
		d.tm = newTemplates(minMemoBits) // as decodeBlock's memo
	}
	lines := d.lines
	if stop != math.MaxInt32 {
		// The lines of src: those numbered below stop.
		lines = lines[:i+sort.Search(len(lines)-i, func(k int) bool { return lines[i+k].no >= stop })]
	}
	for i < len(lines) {
		if lines[i].kind == lineNamed {
			if k := p.applyTemplates(src, lines[i:], d.tm); k > 0 {
				i += k
				continue
			}
		}
		l := &lines[i]
		i++
		src.line = first + int(l.no)
		switch l.kind {
		case lineNamed:
			fr := d.memoRec(data, l)
			if p.applyMemo(src, &fr, d.tm) {
				continue
			}
		case lineFast:
			if p.applyFast(src, &d.recs[l.id&^otherID]) {
				continue
			}
		}
		if err := p.parseGeneral(src, data[l.lo:l.hi]); err != nil {
			return i, err
		}
	}
	return i, nil
}

// memoRec returns the record of line l of kind lineNamed (of the block
// d, whose text is data): the one the memo noted when it named the
// line's bytes, or, if a later line's took its place, the line decoded
// again (the record depends on the bytes alone).
func (d *decodedBlock) memoRec(data []byte, l *blockLine) fastRec {
	if fr := d.memo.rec(l.id); fr.id == l.id {
		return *fr
	}
	var fr fastRec
	// A tight line starts a window's length or more before the
	// block's end (see decodeBlock), and decodes as it did.
	decodeTight((*lineBuf)(data[l.lo:int(l.lo)+len(lineBuf{})]), &fr)
	fr.id = l.id
	return fr
}

// decodeBlock cuts b into lines, leaving out blank and comment ones, and
// decodes the fast ones. It cuts them as b.Lines does, inline: a call
// of a function value a line costs as much as finding its end.
func decodeBlock(b *lineblock.Block, d *decodedBlock) error {
	if d.memo.slots == nil {
		// A block holds lines of any ranks, in the file's order: the
		// smallest memo.
		d.memo.init(minMemoBits)
	}
	if cap(d.lines) == 0 {
		// Room for lines of 16 bytes and more (a typical line has
		// 19): the slice is not regrown block after block.
		d.lines = make([]blockLine, 0, len(b.Data)/16+1)
	}
	d.lines = d.lines[:0]
	d.recs = d.recs[:0]
	data := b.Data
	no := int32(-1) // the line's number, from the block's first
	// The tight path reads a window of a lineBuf from each line's
	// start: the lines closer than that to the block's end take the
	// usual one.
	tight := len(data) - len(lineBuf{})
	for lo := 0; lo < len(data); {
		if lo <= tight {
			lo, no = d.tightRun(data, lo, no, tight)
			if lo >= len(data) {
				break
			}
		}
		no++
		hi := len(data)
		next := hi
		if i := bytes.IndexByte(data[lo:], '\n'); i >= 0 {
			hi = lo + i
			next = hi + 1
		}
		line := data[lo:hi]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if !skipLine(line) {
			l := blockLine{no: no, lo: int32(lo), hi: int32(lo + len(line)), id: otherID}
			// decodeFast sets every field of the record that
			// applyFast reads, whatever an earlier block left there.
			k := len(d.recs)
			if k == cap(d.recs) {
				d.recs = append(d.recs, fastRec{})
			}
			if decodeFast(line, &d.recs[:k+1][k]) {
				d.recs = d.recs[:k+1]
				l.kind, l.id = lineFast, otherID|uint32(k)
			}
			d.lines = append(d.lines, l)
		}
		lo = next
	}
	d.last = max(no, 0)
	return nil
}

// tightRun decodes the lines from data[lo:] on while they have the tight
// form and start at or before last (see decodeBlock), appending them to
// d.lines; no is the number of the line before data[lo:]. It returns
// where the first line it did not take starts, and that line's number
// less one.
func (d *decodedBlock) tightRun(data []byte, lo int, no int32, last int) (int, int32) {
	m := &d.memo
	lines := d.lines
	for lo <= last {
		b := (*lineBuf)(data[lo : lo+len(lineBuf{})])
		no++
		if m.left > 1 && m.rest == 0 {
			// decodeID's first guess, inline: the line that followed
			// the last one found the last time, compared under its
			// mask (memoSlot.holds, written out: too large to be
			// inlined). The other guess, m.alt, is decodeID's, and so
			// is the line with one lookup left in the trial (judged).
			if gi := m.guess; gi != 0 {
				g := &m.slots[gi-1]
				d := (load8(b, 0)^g.key[0])&g.mask[0] | (load8(b, 8)^g.key[1])&g.mask[1] |
					(load8(b, 16)^g.key[2])&g.mask[2] | (load8(b, 24)^g.key[3])&g.mask[3]
				if id := g.fr.id; d == 0 && g.n != 0 && id != 0 {
					m.left--
					m.prev, m.guess, m.alt = gi, g.next, g.alt
					lines = append(lines, blockLine{no: no, lo: int32(lo), hi: int32(lo + g.n), id: id, kind: lineNamed})
					lo += g.n + 1
					continue
				}
			}
		}
		n, id, ok := m.decodeID(b, &d.scratch)
		if !ok {
			no--
			break
		}
		kind := lineNamed
		if id == 0 {
			kind, id = lineFast, otherID|uint32(len(d.recs))
			d.recs = append(d.recs, d.scratch)
		}
		lines = append(lines, blockLine{no: no, lo: int32(lo), hi: int32(lo + n), id: id, kind: kind})
		lo += n + 1
	}
	d.lines = lines
	return lo, no
}
