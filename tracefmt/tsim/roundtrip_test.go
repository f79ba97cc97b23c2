package tsim

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestRoundTripRandom: for random traces built with the Builder, writing,
// reading and writing again gives the same bytes, and the trace read is
// equal to the one written.
func TestRoundTripRandom(t *testing.T) {
	n := 400
	if testing.Short() {
		n = 50
	}
	for seed := range uint64(n) {
		rng := rand.New(rand.NewPCG(seed, 0x75696d))
		orig := randomTrace(t, rng)
		first := mustWrite(t, orig)
		back, err := Read(bytes.NewReader(first))
		if err != nil {
			t.Fatalf("seed %d: reading what was written: %v\n%s", seed, err, first)
		}
		if back.Format != "tsim" {
			t.Errorf("seed %d: Format %q", seed, back.Format)
		}
		if d := diffTraces(orig, back); d != "" {
			t.Fatalf("seed %d: the trace read back differs: %s\n%s", seed, d, first)
		}
		if second := mustWrite(t, back); !bytes.Equal(first, second) {
			t.Fatalf("seed %d: writing again changed the text:\n%s\nthen:\n%s", seed, first, second)
		}
	}
}

// TestRoundTripTestdata: the example files survive read → write → read,
// and the second write gives the same bytes as the first.
func TestRoundTripTestdata(t *testing.T) {
	paths, err := filepath.Glob("../../testdata/tsim/*.tsim")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			orig := mustRead(t, string(data))
			first := mustWrite(t, orig)
			back := mustRead(t, string(first))
			if d := diffTraces(orig, back); d != "" {
				t.Fatalf("differs after a round trip: %s\n%s", d, first)
			}
			if second := mustWrite(t, back); !bytes.Equal(first, second) {
				t.Fatalf("writing again changed the text:\n%s\nthen:\n%s", first, second)
			}
		})
	}
}
