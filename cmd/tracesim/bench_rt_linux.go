//go:build linux

package main

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// harnessRealtime puts every thread of this process under SCHED_FIFO at
// priority 10 (threads the Go runtime starts later inherit it), so that
// the measuring side of `bench --ui` (the reads that time a frame's end,
// the writes of the keys) is never kept waiting by the scheduler: on a
// loaded host the harness was as late as the UI, and its delay was
// counted as the UI's. Call it after every measured process has been
// started: a process forked later would inherit the policy. It needs
// root or CAP_SYS_NICE.
func harnessRealtime() error {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("listing this process's threads: %w", err)
	}
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: 10}
		if err := unix.SchedSetAttr(tid, &attr, 0); err != nil {
			return fmt.Errorf("setting thread %d to SCHED_FIFO (needs root or CAP_SYS_NICE): %w", tid, err)
		}
	}
	return nil
}
