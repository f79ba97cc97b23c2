package memlatency

import (
	"slices"
	"strings"
	"testing"
)

// A ring visits every line exactly once before it comes back to the
// first, whatever its size and seed, and only ever reads a line's first
// word.
func TestRingIsOneCycleOverEveryLine(t *testing.T) {
	for _, c := range []struct {
		size int
		seed uint64
	}{{2 * LineBytes, 1}, {3 * LineBytes, 7}, {4096, 1}, {4096, 2}, {1 << 20, 3}, {1<<20 + 100, 3}} {
		r, err := NewRing(c.size, c.seed)
		if err != nil {
			t.Fatalf("NewRing(%d, %d): %v", c.size, c.seed, err)
		}
		n := c.size / LineBytes
		if r.Lines() != n {
			t.Fatalf("NewRing(%d): %d lines, want %d", c.size, r.Lines(), n)
		}
		seen := make([]bool, n)
		w := uint32(0)
		for i := range n {
			if w%wordsPerLine != 0 {
				t.Fatalf("size %d seed %d: step %d reads word %d, not a line's first", c.size, c.seed, i, w)
			}
			line := w / wordsPerLine
			if seen[line] {
				t.Fatalf("size %d seed %d: line %d visited twice, after %d of %d steps", c.size, c.seed, line, i, n)
			}
			seen[line] = true
			w = r.Walk(w, 1)
		}
		if w != 0 {
			t.Errorf("size %d seed %d: after %d steps the walk is at word %d, not back at 0", c.size, c.seed, n, w)
		}
		if got := r.Walk(0, 3*n); got != 0 {
			t.Errorf("size %d seed %d: three turns end at word %d", c.size, c.seed, got)
		}
	}
}

// The order is random (not the lines in order) and the same for a seed.
func TestRingOrderIsSeeded(t *testing.T) {
	a, _ := NewRing(1<<16, 5)
	b, _ := NewRing(1<<16, 5)
	c, _ := NewRing(1<<16, 6)
	if !slices.Equal(a.next, b.next) {
		t.Error("two rings of one seed differ")
	}
	if slices.Equal(a.next, c.next) {
		t.Error("two seeds gave the same ring")
	}
	inOrder := 0
	for i := range a.Lines() {
		if a.next[i*wordsPerLine] == uint32((i+1)%a.Lines()*wordsPerLine) {
			inOrder++
		}
	}
	if inOrder > a.Lines()/100 {
		t.Errorf("%d of %d lines are followed by the next line in memory", inOrder, a.Lines())
	}
}

func TestBadSizes(t *testing.T) {
	for _, size := range []int{-1, 0, LineBytes, 2*LineBytes - 1} {
		if _, err := NewRing(size, 1); err == nil || !strings.Contains(err.Error(), "expected 2 to") {
			t.Errorf("NewRing(%d): err %v, want a refusal naming the sizes", size, err)
		}
	}
	if _, err := Measure(4096, 0); err == nil {
		t.Error("Measure with 0 loads: no error")
	}
}

// Measure reports the size it walked and a positive time per load.
func TestMeasure(t *testing.T) {
	p, err := Measure(1<<16, 10000)
	if err != nil {
		t.Fatal(err)
	}
	if p.Bytes != 1<<16 || !(p.NsPerLoad > 0) {
		t.Errorf("Measure(64 KiB) = %+v", p)
	}
}
