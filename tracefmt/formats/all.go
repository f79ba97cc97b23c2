package formats

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/tracesim/tracesim/internal/atomicfile"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/alog"
	"github.com/tracesim/tracesim/tracefmt/clog"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/dimemas"
	"github.com/tracesim/tracesim/tracefmt/dumpi"
	"github.com/tracesim/tracesim/tracefmt/goal"
	"github.com/tracesim/tracesim/tracefmt/otf2"
	"github.com/tracesim/tracesim/tracefmt/paraver"
	"github.com/tracesim/tracesim/tracefmt/perfetto"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// All returns the known formats, in detection order: formats with a
// distinctive magic first, loosely recognised text formats last. CLOG2's
// preamble names itself; CLOG has no magic but a first record header that
// few other files satisfy; ALOG and TI are lines of numbers and keywords,
// so they come after tsim, whose first line names it.
func All() []Format {
	return []Format{
		{
			Name:        "clog2",
			Description: "MPE CLOG2 binary log (mpicc -mpilog), read and written byte-exact",
			Extensions:  []string{".clog2"},
			Sniff:       clog2.Sniff,
			Read:        func(_ string, r io.Reader) (*tracefmt.Trace, error) { return clog2.Read(r) },
			Write: func(_ string, w io.Writer, t *tracefmt.Trace, _ WriteOptions) error {
				return clog2.Write(w, t)
			},
			Timed: true,
		},
		{
			Name:        "otf2",
			Description: "OTF2 archive (Score-P): the .otf2 anchor file with its .def and per-location files",
			Extensions:  []string{".otf2"},
			Sniff:       otf2.Sniff,
			Read: func(path string, r io.Reader) (*tracefmt.Trace, error) {
				t, _, err := otf2.Read(path, r, stoppedWith(r, otf2.DirOpener(filepath.Dir(path))))
				return t, err
			},
			Write: func(path string, w io.Writer, t *tracefmt.Trace, _ WriteOptions) error {
				return otf2.Write(path, w, t, archiveFiles(filepath.Dir(path)))
			},
			Timed: true,
		},
		{
			Name:        "paraver",
			Description: "Paraver trace (Extrae, BSC tools): the .prv with its .pcf and .row beside it",
			Extensions:  []string{".prv"},
			Sniff:       paraver.Sniff,
			Read: func(path string, r io.Reader) (*tracefmt.Trace, error) {
				return paraver.Read(path, r, paraver.DirOpener(filepath.Dir(path)))
			},
			Write: func(path string, w io.Writer, t *tracefmt.Trace, _ WriteOptions) error {
				return paraver.Write(path, w, t, paraver.Creator(archiveFiles(filepath.Dir(path))))
			},
			Timed: true,
		},
		{
			Name:        "dumpi",
			Description: "SST DUMPI trace: the .meta with its PREFIX-NNNN.bin per rank (or one .bin, by content), read only",
			Extensions:  []string{".meta"},
			Sniff:       dumpi.Sniff,
			Read: func(path string, r io.Reader) (*tracefmt.Trace, error) {
				return dumpi.Read(path, r, dumpi.DirOpener(filepath.Dir(path)))
			},
			Timed: true,
		},
		{
			Name:        "clog",
			Description: "MPE 1.x CLOG binary log (MPICH-1), read only",
			Extensions:  []string{".clog"},
			Sniff:       clog.Sniff,
			Read:        func(_ string, r io.Reader) (*tracefmt.Trace, error) { return clog.Read(r) },
			Timed:       true,
		},
		{
			Name:        "tsim",
			Description: "tracesim text format (docs/tsim.md), lossless",
			Extensions:  []string{".tsim"},
			Sniff:       tsim.Sniff,
			Read: func(_ string, r io.Reader) (*tracefmt.Trace, error) {
				return tsim.ReadContext(readerContext(r), r)
			},
			Write: func(_ string, w io.Writer, t *tracefmt.Trace, _ WriteOptions) error {
				return tsim.Write(w, t)
			},
			Stream: openTsimSource,
		},
		{
			Name:        "alog",
			Description: "ALOG text log (MPE 1.x, upshot), read only",
			Extensions:  []string{".alog"},
			Sniff:       alog.Sniff,
			Read:        func(_ string, r io.Reader) (*tracefmt.Trace, error) { return alog.Read(r) },
			Timed:       true,
		},
		{
			Name:        "dimemas",
			Description: "Dimemas trace (.dim, BSC's replay simulator; untimed: bursts, messages, global operations), read only",
			Extensions:  []string{".dim"},
			Sniff:       dimemas.Sniff,
			Read:        dimemas.Read,
		},
		{
			Name:        "goal",
			Description: "LogGOPSim GOAL schedule (text: send/recv/calc with requires/irequires), read only",
			Extensions:  []string{".goal"},
			Sniff:       goal.Sniff,
			Read:        goal.Read,
		},
		{
			Name:        "ti",
			Description: "SimGrid time-independent trace (smpirun -trace-ti / -replay), single file or index",
			Extensions:  []string{".ti"},
			Sniff:       simgridti.Sniff,
			Read: func(path string, r io.Reader) (*tracefmt.Trace, error) {
				return simgridti.ReadNamedContext(readerContext(r), path, r, simgridti.DirOpener(filepath.Dir(path)))
			},
			Write: func(_ string, w io.Writer, t *tracefmt.Trace, o WriteOptions) error {
				return simgridti.Write(w, t, simgridti.WriteOptions{CPUSpeed: o.CPUSpeed})
			},
			Stream: func(path string) (tracefmt.Source, error) {
				src, err := simgridti.OpenSource(path)
				if errors.Is(err, simgridti.ErrNotStreamable) {
					return nil, ErrNotStreamable
				}
				if err != nil {
					return nil, err // *Source(nil) would make a non-nil interface
				}
				// OpenSourceWith scans the files for wildcard receives
				// unless the caller says it does not need to know.
				return src, nil
			},
		},
		{
			Name:        "perfetto",
			Description: "Chrome trace event JSON for ui.perfetto.dev (states, message arrows, collectives), write only",
			Extensions:  []string{".json"},
			Write: func(_ string, w io.Writer, t *tracefmt.Trace, o WriteOptions) error {
				pw := perfetto.NewWriter(w)
				if err := pw.Trace(t, o.stopped); err != nil {
					return err
				}
				return pw.Close()
			},
			Timed: true,
		},
	}
}

// archiveFiles writes the files of a format made of several (an OTF2
// archive) next to the file the user named, each atomically.
func archiveFiles(dir string) otf2.Creator {
	return func(rel string, fn func(io.Writer) error) error {
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return atomicfile.Write(path, fn)
	}
}

// stoppedWith makes the files open opens stop when reading the anchor
// file r would: Open's reader fails with the context's error once it is
// cancelled, even for an empty read, and an archive's other files are
// where the time goes.
func stoppedWith(r io.Reader, open otf2.Opener) otf2.Opener {
	// The reader reads its ranks' files on several goroutines, and the
	// anchor's reader (progress, counts) is not safe for concurrent use.
	var mu sync.Mutex
	return func(name string) (io.ReadCloser, error) {
		f, err := open(name)
		if err != nil {
			return nil, err
		}
		return &stoppableFile{ReadCloser: f, anchor: r, mu: &mu}, nil
	}
}

// stoppableFile is a file of an archive that asks the anchor's reader
// whether to go on before each read.
type stoppableFile struct {
	io.ReadCloser
	anchor io.Reader
	mu     *sync.Mutex
}

// Stat passes the file's size on: the reader reserves events by it.
func (f *stoppableFile) Stat() (fs.FileInfo, error) {
	if st, ok := f.ReadCloser.(interface{ Stat() (fs.FileInfo, error) }); ok {
		return st.Stat()
	}
	return nil, errors.ErrUnsupported
}

func (f *stoppableFile) Read(p []byte) (int, error) {
	f.mu.Lock()
	_, err := f.anchor.Read(nil)
	f.mu.Unlock()
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return 0, err
	}
	return f.ReadCloser.Read(p)
}
