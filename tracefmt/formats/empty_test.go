package formats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An empty or a blank file is refused with its name, a real position and
// what its format expects first; the format comes from the extension or
// --format (once an empty file was an "unrecognised trace format", then
// "empty file (0 bytes), not a trace" whatever the format).
func TestOpenEmptyFile(t *testing.T) {
	dir := t.TempDir()
	const blank = " \n\n\t \n"
	tests := []struct {
		name, format, data string
		want               string // after the path
	}{
		{"x.alog", "", "", ": alog: 1:1: empty file: expected a process count (-3 header) or an event"},
		{"x.alog", "", blank, ": alog: 4:1: the file ends without an event or a process count (-3 header): nothing to read"},
		{"x.clog", "", "", ": clog: offset 0: empty file: expected a CLOG record header"},
		{"x.clog", "", blank, ": clog: offset 0: file of 6 bytes is shorter than a 24-byte record header"},
		{"x.clog2", "", "", `: clog2: offset 0: not a CLOG2 file: 0 bytes, expected a 1024-byte preamble starting with "CLOG-02."`},
		{"x.clog2", "", blank, `: clog2: offset 0: not a CLOG2 file: 6 bytes, expected a 1024-byte preamble starting with "CLOG-02."`},
		{"x.tsim", "", "", `: tsim: line 1:1: expected the header line "tsim 1", got end of file`},
		{"x.tsim", "", blank, `: tsim: line 4:1: expected the header line "tsim 1", got end of file`},
		{"x.prv", "", "", ":1: expected the #Paraver header, got an empty file"},
		{"x.prv", "", blank, `:1: expected a header starting "#Paraver ", got " "`},
		{"x.meta", "", "", ":1: empty file: expected numprocs= and fileprefix= lines"},
		{"x.meta", "", blank, ":3: expected a numprocs= line, found none before the end of the file"},
		{"x.otf2", "", "", `: offset 0: empty file: expected an OTF2 anchor file (byte 3, endianness, "OTF2")`},
		{"x.otf2", "", blank, `: offset 0: expected an OTF2 anchor file (byte 3, endianness, "OTF2")`},
		{"x.goal", "", "", ":1: empty file: expected num_ranks N"},
		{"x.goal", "", blank, ":3: expected num_ranks N, got the end of the file"},
		{"x.dim", "", "", ":1: empty file: expected the #DIMEMAS header"},
		{"x.dim", "", blank, `:1: expected a header starting #DIMEMAS:, got " "`},
		{"run.txt", "goal", "", ":1: empty file: expected num_ranks N"},
		{"run.txt", "", "", ": offset 0: empty file (0 bytes), not a trace: expected one of " + strings.Join(readable(), ", ")},
		{"noext", "", "", ": offset 0: empty file (0 bytes), not a trace: expected one of " + strings.Join(readable(), ", ")},
	}
	for _, tc := range tests {
		p := filepath.Join(dir, tc.name)
		if err := os.WriteFile(p, []byte(tc.data), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, err := Open(context.Background(), p, tc.format, nil)
		if err == nil || err.Error() != p+tc.want {
			t.Errorf("%s %q (format %q): error %v, want %q", tc.name, tc.data, tc.format, err, p+tc.want)
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
