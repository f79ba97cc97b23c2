package dumpi

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/readcheck"
)

// FuzzMeta reads the sample's rank files under an arbitrary .meta
// (seeded with the sample's): a valid trace or an error naming the .meta
// or a rank file, never a panic.
func FuzzMeta(f *testing.F) {
	bins := memFiles{}
	for i := 0; i < 4; i++ {
		n := "testtrace-000" + string(rune('0'+i)) + ".bin"
		if b, err := os.ReadFile(filepath.Join(sampleDir, n)); err == nil {
			bins[n] = b
		}
	}
	if b, err := os.ReadFile(filepath.Join(sampleDir, "testtrace.meta")); err == nil {
		f.Add(b)
	}
	f.Add([]byte("numprocs=4\nfileprefix=testtrace\nversion=1\nsubversion=0\nsubsubversion=0\nstartime=1296777956\n"))
	f.Fuzz(func(t *testing.T, meta []byte) {
		m := memFiles{"x.meta": meta}
		for n, b := range bins {
			m[n] = b
		}
		tr, err := m.read("x.meta")
		readcheck.Outcome(t, tr, err, metaErr)
	})
}

// metaErr matches a refusal that names the .meta or one of the sample's
// rank files.
var metaErr = regexp.MustCompile(`^(x\.meta|testtrace-)`)
