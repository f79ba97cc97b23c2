package clog2

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/alog"
)

// alogSamples are ALOG inputs for the ALOG → CLOG2 tests: a hand-written
// log with user markers of types 9 and 3 (9 is MPI state 4's end event in
// CLOG2's ranges, 3 state 1's end), and the P4 log that upshot shipped.
var alogSamples = []struct {
	name, path, text string
}{
	{name: "hand-written", text: `-1 0 0 0 0 0 polish
-3 0 0 2 0 0
-9 0 0 9 0 0 Proof
-9 0 0 3 0 0 Checkpoint
-13 0 1 2 0 0 blue:gray task_a
-13 0 11 12 0 0 yellow:dimple3 BARRIER
1 0 0 0 0 100
9 0 0 0 0 120 found it
2 0 0 0 0 150
-101 0 0 1 0 160 99 12
11 0 0 0 0 170
12 0 0 0 0 190
-102 1 0 0 0 165 99 12
3 1 0 0 0 168 ck 1
11 1 0 0 0 171
12 1 0 0 0 189
9 1 0 0 0 195
`},
	{name: "sam_hyp.16.log", path: testshared.Dir() + "/alog/sam_hyp.16.log"},
}

func readALOGSample(tb testing.TB, path, text string) (*tracefmt.Trace, bool) {
	tb.Helper()
	var in io.Reader = strings.NewReader(text)
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return nil, false // a shared sample that is absent
		}
		defer f.Close()
		in = f
	}
	tr, err := alog.Read(in)
	if err != nil {
		tb.Fatalf("%s: %v", path, err)
	}
	return tr, true
}

// TestALOGMarkersSurviveCLOG2: ALOG keeps a marker's event type in
// Source.Start; the CLOG2 writer wrote such markers with event type 0,
// which read back as MPI state 0 (MPI_Allgather). Converted, every marker
// must come back as the same marker, with its name, time and text, and no
// state must appear that the ALOG log did not have.
func TestALOGMarkersSurviveCLOG2(t *testing.T) {
	for _, s := range alogSamples {
		t.Run(s.name, func(t *testing.T) {
			in, ok := readALOGSample(t, s.path, s.text)
			if !ok {
				t.Skip("sample absent")
			}
			back := readBytes(t, writeBytes(t, in))
			markers := func(tr *tracefmt.Trace) []string {
				var out []string
				for _, l := range semantics(tr) {
					if strings.Contains(l, " marker ") {
						out = append(out, l)
					}
				}
				return out
			}
			want, got := markers(in), markers(back)
			if len(want) == 0 {
				t.Fatal("sample has no markers: it tests nothing")
			}
			if !slices.Equal(got, want) {
				t.Errorf("markers after ALOG → CLOG2:\n%s", diffLines(want, got))
			}
			states := func(tr *tracefmt.Trace) []string {
				var out []string
				for _, st := range tr.States {
					out = append(out, st.Name)
				}
				slices.Sort(out)
				return out
			}
			if w, g := states(in), states(back); !slices.Equal(g, w) {
				t.Errorf("states after ALOG → CLOG2: %q, want %q", g, w)
			}
		})
	}
}

// TestCLOGMarkerSourceToCLOG2: the CLOG reader gives markers the same
// Source as ALOG (its event type in Start, no ID); such a marker of type 1
// (state 0's end event in CLOG2) must come back as itself.
func TestCLOGMarkerSourceToCLOG2(t *testing.T) {
	b := tracefmt.NewBuilder(2, true, tracefmt.Second)
	mk := b.DefineMarker(tracefmt.MarkerDef{Name: "Checkpoint", Source: tracefmt.SourceIDs{Start: 1}})
	for r := range 2 {
		if _, err := b.Add(r, tracefmt.Mark(0.5+float64(r), mk)); err != nil {
			t.Fatal(err)
		}
	}
	in, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	back := readBytes(t, writeBytes(t, in))
	want := []string{"r0 marker t=0.5 Checkpoint text=\"\"", "r1 marker t=1.5 Checkpoint text=\"\""}
	if got := semantics(back); !slices.Equal(got, want) {
		t.Errorf("after CLOG2:\n%s", diffLines(want, got))
	}
	if len(back.States) != 0 {
		t.Errorf("states %+v appeared", back.States)
	}
}
