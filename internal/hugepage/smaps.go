package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"unsafe"
)

// InHugePages returns how many KiB of the memory mapping of this process
// that holds p are in transparent huge pages (AnonHugePages in
// /proc/self/smaps, Linux only), for tests and diagnostics. An advised
// range is a mapping of its own once advised.
func InHugePages(p unsafe.Pointer) (int, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, fmt.Errorf("huge pages: %w", err)
	}
	defer f.Close()
	addr := uintptr(p)
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if k := strings.IndexByte(line, ' '); k > 0 && !strings.HasSuffix(line[:k], ":") {
			// A mapping's first line: "LO-HI perms offset dev inode path".
			if n, _ := fmt.Sscanf(line[:k], "%x-%x", &lo, &hi); n == 2 {
				in = lo <= addr && addr < hi
			}
			continue
		}
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok && in {
			var kb int
			if _, err := fmt.Sscanf(rest, "%d", &kb); err != nil {
				return 0, fmt.Errorf("huge pages: /proc/self/smaps: %q: %w", line, err)
			}
			return kb, nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, fmt.Errorf("huge pages: /proc/self/smaps: %w", err)
	}
	return 0, fmt.Errorf("huge pages: no mapping in /proc/self/smaps holds %#x", addr)
}
