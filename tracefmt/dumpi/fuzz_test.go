package dumpi

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/readcheck"
)

// FuzzRank reads a one-rank trace whose .bin is the fuzzer's bytes
// (seeded with the sample's four): a trace or an error naming the file,
// never a panic.
func FuzzRank(f *testing.F) {
	for i := 0; i < 4; i++ {
		if b, err := os.ReadFile(filepath.Join(sampleDir, "testtrace-000"+string(rune('0'+i))+".bin")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, bin []byte) {
		m := memFiles{"t.meta": []byte("numprocs=4\nfileprefix=t\nversion=1\n")}
		for i := 0; i < 4; i++ {
			m["t-000"+string(rune('0'+i))+".bin"] = bin
		}
		tr, err := m.read("t.meta")
		readcheck.Outcome(t, tr, err, rankErr)
	})
}

// rankErr matches a refusal of a rank file, at an offset, or of what the
// ranks make together (the .meta names the trace).
var rankErr = regexp.MustCompile(`^(t-000[0-3]\.bin: offset [0-9]+|t\.meta: )`)
