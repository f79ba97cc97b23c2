package formats

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestOTF2Archive opens the Score-P sample by its anchor file (detected
// by content) and saves a trace as an archive by the .otf2 extension:
// the side files land beside it and the archive opens again with the
// same numbers.
func TestOTF2Archive(t *testing.T) {
	t.Run("open", func(t *testing.T) {
		tr, f, err := Open(context.Background(), sharedSample(t, "otf2/ping-pong/traces.otf2"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		s := tracefmt.Summarize(tr)
		if f.Name != "otf2" || s.Ranks != 2 || s.Events != 116 || s.Messages.Matched != 16 || s.Collectives != 0 {
			t.Errorf("%s: %d ranks, %d events, %d messages, %d collectives; want otf2: 2, 116, 16, 0",
				f.Name, s.Ranks, s.Events, s.Messages.Matched, s.Collectives)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		// Cancelled once the anchor file is read: the archive's other
		// files stop the read.
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, _, err := Open(ctx, sharedSample(t, "otf2/ping-pong/traces.otf2"), "", func(done, total int64) { cancel() })
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want %v", err, context.Canceled)
		}
	})
	t.Run("directory", func(t *testing.T) {
		dir := filepath.Dir(sharedSample(t, "otf2/ping-pong/traces.otf2"))
		_, _, err := Open(context.Background(), dir, "", nil)
		want := dir + ": is a directory, not a trace file (open its OTF2 anchor file " + filepath.Join(dir, "traces.otf2") + ")"
		if err == nil || err.Error() != want {
			t.Errorf("error %v\nwant %s", err, want)
		}
	})
	t.Run("save", func(t *testing.T) {
		src, _, err := Open(context.Background(), filepath.Join("..", "..", "testdata", "tsim", "ring3.tsim"), "", nil)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		out := filepath.Join(dir, "ring.otf2")
		if err := Save(out, "", src); err != nil {
			t.Fatal(err)
		}
		for _, side := range []string{"ring.def", "ring/0.evt", "ring/2.def"} {
			if _, err := os.Stat(filepath.Join(dir, side)); err != nil {
				t.Errorf("side file: %v", err)
			}
		}
		back, f, err := Open(context.Background(), out, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		a, b := tracefmt.Summarize(src), tracefmt.Summarize(back)
		if f.Name != "otf2" || a.Ranks != b.Ranks || a.Messages != b.Messages || a.Collectives != b.Collectives || a.Bytes != b.Bytes {
			t.Errorf("saved as %s and read back: %+v, source %+v", f.Name, b, a)
		}
	})
}
