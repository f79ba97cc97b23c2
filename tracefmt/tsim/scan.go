package tsim

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// tok is one field of a line, or the value of a KEY=VALUE argument.
type tok struct {
	// b is the content: the bytes of a bare field, or the decoded
	// content of a quoted one.
	b []byte
	// off is the byte offset of the field in the line.
	off    int
	quoted bool
}

// lineScanner walks the fields of one line. Fields are separated by
// spaces and tabs; a field starting with # begins a comment that runs to
// the end of the line.
type lineScanner struct {
	line []byte
	pos  int
	no   int
}

// isBlank reports whether c separates fields; the first comparison
// settles nearly every byte of a line.
func isBlank(c byte) bool { return c <= ' ' && (c == ' ' || c == '\t') }

func (s *lineScanner) errAt(off int, format string, args ...any) *ParseError {
	off = min(max(off, 0), len(s.line))
	return &ParseError{Line: s.no, Col: utf8.RuneCount(s.line[:off]) + 1, Msg: fmt.Sprintf(format, args...)}
}

// more skips blanks and reports whether a field follows before the end of
// the line or a comment.
func (s *lineScanner) more() bool {
	for s.pos < len(s.line) && isBlank(s.line[s.pos]) {
		s.pos++
	}
	return s.pos < len(s.line) && s.line[s.pos] != '#'
}

// bare reads the field at the cursor up to the next blank, without
// interpreting quotes.
func (s *lineScanner) bare() tok {
	start := s.pos
	i := start
	for i < len(s.line) && !isBlank(s.line[i]) {
		i++
	}
	s.pos = i
	return tok{b: s.line[start:i], off: start}
}

// word reads a bare or quoted field.
func (s *lineScanner) word() (tok, error) {
	if s.line[s.pos] == '"' {
		return s.quoted()
	}
	return s.bare(), nil
}

// arg reads an argument at the cursor: KEY=VALUE, or a bare word (a flag),
// for which key.b is nil.
func (s *lineScanner) arg() (key, val tok, err error) {
	start := s.pos
	if s.line[start] == '"' {
		v, err := s.quoted()
		return tok{}, v, err
	}
	i := start
	for i < len(s.line) && !isBlank(s.line[i]) && s.line[i] != '=' {
		i++
	}
	if i == len(s.line) || s.line[i] != '=' {
		s.pos = i
		return tok{}, tok{b: s.line[start:i], off: start}, nil
	}
	if i == start {
		return tok{}, tok{}, s.errAt(start, "expected an argument name before =, got %s", show(s.bareAt(start)))
	}
	key = tok{b: s.line[start:i], off: start}
	s.pos = i + 1
	if s.pos == len(s.line) || isBlank(s.line[s.pos]) {
		return key, tok{}, s.errAt(s.pos, "expected a value after %s=, got %s", key.b, showEnd(s.line[s.pos:]))
	}
	val, err = s.word()
	return key, val, err
}

// plainArg is arg, quicker for the KEY=VALUE of a bare key and a bare
// value (nearly every argument of a record): one pass over the bytes,
// in line. Anything else is arg's, which words the errors.
func (s *lineScanner) plainArg() (key, val tok, err error) {
	line, start := s.line, s.pos
	i := start
	for i < len(line) {
		if c := line[i]; c == '=' || isBlank(c) || c == '"' {
			break
		}
		i++
	}
	if i == start || i+1 >= len(line) || line[i] != '=' || line[i+1] == '"' || isBlank(line[i+1]) {
		return s.arg()
	}
	j := i + 1
	for j < len(line) && !isBlank(line[j]) {
		j++
	}
	s.pos = j
	return tok{b: line[start:i], off: start}, tok{b: line[i+1 : j], off: i + 1}, nil
}

// bareAt returns the bare field starting at off, for error messages.
func (s *lineScanner) bareAt(off int) []byte {
	i := off
	for i < len(s.line) && !isBlank(s.line[i]) {
		i++
	}
	return s.line[off:i]
}

// quoted reads a Go double-quoted string at the cursor.
func (s *lineScanner) quoted() (tok, error) {
	start := s.pos
	esc := false
	i := start + 1
	for ; i < len(s.line); i++ {
		c := s.line[i]
		if c == '\\' {
			esc = true
			i++
			continue
		}
		if c == '"' {
			break
		}
	}
	if i >= len(s.line) {
		return tok{}, s.errAt(start, `expected a closing " for the string opened here, got end of line`)
	}
	raw := s.line[start : i+1]
	s.pos = i + 1
	if s.pos < len(s.line) && !isBlank(s.line[s.pos]) {
		return tok{}, s.errAt(s.pos, `expected a blank after the closing ", got %s`, show(s.bareAt(s.pos)))
	}
	if !esc {
		return tok{b: raw[1 : len(raw)-1], off: start, quoted: true}, nil
	}
	u, err := strconv.Unquote(string(raw))
	if err != nil {
		return tok{}, s.errAt(start, `expected a string in Go syntax (escapes such as \n, \t, \", \\, \x41, \u00e9), got %s`, shorten(raw))
	}
	return tok{b: []byte(u), off: start, quoted: true}, nil
}

// end checks that nothing but blanks or a comment is left on the line.
func (s *lineScanner) end() error {
	if s.more() {
		return s.errAt(s.pos, "expected end of line, got %s", show(s.bareAt(s.pos)))
	}
	return nil
}

// show quotes a field for an error message, shortening long ones.
func show(b []byte) string {
	if len(b) == 0 {
		return "end of line"
	}
	return truncate(b)
}

// showEnd describes what follows a position: a field or the end of line.
func showEnd(rest []byte) string {
	rest = bytes.TrimLeft(rest, " \t")
	if len(rest) == 0 || rest[0] == '#' {
		return "end of line"
	}
	if i := bytes.IndexAny(rest, " \t"); i >= 0 {
		rest = rest[:i]
	}
	return truncate(rest)
}

func truncate(b []byte) string {
	const n = 40
	if len(b) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return strconv.Quote(string(b[:cut])) + "…"
	}
	return strconv.Quote(string(b))
}

// shorten cuts a long field for an error message.
func shorten(b []byte) string {
	const n = 60
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

// allDigits reports whether b is a non-empty run of decimal digits.
func allDigits(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// parseUint parses a non-negative decimal integer of at most 18 digits.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// parseInt parses a decimal int64 with an optional sign.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		b = b[1:]
	}
	if n, ok := parseUint(b); ok {
		if neg {
			n = -n
		}
		return n, true
	}
	if !allDigits(b) {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	switch {
	case !neg && n <= math.MaxInt64:
		return int64(n), true
	case neg && n <= 1<<63:
		return -int64(n-1) - 1, true
	}
	return 0, false
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}
