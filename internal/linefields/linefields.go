// Package linefields splits a line of a hand-written text file (a
// topology graph, a placement map) into words with their columns, so that
// errors can point at the word: "net.txt:12:9: unknown router".
package linefields

import "strings"

// Field is a word of a line and its 1-based column.
type Field struct {
	S   string
	Col int
}

// Split returns the words of line before any '#' comment. Words are
// separated by blanks and by any byte of seps (such as ",").
func Split(line, seps string) []Field {
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = line[:i]
	}
	sep := func(c byte) bool {
		return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f' || strings.IndexByte(seps, c) >= 0
	}
	var out []Field
	for i := 0; i < len(line); {
		for i < len(line) && sep(line[i]) {
			i++
		}
		j := i
		for j < len(line) && !sep(line[j]) {
			j++
		}
		if j > i {
			out = append(out, Field{line[i:j], i + 1})
		}
		i = j
	}
	return out
}
