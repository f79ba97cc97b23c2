package clog

import (
	"encoding/binary"
	"math"
)

// sniffRecords is how many consecutive record headers Sniff checks.
const sniffRecords = 4

// Sniff reports whether head, the first bytes of a file, looks like CLOG.
// CLOG has no magic number, so Sniff asks for at least two consecutive
// plausible record headers, in the same byte order: a finite time of
// magnitude below 1e12 s, a record type in -2..8 other than UNDEF (the
// first one a real record, not a terminator), the length that type
// always has, and a procid in 0..MaxRanks-1. CLOG2 ("CLOG-02"), SLOG-2
// (00 0a "SLOG"), DUMPI (ff aa dd) and text fail on the first header.
func Sniff(head []byte) bool {
	return sniffOrder(head, binary.BigEndian) || sniffOrder(head, binary.LittleEndian)
}

func sniffOrder(head []byte, o binary.ByteOrder) bool {
	pos := 0
	for n := 0; n < sniffRecords; n++ {
		if pos+headerLen > len(head) {
			return n >= 2
		}
		h := head[pos:]
		t := math.Float64frombits(o.Uint64(h))
		typ := int32(o.Uint32(h[8:]))
		words := int32(o.Uint32(h[12:]))
		proc := int32(o.Uint32(h[16:]))
		if math.IsNaN(t) || math.Abs(t) >= 1e12 {
			return false
		}
		if typ < recEndLog || typ > recShift || typ == recUndef || words != recordWords(typ) {
			return false
		}
		if proc < 0 || proc >= MaxRanks {
			return false
		}
		if typ == recEndLog || typ == recEndBlock {
			return n >= 1
		}
		pos += int(words) * 8
	}
	return true
}
