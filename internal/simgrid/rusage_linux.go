//go:build linux

package simgrid

import (
	"os"
	"syscall"
)

// PeakRSS returns the peak resident set size, in bytes, of a process
// that has exited and of the descendants it waited for (wait4's rusage:
// ru_maxrss, which Linux counts in KiB); 0 when unknown.
func PeakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss * 1024
	}
	return 0
}
