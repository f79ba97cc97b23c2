package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"path"
	"runtime"
	"testing"
	"time"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/clog2"
	"github.com/tracesim/tracesim/tracefmt/otf2"
	"github.com/tracesim/tracesim/tracefmt/paraver"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// benchFile is the benchmark trace in one format, held in memory: the
// file a reader is given and the files beside it (an OTF2 archive's
// definitions and event files, a Paraver trace's .pcf and .row) by path
// relative to it.
type benchFile struct {
	main []byte
	side map[string][]byte
}

// size returns the bytes of all the files.
func (f *benchFile) size() int {
	n := len(f.main)
	for _, d := range f.side {
		n += len(d)
	}
	return n
}

// open opens a side file, as the readers' Openers do.
func (f *benchFile) open(name string) (io.ReadCloser, error) {
	d, ok := f.side[path.Clean(name)]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return io.NopCloser(bytes.NewReader(d)), nil
}

// create writes a side file, as the writers' Creators do.
func (f *benchFile) create(name string, fn func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := fn(&buf); err != nil {
		return err
	}
	f.side[path.Clean(name)] = buf.Bytes()
	return nil
}

// readInputs names the encodings a benchmark reads, or nil when it
// needs the trace itself.
func readInputs(row string) []string {
	switch row {
	case "tsim/read":
		return []string{"tsim"}
	case "clog2/read":
		return []string{"clog2"}
	case "ti/read":
		return []string{"ti"}
	case "otf2/read":
		return []string{"otf2", "clog2"}
	case "paraver/read":
		return []string{"paraver", "clog2"}
	}
	return nil
}

// prepare makes the encodings the selected benchmarks read and, when
// none of them needs the trace itself, lets it go: a run of the readers
// on a ~1 GB file then holds the files and the trace being read, not a
// generated trace of a hundred million events besides.
func (in *benchInput) prepare(ctx context.Context, rows []string) error {
	var formats []string
	for _, r := range rows {
		f := readInputs(r)
		if f == nil {
			return nil
		}
		formats = append(formats, f...)
	}
	for _, f := range formats {
		// Encoding a large trace takes minutes: an interrupt is
		// honoured between formats.
		if err := ctx.Err(); err != nil {
			return err
		}
		if _, err := in.encode(f); err != nil {
			return err
		}
	}
	in.trace = nil
	return nil
}

// file returns the input trace encoded in the named format, encoding it
// the first time.
func (in *benchInput) file(b *testing.B, format string) *benchFile {
	f, err := in.encode(format)
	if err != nil {
		b.Fatal(err)
	}
	return f
}

// encode returns the input trace encoded in the named format, encoding it
// the first time.
func (in *benchInput) encode(format string) (*benchFile, error) {
	if f := in.encoded[format]; f != nil {
		return f, nil
	}
	if in.trace == nil {
		return nil, fmt.Errorf("no trace to encode as %s", format)
	}
	f := &benchFile{side: map[string][]byte{}}
	var buf bytes.Buffer
	var err error
	switch format {
	case "tsim":
		err = tsim.Write(&buf, in.trace)
	case "clog2":
		err = clog2.Write(&buf, in.trace)
	case "ti":
		err = simgridti.Write(&buf, in.trace, simgridti.WriteOptions{})
	case "otf2":
		err = otf2.Write("bench.otf2", &buf, in.trace, f.create)
	case "paraver":
		err = paraver.Write("bench.prv", &buf, in.trace, f.create)
	default:
		err = fmt.Errorf("no encoder for %q", format)
	}
	if err != nil {
		return nil, fmt.Errorf("encoding the input as %s: %w", format, err)
	}
	f.main = buf.Bytes()
	in.encoded[format] = f
	return f, nil
}

// benchReadPaired measures a reader the way benchRead does, and CLOG2's
// reader on the same trace in the same loop, one read of each in turn:
// on a machine shared with other work the ratio of the two rates (the
// xCLOG2 figure) holds where the rates themselves swing with the load.
func benchReadPaired(in *benchInput, b *testing.B, format string, read func(*benchFile) (*tracefmt.Trace, error)) {
	f := in.file(b, format)
	ref := in.file(b, "clog2").main
	var events int
	var took, refTook time.Duration
	for b.Loop() {
		// Each read starts on a collected heap, as in a process of its
		// own, and the garbage of the one before (a whole trace) is not
		// left to add to its peak.
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		t, err := read(f)
		if err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		events += t.NumEvents()
		// The reference read follows with this one's trace garbage.
		runtime.KeepAlive(t)
		start = time.Now()
		if _, err := clog2.Read(bytes.NewReader(ref)); err != nil {
			b.Fatal(err)
		}
		refTook += time.Since(start)
	}
	b.StopTimer()
	rate := float64(f.size()) * float64(b.N) / took.Seconds() / 1e6
	refRate := float64(len(ref)) * float64(b.N) / refTook.Seconds() / 1e6
	b.ReportMetric(rate, "MB/s")
	b.ReportMetric(float64(events)/took.Seconds()/1e6, "Mevents/s")
	b.ReportMetric(float64(f.size())/1e6, "MB")
	b.ReportMetric(rate/refRate, "xCLOG2")
	b.ReportMetric(refRate, "CLOG2-MB/s")
	reportResident(b, func() (*tracefmt.Trace, error) { return read(f) })
}

func benchOTF2Read(in *benchInput, b *testing.B) {
	benchReadPaired(in, b, "otf2", func(f *benchFile) (*tracefmt.Trace, error) {
		t, _, err := otf2.Read("bench.otf2", bytes.NewReader(f.main), f.open)
		return t, err
	})
}

func benchParaverRead(in *benchInput, b *testing.B) {
	benchReadPaired(in, b, "paraver", func(f *benchFile) (*tracefmt.Trace, error) {
		return paraver.Read("bench.prv", bytes.NewReader(f.main), f.open)
	})
}
