package simgridti

import (
	"bytes"
	"fmt"
	"io"
	"unsafe"
)

// lineReader splits its input into lines without a copy or an
// allocation per line: a line is a slice of its buffer, valid until the
// next call of next. A line longer than maxLine is an error.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int   // buf[start:end] is read and not yet returned
	done       int64 // bytes of the lines returned
	eof        bool
	err        error
}

// readChunk is the buffer's initial size and the least a read asks for.
const readChunk = 256 << 10

func newLineReader(r io.Reader) *lineReader {
	n := readChunk
	// A small input (a test's string, a short per-rank file) gets a
	// buffer of its size, so that reading thousands of them stays cheap.
	if s, ok := r.(interface{ Len() int }); ok && s.Len() < n {
		n = s.Len() + 1
	}
	return &lineReader{r: r, buf: make([]byte, n)}
}

// next returns the next line without its "\n" and "\r\n", or false at
// the end of the input or on an error (see err).
func (lr *lineReader) next() ([]byte, bool) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.start:lr.end], '\n'); i >= 0 {
			line := lr.buf[lr.start : lr.start+i]
			lr.start += i + 1
			lr.done += int64(i + 1)
			return trimCR(line), true
		}
		if lr.eof || lr.err != nil {
			if lr.start < lr.end && lr.err == nil {
				line := lr.buf[lr.start:lr.end]
				lr.start = lr.end
				return trimCR(line), true
			}
			return nil, false
		}
		lr.fill()
	}
}

// window returns the buffered bytes from the next line's start as the
// window decodeTight reads, or nil when fewer are buffered.
func (lr *lineReader) window() *lineBuf {
	if lr.end-lr.start < len(lineBuf{}) {
		return nil
	}
	return (*lineBuf)(lr.buf[lr.start : lr.start+len(lineBuf{})])
}

// skip moves past the next line, of n bytes and a "\n" (as window
// showed it), as next would.
func (lr *lineReader) skip(n int) {
	lr.start += n + 1
	lr.done += int64(n + 1)
}

// fill reads more input after what is buffered, moving the unreturned
// part to the front and growing the buffer for a long line.
func (lr *lineReader) fill() {
	if lr.start > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start = 0
	}
	if lr.end == len(lr.buf) {
		if len(lr.buf) >= maxLine {
			lr.err = errLineTooLong
			return
		}
		grown := make([]byte, min(2*len(lr.buf)+readChunk, maxLine))
		copy(grown, lr.buf[:lr.end])
		lr.buf = grown
	}
	n, err := lr.r.Read(lr.buf[lr.end:])
	lr.end += n
	switch {
	case err == io.EOF:
		lr.eof = true
	case err != nil:
		lr.err = err
	}
}

var errLineTooLong = fmt.Errorf("line longer than %d bytes", maxLine)

func trimCR(line []byte) []byte {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// scanErr turns a line reader's error into one naming the file and the
// line after the last one read.
func scanErr(src *source, lr *lineReader) error {
	err := lr.err
	if err == nil {
		return nil
	}
	if err == errLineTooLong {
		return &ParseError{File: src.name, Line: src.line + 1, Col: 1, Msg: err.Error()}
	}
	if src.name != "" {
		return fmt.Errorf("%s: line %d: %w", src.name, src.line+1, err)
	}
	return fmt.Errorf("line %d: %w", src.line+1, err)
}

// skipLine reports whether a line is blank or a comment.
func skipLine(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\v', '\f':
			continue
		case '#':
			return true
		}
		return false
	}
	return true
}

// field is one blank-separated word of a line and its 1-based column.
// Its text aliases the line reader's buffer: it is valid while the line
// is, and whatever outlives the line keeps a copy (strings.Clone).
type field struct {
	s   string
	col int
}

// splitFields appends the blank-separated fields of line to dst.
func splitFields(line []byte, dst []field) []field {
	for i := 0; i < len(line); {
		// Bytes above ' ' are never blank: one comparison for nearly
		// every byte.
		if c := line[i]; c <= ' ' && blank[c] {
			i++
			continue
		}
		j := i + 1
		for ; j < len(line); j++ {
			if c := line[j]; c <= ' ' && blank[c] {
				break
			}
		}
		dst = append(dst, field{unsafe.String(&line[i], j-i), i + 1})
		i = j
	}
	return dst
}

// blank marks the bytes that separate fields.
var blank = [256]bool{' ': true, '\t': true, '\v': true, '\f': true}
