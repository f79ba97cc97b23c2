package formats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty file says so, whatever its name or the format asked for (once
// it was an "unrecognised trace format").
func TestOpenEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, format string }{
		{"run.clog2", ""}, {"run.txt", ""}, {"noext", ""}, {"run.tsim", "tsim"},
	} {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Open(context.Background(), p, tc.format, nil)
		if err == nil || !strings.Contains(err.Error(), p+": empty file") {
			t.Errorf("%s (format %q): error %v, want %q", tc.name, tc.format, err, p+": empty file …")
		}
	}
}

// One rank's file of an indexed SimGrid trace, opened alone, points to the
// index (once it said "rank 2 is outside the world of 2 ranks").
func TestOpenRankFileOfIndexedTrace(t *testing.T) {
	rank := filepath.Join("..", "..", "testdata", "simgrid", "halo.txt_files", "rank-1.txt")
	index := filepath.Join("..", "..", "testdata", "simgrid", "halo.txt")
	_, _, err := Open(context.Background(), rank, "", nil)
	want := rank + ": this is one rank's file of an indexed trace: open " + index
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error %v, want %q", err, want)
	}
	if _, _, err := Open(context.Background(), index, "", nil); err != nil {
		t.Fatalf("the index itself: %v", err)
	}
}
