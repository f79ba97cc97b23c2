package tsim

import "bytes"

// Sniff reports whether head, the first bytes of a file, looks like a
// tsim trace: after an optional byte order mark, blank lines and #
// comment lines, the first line starts with "tsim" and a version number.
func Sniff(head []byte) bool {
	if len(head) >= 3 && string(head[:3]) == "\uFEFF" {
		head = head[3:]
	}
	for len(head) > 0 {
		line := head
		rest := []byte(nil)
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, rest = head[:i], head[i+1:]
		}
		s := lineScanner{line: trimCR(line)}
		if !s.more() {
			head = rest
			continue
		}
		if string(s.bare().b) != "tsim" || !s.more() {
			return false
		}
		return allDigits(s.bare().b)
	}
	return false
}
