package dimemas

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/readcheck"
)

// FuzzRead: any input gives a trace or an error naming the file, never a
// panic; seeded with testdata/ring.dim and an old header.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile("testdata/ring.dim"); err == nil {
		f.Add(b)
	}
	f.Add([]byte("#DIMEMAS:butterfly_2_8:0:2(1,1),0\n2:0:0:1:8:0:0:0\n3:1:0:0:8:0:0:0\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Read("f.dim", bytes.NewReader(b))
		readcheck.Outcome(t, tr, err, errLine)
	})
}

// errLine matches an error that names the file and a line in it.
var errLine = regexp.MustCompile(`^f\.dim:[0-9]+: `)
