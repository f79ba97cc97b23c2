// Package readcheck holds the check that the readers' fuzz targets make of
// every read: bad input is refused with an error that says where in which
// file, and accepted input is a valid trace. It is imported by tests only.
package readcheck

import (
	"regexp"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// Outcome checks the result of one read. A refusal (err != nil) must
// match place, the pattern of the file name and line or offset the
// reader's errors start with, and come without a trace; an accepted trace
// must pass Validate. It reports whether the trace was accepted, so a
// caller can go on to check what it read.
func Outcome(t testing.TB, tr *tracefmt.Trace, err error, place *regexp.Regexp) bool {
	t.Helper()
	if err != nil {
		if !place.MatchString(err.Error()) {
			t.Fatalf("error without the file name and place (want %s): %v", place, err)
		}
		return false
	}
	if tr == nil {
		t.Fatal("no trace and no error")
		return false
	}
	if err := tr.Validate(); err != nil {
		t.Fatalf("accepted an invalid trace: %v", err)
		return false
	}
	return true
}
