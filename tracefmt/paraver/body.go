package paraver

import (
	"bufio"
	"fmt"
	"io"
)

// The body of a .prv is split into lines, and their fixed fields parsed,
// on a goroutine of its own while the reader's goroutine turns the
// records into events: the two halves of the work overlap. Lines travel
// in batches of bounded size, a few in flight, so that the read streams.
const (
	// batchBytes is the text a batch holds (a longer line makes its
	// batch larger).
	batchBytes = 1 << 20
	// batchesInFlight bounds the batches split and not yet turned into
	// events.
	batchesInFlight = 3
)

// lineBatch is a run of body lines.
type lineBatch struct {
	buf   []byte
	lines []bodyLine
	// vals holds the fixed fields of the lines parsed ahead.
	vals []int64
	// err, when set, is the read error after the lines, at line errLine.
	err     error
	errLine int
	// last is the number of lines of the body once the batch that ends
	// it is done (the last batch).
	last int
}

// bodyLine is one non-empty line of a batch.
type bodyLine struct {
	no         int // line number in the file
	start, end int // in buf
	// pos is the offset in the line after the record type of the fields
	// after the fixed ones, or -1 when the line was not parsed ahead
	// (a comment, a communicator, a malformed record); its fixed fields
	// are vals[val:].
	pos int32
	val int32
}

// body reads the lines after the header.
func (rd *reader) body(br *bufio.Reader) error {
	out := make(chan *lineBatch, batchesInFlight-1)
	free := make(chan *lineBatch, batchesInFlight)
	stop := make(chan struct{})
	size := rd.batchBytes
	if size <= 0 {
		size = batchBytes
	}
	go split(br, rd.line, size, out, free, stop)
	var err error
	for b := range out {
		if err != nil {
			continue // drain until the splitter has stopped reading
		}
		if err = rd.batch(b); err != nil {
			close(stop)
			continue
		}
		select {
		case free <- b:
		default:
		}
	}
	return err
}

// batch turns a batch's records into events.
func (rd *reader) batch(b *lineBatch) error {
	for _, l := range b.lines {
		rd.line = l.no
		line := b.buf[l.start:l.end]
		var err error
		if l.pos < 0 {
			err = rd.record(line)
		} else {
			n := len(recordNames[line[0]])
			err = rd.parsed(line[0], b.vals[l.val:int(l.val)+n], &fields{s: line[2:], pos: int(l.pos), n: n})
		}
		if err != nil {
			return err
		}
	}
	if b.err != nil {
		return fmt.Errorf("%s:%d: %w", rd.name, b.errLine, b.err)
	}
	if b.last > 0 {
		rd.line = b.last
	}
	return nil
}

// split reads the lines of br, the header (line) being read, into
// batches of about size bytes sent on out until the end, a read error or
// stop; it closes out.
func split(br *bufio.Reader, line, size int, out chan<- *lineBatch, free chan *lineBatch, stop <-chan struct{}) {
	defer close(out)
	get := func() *lineBatch {
		select {
		case b := <-free:
			b.buf, b.lines, b.vals = b.buf[:0], b.lines[:0], b.vals[:0]
			return b
		default:
			return &lineBatch{buf: make([]byte, 0, size+size/8)}
		}
	}
	b := get()
	for {
		raw, err := br.ReadSlice('\n')
		start := len(b.buf)
		b.buf = append(b.buf, raw...)
		for err == bufio.ErrBufferFull {
			raw, err = br.ReadSlice('\n')
			b.buf = append(b.buf, raw...)
		}
		end := len(b.buf)
		for end > start && (b.buf[end-1] == '\n' || b.buf[end-1] == '\r') {
			end--
		}
		b.buf = b.buf[:end]
		if end > start {
			line++
			b.lines = append(b.lines, b.ahead(line, start, end))
		} else if err == nil {
			line++
		}
		done := err != nil
		if err != nil && err != io.EOF {
			b.err, b.errLine = err, line+1
		}
		if done {
			b.last = line
		}
		if done || len(b.buf) >= size {
			select {
			case out <- b:
			case <-stop:
				return
			}
			if done {
				return
			}
			b = get()
		}
	}
}

// ahead parses the fixed fields of the record in buf[start:end] into
// vals, as record would, and returns its line: one that is not a
// well-formed record of the four kinds is left to record, whose error
// says what is wrong.
func (b *lineBatch) ahead(no, start, end int) bodyLine {
	l := bodyLine{no: no, start: start, end: end, pos: -1}
	line := b.buf[start:end]
	if len(line) < 2 || line[1] != ':' || line[0] == 'c' || line[0] == '#' {
		return l
	}
	names := recordNames[line[0]]
	if names == nil {
		return l
	}
	f := fields{s: line[2:]}
	val := len(b.vals)
	for range names {
		x, ok := f.int()
		if !ok {
			b.vals = b.vals[:val]
			return l
		}
		b.vals = append(b.vals, x)
	}
	l.pos, l.val = int32(f.pos), int32(val)
	return l
}
