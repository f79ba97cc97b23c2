package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestTermProgress: the line appears only after progressDelay, is redrawn
// at most every progressEvery, shows the share, the amounts and the time
// left, and finish clears it; a nil progress (stderr not a terminal)
// draws nothing and makes no load callback.
func TestTermProgress(t *testing.T) {
	var buf bytes.Buffer
	clock := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	p := newProgressLine(&buf, "loading big.tsim", now)
	steps := []struct {
		after       time.Duration
		done, total int64
		want        string // "" draws nothing
	}{
		{500 * time.Millisecond, 10 << 20, 100 << 20, ""},
		{600 * time.Millisecond, 20 << 20, 100 << 20, "\r\x1b[Kloading big.tsim ████░░░░░░░░░░░░░░░░ 20 % (20 MiB of 100 MiB), 1s, 4s left"},
		{50 * time.Millisecond, 21 << 20, 100 << 20, ""}, // within progressEvery of the last line
		{950 * time.Millisecond, 100 << 20, 100 << 20, "\r\x1b[Kloading big.tsim ████████████████████ 100 % (100 MiB of 100 MiB), 2s"},
	}
	for i, s := range steps {
		clock = clock.Add(s.after)
		buf.Reset()
		p.update(s.done, s.total, "B")
		if got := buf.String(); got != s.want {
			t.Errorf("step %d (%d of %d): drew %q, want %q", i, s.done, s.total, got, s.want)
		}
	}
	buf.Reset()
	p.finish()
	if got := buf.String(); got != "\r\x1b[K" {
		t.Errorf("finish wrote %q, want the line cleared", got)
	}
	buf.Reset()
	p.finish()
	if buf.Len() != 0 {
		t.Errorf("a second finish wrote %q", buf.String())
	}

	var none *termProgress
	none.update(1, 2, "B")
	none.finish()
	if none.loadProgress() != nil {
		t.Error("a nil progress gives a load callback: a reader not on a terminal would report for nothing")
	}
	none.watchRun(nil)()
}

// TestProgressTextCounts: a run's line counts trace events; an unknown
// total shows the amount and the time only.
func TestProgressTextCounts(t *testing.T) {
	for _, c := range []struct {
		done, total int64
		unit        string
		el          time.Duration
		want        string
	}{
		{4_300_000, 8_600_000, "trace events", 3 * time.Second, "simulating ██████████░░░░░░░░░░ 50 % (4.3M trace events of 8.6M trace events), 3s, 3s left"},
		{12_000_000, 0, "trace events", 65 * time.Second, "simulating: 12M trace events, 1m05s"},
		{-5, 10, "trace events", time.Second, "simulating ░░░░░░░░░░░░░░░░░░░░ 0 % (0 trace events of 10 trace events), 1s"},
	} {
		if got := progressText("simulating", c.done, c.total, c.unit, c.el); got != c.want {
			t.Errorf("progressText(%d, %d) = %q, want %q", c.done, c.total, got, c.want)
		}
	}
	if got := progressText("x", 1, 2, "B", time.Second); !strings.Contains(got, "1 B of 2 B") {
		t.Errorf("bytes: %q", got)
	}
}

// TestWatchTime: work that cannot say how far it is shows its time once
// progressDelay has passed, and stop clears the line and ends the
// goroutine before it returns (nothing is drawn after it).
func TestWatchTime(t *testing.T) {
	var buf bytes.Buffer
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	p := newProgressLine(&buf, "reading big.tsim ahead", func() time.Time { return start.Add(2 * time.Second) })
	p.start = start
	stop := p.watchTime()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(progressEvery / 2) {
		p.mu.Lock()
		drawn := p.drawn
		p.mu.Unlock()
		if drawn {
			break
		}
	}
	stop()
	got := buf.String()
	if !strings.HasPrefix(got, "\r\x1b[Kreading big.tsim ahead: 2s") || !strings.HasSuffix(got, "\r\x1b[K") {
		t.Errorf("drew %q, want the time line, then the line cleared", got)
	}
	n := buf.Len()
	time.Sleep(2 * progressEvery)
	if buf.Len() != n {
		t.Errorf("drew %q after stop", buf.String()[n:])
	}
}
