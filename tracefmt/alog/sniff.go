package alog

import "bytes"

// Sniff reports whether head, the first bytes of a file, looks like ALOG:
// its first record line (after blank and '#' lines) is a header of type
// -1 to -15, and every complete line is blank, a '#' comment or six
// integer fields with an optional comment, with no NUL byte. SimGrid's
// time-independent traces ("0 init", "p0 compute 1e6") and tsim text
// fail at their first line. The last line is ignored when head does not
// end with a newline, as it may be cut short.
func Sniff(head []byte) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	lines := bytes.Split(head, []byte{'\n'})
	if len(lines) > 1 && len(head) > 0 && head[len(head)-1] != '\n' {
		lines = lines[:len(lines)-1]
	}
	records := 0
	for _, s := range lines {
		if n := len(s); n > 0 && s[n-1] == '\r' {
			s = s[:n-1]
		}
		if skipLine(s) {
			continue
		}
		fs, n, _, _ := split(s)
		if n < 6 {
			return false
		}
		var typ int32
		for i := 0; i < 5; i++ {
			v, ok := parseInt(fs[i].b)
			if !ok {
				return false
			}
			if i == 0 {
				typ = v
			}
		}
		if _, ok := parseUint(fs[5].b); !ok {
			return false
		}
		if records == 0 && (typ < -15 || typ > -1) {
			return false
		}
		records++
	}
	return records > 0
}
