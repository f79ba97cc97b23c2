package tracefmt

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
	"time"
)

// countingSource streams rank r's events Send(0, r, i, …) for i below
// lens[r], a marker definition every fifth event of any rank, and after
// them fail's error for the ranks that have one, else io.EOF. It keeps no
// lock: Prefetch must call it from one goroutine at a time (-race).
type countingSource struct {
	hdr    *Trace
	lens   []int
	fail   map[int]error
	pos    []int
	closed bool
}

func newCountingSource(lens []int, fail map[int]error) *countingSource {
	return &countingSource{hdr: &Trace{Format: "test", Ranks: make([]Rank, len(lens))}, lens: lens, fail: fail, pos: make([]int, len(lens))}
}

func (c *countingSource) Header() *Trace { return c.hdr }

func (c *countingSource) ReadRank(r int, dst []Event) (int, error) {
	if r < 0 || r >= len(c.lens) {
		return 0, fmt.Errorf("rank %d outside the world of %d ranks", r, len(c.lens))
	}
	n := 0
	for n < len(dst) && c.pos[r] < c.lens[r] {
		dst[n] = Send(0, r, int32(c.pos[r]), 0, 8)
		if c.pos[r]%5 == 0 {
			c.hdr.Markers = append(c.hdr.Markers, MarkerDef{Name: fmt.Sprintf("m%d.%d", r, c.pos[r])})
		}
		c.pos[r]++
		n++
	}
	if n == 0 {
		if err := c.fail[r]; err != nil {
			return 0, err
		}
		return 0, io.EOF
	}
	return n, nil
}

func (c *countingSource) Close() error { c.closed = true; return nil }

// TestPrefetch reads sources directly and through Prefetch with the same
// calls (ranks in a fixed shuffled order, buffers of several sizes) and
// expects the same events, the same errors after them and the markers
// the source defined for the events taken.
func TestPrefetch(t *testing.T) {
	broken := errors.New("r2.txt:7: broken line")
	for _, tc := range []struct {
		name  string
		lens  []int
		fail  map[int]error
		chunk int
		buf   int
	}{
		{"chunk smaller than the buffer", []int{10, 37, 0, 5}, nil, 3, 8},
		{"chunk larger than the buffer", []int{100, 1, 64, 65}, nil, 16, 5},
		{"default chunk", []int{3000, 2999, 1}, nil, 0, 256},
		{"an error after events", []int{12, 12, 12}, map[int]error{2: broken}, 4, 4},
		{"an error with no events", []int{0, 3}, map[int]error{0: broken}, 4, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			direct := newCountingSource(tc.lens, tc.fail)
			inner := newCountingSource(tc.lens, tc.fail)
			pre := Prefetch(inner, tc.chunk)
			got, want := make([][]Event, len(tc.lens)), make([][]Event, len(tc.lens))
			gotErr, wantErr := make([]error, len(tc.lens)), make([]error, len(tc.lens))
			a, b := make([]Event, tc.buf), make([]Event, tc.buf)
			order := make([]int, len(tc.lens))
			for i := range order {
				order[i] = (i*7 + 3) % len(tc.lens)
			}
			// Both sides take the same turns until each rank's stream
			// ends; the prefetching one may cut its reads elsewhere.
			read := func(src Source, buf []Event, evs [][]Event, errs []error) int {
				live := 0
				for _, r := range order {
					if errs[r] != nil {
						continue
					}
					live++
					n, err := src.ReadRank(r, buf)
					evs[r], errs[r] = append(evs[r], buf[:n]...), err
				}
				return live
			}
			for read(direct, a, want, wantErr)+read(pre, b, got, gotErr) > 0 {
			}
			for r := range tc.lens {
				if !slices.Equal(got[r], want[r]) {
					t.Errorf("rank %d: %d events through Prefetch, want %d", r, len(got[r]), len(want[r]))
				}
				if !errors.Is(gotErr[r], wantErr[r]) {
					t.Errorf("rank %d: error %v through Prefetch, want %v", r, gotErr[r], wantErr[r])
				}
			}
			// The markers of the events taken are in the header; the
			// reads ahead may have defined more.
			hm, dm := pre.Header().Markers, direct.Header().Markers
			if len(hm) < len(dm) {
				t.Errorf("header has %d markers, want at least the %d of the events taken", len(hm), len(dm))
			}
			if _, err := pre.ReadRank(len(tc.lens), b); err == nil || err.Error() != fmt.Sprintf("rank %d outside the world of %d ranks", len(tc.lens), len(tc.lens)) {
				t.Errorf("ReadRank outside the world = %v, want the source's error", err)
			}
			if err := pre.Close(); err != nil || !inner.closed {
				t.Errorf("Close() = %v, source closed %v; want nil, true", err, inner.closed)
			}
		})
	}
}

// TestPrefetchInMemory: a trace in memory is read in place, not copied
// through a goroutine.
func TestPrefetchInMemory(t *testing.T) {
	b := NewBuilder(1, false, Second)
	b.Add(0, Send(0, 0, 1, 0, 8))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	src := tr.Source()
	if got := Prefetch(src, 4); got != src {
		t.Errorf("Prefetch(in memory) = %T, want the source itself", got)
	}
}

// loggingSource is a countingSource that logs the ranks of its reads and
// how far each rank's reads got, under a lock (the test reads them while
// Prefetch's goroutine reads the source).
type loggingSource struct {
	mu    sync.Mutex
	inner *countingSource
	calls []int
}

func (l *loggingSource) Header() *Trace { return l.inner.Header() }

func (l *loggingSource) ReadRank(r int, dst []Event) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, r)
	return l.inner.ReadRank(r, dst)
}

func (l *loggingSource) Close() error { return l.inner.Close() }

// state returns the reads so far and each rank's events read.
func (l *loggingSource) state() ([]int, []int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls), slices.Clone(l.inner.pos)
}

// waitCalls waits until the source was read n times (the reads run on
// Prefetch's goroutine) and returns the reads' ranks and positions.
func (l *loggingSource) waitCalls(t *testing.T, n int) ([]int, []int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		calls, pos := l.state()
		if len(calls) >= n {
			return calls, pos
		}
		if time.Now().After(deadline) {
			t.Fatalf("the source was read %d times (%v), want %d reads without the consumer asking", len(calls), calls, n)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPrefetchReadsAhead: every rank's two halves are read before the
// consumer asks, in rank order; a half the consumer has taken is read
// again at once, in the order the halves were taken; a rank never has
// more than chunk events read and not taken.
func TestPrefetchReadsAhead(t *testing.T) {
	const chunk = 8 // halves of 4
	lens := []int{20, 20, 20}
	src := &loggingSource{inner: newCountingSource(lens, nil)}
	pre := Prefetch(src, chunk)
	defer pre.Close()
	calls, pos := src.waitCalls(t, 6)
	if want := []int{0, 1, 2, 0, 1, 2}; !slices.Equal(calls, want) {
		t.Fatalf("reads before the consumer asked = %v, want %v", calls, want)
	}
	if want := []int{8, 8, 8}; !slices.Equal(pos, want) {
		t.Errorf("events read per rank before the consumer asked = %v, want %v", pos, want)
	}
	taken := make([]int, len(lens))
	buf := make([]Event, 3)
	// Each consumer call takes at most the rest of the current half.
	for i, step := range []struct{ rank, want int }{
		{2, 3}, {2, 1}, {0, 3}, {2, 3}, {0, 1}, {0, 3}, {2, 1},
	} {
		n, err := pre.ReadRank(step.rank, buf)
		if err != nil || n != step.want {
			t.Fatalf("call %d: ReadRank(%d) = %d, %v; want %d, nil", i, step.rank, n, err, step.want)
		}
		for j, e := range buf[:n] {
			if e.Peer != int32(step.rank) || e.Tag != int32(taken[step.rank]+j) {
				t.Fatalf("call %d: event %d is %+v, want rank %d's event %d", i, j, e, step.rank, taken[step.rank]+j)
			}
		}
		taken[step.rank] += n
		_, pos := src.state()
		for r := range lens {
			if pos[r]-taken[r] > chunk {
				t.Errorf("call %d: rank %d has %d events read and %d taken: more than chunk %d ahead", i, r, pos[r], taken[r], chunk)
			}
		}
	}
	// Halves drained: rank 2's first (call 1), rank 0's first (call 4),
	// rank 2's second (call 6).
	calls, _ = src.waitCalls(t, 9)
	if want := []int{0, 1, 2, 0, 1, 2, 2, 0, 2}; !slices.Equal(calls, want) {
		t.Errorf("reads = %v, want %v", calls, want)
	}
}
