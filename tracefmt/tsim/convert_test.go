package tsim

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// TestLosslessFromSimGrid: real SimGrid time-independent traces, read by
// their own reader, survive a round trip through tsim unchanged.
func TestLosslessFromSimGrid(t *testing.T) {
	paths, _ := filepath.Glob(testshared.Dir() + "/simgrid-ti/*.txt")
	if len(paths) == 0 {
		t.Skip("../shared/testdata-external/simgrid-ti is absent")
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			orig, err := simgridti.Read(f, nil)
			if err != nil {
				t.Fatal(err)
			}
			text := mustWrite(t, orig)
			back, err := Read(bytes.NewReader(text))
			if err != nil {
				t.Fatalf("%v\n%s", err, text)
			}
			if d := diffTraces(orig, back); d != "" {
				t.Errorf("differs after tsim: %s\n%s", d, text)
			}
			if orig.NumEvents() == 0 {
				t.Error("no events read")
			}
		})
	}
}
