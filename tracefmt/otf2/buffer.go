package otf2

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Buffer record types, shared by every file of an archive.
const (
	recEndOfChunk  = 0
	recEndOfBuffer = 1
	recEndOfFile   = 2
	recChunkHeader = 3
	recTimestamp   = 5
	recAttrList    = 6
)

// Endianness bytes of a chunk header.
const (
	bigEndian    = 0x23
	littleEndian = 0x42
)

// chunkHeaderLen is the size of the header of a chunk of an event or
// definition file: type, endianness, first and last event number.
const chunkHeaderLen = 18

// errEnd is returned by a scanner at the end of its file's records.
var errEnd = errors.New("end of records")

// FormatError is a malformed archive file: the file, the byte offset in
// it and what was expected there.
type FormatError struct {
	File   string
	Offset int64
	Msg    string
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%s: offset %d: %s", e.File, e.Offset, e.Msg)
}

// scanner walks the records of one chunked file (event or definition
// file), holding one chunk at a time. OTF2 writers fill a chunk up to a
// record that does not fit and pad the rest with END_OF_CHUNK bytes; no
// record spans two chunks, and the last chunk stops where its data does.
type scanner struct {
	name      string
	r         io.Reader
	chunkSize int
	buf       []byte
	base      int64 // file offset of buf[0]
	pos       int
	end       int
	order     binary.ByteOrder
	big       bool
	last      bool // the chunk held is the file's last
	done      bool
	// rec is the offset in buf of the record being decoded, for errors.
	rec int
}

// newScanner returns a scanner over the chunked file r, named name in
// errors.
func newScanner(name string, r io.Reader, chunkSize int) *scanner {
	return &scanner{name: name, r: r, chunkSize: chunkSize, base: -int64(chunkSize)}
}

// firstRead is how much of a chunk is read before the buffer grows to
// the chunk size: definition chunks are 4 MiB by default, and most
// definition files of a location are a few bytes. A location's two files
// each cost a zeroed first read, so it is small: 64 KiB made 9,120
// locations with no events allocate 1.2 GB; the doublings to a 1 MiB
// event chunk copy less than the chunk once per file.
const firstRead = 4 << 10

// fill reads the next chunk into buf, growing buf only as far as the
// file has data; it returns io.EOF when no byte is left and
// io.ErrUnexpectedEOF for a last, shorter chunk.
func (s *scanner) fill() (int, error) {
	if s.buf == nil {
		s.buf = make([]byte, min(s.chunkSize, firstRead))
	}
	n := 0
	for {
		m, err := io.ReadFull(s.r, s.buf[n:])
		n += m
		switch {
		case err == io.EOF && n == 0:
			return 0, io.EOF
		case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
			return n, io.ErrUnexpectedEOF
		case err != nil:
			return n, err
		}
		if n == s.chunkSize {
			return n, nil
		}
		s.buf = append(s.buf, make([]byte, min(len(s.buf), s.chunkSize-len(s.buf)))...)
	}
}

// offset returns the file offset of the record last started: after
// errEnd, the end-of-file record's.
func (s *scanner) offset() int64 { return s.base + int64(s.rec) }

// errAt returns a FormatError at buffer offset p.
func (s *scanner) errAt(p int, format string, args ...any) error {
	return &FormatError{File: s.name, Offset: s.base + int64(p), Msg: fmt.Sprintf(format, args...)}
}

// nextChunk loads the next chunk and reads its header. It returns errEnd
// when the file has no more data.
func (s *scanner) nextChunk() error {
	if s.last {
		s.done = true
		return errEnd
	}
	s.base += int64(s.chunkSize)
	n, err := s.fill()
	switch {
	case err == io.EOF:
		s.done = true
		if s.base == 0 {
			return s.errAt(0, "empty file, expected a chunk header (byte 3)")
		}
		return errEnd
	case errors.Is(err, io.ErrUnexpectedEOF):
		s.last = true
	case err != nil:
		return fmt.Errorf("%s: %w", s.name, err)
	}
	s.end, s.pos = n, 0
	if n < chunkHeaderLen {
		return s.errAt(n, "truncated chunk header: %d of %d bytes", n, chunkHeaderLen)
	}
	if s.buf[0] != recChunkHeader {
		return s.errAt(0, "expected a chunk header (byte 3), found byte %d", s.buf[0])
	}
	if err := s.setOrder(1); err != nil {
		return err
	}
	s.pos = chunkHeaderLen
	return nil
}

// setOrder reads the endianness byte at p.
func (s *scanner) setOrder(p int) error {
	switch s.buf[p] {
	case littleEndian:
		s.order, s.big = binary.LittleEndian, false
	case bigEndian:
		s.order, s.big = binary.BigEndian, true
	default:
		return s.errAt(p, "expected an endianness byte (0x42 little, 0x23 big), found 0x%02x", s.buf[p])
	}
	return nil
}

// recordType returns the type of the next record, moving to the next
// chunk past END_OF_CHUNK padding; errEnd at the end of the records.
// Timestamp records are returned like others.
func (s *scanner) recordType() (byte, error) {
	for {
		if s.done {
			return 0, errEnd
		}
		if s.pos >= s.end {
			if err := s.nextChunk(); err != nil {
				return 0, err
			}
			continue
		}
		t := s.buf[s.pos]
		s.rec = s.pos
		switch t {
		case recEndOfChunk:
			s.pos = s.end
			continue
		case recEndOfBuffer, recEndOfFile:
			s.done = true
			return 0, errEnd
		}
		s.pos++
		return t, nil
	}
}

// byte1 reads one byte.
func (s *scanner) byte1(limit int, what string) (byte, error) {
	if s.pos >= limit {
		return 0, s.errAt(s.pos, "record ends before its %s (1 byte)", what)
	}
	b := s.buf[s.pos]
	s.pos++
	return b, nil
}

// full64 reads an uncompressed 64-bit integer.
func (s *scanner) full64(limit int, what string) (uint64, error) {
	if s.pos+8 > limit {
		return 0, s.errAt(s.pos, "record ends before its %s (8 bytes)", what)
	}
	v := s.order.Uint64(s.buf[s.pos:])
	s.pos += 8
	return v, nil
}

// uint reads a compressed unsigned integer of at most max bytes: a size
// byte, then that many low-order bytes in the file's byte order; size 0
// is the value 0 and size 0xff all ones (OTF2's "undefined").
func (s *scanner) uint(limit, max int, what string) (uint64, error) {
	if s.pos >= limit {
		return 0, s.errAt(s.pos, "record ends before its %s", what)
	}
	n := int(s.buf[s.pos])
	switch {
	case n == 0:
		s.pos++
		return 0, nil
	case n == 0xff:
		s.pos++
		if max == 4 {
			return math.MaxUint32, nil
		}
		return math.MaxUint64, nil
	case n > max:
		return 0, s.errAt(s.pos, "compressed %s: size byte %d, expected 0..%d or 255", what, n, max)
	case s.pos+1+n > limit:
		return 0, s.errAt(s.pos, "record ends inside its %s (%d bytes)", what, n)
	}
	p := s.buf[s.pos+1 : s.pos+1+n]
	s.pos += 1 + n
	var v uint64
	if s.big {
		for _, b := range p {
			v = v<<8 | uint64(b)
		}
		return v, nil
	}
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(p[i])
	}
	return v, nil
}

// u32 reads a compressed 32-bit unsigned integer.
func (s *scanner) u32(limit int, what string) (uint32, error) {
	v, err := s.uint(limit, 4, what)
	return uint32(v), err
}

// u64 reads a compressed 64-bit unsigned integer.
func (s *scanner) u64(limit int, what string) (uint64, error) {
	return s.uint(limit, 8, what)
}

// str reads a NUL-terminated string.
func (s *scanner) str(limit int, what string) (string, error) {
	for i := s.pos; i < limit; i++ {
		if s.buf[i] == 0 {
			v := string(s.buf[s.pos:i])
			s.pos = i + 1
			return v, nil
		}
	}
	return "", s.errAt(s.pos, "record ends inside its %s: no terminating NUL byte", what)
}

// length reads a record's length and returns the buffer offset where the
// record ends: one byte, or 0xff and eight bytes for long records.
func (s *scanner) length() (int, error) {
	if s.pos >= s.end {
		return 0, s.errAt(s.pos, "chunk ends before the record length")
	}
	n := uint64(s.buf[s.pos])
	s.pos++
	if n == 0xff {
		v, err := s.full64(s.end, "long record length")
		if err != nil {
			return 0, err
		}
		n = v
	}
	if n > uint64(s.end-s.pos) {
		return 0, s.errAt(s.pos, "record of %d bytes runs past the chunk's %d remaining bytes", n, s.end-s.pos)
	}
	return s.pos + int(n), nil
}

// skip moves past a record with a length.
func (s *scanner) skip() error {
	end, err := s.length()
	if err != nil {
		return err
	}
	s.pos = end
	return nil
}
