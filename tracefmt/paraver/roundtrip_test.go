package paraver

import (
	"bytes"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// files is a Paraver trace in memory: the .prv, .pcf and .row by name.
type files map[string][]byte

func (f files) create(name string, fn func(io.Writer) error) error {
	var b bytes.Buffer
	if err := fn(&b); err != nil {
		return err
	}
	f[name] = b.Bytes()
	return nil
}

func (f files) open(name string) (io.ReadCloser, error) {
	b, ok := f[name]
	if !ok {
		return nil, fs.ErrNotExist
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// write writes t as out.prv and its side files.
func write(t testing.TB, tr *tracefmt.Trace) files {
	t.Helper()
	f := files{}
	if err := f.create("out.prv", func(w io.Writer) error { return Write("out.prv", w, tr, f.create) }); err != nil {
		t.Fatal(err)
	}
	return f
}

// read reads out.prv back.
func (f files) read(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := Read("out.prv", bytes.NewReader(f["out.prv"]), f.open)
	if err != nil {
		t.Fatalf("%v\n%s", err, f["out.prv"])
	}
	return tr
}

func itoa(i int) string { return strconv.Itoa(i) }

func join(s []string) string { return strings.Join(s, " ") }
