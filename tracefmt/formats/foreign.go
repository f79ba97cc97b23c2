package formats

import (
	"bytes"
	"encoding/binary"
)

// foreign names a trace format tracesim does not read from its first
// bytes, and says what to open instead; "" when head is none it knows.
// "unrecognised trace format" would send the user trying --format.
func foreign(head []byte) string {
	// SLOG-2, the format Jumpshot draws: a Java DataOutput string first,
	// its 2-byte big-endian length then "SLOG 2.0.6".
	if len(head) >= 7 && bytes.Equal(head[2:7], []byte("SLOG ")) {
		n := int(binary.BigEndian.Uint16(head))
		version := "SLOG-2"
		if n > 0 && 2+n <= len(head) && n <= 32 {
			version = string(head[2 : 2+n])
		}
		return "an SLOG-2 file (" + version + ", Jumpshot's format), which tracesim does not read: open the CLOG2 (or older CLOG) file it was converted from, which the conversion leaves in place"
	}
	return ""
}
