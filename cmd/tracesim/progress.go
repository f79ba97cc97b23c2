package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/term"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// progressDelay is how long a load or a run goes before its progress
// line appears: shorter work finishes without drawing anything.
const progressDelay = time.Second

// progressEvery is the least time between two redraws of the line.
const progressEvery = 100 * time.Millisecond

// termProgress draws one line of progress on stderr, rewritten in place,
// for work that takes more than progressDelay: a load's bytes, a run's
// trace events. It draws only on a terminal, so scripts, pipes and
// --json readers see exactly what they saw without it. The zero of its
// pointer draws nothing. Its methods are safe for concurrent use (a
// reader's workers report in turn).
type termProgress struct {
	w     io.Writer
	label string
	start time.Time
	// now is the clock (time.Now; a test's own).
	now func() time.Time

	mu    sync.Mutex
	last  time.Time
	drawn bool
}

// newTermProgress returns a progress line for label on e's stderr, or
// nil when stderr is not a terminal.
func newTermProgress(e *env, label string) *termProgress {
	f, ok := e.stderr.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return nil
	}
	return newProgressLine(e.stderr, label, time.Now)
}

func newProgressLine(w io.Writer, label string, now func() time.Time) *termProgress {
	return &termProgress{w: w, label: label, start: now(), now: now}
}

// update draws done out of total (total 0: unknown) with unit ("B" for
// bytes, else a count of unit), once progressDelay has passed and at most
// every progressEvery.
func (p *termProgress) update(done, total int64, unit string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t := p.now()
	el := t.Sub(p.start)
	if el < progressDelay || t.Sub(p.last) < progressEvery {
		return
	}
	p.last, p.drawn = t, true
	fmt.Fprintf(p.w, "\r\x1b[K%s", progressText(p.label, done, total, unit, el))
}

// progressText is the line update draws: a bar and the share done when
// the total is known, the amount done, the time so far and the time left.
func progressText(label string, done, total int64, unit string, el time.Duration) string {
	amount := func(n int64) string {
		if unit == "B" {
			return units.FormatBytes(n)
		}
		return units.FormatCount(float64(n)) + " " + unit
	}
	if total <= 0 {
		return fmt.Sprintf("%s: %s, %s", label, amount(done), formatSeconds(el.Seconds()))
	}
	done = min(max(done, 0), total)
	const barW = 20
	fill := int(barW * done / total)
	line := fmt.Sprintf("%s %s%s %s (%s of %s), %s", label,
		strings.Repeat("█", fill), strings.Repeat("░", barW-fill),
		units.FormatPercent(float64(100*done/total)/100, 0), amount(done), amount(total), formatSeconds(el.Seconds()))
	if done > 0 && done < total {
		left := el.Seconds() / float64(done) * float64(total-done)
		line += ", " + formatSeconds(left) + " left"
	}
	return line
}

// finish clears the line if it was drawn, so that what the command
// prints next starts on a clean line.
func (p *termProgress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}

// watchTime draws the time the work has taken, for work that cannot say
// how far it is, until the returned stop is called (which clears the
// line). With p nil it starts nothing.
func (p *termProgress) watchTime() (stop func()) {
	return p.watch(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		t := p.now()
		if el := t.Sub(p.start); el >= progressDelay {
			p.last, p.drawn = t, true
			fmt.Fprintf(p.w, "\r\x1b[K%s: %s", p.label, formatSeconds(el.Seconds()))
		}
	})
}

// watch calls draw every progressEvery on a goroutine of its own until
// the returned stop is called, which clears the line.
func (p *termProgress) watch(draw func()) (stop func()) {
	if p == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				draw()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		p.finish()
	}
}

// loadProgress is a formats.Progress drawing p (nil: none).
func (p *termProgress) loadProgress() formats.Progress {
	if p == nil {
		return nil
	}
	return func(done, total int64) { p.update(done, total, "B") }
}

// watchRun draws s's trace events replayed out of the trace's, polling
// its snapshots, until the returned stop is called (which clears the
// line). With p nil it starts nothing.
func (p *termProgress) watchRun(s *replay.Sim) (stop func()) {
	return p.watch(func() {
		// Snapshot asks the run for a fresh one; the one it returns is
		// at most a tick old.
		if sn := s.Snapshot(); sn != nil {
			p.update(int64(sn.TraceEvents), int64(sn.TotalTraceEvents), "trace events")
		}
	})
}
