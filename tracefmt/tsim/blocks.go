package tsim

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

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

// blockRec is a non-blank line of a block as a worker leaves it.
type blockRec struct {
	// r is the decoded line (decoded): its names and text are bytes
	// of the block, valid while the block is consumed.
	r       rec
	no      int32 // line number, from the block's first
	lo, hi  int32 // the line's text in the block
	decoded bool
}

// decodedBlock is a block's non-blank lines, decoded where they can be.
type decodedBlock struct {
	recs []blockRec
	last int32 // the last line's number, from the block's first
}

// readOptions tune how Read parses; the zero value is Read's choice.
type readOptions struct {
	// workers decode blocks (0: GOMAXPROCS); with one, the input is
	// read line by line on the calling goroutine.
	workers int
	// blockSize is the text of a block (0: blockBytes). A positive
	// value also pipelines inputs too small to be worth it, for tests.
	blockSize int
	// flushMin is the fewest events flush hands over in a group
	// (0: the default, flushMin), for tests of small groups.
	flushMin int
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
		for i := range d.recs {
			br := &d.recs[i]
			if br.decoded && p.apply(&br.r) == nil {
				continue
			}
			// The serial path parses the line again and words the
			// error, if any.
			p.s = lineScanner{line: b.Data[br.lo:br.hi], no: first + int(br.no)}
			p.s.more()
			if err := p.record(); err != nil {
				return err
			}
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

// decodeBlock cuts b into lines, leaving out blank and comment ones, and
// decodes each.
func (rf *recordFormat) decodeBlock(b *lineblock.Block, d *decodedBlock) error {
	if cap(d.recs) == 0 {
		// Room for lines of 24 bytes and more (a typical line has
		// 35): the slice is not regrown block after block.
		d.recs = make([]blockRec, 0, len(b.Data)/24+1)
	}
	d.recs = d.recs[:0]
	err := b.Lines(func(no int, off int64, line []byte) error {
		d.last = int32(no - b.Line)
		s := lineScanner{line: line}
		if !s.more() {
			return nil
		}
		lo := int32(off - b.Offset)
		// The record is set field by field, not zeroed whole: decodeFast
		// sets every field but the name and text, which the flags
		// cleared here make it ignore.
		k := len(d.recs)
		if k == cap(d.recs) {
			d.recs = append(d.recs, blockRec{})
		}
		d.recs = d.recs[:k+1]
		br := &d.recs[k]
		br.no, br.lo, br.hi = d.last, lo, lo+int32(len(line))
		br.r.named, br.r.hasText = false, false
		br.decoded = rf.decodeFast(line, s.pos, &br.r)
		if !br.decoded {
			br.r = rec{}
			br.decoded = rf.decode(&s, &br.r) == nil
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("decoding a block: %w", err) // Lines fails only by fn
	}
	return nil
}
