package formats

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestParaver opens the Extrae sample (detected by content, its .pcf
// found beside it) and saves a trace by the .prv extension: the .pcf and
// .row land beside it and the saved trace opens with the same numbers.
func TestParaver(t *testing.T) {
	tr, f, err := Open(context.Background(), sharedSample(t, "paraver/qsort_beo3.prv"), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	s := tracefmt.Summarize(tr)
	if f.Name != "paraver" || s.Ranks != 4 || s.Events != 1117 || s.Messages.Matched != 33 || s.Collectives != 45 {
		t.Errorf("%s: %d ranks, %d events, %d messages, %d collectives; want paraver: 4, 1117, 33, 45",
			f.Name, s.Ranks, s.Events, s.Messages.Matched, s.Collectives)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "qsort.prv")
	if err := Save(out, "", tr); err != nil {
		t.Fatal(err)
	}
	for _, side := range []string{"qsort.pcf", "qsort.row"} {
		if _, err := os.Stat(filepath.Join(dir, side)); err != nil {
			t.Errorf("side file: %v", err)
		}
	}
	back, _, err := Open(context.Background(), out, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b := tracefmt.Summarize(back); b.Events != s.Events || b.Messages.Matched != 33 || b.Collectives != 45 || b.States[0].Name != s.States[0].Name {
		t.Errorf("saved trace reads back with %d events, %d messages, %d collectives, first state %q; want %d, 33, 45, %q",
			b.Events, b.Messages.Matched, b.Collectives, b.States[0].Name, s.Events, s.States[0].Name)
	}
}
