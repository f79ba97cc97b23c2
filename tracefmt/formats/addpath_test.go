package formats

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

// TestAddPath: a reader's error names the file at the path given once,
// and errors.Is still sees what the reader wrapped.
func TestAddPath(t *testing.T) {
	for _, tc := range []struct {
		path, err, want string
	}{
		{"/d/x.prv", "x.prv:4: record 2: bad", "/d/x.prv:4: record 2: bad"},
		{"/d/x.bin", "x.bin: a DUMPI rank file", "/d/x.bin: a DUMPI rank file"},
		{"/d/x.prv", "x.pcf:2: bad", "/d/x.prv: x.pcf:2: bad"},
		{"/d/x.prv", "x.prvx:2: bad", "/d/x.prv: x.prvx:2: bad"},
		{"/d/x.otf2", "/d/x/0.evt: offset 9: bad", "/d/x.otf2: /d/x/0.evt: offset 9: bad"},
		{"/d/x.ti", "/d/x.ti:3: bad", "/d/x.ti:3: bad"},
		{"x.prv", "x.prv:4: bad", "x.prv:4: bad"},
		{"/d/x.clog2", "clog2: offset 40: bad", "/d/x.clog2: clog2: offset 40: bad"},
	} {
		got := addPath(tc.path, fmt.Errorf("%s: %w", tc.err, fs.ErrNotExist))
		if got.Error() != tc.want+": file does not exist" {
			t.Errorf("addPath(%q, %q) = %q, want %q", tc.path, tc.err, got, tc.want+": file does not exist")
		}
		if !errors.Is(got, fs.ErrNotExist) {
			t.Errorf("addPath(%q, %q) lost the wrapped errors", tc.path, tc.err)
		}
	}
}
