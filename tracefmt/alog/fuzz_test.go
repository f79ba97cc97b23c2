package alog

import (
	"bytes"
	"errors"
	"math"
	"os"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// FuzzRead: no input makes the reader panic, and what it accepts is a
// valid trace with exact, finite times and a bounded world.
func FuzzRead(f *testing.F) {
	for _, p := range []string{sharedDir + "srtest.alog", sharedDir + "sam_hyp.16.log"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"-1 0 0 0 0 0 Me\n-3 0 0 2 0 0\n-13 0 1 2 0 0 red:gray A\n1 0 0 0 0 1 s\n-101 0 0 1 0 2 5 8\n-102 1 0 0 0 3 5 8\n2 0 0 0 0 4\n",
		"-11 0 0 0 0 99\n-9 0 0 7 0 0 Mark\n-10 0 0 7 0 0 %d\n7 0 0 3 0 50 x\n7 0 0 3 1 2\n7 1 0 3 2 0\n",
		"# comment\n\n-13 0 5 6 0 0 blue Two words\n5 2 0 0 0 1\r\n6 2 0 0 0 2\r\n-100 0 0 0 0 3\n-103 0 0 0 0 4 p\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		Sniff(head(data))
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			if tr != nil {
				t.Fatal("a trace with an error")
			}
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error without a place in the file: %v", err)
			}
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		if tr.Size() < 1 || tr.Size() > MaxRanks {
			t.Fatalf("world of %d ranks", tr.Size())
		}
		for r := range tr.Ranks {
			for i, e := range tr.Ranks[r].Events {
				if e.Time < 0 || e.Time > maxExactMicros || e.Time != math.Trunc(e.Time) {
					t.Fatalf("rank %d event %d: time %v is not an exact microsecond count", r, i, e.Time)
				}
				if e.IsP2P() && e.Size < 0 {
					t.Fatalf("rank %d event %d: size %d", r, i, e.Size)
				}
				if e.Kind == tracefmt.KindEnter && tr.States[e.State()].Name == "" {
					t.Fatalf("rank %d event %d: unnamed state", r, i)
				}
			}
		}
	})
}
