package formats

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
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

// spyReader notes when its first Read comes.
type spyReader struct {
	r      io.Reader
	reads  int
	onRead func()
}

func (s *spyReader) Read(p []byte) (int, error) {
	if s.reads++; s.reads == 1 {
		s.onRead()
	}
	return s.r.Read(p)
}

// TestProgressOverTheCountPass: a tsim file read at offsets first (the
// count pass) shows progress during that pass, up to a tenth of the
// file, then during the read proper, up to the whole file: done never
// goes back, from the first call to the last.
func TestProgressOverTheCountPass(t *testing.T) {
	var b strings.Builder
	b.WriteString("tsim 1\nranks 8\n")
	for i := 0; b.Len() < 24<<20; i++ {
		fmt.Fprintf(&b, "%d %d compute dur=1\n", i, i%8)
	}
	path := filepath.Join(t.TempDir(), "p.tsim")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	size := int64(b.Len())
	type call struct {
		done, total int64
		reading     bool
	}
	var (
		mu      sync.Mutex
		calls   []call
		reading bool
	)
	progress := func(done, total int64) {
		mu.Lock()
		calls = append(calls, call{done, total, reading})
		mu.Unlock()
	}
	spy := &spyReader{r: f, onRead: func() { mu.Lock(); reading = true; mu.Unlock() }}
	w := &watchedReader{ctx: context.Background(), r: spy, total: size, progress: progress}
	fm, err := Lookup("tsim")
	if err != nil {
		t.Fatal(err)
	}
	tr, err := fm.Read(path, withFile(w, f))
	if err != nil {
		t.Fatal(err)
	}
	if tr.NumEvents() == 0 {
		t.Fatal("no events")
	}
	before := 0
	for i, c := range calls {
		if c.total != size {
			t.Fatalf("call %d: total %d, want the file's %d", i, c.total, size)
		}
		if i > 0 && c.done < calls[i-1].done {
			t.Errorf("call %d: done %d after %d: the bar went back", i, c.done, calls[i-1].done)
		}
		if !c.reading {
			before++
			if c.done > size/lookOverShare {
				t.Errorf("call %d, during the count pass: done %d, want at most a tenth of %d", i, c.done, size)
			}
		}
	}
	// About one call a MiB the pass reads.
	if want := int(size >> 21); before < want {
		t.Errorf("%d progress calls during the count pass, want at least %d", before, want)
	}
	if last := calls[len(calls)-1]; last.done != size {
		t.Errorf("last call: done %d, want %d", last.done, size)
	}
}
