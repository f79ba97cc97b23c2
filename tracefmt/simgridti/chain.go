package simgridti

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/tracesim/tracesim/tracefmt/lineblock"
)

// The per-rank files of an index are parsed as one stream on every CPU:
// a chain reader hands the files to one lineblock.Run one after the
// other, so that the blocks, the decoded lines and the goroutines of a
// pipeline serve the whole trace rather than being made again for each
// of its files (a trace of 256 files of 90 KB spent more time setting
// pipelines up and clearing their buffers than decoding), and a worker
// decodes the next file while the parser applies the one before. The
// parser still applies the lines in file order, each with its own
// file's name, rank and line number, so the trace and the errors are
// those of reading the files one by one.

// fileStart is where a file of a chain starts in the chained text.
type fileStart struct {
	file int // its index in the chain's entries
	line int // the chained text's line number of its first line
}

// chain reads the files of an index one after the other, ending each
// file's last line with a "\n" if it lacks one.
type chain struct {
	entries []indexEntry
	open    Opener
	next    int           // the entry to open after cur
	cur     io.ReadCloser // nil between files
	lines   int           // line breaks handed out so far
	last    byte          // the last byte of the current file read
	any     bool          // whether the current file had a byte

	mu     sync.Mutex
	starts []fileStart // the files opened, in order
	// failed is the first file that could not be opened and why; the
	// chain ends before it, so that the files before are parsed whole.
	failed    int
	failedErr error
}

// Read reads the current file on, opening the next when it ends.
func (c *chain) Read(p []byte) (int, error) {
	for {
		if c.cur == nil {
			if c.next == len(c.entries) || c.failedErr != nil {
				return 0, io.EOF
			}
			k := c.next
			c.next++
			rc, err := c.open(c.entries[k].path)
			if err != nil {
				c.mu.Lock()
				c.failed, c.failedErr = k, err
				c.mu.Unlock()
				return 0, io.EOF
			}
			c.cur, c.any = rc, false
			c.mu.Lock()
			c.starts = append(c.starts, fileStart{k, c.lines + 1})
			c.mu.Unlock()
		}
		n, err := c.cur.Read(p)
		if n > 0 {
			c.any, c.last = true, p[n-1]
			c.lines += bytes.Count(p[:n], []byte{'\n'})
		}
		if err == io.EOF {
			c.cur.Close()
			c.cur = nil
			if c.any && c.last != '\n' && n < len(p) {
				p[n] = '\n'
				n++
				c.lines++
			} else if c.any && c.last != '\n' {
				// No room for the line break: read it on the next call
				// as the content of an empty file.
				c.cur = eolReader{}
				c.any = false
			}
			if n > 0 {
				return n, nil
			}
			continue
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// eolReader is the "\n" a file's last line lacked.
type eolReader struct{}

func (eolReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	p[0] = '\n'
	return 1, io.EOF
}

func (eolReader) Close() error { return nil }

// close closes the file being read, if any.
func (c *chain) close() {
	if c.cur != nil {
		c.cur.Close()
		c.cur = nil
	}
}

// startsNow returns the files opened so far.
func (c *chain) startsNow() []fileStart {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.starts
}

// chained reports whether readIndex parses the files of an index of
// per-rank files as one chain: when a second CPU can decode, on the fast
// path (see pipelined).
func (p *parser) chained(files []indexEntry) bool {
	return len(files) > 1 && runtime.GOMAXPROCS(0) > 1 && !p.general
}

// chainPos follows which file of a chain the lines being parsed are in.
type chainPos struct {
	files  []indexEntry
	starts []fileStart // the files opened when last looked at
	at     int         // the index in starts of the file parsed, -1 before the first
	src    *source     // that file
	// first is the chained line number of its first line; next that of
	// the next file opened (math.MaxInt while none is known).
	first, next int
}

// move makes pos.src the file holding chained line no, among the files
// in pos.starts: the chain records a file before handing out its bytes,
// so a block's files are all there once it is read.
func (pos *chainPos) move(no int) {
	for no >= pos.next {
		pos.at++
		f := pos.starts[pos.at]
		pos.src = &source{name: pos.files[f.file].path, rank: f.file}
		pos.first = f.line
		pos.next = math.MaxInt
		if pos.at+1 < len(pos.starts) {
			pos.next = pos.starts[pos.at+1].line
		}
	}
}

// look takes in the files the chain opened since the last look.
func (pos *chainPos) look(c *chain) {
	pos.starts = c.startsNow()
	if pos.at+1 < len(pos.starts) {
		pos.next = pos.starts[pos.at+1].line
	}
}

// readChain parses the per-rank files of an index (named index, "" when
// unnamed) as one stream.
func (p *parser) readChain(index string, files []indexEntry, open Opener) error {
	c := &chain{entries: files, open: open}
	defer c.close()
	pos := &chainPos{files: files, at: -1, next: math.MaxInt}
	size := p.blockSize
	if size == 0 {
		size = blockBytes
	}
	o := lineblock.Options{BlockSize: size, MaxLine: maxLine}
	err := lineblock.Run(p.ctx, c, o, decodeBlock, func(b *lineblock.Block, d *decodedBlock) error {
		pos.look(c)
		for i := 0; i < len(d.lines); {
			if no := b.Line + int(d.lines[i].no); no >= pos.next {
				pos.move(no)
			}
			// The lines up to the next file's first are pos.src's.
			stop := int32(min(pos.next-b.Line, math.MaxInt32))
			var err error
			if i, err = p.applyDecoded(pos.src, b.Data, d, i, stop, b.Line-pos.first+1); err != nil {
				return err
			}
		}
		return nil
	})
	var le *lineblock.Error
	if errors.As(err, &le) {
		// Where the read failed: in the file holding its line.
		pos.look(c)
		pos.move(le.Line)
		if pos.src == nil {
			return fmt.Errorf("%s: %w", files[0].path, le)
		}
		line := le.Line - pos.first + 1
		if errors.Is(le.Err, lineblock.ErrLineTooLong) {
			return &ParseError{File: pos.src.name, Line: line, Col: 1, Msg: errLineTooLong.Error()}
		}
		return fmt.Errorf("%s: line %d: %w", pos.src.name, line, le.Err)
	}
	if err != nil {
		return err
	}
	if c.failedErr != nil {
		e := files[c.failed]
		if index != "" {
			return fmt.Errorf("%s:%d: opening %s: %w", index, e.line, e.path, c.failedErr)
		}
		return fmt.Errorf("index line %d: opening %s: %w", e.line, e.path, c.failedErr)
	}
	return nil
}
