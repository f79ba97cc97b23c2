package tsim

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/alog"
	"github.com/tracesim/tracesim/tracefmt/clog"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// shared holds real traces of other tools that may not be redistributed
// (../shared beside the repository); seeds from it are left out when it
// is absent.
var shared = testshared.Dir() + "/"

// realSeeds returns real traces recorded by MPE and SimGrid, written as
// tsim: the shared samples when present and the samples checked in.
func realSeeds(tb testing.TB) [][]byte {
	tb.Helper()
	readWith := func(read func([]byte) (*tracefmt.Trace, error)) func(string) (*tracefmt.Trace, error) {
		return func(p string) (*tracefmt.Trace, error) {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			return read(b)
		}
	}
	sources := []struct {
		glob string
		read func(string) (*tracefmt.Trace, error)
	}{
		{shared + "clog2/*.clog2", readWith(func(b []byte) (*tracefmt.Trace, error) { return clog2.Read(bytes.NewReader(b)) })},
		{shared + "clog/*.clog", readWith(func(b []byte) (*tracefmt.Trace, error) { return clog.Read(bytes.NewReader(b)) })},
		{"../clog/testdata/*.clog", readWith(func(b []byte) (*tracefmt.Trace, error) { return clog.Read(bytes.NewReader(b)) })},
		{shared + "alog/*", readWith(func(b []byte) (*tracefmt.Trace, error) { return alog.Read(bytes.NewReader(b)) })},
		{shared + "simgrid-ti/*.txt", simgridti.ReadFile},
		{"../simgridti/testdata/simgrid-examples/*.txt", simgridti.ReadFile},
		{"../simgridti/testdata/smpi332/trace.txt", simgridti.ReadFile},
		{"../../testdata/simgrid/*.txt", simgridti.ReadFile},
	}
	var out [][]byte
	for _, s := range sources {
		paths, _ := filepath.Glob(s.glob)
		for _, p := range paths {
			tr, err := s.read(p)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				tb.Fatalf("%s: %v", p, err)
			}
			var buf bytes.Buffer
			if err := Write(&buf, tr); err != nil {
				tb.Fatalf("%s: writing as tsim: %v", p, err)
			}
			out = append(out, buf.Bytes())
		}
	}
	return out
}

// TestRealSeeds: the fuzz corpus gets the checked-in real traces at least
// (and the shared ones when present), each a tsim file that reads back.
func TestRealSeeds(t *testing.T) {
	seeds := realSeeds(t)
	// fpilog.clog, 3 SimGrid examples, the smpi 3.32 run, the 7 runs
	// of testdata/simgrid; shared: cpilog.clog2, 2 CLOG, 2 ALOG, 3 TI.
	want := 12
	if _, err := os.Stat(shared); err == nil {
		want += 8
	}
	if len(seeds) != want {
		t.Errorf("%d real seeds, want %d", len(seeds), want)
	}
	for i, s := range seeds {
		if _, err := Read(bytes.NewReader(s)); err != nil {
			t.Errorf("seed %d does not read back: %v", i, err)
		}
	}
}
