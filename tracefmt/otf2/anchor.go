package otf2

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
)

// Chunk size limits of the OTF2 library; an anchor file outside them is
// refused before any chunk is allocated.
const (
	minChunkSize = 256 << 10
	maxChunkSize = 16 << 20
)

// maxAnchorSize bounds the anchor file read into memory: it holds a few
// numbers, strings and properties.
const maxAnchorSize = 1 << 20

// anchorMagic opens every anchor file after its two-byte header.
const anchorMagic = "OTF2"

// Sniff reports whether head, the first bytes of a file, is an OTF2
// anchor file: a buffer header (0x03, endianness) then "OTF2\0".
func Sniff(head []byte) bool {
	return len(head) >= 7 && head[0] == recChunkHeader &&
		(head[1] == littleEndian || head[1] == bigEndian) &&
		bytes.Equal(head[2:7], []byte(anchorMagic+"\x00"))
}

// Anchor is the content of an archive's anchor file (.otf2).
type Anchor struct {
	// AnchorFormat and TraceFormat are the layout versions of the anchor
	// file and of the trace files.
	AnchorFormat, TraceFormat uint8
	// Version is the OTF2 library version that wrote the archive.
	Version [3]uint8
	// EventChunk and DefChunk are the chunk sizes of the event and
	// definition files, in bytes.
	EventChunk, DefChunk   uint64
	Substrate, Compression uint8
	// Locations and GlobalDefs count the locations and the records of the
	// global definition file.
	Locations, GlobalDefs         uint64
	Machine, Creator, Description string
	// Properties are name/value pairs ("OTF2::MPI_COMMUNICATION_COMPLETE").
	Properties [][2]string
	TraceID    uint64
}

// Substrates and compressions the reader accepts.
const (
	substratePOSIX  = 1
	compressionNone = 1
)

// readAnchor parses an anchor file named name.
func readAnchor(name string, r io.Reader) (*Anchor, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxAnchorSize+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxAnchorSize {
		return nil, &FormatError{name, maxAnchorSize, fmt.Sprintf("anchor file larger than %d bytes", maxAnchorSize)}
	}
	s := &scanner{name: name, buf: data, end: len(data), chunkSize: len(data)}
	if len(data) == 0 {
		return nil, s.errAt(0, "empty file: expected an OTF2 anchor file (byte 3, endianness, \"OTF2\")")
	}
	if len(data) < 2 || data[0] != recChunkHeader {
		return nil, s.errAt(0, "expected an OTF2 anchor file (byte 3, endianness, \"OTF2\")")
	}
	if err := s.setOrder(1); err != nil {
		return nil, err
	}
	s.pos = 2
	magic, err := s.str(s.end, "magic string")
	if err != nil || magic != anchorMagic {
		return nil, s.errAt(2, "expected the magic string \"OTF2\"")
	}
	a := &Anchor{}
	if a.AnchorFormat, err = s.byte1(s.end, "anchor format"); err != nil {
		return nil, err
	}
	if a.AnchorFormat == 0 {
		return nil, s.errAt(s.pos-1, "anchor format 0, expected 1 or later")
	}
	if s.pos+38 > s.end {
		return nil, s.errAt(s.pos, "anchor file ends inside its header (38 bytes of versions, chunk sizes and counts expected)")
	}
	a.TraceFormat = s.buf[s.pos]
	copy(a.Version[:], s.buf[s.pos+1:s.pos+4])
	s.pos += 4
	a.EventChunk, _ = s.full64(s.end, "event chunk size")
	a.DefChunk, _ = s.full64(s.end, "definition chunk size")
	a.Substrate, a.Compression = s.buf[s.pos], s.buf[s.pos+1]
	s.pos += 2
	a.Locations, _ = s.full64(s.end, "number of locations")
	a.GlobalDefs, _ = s.full64(s.end, "number of global definitions")
	for _, c := range []struct {
		v    uint64
		what string
		at   int
	}{{a.EventChunk, "event chunk size", 12}, {a.DefChunk, "definition chunk size", 20}} {
		if c.v < minChunkSize || c.v > maxChunkSize {
			return nil, s.errAt(c.at, "%s %d, expected %d..%d", c.what, c.v, minChunkSize, maxChunkSize)
		}
	}
	if a.Substrate != substratePOSIX {
		return nil, s.errAt(28, "file substrate %d: only POSIX files (1) are read (SIONlib containers are not)", a.Substrate)
	}
	if a.Compression != compressionNone {
		return nil, s.errAt(29, "compression %d: only uncompressed archives (1) are read", a.Compression)
	}
	for _, f := range []*string{&a.Machine, &a.Creator, &a.Description} {
		if *f, err = s.str(s.end, "machine, creator or description string"); err != nil {
			return nil, err
		}
	}
	if a.AnchorFormat > 1 {
		if s.pos+4 > s.end {
			return nil, s.errAt(s.pos, "anchor file ends before its number of properties")
		}
		n := s.order.Uint32(s.buf[s.pos:])
		s.pos += 4
		for i := uint32(0); i < n; i++ {
			k, err := s.str(s.end, "property name")
			if err != nil {
				return nil, err
			}
			v, err := s.str(s.end, "property value")
			if err != nil {
				return nil, err
			}
			a.Properties = append(a.Properties, [2]string{k, v})
		}
		if a.TraceID, err = s.full64(s.end, "trace id"); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// writeAnchor writes an anchor file in anchor format 3, little-endian.
func writeAnchor(w io.Writer, a *Anchor) error {
	var b []byte
	b = append(b, recChunkHeader, littleEndian)
	b = append(b, anchorMagic...)
	b = append(b, 0, 3, a.TraceFormat, a.Version[0], a.Version[1], a.Version[2])
	b = binary.LittleEndian.AppendUint64(b, a.EventChunk)
	b = binary.LittleEndian.AppendUint64(b, a.DefChunk)
	b = append(b, substratePOSIX, compressionNone)
	b = binary.LittleEndian.AppendUint64(b, a.Locations)
	b = binary.LittleEndian.AppendUint64(b, a.GlobalDefs)
	for _, s := range []string{a.Machine, a.Creator, a.Description} {
		b = append(append(b, s...), 0)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(a.Properties)))
	for _, p := range a.Properties {
		b = append(append(b, p[0]...), 0)
		b = append(append(b, p[1]...), 0)
	}
	b = binary.LittleEndian.AppendUint64(b, a.TraceID)
	// No snapshots, no thumbnails; then the end of the buffer.
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = append(b, recEndOfFile, recEndOfBuffer, recEndOfChunk)
	_, err := w.Write(b)
	return err
}
