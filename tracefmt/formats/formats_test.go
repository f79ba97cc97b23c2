package formats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

func sharedSample(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(testshared.Dir(), rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared sample %s not available", rel)
	}
	return p
}

// TestDetectByContent copies each sample to a file without a telling
// extension and checks that its format is still recognised.
func TestDetectByContent(t *testing.T) {
	tests := []struct{ file, want string }{
		{"clog/fpilog.clog", "clog"},
		{"clog2/cpilog.clog2", "clog2"},
		{"alog/srtest.alog", "alog"},
		{"simgrid-ti/actions_with_isend.txt", "ti"},
		{"repo:testdata/tsim/ring3.tsim", "tsim"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.want, func(t *testing.T) {
			path := filepath.Join("..", "..", strings.TrimPrefix(tc.file, "repo:"))
			if !strings.HasPrefix(tc.file, "repo:") {
				path = sharedSample(t, tc.file)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "trace.dat")
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			tr, f, err := Open(context.Background(), p, "", nil)
			if err != nil {
				t.Fatalf("open: %v", err)
			}
			if f.Name != tc.want || tr.Format != tc.want {
				t.Errorf("detected %s (trace says %s), want %s", f.Name, tr.Format, tc.want)
			}
		})
	}
}

func TestOpenErrorsAndCancel(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := Open(context.Background(), dir, "", nil); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("directory: %v", err)
	}
	p := filepath.Join(dir, "x.tsim")
	os.WriteFile(p, []byte("tsim 1\nranks 1\nunit s\n0 0 bogus\n"), 0o644)
	if _, _, err := Open(context.Background(), p, "", nil); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("bad record: %v (want path and line)", err)
	}
	if _, _, err := Open(context.Background(), p, "paraver3", nil); err == nil || !strings.Contains(err.Error(), "unknown format") {
		t.Errorf("unknown format: %v", err)
	}
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 200, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big.tsim")
	if err := Save(big, "", tr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	_, _, err = Open(ctx, big, "", func(done, total int64) {
		calls++
		if done > total {
			t.Errorf("progress %d > total %d", done, total)
		}
		cancel()
	})
	if !errors.Is(err, context.Canceled) || calls == 0 {
		t.Errorf("cancelled load: err %v after %d progress calls", err, calls)
	}
}

func TestSaveRefusesAndKeepsOld(t *testing.T) {
	dir := t.TempDir()
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 3, Iters: 2, Compute: -1})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "keep.clog")
	os.WriteFile(p, []byte("precious"), 0o644)
	if err := Save(p, "", tr); err == nil || !strings.Contains(err.Error(), "cannot write clog") {
		t.Errorf("read-only format: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "precious" {
		t.Error("a refused save touched the file")
	}
	ti := filepath.Join(dir, "r.ti")
	if err := Save(ti, "", tr); err != nil {
		t.Fatal(err)
	}
	back, _, err := Open(context.Background(), ti, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Save(filepath.Join(dir, "r.clog2"), "", back); err == nil || !strings.Contains(err.Error(), "cpu-speed") {
		t.Errorf("untimed to timed without speed: %v", err)
	}
	if err := SaveWith(filepath.Join(dir, "r.clog2"), "", back, WriteOptions{CPUSpeed: 1e9}); err != nil {
		t.Errorf("untimed to timed with speed: %v", err)
	}
}

func TestTableIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range All() {
		// A write-only format (perfetto) has nothing to read or sniff.
		if f.Name == "" || f.Description == "" || (f.Read == nil) != (f.Sniff == nil) || (f.Read == nil && f.Write == nil) || len(f.Extensions) == 0 {
			t.Errorf("incomplete format entry %+v", f.Name)
		}
		if f.Sniff == nil {
			continue
		}
		if seen[f.Name] {
			t.Errorf("duplicate format %s", f.Name)
		}
		seen[f.Name] = true
		if f.Sniff(nil) || f.Sniff([]byte("hello world\n")) {
			t.Errorf("%s claims arbitrary text", f.Name)
		}
	}
	if got := strings.Join(Names(true), ","); got != "clog2,otf2,paraver,tsim,ti,perfetto" {
		t.Errorf("writable formats %s", got)
	}
}

// Perfetto's JSON is written, never read: opening one says so (it once
// would have called a missing reader), whether by its extension or by
// --format.
func TestPerfettoWriteOnly(t *testing.T) {
	dir := t.TempDir()
	tr, _, err := Open(context.Background(), filepath.Join("..", "..", "testdata", "tsim", "ring3.tsim"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ring3.json")
	if err := Save(out, "", tr); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"", "perfetto"} {
		_, _, err := Open(context.Background(), out, format, nil)
		want := out + ": tracesim writes perfetto files but cannot read them (readable: clog2, otf2, paraver, dumpi, clog, tsim, alog, dimemas, goal, ti)"
		if err == nil || err.Error() != want {
			t.Errorf("format %q: %v, want %s", format, err, want)
		}
	}
}

// A cancelled write stops, fails with the context's error and leaves no
// file behind, neither the output nor its temporary file.
func TestSaveCancelled(t *testing.T) {
	tr, _, err := Open(context.Background(), filepath.Join("..", "..", "testdata", "mpe", "masterworker.clog2"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"out.json", "out.tsim", "out.clog2"} {
		dir := t.TempDir()
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		// Enough ranks of output that the writer passes a check.
		big := *tr
		for len(big.Ranks) < 256 {
			big.Ranks = append(big.Ranks, tr.Ranks...)
		}
		big.Ranks = big.Ranks[:256]
		err := SaveWith(filepath.Join(dir, name), "", &big, WriteOptions{Context: ctx})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", name, err)
		}
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("%s: left %v behind", name, left)
		}
	}
}
