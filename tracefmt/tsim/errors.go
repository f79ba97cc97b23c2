package tsim

import "fmt"

// ParseError reports a problem at a position of a tsim file: the 1-based
// line and the 1-based column (in characters) of the offending field, and
// what was expected there.
type ParseError struct {
	Line, Col int
	Msg       string
}

// Error returns "tsim: line L:C: message".
func (e *ParseError) Error() string {
	return fmt.Sprintf("tsim: line %d:%d: %s", e.Line, e.Col, e.Msg)
}
