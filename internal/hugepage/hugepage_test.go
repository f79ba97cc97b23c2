package hugepage

import (
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseGivesHugePages: an array is advised as huge pages (Linux,
// where transparent huge pages are given to advised memory), so that its
// first touch faults a few times, not once every 4 KiB.
func TestAdviseGivesHugePages(t *testing.T) {
	skipWithoutHugePages(t)
	const size = 32 << 20
	buf := make([]byte, size)
	Advise(buf)
	for i := 0; i < len(buf); i += 4096 {
		buf[i] = 1
	}
	// The advice splits the mapping: the advised part is one of its own.
	m, err := MappingOf(unsafe.Pointer(&buf[len(buf)/2]))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Advised {
		t.Errorf("the mapping of the advised array is not advised (no hg in VmFlags)")
	}
	// All but the partial huge pages at both ends, unless the kernel
	// found no free huge page (its choice, not the advice's).
	if want := (size - 2*Size) >> 10; m.HugeKB < want {
		t.Logf("%d KiB of the %d MiB advised array in huge pages, where %d could be", m.HugeKB, size>>20, want)
	}
	runtime.KeepAlive(buf)
}

// TestAdviseSmall: arrays smaller than a huge page, or empty, are left
// alone (there is no whole huge page in them to advise).
func TestAdviseSmall(t *testing.T) {
	Advise([]byte(nil))
	Advise(make([]int64, 10))
	Advise(make([]byte, Size-1))
}

// skipWithoutHugePages skips where the kernel gives no huge pages to
// madvised memory.
func skipWithoutHugePages(t *testing.T) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("transparent huge pages are a Linux feature")
	}
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(b), "[madvise]") && !strings.Contains(string(b), "[always]") {
		t.Skipf("transparent huge pages not given to madvised memory here (%q, %v)", b, err)
	}
}

// TestMake: Make gives the slice make gives (its length, its capacity,
// zero elements), and a large one's memory is advised as huge pages.
func TestMake(t *testing.T) {
	for _, c := range []struct{ length, capacity int }{{0, 0}, {3, 3}, {0, 10}, {5, 1 << 20}, {4 << 20, 4 << 20}} {
		s := Make[int64](c.length, c.capacity)
		if len(s) != c.length || cap(s) != c.capacity {
			t.Errorf("Make(%d, %d): len %d, cap %d", c.length, c.capacity, len(s), cap(s))
		}
		for i, v := range s[:cap(s)] {
			if v != 0 {
				t.Fatalf("Make(%d, %d): element %d is %d", c.length, c.capacity, i, v)
			}
		}
	}
	skipWithoutHugePages(t)
	s := Make[int64](4<<20, 4<<20) // 32 MiB
	m, err := MappingOf(unsafe.Pointer(&s[len(s)/2]))
	if err != nil {
		t.Fatal(err)
	}
	if !m.Advised {
		t.Errorf("the mapping of Make's 32 MiB slice is not advised (no hg in VmFlags)")
	}
	runtime.KeepAlive(s)
}
