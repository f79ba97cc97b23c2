package clog2

import "fmt"

// ParseError reports a problem at a byte offset of a CLOG2 file.
type ParseError struct {
	// Offset is the byte offset of the offending record or field.
	Offset int64
	// Block is the data block holding it, or -1 outside the blocks
	// (preamble, communicator table).
	Block int
	// Msg says what was found and what was expected.
	Msg string
}

// Error returns "clog2: offset N (block B): message".
func (e *ParseError) Error() string {
	if e.Block < 0 {
		return fmt.Sprintf("clog2: offset %d: %s", e.Offset, e.Msg)
	}
	return fmt.Sprintf("clog2: offset %d (block %d): %s", e.Offset, e.Block, e.Msg)
}

func errAt(off int64, block int, format string, args ...any) error {
	return &ParseError{Offset: off, Block: block, Msg: fmt.Sprintf(format, args...)}
}
