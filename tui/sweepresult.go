package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/replay"
	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/engine/sweep/parquetfile"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	sweepview "github.com/tracesim/tracesim/views/sweep"
)

// A sweep result opened from the picker (a .csv or .parquet file that
// `tracesim sweep` wrote) shows in the Sweep tab instead of replacing the
// trace.

// resultLimit bounds a result file read into a session: a million-point
// sweep's CSV is some 400 MiB, far beyond what a table on a terminal
// needs; a served library must not make a session read more.
const resultLimit = 64 << 20

// isSweepResult reports whether the picker opens path as a sweep result.
func isSweepResult(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv", ".parquet":
		return true
	}
	return false
}

// resultMsg is a sweep result read by openResult.
type resultMsg struct {
	path  string
	table *sw.Table
	err   error
}

// openResult reads the sweep result at path on a command goroutine,
// through the library's os.Root when the session has one.
func (m *Model) openResult(path string) tea.Cmd {
	library := m.opts.Library
	return func() tea.Msg {
		var t *sw.Table
		var readErr error // the content's, apart from reaching the file
		read := func(f *os.File) {
			t, readErr = readResult(filepath.Base(path), f)
		}
		var err error
		if library != "" {
			err = inLibrary(library, path, func(r *os.Root, rel string) error {
				f, err := r.Open(rel)
				if err != nil {
					return err
				}
				defer f.Close()
				read(f)
				return nil
			})
		} else {
			var f *os.File
			if f, err = os.Open(path); err == nil {
				defer f.Close()
				read(f)
			}
		}
		if err == nil {
			err = readErr
		}
		return resultMsg{path: path, table: t, err: err}
	}
}

// readResult reads a result file, CSV or Parquet by its name's
// extension; name is how errors call it.
func readResult(name string, f *os.File) (*sw.Table, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	switch {
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s: not a regular file", name)
	case st.Size() > resultLimit:
		return nil, fmt.Errorf("%s: a sweep result larger than %d MiB", name, resultLimit>>20)
	}
	if strings.EqualFold(filepath.Ext(name), ".parquet") {
		return parquetfile.Read(name, f, st.Size())
	}
	data, err := io.ReadAll(io.LimitReader(f, resultLimit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return sw.ReadCSV(name, data)
}

// resultOpened shows a result read by openResult in the Sweep tab.
func (m *Model) resultOpened(msg resultMsg) tea.Cmd {
	name := filepath.Base(msg.path)
	if msg.err != nil {
		// The reason stays over the view until esc, as a trace's would.
		m.err = "could not open " + name + " as a sweep result: " + strings.TrimPrefix(msg.err.Error(), name+": ")
		return nil
	}
	base, _ := component.WhatIfOf(m.common).Config()
	o := &resultOpener{
		table: msg.table, dir: filepath.Dir(msg.path), base: base,
		library: m.opts.Library, open: m.opts.Open, format: m.opts.Format,
	}
	m.setSweep(sweepview.NewState(msg.table, name, o.point))
	return tea.Batch(m.switchTab(m.tabIndex(SweepTab)), m.setStatus("opened sweep result "+name))
}

// resultOpener opens the points of a result read from the picker: it has
// no spec, so a point is its row's trace, machine and axis columns; a
// result without the machine column (written before it existed) runs on
// the session's machine, as a sweep the session runs starts from it.
type resultOpener struct {
	table *sw.Table
	// dir is the result's directory: the trace column's files are
	// relative to it, as `tracesim sweep` writes them beside the spec.
	dir  string
	base replay.Config
	// How the session reads files (Options): through the library's
	// os.Root when it has one.
	library string
	open    func(context.Context, string) (*tracefmt.Trace, error)
	format  string

	// The last trace loaded, by its path in the session: the points of
	// one trace open at once, and a result naming many traces holds one
	// in memory at a time.
	mu       sync.Mutex
	lastPath string
	last     *tracefmt.Trace
}

// ResultOpener returns what opens the points of a result read without
// its spec (`tracesim sweep show RESULT`): a row's trace, a file relative
// to dir (the result's directory) or a gen command, on the machine the
// result's machine column records, else on base (a result written
// before that column existed), with the row's axis values and seed.
func ResultOpener(t *sw.Table, dir string, base replay.Config) func(ctx context.Context, row []string) (sweepview.Run, error) {
	o := &resultOpener{table: t, dir: dir, base: base}
	return o.point
}

// point loads the trace and machine of a row; the Sweep tab calls it on
// a command goroutine.
func (o *resultOpener) point(ctx context.Context, row []string) (sweepview.Run, error) {
	if len(row) < len(o.table.Columns) || len(row) < 2 {
		return sweepview.Run{}, fmt.Errorf("%d columns, expected %d", len(row), len(o.table.Columns))
	}
	cfg, err := o.table.PointConfig(row, o.base)
	if err != nil {
		return sweepview.Run{}, err
	}
	name := row[1]
	o.mu.Lock()
	defer o.mu.Unlock()
	tr, path, err := o.trace(ctx, name)
	if err != nil {
		return sweepview.Run{}, err
	}
	return sweepview.Run{Trace: tr, Path: path, Config: cfg}, nil
}

// maxResultGenEvents bounds a trace a result's gen command makes in a
// session with a library (a served one): the result is anyone's data, and
// must not make the server build a trace of gigabytes.
const maxResultGenEvents = 2_000_000

// generate makes the trace of a gen command's arguments.
func (o *resultOpener) generate(args []string) (*tracefmt.Trace, error) {
	g, err := gen.ParseArgs(args)
	if err != nil {
		return nil, err
	}
	if o.library != "" {
		cnt, err := gen.Expect(g)
		if err != nil {
			return nil, err
		}
		if cnt.Events > maxResultGenEvents {
			return nil, fmt.Errorf("%d events is more than a session with a library generates (%d)", cnt.Events, maxResultGenEvents)
		}
	}
	return gen.Generate(g)
}

// trace returns the trace a result's trace column names, and the path
// the session calls it by: a gen command generated here, or a file
// relative to the result.
func (o *resultOpener) trace(ctx context.Context, name string) (*tracefmt.Trace, string, error) {
	f := strings.Fields(name)
	if len(f) > 0 && f[0] == "gen" {
		if o.last != nil && o.lastPath == name {
			return o.last, name, nil
		}
		tr, err := o.generate(f[1:])
		if err != nil {
			return nil, "", fmt.Errorf("trace %q: %w", name, err)
		}
		o.lastPath, o.last = name, tr
		return tr, name, nil
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.dir, name)
	}
	if o.library != "" {
		// A result is data anyone may have written: it must not lead a
		// served session to a file outside the library.
		if _, ok := libraryName(o.library, path); filepath.IsAbs(name) || !ok {
			return nil, "", fmt.Errorf("trace %s: refused: a result opened from the library may only name traces in it, relative to the result", name)
		}
	}
	if o.last != nil && o.lastPath == path {
		return o.last, path, nil
	}
	tr, err := readTrace(ctx, o.open, o.library, path, o.format, nil)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("trace %s: not found beside the result", name)
	}
	if err != nil {
		return nil, "", fmt.Errorf("trace %s: %w", name, err)
	}
	o.lastPath, o.last = path, tr
	return tr, path, nil
}
