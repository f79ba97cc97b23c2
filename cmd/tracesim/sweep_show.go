package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tui"
	"github.com/tracesim/tracesim/tui/demo"
	sweepview "github.com/tracesim/tracesim/views/sweep"
)

// sweepShowCommand is `tracesim sweep show RESULT`.
func sweepShowCommand(e *env) *cobra.Command {
	cc := newCommand("sweep show", "plot and browse a sweep result in the terminal", "RESULT.csv|RESULT.parquet [--spec SPEC.toml]",
		"Open a sweep result in the terminal UI's Sweep tab: a result column plotted against an\n"+
			"axis, one line per value of another, and the table of points; enter opens a point's\n"+
			"run in the Simulate tab with its machine: the spec's point (by default the .toml file\n"+
			"beside RESULT with its name), else the result's machine and axis columns.")
	flags := cc.Flags()
	specPath := flags.String("spec", "", "the sweep's spec (default: RESULT with the extension .toml, if it exists)")
	theme, noColor := themeFlags(cc, " (default: from the terminal's background)", "monochrome display (also when NO_COLOR is set)")
	cc.Args = argCount(1, 1)
	e.runs(cc, func(pos []string) int {
		if !knownTheme(e, "sweep show", *theme) {
			return exitUsage
		}
		res, err := readTable(pos[0])
		if err != nil {
			return fail(e, "sweep show", err)
		}
		if *specPath == "" {
			guess := strings.TrimSuffix(pos[0], filepath.Ext(pos[0])) + ".toml"
			if _, err := os.Stat(guess); err == nil {
				*specPath = guess
			} else if !errors.Is(err, fs.ErrNotExist) {
				return fail(e, "sweep show", err)
			}
		}
		if f, ok := e.stdout.(*os.File); ok && !term.IsTerminal(f.Fd()) {
			fmt.Fprintln(e.stderr, "tracesim sweep show: the UI needs a terminal")
			return exitUsage
		}
		opts := tui.Options{Theme: *theme, NoColor: *noColor, Environ: os.Environ(), Context: e.ctx}
		open, err := showOpener(res, pos[0], *specPath)
		if err != nil {
			return fail(e, "sweep show", err)
		}
		// The UI starts on the first point's trace.
		if len(res.Rows) > 0 {
			if run, err := open(e.ctx, res.Rows[0]); err == nil {
				opts.Trace, opts.Path = run.Trace, run.Path
			}
		}
		if opts.Trace == nil {
			tr, err := demo.Trace()
			if err != nil {
				return fail(e, "sweep show", err)
			}
			opts.Trace, opts.Path = tr, demo.Name
		}
		opts.Tabs = tui.SweepTabs(res, filepath.Base(pos[0]), open)
		if _, err := tui.Run(e.ctx, tui.New(opts), tui.RendererDirect, tui.FPS); err != nil && e.ctx.Err() == nil {
			return fail(e, "sweep show", err)
		}
		return exitOK
	})
	return cc
}

// showOpener returns what opens a point of res (read from the file
// result): with the spec, its point; without, the result's own columns
// (its machine, axes and seed, tui.ResultOpener), its traces relative to
// the result. A spec's gen command is made in memory when a point of its
// trace is first opened.
func showOpener(res *sweep.Table, result, specPath string) (open func(context.Context, []string) (sweepview.Run, error), err error) {
	if specPath == "" {
		return tui.ResultOpener(res, filepath.Dir(result), replay.Default()), nil
	}
	spec, err := loadSpec(specPath)
	if err != nil {
		return nil, err
	}
	pts, err := spec.Expand()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", specPath, err)
	}
	o := &pointOpener{spec: spec, points: pts, table: res, traces: map[int]*tracefmt.Trace{}}
	return o.open, nil
}

// pointOpener finds a result row's point in the spec and loads its
// trace, once per trace.
type pointOpener struct {
	spec   *sweep.Spec
	points []sweep.Point
	table  *sweep.Table

	mu     sync.Mutex
	traces map[int]*tracefmt.Trace
}

func (o *pointOpener) open(ctx context.Context, row []string) (sweepview.Run, error) {
	p, err := o.spec.PointOf(o.points, o.table, row)
	if err != nil {
		return sweepview.Run{}, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	t, ok := o.traces[p.Trace]
	if !ok {
		if t, err = loadTrace(ctx, o.spec.Traces[p.Trace]); err != nil {
			return sweepview.Run{}, err
		}
		o.traces[p.Trace] = t
	}
	return sweepview.Run{Trace: t, Path: o.spec.Traces[p.Trace].Name, Config: p.Config}, nil
}
