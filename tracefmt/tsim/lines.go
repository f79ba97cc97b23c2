package tsim

import (
	"bytes"
	"fmt"
	"io"
)

// maxLine bounds the length of one line, so that a file without newlines
// cannot make the reader buffer all of it.
const maxLine = 64 << 20

// lineReader splits a stream into lines without copying them: a line is
// valid until the next call of next. It reads in large chunks and grows
// its buffer only for lines longer than the buffer.
type lineReader struct {
	r       io.Reader
	buf     []byte
	start   int // first unread byte
	end     int // end of buffered data
	scanned int // buf[start:scanned] holds no newline
	err     error
	line    int   // number of the line returned last
	total   int64 // bytes read so far
}

// bigBuffer is the buffer size the reader grows to on long inputs; small
// inputs keep a small buffer.
const bigBuffer = 512 << 10

func newLineReader(r io.Reader) lineReader {
	return lineReader{r: r, buf: make([]byte, 16<<10)}
}

// errLineTooLong is returned for a line longer than maxLine.
type errLineTooLong struct{}

func (errLineTooLong) Error() string { return fmt.Sprintf("line longer than %d MiB", maxLine>>20) }

// next returns the next line without its "\n" or "\r\n" terminator. At
// the end of the input it returns io.EOF; a read error is returned as is,
// in place of the line it cut.
func (lr *lineReader) next() ([]byte, error) {
	empty := 0
	for {
		if i := bytes.IndexByte(lr.buf[lr.scanned:lr.end], '\n'); i >= 0 {
			nl := lr.scanned + i
			line := lr.buf[lr.start:nl]
			lr.start = nl + 1
			lr.scanned = lr.start
			lr.line++
			return trimCR(line), nil
		}
		lr.scanned = lr.end
		if lr.err != nil {
			// A line cut short by a failed read is not parsed: the
			// failure is the error.
			if lr.err == io.EOF && lr.start < lr.end {
				line := lr.buf[lr.start:lr.end]
				lr.start, lr.scanned = lr.end, lr.end
				lr.line++
				return trimCR(line), nil
			}
			return nil, lr.err
		}
		lr.compact()
		full := lr.end == len(lr.buf)
		if full && len(lr.buf) >= maxLine {
			return nil, errLineTooLong{}
		}
		if full || len(lr.buf) < bigBuffer && lr.total >= 4*int64(len(lr.buf)) {
			nb := make([]byte, min(2*len(lr.buf), maxLine))
			copy(nb, lr.buf[:lr.end])
			lr.buf = nb
		}
		lr.read(&empty)
	}
}

// fill reads until the buffer is full or the input fails or ends
// (lr.err), moving the unread bytes to its start first.
func (lr *lineReader) fill() {
	lr.compact()
	for empty := 0; lr.err == nil && lr.end < len(lr.buf); {
		lr.read(&empty)
	}
}

// compact moves the unread bytes to the start of the buffer.
func (lr *lineReader) compact() {
	if lr.start > 0 {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.scanned -= lr.start
		lr.start, lr.end = 0, n
	}
}

// read reads once into the free end of the buffer; empty counts the
// reads in a row that returned nothing, and a hundred of them fail.
func (lr *lineReader) read(empty *int) {
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	lr.total += int64(n)
	switch {
	case err != nil:
		lr.err = err
	case n == 0:
		if *empty++; *empty >= 100 {
			lr.err = io.ErrNoProgress
		}
	default:
		*empty = 0
	}
}

func trimCR(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\r' {
		return b[:n-1]
	}
	return b
}
