//go:build unix

// Package cputime reads the CPU time the process has used, so that
// benchmarks on a shared machine can report throughput per CPU second
// (what one core achieves) beside the wall-clock rate the load skews.
package cputime

import (
	"syscall"
	"time"
)

// Used returns the user and system CPU time of the process so far.
func Used() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
