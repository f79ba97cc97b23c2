package goal

import (
	"bytes"
	"os"
	"regexp"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/readcheck"
)

// FuzzRead: any input gives a trace or an error naming the file, never a
// panic. Seeded with LogGOPSim's sample and the test schedules.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile(sample); err == nil {
		f.Add(b)
	}
	f.Add([]byte("num_ranks 2\nrank 0 {\nl1: calc 5\nl2: send 8b to 1\nl3: recv 4 b from 1 tag 2 cpu 0 nic 1\nl1 requires l3\n}\nrank 1 {\nl1: send 4b to 0 tag 2\nl2: recv 8b from -1 tag -1\nl2 irequires l1\n}\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := Read("f.goal", bytes.NewReader(b))
		readcheck.Outcome(t, tr, err, errLine)
	})
}

// errLine matches an error that names the file and a line in it.
var errLine = regexp.MustCompile(`^f\.goal:[0-9]+: `)
