package formats

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestOpenLetsTsimCountFirst: Open and OpenIn hand the reader a file it
// can read at offsets (watchedFile), so that the tsim reader counts
// each rank's records before decoding them into streams of their size:
// the load allocates little more than the events, where a reader read
// once (the chunks, then the streams they are copied into) allocates
// them twice. Progress and cancellation still come through.
func TestOpenLetsTsimCountFirst(t *testing.T) {
	var b strings.Builder
	b.WriteString("tsim 1\nranks 8\n")
	const n = 500_000
	for i := range n {
		fmt.Fprintf(&b, "%d %d compute dur=1\n", i, i%8)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "c.tsim")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	evBytes := float64(n) * float64(unsafe.Sizeof(tracefmt.Event{}))
	opens := map[string]func(Progress) (*tracefmt.Trace, error){
		"Open": func(p Progress) (*tracefmt.Trace, error) {
			tr, _, err := Open(context.Background(), path, "", p)
			return tr, err
		},
		"OpenIn": func(p Progress) (*tracefmt.Trace, error) {
			tr, _, err := OpenIn(context.Background(), root, "c.tsim", "", p)
			return tr, err
		},
	}
	for name, open := range opens {
		var done, total int64
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := open(func(d, t int64) { done, total = d, t })
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := tr.NumEvents(); got != n {
			t.Fatalf("%s: %d events, want %d", name, got, n)
		}
		if done != total || total != int64(b.Len()) {
			t.Errorf("%s: progress %d of %d, want %d of %d", name, done, total, b.Len(), b.Len())
		}
		ratio := float64(after.TotalAlloc-before.TotalAlloc) / evBytes
		if ratio > 1.55 {
			t.Errorf("%s: the load allocated %.2f× the events' %.0f bytes, want at most 1.55× (the events decoded into place)", name, ratio, evBytes)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Open(ctx, path, "", nil); err != context.Canceled {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}
}
