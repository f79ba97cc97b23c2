package cputime

import (
	"runtime"
	"testing"
)

// TestUsedGrows burns CPU for a while and expects the count to grow.
func TestUsedGrows(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" {
		t.Skip("no CPU time on this system")
	}
	before := Used()
	x := 0
	for Used() == before {
		for i := range 1 << 20 {
			x ^= i
		}
	}
	if after := Used(); after <= before {
		t.Fatalf("Used went from %v to %v (x %d)", before, after, x)
	}
}
