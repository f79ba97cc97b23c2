package formats

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/alog"
	"github.com/tracesim/tracesim/tracefmt/clog"
	"github.com/tracesim/tracesim/tracefmt/clog2"
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
			Read:        func(_ string, r io.Reader) (*tracefmt.Trace, error) { return tsim.Read(r) },
			Write: func(_ string, w io.Writer, t *tracefmt.Trace, _ WriteOptions) error {
				return tsim.Write(w, t)
			},
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
			Name:        "ti",
			Description: "SimGrid time-independent trace (smpirun -trace-ti / -replay), single file or index",
			Extensions:  []string{".ti"},
			Sniff:       simgridti.Sniff,
			Read: func(path string, r io.Reader) (*tracefmt.Trace, error) {
				return simgridti.ReadNamed(path, r, simgridti.DirOpener(filepath.Dir(path)))
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
				return src, nil
			},
		},
	}
}
