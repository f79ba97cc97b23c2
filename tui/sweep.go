package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component"
	sweepview "github.com/tracesim/tracesim/views/sweep"
)

// Sweeps the Machine tab starts run here, as simulations do
// (simulation.go): the tab sends a component.SweepMsg, the application
// runs the points on a pool of goroutines (engine/sweep), within the
// session's SweepBudget, and hands the rows to the Sweep tab as they
// finish. esc on the Sweep tab stops it.

// SweepTab is the name of the tab that shows sweeps.
const SweepTab = "Sweep"

// SweepBudget bounds the sweeps of one session; the zero value means no
// limit and a worker per CPU. An SSH server sets it (serve.Config), so
// that one student's sweep cannot take the machine from a classroom.
type SweepBudget struct {
	// Points is the most points one sweep may have; 0 means no limit.
	Points int
	// Jobs is the number of points simulated at once; 0 means one per
	// CPU.
	Jobs int
	// WallTime is the host time one sweep may take before it is
	// stopped (its finished points kept); 0 means no limit.
	WallTime time.Duration
}

// SweepSetter is a view that shows the session's latest sweep (the
// Sweep tab): the application gives it the state when it builds the
// view and when a sweep starts or a result is opened.
type SweepSetter interface {
	SetState(st *sweepview.State)
}

// sweepProgressEvery is how often a running sweep reports: the rows
// finished since, and the elapsed time.
const sweepProgressEvery = 100 * time.Millisecond

// sweepRun is a sweep under way.
type sweepRun struct {
	gen    int
	cancel context.CancelFunc
	total  int
	st     *sweepview.State // what the Sweep tab shows of it
	start  time.Time        // for the time left the tab estimates

	mu    sync.Mutex
	rows  [][]string // every row finished so far, in the order they finished
	ended chan struct{}
	err   error // Run's, set before ended closes
	// userStop is set when esc stopped the run (not its time budget).
	userStop bool
}

// sweepProgressMsg says a running sweep may have rows to show, or has
// ended. It carries no rows: sweepProgress takes those the tab lacks, so
// that a report lost or repeated changes nothing.
type sweepProgressMsg struct {
	gen int
	end bool
}

// wait reports within sweepProgressEvery, or at once when the run ends.
func (r *sweepRun) wait() tea.Msg {
	select {
	case <-r.ended:
		return sweepProgressMsg{gen: r.gen, end: true}
	case <-time.After(sweepProgressEvery):
		return sweepProgressMsg{gen: r.gen}
	}
}

// since returns the rows finished after the first n, and Run's error
// once it has ended.
func (r *sweepRun) since(n int) ([][]string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rows[min(n, len(r.rows)):], r.err
}

// startSweep runs the sweep the Machine tab asks for on the loaded trace,
// from the session's machine, and shows it in the Sweep tab.
func (m *Model) startSweep(msg component.SweepMsg) tea.Cmd {
	if m.tr == nil {
		return nil
	}
	// A refused sweep is said on the Machine tab, which asked for it,
	// and in the status bar.
	refuse := func(why string) tea.Cmd {
		return tea.Batch(m.broadcast(component.SweepRefusedMsg{Key: msg.Key, Reason: why}), m.setStatus("sweep not started: "+why))
	}
	if !slices.ContainsFunc(m.tabs, func(t Tab) bool { return t.Name == SweepTab }) {
		return refuse("this session has no Sweep tab to show a sweep in")
	}
	if m.sweepRun != nil {
		return refuse("a sweep is running: esc on the Sweep tab stops it")
	}
	base, _ := component.WhatIfOf(m.common).Config()
	name := filepath.Base(m.path)
	if m.path == "" || name == "." {
		name = "trace"
	}
	spec := sw.OneAxis(name, base, msg.Key, msg.Values)
	points, err := spec.Expand()
	if err != nil {
		return refuse(err.Error())
	}
	b := m.opts.SweepBudget
	if b.Points > 0 && len(points) > b.Points {
		return refuse(fmt.Sprintf("this session sweeps at most %d points (asked for %d)", b.Points, len(points)))
	}
	jobs := b.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if b.WallTime > 0 {
		ctx, cancel = context.WithTimeout(m.ctx, b.WallTime)
	} else {
		ctx, cancel = context.WithCancel(m.ctx)
	}
	m.sweepGen++
	r := &sweepRun{gen: m.sweepGen, cancel: cancel, total: len(points), ended: make(chan struct{}), start: time.Now()}
	m.sweepRun = r

	table := &sw.Table{Columns: spec.Columns()}
	tr, path := m.tr, m.path
	open := func(_ context.Context, row []string) (sweepview.Run, error) {
		p, err := spec.PointOf(points, table, row)
		if err != nil {
			return sweepview.Run{}, err
		}
		return sweepview.Run{Trace: tr, Path: path, Config: p.Config}, nil
	}
	st := sweepview.NewState(table, msg.Key+" on "+name, open)
	st.Progress(0, len(points), 0, true, "")
	r.st = st
	m.setSweep(st)

	lg := m.opts.Log
	debug(lg, "sweep started", "trace", path, "setting", msg.Key, "points", len(points), "jobs", jobs)
	go func() {
		// Every worker shares the loaded trace, which simulations only
		// read.
		load := func(context.Context, sw.TraceRef) (*tracefmt.Trace, error) { return tr, nil }
		err := spec.Run(ctx, points, sw.Options{Jobs: jobs, Load: load}, func(_ *sw.Point, row []string) error {
			r.mu.Lock()
			r.rows = append(r.rows, row)
			r.mu.Unlock()
			return nil
		})
		debug(lg, "sweep ended", "trace", path, "setting", msg.Key, "err", err)
		r.mu.Lock()
		r.err = err
		r.mu.Unlock()
		close(r.ended)
	}()
	n := min(jobs, len(points))
	workers := fmt.Sprintf("%d points on %d workers", len(points), n)
	if n == 1 {
		workers = fmt.Sprintf("%d points on 1 worker", len(points))
	}
	// A served session's bounds are said, not just applied.
	var bounds []string
	if b.Points > 0 {
		bounds = append(bounds, fmt.Sprintf("at most %d points", b.Points))
	}
	if b.Jobs > 0 {
		bounds = append(bounds, fmt.Sprintf("%d at a time", b.Jobs))
	}
	if b.WallTime > 0 {
		bounds = append(bounds, fmt.Sprintf("%s of host time", b.WallTime))
	}
	if len(bounds) > 0 {
		workers += " (this session: " + strings.Join(bounds, ", ") + ")"
	}
	return tea.Batch(m.switchTab(m.tabIndex(SweepTab)), r.wait, m.setStatus("sweeping "+msg.Key+": "+workers))
}

// sweepProgress adds a running sweep's rows to the Sweep tab's result.
func (m *Model) sweepProgress(msg sweepProgressMsg) tea.Cmd {
	r := m.sweepRun
	if r == nil || msg.gen != r.gen {
		return nil
	}
	// The tab may show a result opened since: the run goes on in its own
	// state.
	st := r.st
	t := st.Table()
	rows, err := r.since(len(t.Rows))
	t.Rows = append(t.Rows, rows...)
	// In point order, whichever worker finished first.
	slices.SortFunc(t.Rows, func(a, b []string) int {
		x, _ := strconv.Atoi(a[0])
		y, _ := strconv.Atoi(b[0])
		return x - y
	})
	st.Refresh()
	if !msg.end {
		st.Progress(len(t.Rows), r.total, time.Since(r.start), true, "")
		return r.wait
	}
	m.sweepRun = nil
	r.cancel()
	note := ""
	switch {
	case err == nil:
	case r.stopped():
		note = fmt.Sprintf("stopped: %d of %d points", len(t.Rows), r.total)
	case errors.Is(err, context.DeadlineExceeded):
		note = fmt.Sprintf("stopped at this session's sweep budget of %s: %d of %d points", m.opts.SweepBudget.WallTime, len(t.Rows), r.total)
	default:
		note = "failed: " + err.Error()
	}
	st.Progress(len(t.Rows), r.total, time.Since(r.start), false, note)
	if note == "" {
		return m.setStatus(fmt.Sprintf("sweep done: %d points", len(t.Rows)))
	}
	return m.setStatus("sweep " + note)
}

// stopped reports whether the user stopped the run (stopSweep).
func (r *sweepRun) stopped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.userStop
}

// stopSweep stops the sweep under way: its finished points stay.
func (m *Model) stopSweep() tea.Cmd {
	r := m.sweepRun
	if r == nil {
		return nil
	}
	r.mu.Lock()
	r.userStop = true
	r.mu.Unlock()
	r.cancel()
	return m.setStatus("stopping the sweep…")
}

// setSweep makes st the sweep the Sweep tab shows.
func (m *Model) setSweep(st *sweepview.State) {
	m.sweep = st
	for _, v := range m.views {
		if s, ok := v.(SweepSetter); ok && v != nil {
			s.SetState(st)
		}
	}
}
