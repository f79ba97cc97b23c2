package tui

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	sw "github.com/tracesim/tracesim/engine/sweep"
	"github.com/tracesim/tracesim/engine/sweep/parquetfile"
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
	st := sweepview.NewState(msg.table, name, nil)
	st.NoOpen("a result opened here is for browsing: tracesim sweep show " + name + " opens its points (with the spec beside it)")
	m.setSweep(st)
	return tea.Batch(m.switchTab(m.tabIndex(SweepTab)), m.setStatus("opened sweep result "+name))
}
