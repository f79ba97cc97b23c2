package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strings"
	"unsafe"
)

// Mapping is what /proc/self/smaps says of the memory mapping that holds
// an address.
type Mapping struct {
	// HugeKB is how many KiB of the mapping are in transparent huge
	// pages (AnonHugePages).
	HugeKB int
	// Advised says the mapping was advised as huge pages (the hg flag
	// of VmFlags). An advised range is a mapping of its own.
	Advised bool
}

// MappingOf returns what /proc/self/smaps (Linux only) says of the
// memory mapping of this process that holds p, for tests and
// diagnostics.
func MappingOf(p unsafe.Pointer) (Mapping, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return Mapping{}, fmt.Errorf("huge pages: %w", err)
	}
	defer f.Close()
	addr := uintptr(p)
	var m Mapping
	in, found := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if k := strings.IndexByte(line, ' '); k > 0 && !strings.HasSuffix(line[:k], ":") {
			// A mapping's first line: "LO-HI perms offset dev inode path".
			var lo, hi uintptr
			if n, _ := fmt.Sscanf(line[:k], "%x-%x", &lo, &hi); n == 2 {
				in = lo <= addr && addr < hi
				found = found || in
			}
			continue
		}
		if !in {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			if _, err := fmt.Sscanf(rest, "%d", &m.HugeKB); err != nil {
				return Mapping{}, fmt.Errorf("huge pages: /proc/self/smaps: %q: %w", line, err)
			}
		}
		if rest, ok := strings.CutPrefix(line, "VmFlags:"); ok {
			m.Advised = slices.Contains(strings.Fields(rest), "hg")
		}
	}
	if err := sc.Err(); err != nil {
		return Mapping{}, fmt.Errorf("huge pages: /proc/self/smaps: %w", err)
	}
	if !found {
		return Mapping{}, fmt.Errorf("huge pages: no mapping in /proc/self/smaps holds %#x", addr)
	}
	return m, nil
}
