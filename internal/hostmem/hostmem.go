// Package hostmem tells how much memory the process may use: the
// machine's, or its cgroup's when that is smaller. Budgets that must not
// exhaust the machine (an SSH server's sessions, whether a trace is
// read whole or streamed) start from it.
package hostmem

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Total returns the memory the process may use on Linux (the smaller of
// /proc/meminfo's MemTotal and the cgroup's memory.max), 0 where it is
// not known (other systems, an unreadable /proc).
func Total() int64 {
	return total(readFile("/proc/meminfo"), readFile("/sys/fs/cgroup/memory.max"))
}

func readFile(name string) []byte {
	data, _ := os.ReadFile(name)
	return data
}

// total is Total of the two files' contents (nil: absent).
func total(meminfo, cgroupMax []byte) int64 {
	var t int64
	sc := bufio.NewScanner(bytes.NewReader(meminfo))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				t = kb << 10
			}
			break
		}
	}
	// memory.max is "max" when the cgroup sets no limit.
	if v, err := strconv.ParseInt(strings.TrimSpace(string(cgroupMax)), 10, 64); err == nil && v > 0 && (t == 0 || v < t) {
		t = v
	}
	return t
}
