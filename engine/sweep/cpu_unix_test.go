//go:build unix

package sweep

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used (user and system, every
// thread), for benchmarks that report it per point: unlike the wall
// time, it does not grow when other processes take the cores.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
