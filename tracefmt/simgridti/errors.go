package simgridti

import "fmt"

// ParseError reports a problem at a position of a TI file: the file as the
// reader knows it (empty for an anonymous reader), the 1-based line and the
// 1-based column (byte offset within the line) of the offending field.
type ParseError struct {
	File      string
	Line, Col int
	Msg       string
}

// Error returns "file:line:col: message" (without the file when unknown).
func (e *ParseError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}
