package formats

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// gzipFile writes the gzip of the file at src to dst.
func gzipFile(t *testing.T, src, dst string) {
	t.Helper()
	gzipFileLevel(t, src, dst, gzip.DefaultCompression)
}

// gzipFileLevel writes the gzip of the file at src to dst at a level of
// compress/gzip.
func gzipFileLevel(t *testing.T, src, dst string, level int) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	z, _ := gzip.NewWriterLevel(&b, level)
	z.Write(data)
	z.Close()
	if err := os.WriteFile(dst, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// asTsim is the trace written as tsim: two traces with the same bytes
// hold the same events, messages and definitions.
func asTsim(t *testing.T, tr *tracefmt.Trace) []byte {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.tsim")
	if err := Save(p, "tsim", tr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A compressed trace reads as the file it holds, in every format that
// is one file (a Paraver trace's .pcf and .row found beside the
// .prv.gz as beside the .prv), under any name: the compression is known
// by its magic, the format by the decompressed bytes.
func TestOpenCompressed(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 8, Iters: 20})
	if err != nil {
		t.Fatal(err)
	}
	bz2, bz2Err := exec.LookPath("bzip2")
	for _, c := range []struct{ format, file string }{
		{"tsim", "s.tsim"}, {"clog2", "s.clog2"}, {"paraver", "s.prv"}, {"ti", "s.txt"},
	} {
		t.Run(c.format, func(t *testing.T) {
			dir := t.TempDir()
			plain := filepath.Join(dir, c.file)
			if err := SaveWith(plain, c.format, tr, WriteOptions{CPUSpeed: 1e9}); err != nil {
				t.Fatal(err)
			}
			want, fm, err := Open(context.Background(), plain, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			wantTsim := asTsim(t, want)
			// The same name without a suffix, in a directory of its own
			// with the side files (a Paraver trace's .pcf and .row).
			sub := filepath.Join(dir, "sub")
			os.Mkdir(sub, 0o755)
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if !e.IsDir() && e.Name() != c.file {
					b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
					os.WriteFile(filepath.Join(sub, e.Name()), b, 0o644)
				}
			}
			names := map[string]string{"gzip": plain + ".gz", "gzip, no suffix": filepath.Join(sub, c.file)}
			gzipFile(t, plain, names["gzip"])
			gzipFile(t, plain, names["gzip, no suffix"])
			if bz2Err == nil {
				out, err := exec.Command(bz2, "-k", plain).CombinedOutput()
				if err != nil {
					t.Fatalf("bzip2: %v %s", err, out)
				}
				names["bzip2"] = plain + ".bz2"
			}
			var last int64
			for what, p := range names {
				got, gfm, err := Open(context.Background(), p, "", func(done, total int64) {
					if done > total || done < last {
						t.Errorf("%s: progress %d of %d after %d", what, done, total, last)
					}
					last = done
				})
				last = 0
				if err != nil {
					t.Errorf("%s: %v", what, err)
					continue
				}
				if gfm.Name != fm.Name || got.Format != want.Format {
					t.Errorf("%s: read as %s (%s), want %s (%s)", what, gfm.Name, got.Format, fm.Name, want.Format)
				}
				if !bytes.Equal(asTsim(t, got), wantTsim) {
					t.Errorf("%s: the trace differs from the uncompressed file's", what)
				}
			}
			// A compressed trace is read whole: it does not stream.
			if _, err := OpenSource(names["gzip"], ""); !errors.Is(err, ErrNotStreamable) {
				t.Errorf("OpenSource of the gzip file: %v, want ErrNotStreamable", err)
			}
		})
	}
}

// What goes wrong in a compressed file is said as such: where the
// compressed data ends early, a compression tracesim cannot undo (and
// the command that does), a gzip header that is not one, a decompressed
// file that is no trace, and a library that will not decompress.
func TestOpenCompressedErrors(t *testing.T) {
	dir := t.TempDir()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 200})
	if err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "s.tsim")
	if err := Save(plain, "", tr); err != nil {
		t.Fatal(err)
	}
	gz := plain + ".gz"
	gzipFile(t, plain, gz)
	// Stored, not compressed: several MiB, so that progress is reported
	// (every MiB of the compressed file) before the end.
	stored := filepath.Join(dir, "stored.tsim.gz")
	gzipFileLevel(t, plain, stored, gzip.NoCompression)
	data, _ := os.ReadFile(gz)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var notTrace bytes.Buffer
	z := gzip.NewWriter(&notTrace)
	z.Write([]byte("hello, world\n"))
	z.Close()
	for _, c := range []struct {
		name string
		data []byte
		want []string
	}{
		{"cut.tsim.gz", data[:len(data)/2], []string{"cut.tsim.gz (decompressed): tsim: line ", "gzip data cut short (the file is truncated), by offset "}},
		{"a.tsim.xz", []byte("\xfd7zXZ\x00\x00\x04"), []string{"a.tsim.xz: xz-compressed: tracesim decompresses gzip and bzip2 only; decompress it first (unxz -k ", "a.tsim.xz)"}},
		{"a.tsim.zst", []byte("\x28\xb5\x2f\xfd\x00"), []string{"zstd-compressed", "(zstd -d "}},
		{"short.gz", []byte{0x1f, 0x8b, 8}, []string{"short.gz: offset 0: gzip header: unexpected EOF"}},
		{"hello.gz", notTrace.Bytes(), []string{"hello.gz (decompressed): unrecognised trace format"}},
	} {
		p := write(c.name, c.data)
		_, _, err := Open(context.Background(), p, "", nil)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v, want %q", c.name, err, w)
			}
		}
	}
	// Cancelled while decompressing: the context's error, promptly.
	ctx, cancel := context.WithCancel(context.Background())
	_, _, err = Open(ctx, stored, "", func(done, total int64) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled load of a gzip file: %v", err)
	}
	// A library's session never makes the server decompress.
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if _, _, err := OpenIn(context.Background(), root, "s.tsim.gz", "", nil); err == nil || !strings.Contains(err.Error(), "s.tsim.gz: gzip-compressed: a library's traces are read uncompressed") {
		t.Errorf("library: %v", err)
	}
	if _, _, err := OpenIn(context.Background(), root, "s.tsim", "", nil); err != nil {
		t.Errorf("library, uncompressed: %v", err)
	}
}

// An SLOG-2 file (Jumpshot's) is named as such, with what to open
// instead, rather than "unrecognised".
func TestSLOG2IsNamed(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "run.slog2")
	os.WriteFile(p, append([]byte("\x00\x0aSLOG 2.0.6"), make([]byte, 64)...), 0o644)
	paths := []string{p}
	if shared := filepath.Join(testshared.Dir(), "slog2", "fpilog.slog2"); fileExists(shared) {
		paths = append(paths, shared)
	}
	for _, p := range paths {
		_, _, err := Open(context.Background(), p, "", nil)
		if want := p + ": an SLOG-2 file (SLOG 2.0.6, Jumpshot's format), which tracesim does not read: open the CLOG2"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q…", p, err, want)
		}
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// FuzzOpenCompressed: whatever a .gz file holds, Open returns a trace or
// an error, never a panic.
func FuzzOpenCompressed(f *testing.F) {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte("tsim 1\nranks 2\nunit us\n0 0 send to=1 size=8\n1 1 recv from=0 size=8\n"))
	z.Close()
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()/2])
	f.Add([]byte{0x1f, 0x8b})
	f.Add([]byte("BZh9"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "x.gz")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tr, _, err := Open(context.Background(), p, "", nil)
		if err == nil && tr == nil {
			t.Fatal("no trace and no error")
		}
	})
}

// A trace saved under a .gz name is written gzipped in the format of the
// name less the suffix (its side files beside it, uncompressed) and
// reads back as the same trace; compressions tracesim cannot write, and
// an OTF2 archive (a directory), are refused without writing.
func TestSaveCompressed(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 8, Iters: 10})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, c := range []struct {
		name, format string
		sides        []string
	}{{"s.tsim.gz", "tsim", nil}, {"s.clog2.gz", "clog2", nil}, {"p.prv.gz", "paraver", []string{"p.pcf", "p.row"}}, {"unnamed.gz", "tsim", nil}} {
		p := filepath.Join(dir, c.name)
		if err := Save(p, "", tr); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := os.ReadFile(p)
		if compression(b) != "gzip" {
			t.Errorf("%s: not a gzip file", c.name)
		}
		for _, s := range c.sides {
			if _, err := os.Stat(filepath.Join(dir, s)); err != nil {
				t.Errorf("%s: side file %s: %v", c.name, s, err)
			}
		}
		back, fm, err := Open(context.Background(), p, "", nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		plain := filepath.Join(dir, "plain-"+strings.TrimSuffix(c.name, ".gz"))
		if err := Save(plain, c.format, tr); err != nil {
			t.Fatal(err)
		}
		want, _, err := Open(context.Background(), plain, c.format, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fm.Name != c.format || !bytes.Equal(asTsim(t, back), asTsim(t, want)) {
			t.Errorf("%s: read back as %s, or differs from the plain %s file", c.name, fm.Name, c.format)
		}
	}
	for _, c := range []struct{ name, want string }{
		{"s.tsim.bz2", "compresses its output with gzip only"},
		{"s.tsim.xz", "compresses its output with gzip only"},
		{"a.otf2.gz", "an OTF2 archive is a directory of files"},
	} {
		p := filepath.Join(dir, c.name)
		if err := Save(p, "", tr); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s: written though refused", c.name)
		}
	}
	if OutputFormat("x.tsim.gz") == nil || OutputFormat("x.prv.GZ").Name != "paraver" || OutputFormat("x.gz") != nil {
		t.Error("OutputFormat does not look under the .gz suffix")
	}
}
