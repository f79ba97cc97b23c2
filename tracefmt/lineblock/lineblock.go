// Package lineblock parses a line-oriented input in large blocks on
// several goroutines and hands the results back in file order.
//
// A text trace (SimGrid TI, tsim) is a sequence of lines that can be cut
// and tokenized independently of each other; only what depends on the
// lines before (nesting, matching, interning) has to run in order. Run
// splits the input at line boundaries into blocks of about
// Options.BlockSize bytes, each knowing its first line's number and byte
// offset, lets Options.Workers goroutines parse them, and calls the
// consumer with each parsed block in file order. At most 2×Workers blocks
// are in flight, so the memory held stays bounded whatever the input's
// size: the input is never held whole.
package lineblock

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
)

// Block is a run of whole lines of the input.
type Block struct {
	// Data holds the lines with their "\n" (the input's last line may
	// lack it). It is valid until the consumer returns: a parsed result
	// keeps a copy of what it needs longer.
	Data []byte
	// Line is the 1-based number of the block's first line.
	Line int
	// Offset is the byte offset of Data[0] in the input.
	Offset int64
}

// Lines calls fn with each line of b (without its "\n" or "\r\n"), its
// 1-based number and its first byte's offset in the input, stopping at
// the first error fn returns.
func (b *Block) Lines(fn func(no int, off int64, line []byte) error) error {
	d, no, off := b.Data, b.Line, b.Offset
	for len(d) > 0 {
		i := bytes.IndexByte(d, '\n')
		line, at := d, off
		if i >= 0 {
			line, d = d[:i], d[i+1:]
			off += int64(i + 1)
		} else {
			d = nil
		}
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if err := fn(no, at, line); err != nil {
			return err
		}
		no++
	}
	return nil
}

// Options tune Run; the zero value is usable.
type Options struct {
	// BlockSize is the text a block aims at (default 2 MiB). A block
	// holds whole lines: it ends at the last line break of its text, or
	// grows to hold a line longer than BlockSize.
	BlockSize int
	// MaxLine bounds how far a block grows to hold one line (default
	// 64 MiB): a line longer than both MaxLine and BlockSize is an
	// error naming its line and offset.
	MaxLine int
	// Workers is the number of goroutines parsing blocks (default
	// GOMAXPROCS). With one, Run reads, parses and consumes each block
	// in turn on the calling goroutine, starting no goroutine.
	Workers int
}

// DefaultBlockSize is the block size when Options.BlockSize is 0: large
// enough that handing a block over is rare, small enough that a few
// blocks per worker cost little memory.
const DefaultBlockSize = 2 << 20

// DefaultMaxLine is the longest line when Options.MaxLine is 0.
const DefaultMaxLine = 64 << 20

// Error is a problem reading the input itself (not parsing it): a line
// longer than Options.MaxLine or a failed read.
type Error struct {
	// Line and Offset are where the problem is: the line being read
	// and its first byte's offset.
	Line   int
	Offset int64
	Err    error
}

// Error returns "line N (offset O): reason".
func (e *Error) Error() string {
	return fmt.Sprintf("line %d (offset %d): %v", e.Line, e.Offset, e.Err)
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// ErrLineTooLong is the Err of an Error for a line over Options.MaxLine.
var ErrLineTooLong = fmt.Errorf("line too long")

// Run reads r to its end in blocks, calls parse with each block and a
// result to fill on up to o.Workers goroutines, and consume with each
// block and its result in file order on the calling goroutine. Results
// are reused: parse is given one that a block before may have filled and
// must reset what it uses.
//
// The first error in file order wins: that of parse for a block, that of
// consume, or reading's (an *Error); blocks after it are not consumed.
// Run also stops when ctx is done, returning ctx.Err(). Whatever the
// outcome, no goroutine of Run is left running and r is no longer read
// once Run returns.
func Run[R any](ctx context.Context, r io.Reader, o Options, parse func(b *Block, res *R) error, consume func(b *Block, res *R) error) error {
	if o.BlockSize <= 0 {
		o.BlockSize = DefaultBlockSize
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	s := &splitter{r: r, size: o.BlockSize, maxLine: o.MaxLine, line: 1}
	if o.Workers == 1 {
		return runSerial(ctx, s, parse, consume)
	}
	return runParallel(ctx, s, o.Workers, parse, consume)
}

// runSerial is Run with one worker: no goroutine, one block and result.
func runSerial[R any](ctx context.Context, s *splitter, parse, consume func(*Block, *R) error) error {
	var b Block
	var res R
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		more, err := s.next(&b)
		if err != nil {
			return err
		}
		if !more {
			return nil
		}
		if err := parse(&b, &res); err != nil {
			return err
		}
		if err := consume(&b, &res); err != nil {
			return err
		}
	}
}

// slot is a block in flight and its result.
type slot[R any] struct {
	b    Block
	res  R
	err  error         // parse's, or the splitter's for the last slot
	done chan struct{} // receives once the block is parsed
	last bool          // no block follows (err may say why)
}

// runParallel is Run with workers goroutines parsing: a reader goroutine
// fills free slots in file order and sends each both to the workers and,
// in order, to the consumer, which waits for each to be parsed.
func runParallel[R any](ctx context.Context, s *splitter, workers int, parse, consume func(*Block, *R) error) error {
	n := 2 * workers
	free := make(chan *slot[R], n)
	for range n {
		free <- &slot[R]{done: make(chan struct{}, 1)}
	}
	work := make(chan *slot[R], n)
	order := make(chan *slot[R], n)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(work)
		defer close(order)
		for {
			var sl *slot[R]
			select {
			case sl = <-free:
			case <-quit:
				return
			}
			more, err := s.next(&sl.b)
			if err != nil || !more {
				sl.err, sl.last = err, true
				sl.done <- struct{}{}
				order <- sl // never blocks: n slots, n places
				return
			}
			sl.err, sl.last = nil, false
			work <- sl
			order <- sl
		}
	}()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for sl := range work {
				select {
				case <-quit:
					// Skip the parse: nobody will consume it.
				default:
					sl.err = parse(&sl.b, &sl.res)
				}
				sl.done <- struct{}{}
			}
		}()
	}
	stop := func(err error) error {
		close(quit)
		wg.Wait()
		return err
	}
	for sl := range order {
		select {
		case <-sl.done:
		case <-ctx.Done():
			return stop(ctx.Err())
		}
		if sl.last {
			return stop(sl.err)
		}
		if sl.err != nil {
			return stop(sl.err)
		}
		if err := consume(&sl.b, &sl.res); err != nil {
			return stop(err)
		}
		if err := ctx.Err(); err != nil {
			return stop(err)
		}
		free <- sl
	}
	return stop(nil)
}

// splitter cuts its reader's text into blocks of whole lines.
type splitter struct {
	r       io.Reader
	size    int
	maxLine int
	carry   []byte // text read after the last block's last line break
	line    int    // number of the next block's first line
	off     int64  // offset of the next block's first byte
	eof     bool
	err     error
}

// next fills b with the next block, reusing its Data's memory, and
// reports false at the end of the input; the error is an *Error.
func (s *splitter) next(b *Block) (bool, error) {
	if s.err != nil {
		return false, s.err
	}
	d := append(b.Data[:0], s.carry...)
	s.carry = s.carry[:0]
	for {
		// Read until the block is full or the input ends; a line
		// longer than the block grows it.
		want := min(max(s.size, 2*len(d)), max(s.size, s.maxLine+1))
		for !s.eof && len(d) < want {
			if cap(d) < want {
				d = append(d[:cap(d)], make([]byte, want-cap(d))...)[:len(d)]
			}
			n, err := s.r.Read(d[len(d):want])
			d = d[:len(d)+n]
			if err == io.EOF {
				s.eof = true
			} else if err != nil {
				s.err = s.errAt(d, err)
				return false, s.err
			}
		}
		if s.eof {
			break
		}
		if i := bytes.LastIndexByte(d, '\n'); i >= 0 {
			s.carry = append(s.carry, d[i+1:]...)
			d = d[:i+1]
			break
		}
		if len(d) > s.maxLine {
			s.err = &Error{Line: s.line, Offset: s.off, Err: ErrLineTooLong}
			return false, s.err
		}
	}
	if s.eof && len(d) > s.maxLine && len(d) > s.size {
		// The last block's lines were read whole; check the longest
		// only when the block could hold one too long.
		if err := s.checkLines(d); err != nil {
			return false, err
		}
	}
	b.Data, b.Line, b.Offset = d, s.line, s.off
	if len(d) == 0 {
		return false, nil
	}
	s.line += bytes.Count(d, []byte{'\n'})
	s.off += int64(len(d))
	return true, nil
}

// errAt returns the Error of a failed read after the text d of the
// block being read: at the line it was in.
func (s *splitter) errAt(d []byte, err error) error {
	line, off := s.line, s.off
	if i := bytes.LastIndexByte(d, '\n'); i >= 0 {
		line += bytes.Count(d[:i+1], []byte{'\n'})
		off += int64(i + 1)
	}
	return &Error{Line: line, Offset: off, Err: err}
}

// checkLines returns an Error for the first line of d (a last block)
// longer than the limit.
func (s *splitter) checkLines(d []byte) error {
	line, off := s.line, s.off
	for len(d) > 0 {
		i := bytes.IndexByte(d, '\n')
		if i < 0 {
			i = len(d)
		}
		if i > s.maxLine && i > s.size {
			s.err = &Error{Line: line, Offset: off, Err: ErrLineTooLong}
			return s.err
		}
		if i == len(d) {
			break
		}
		d = d[i+1:]
		line++
		off += int64(i + 1)
	}
	return nil
}
