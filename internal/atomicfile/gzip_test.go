package atomicfile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output written with Gzip is a gzip file of what was written; the
// limit counts the bytes on disk, so that a compressible output of more
// than the limit still fits, and one that does not is refused with the
// old file kept.
func TestGzip(t *testing.T) {
	for _, c := range []struct {
		name string
		gz   bool
	}{{"x.csv.gz", true}, {"X.CSV.GZ", true}, {"x.gzip", true}, {"x.csv", false}, {"x.gz.csv", false}} {
		if got := Gzipped(c.name); got != c.gz {
			t.Errorf("Gzipped(%q) = %v, want %v", c.name, got, c.gz)
		}
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "x.csv.gz")
	text := strings.Repeat("rank,time\n0,1.5\n", 100000) // 1.6 MB, compresses well
	err := WriteWith(p, Options{Gzip: true, Limit: 1 << 20}, func(w io.Writer) error {
		_, err := io.WriteString(w, text)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("not a gzip file: %v", err)
	}
	got, err := io.ReadAll(z)
	if err != nil || string(got) != text {
		t.Errorf("decompressed %d bytes (%v), want the %d written", len(got), err, len(text))
	}
	// Random bytes do not compress: over the limit on disk.
	noise := make([]byte, 2<<20)
	rand.NewChaCha8([32]byte{1}).Read(noise)
	err = WriteWith(p, Options{Gzip: true, Limit: 64 << 10}, func(w io.Writer) error {
		_, err := w.Write(noise)
		return err
	})
	if !errors.Is(err, ErrLimit) {
		t.Errorf("an incompressible 2 MiB under a 64 KiB limit: %v, want ErrLimit", err)
	}
	if b, _ := os.ReadFile(p); !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		t.Error("the refused write replaced the old file")
	}
}
