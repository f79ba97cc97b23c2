//go:build !linux

package simgrid

import "os"

// PeakRSS returns 0: the peak resident set size of a child is only read
// on Linux, where ru_maxrss has a known unit.
func PeakRSS(*os.ProcessState) int64 { return 0 }
