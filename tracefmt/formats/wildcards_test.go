package formats

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// TestTIWildcardScan: the scan of a streamed TI index's files finds every
// source the reader takes for MPI_ANY_SOURCE (-555, -333, with leading
// zeros), wherever the buffer boundaries fall, and OpenSource's header
// keeps tracefmt.AttrUnrecordedSources ("": counted as read) unless the
// files have none.
func TestTIWildcardScan(t *testing.T) {
	ring := func(r int, src string) string {
		left, right := (r+3)%4, (r+1)%4
		if src == "" {
			src = string(rune('0' + left))
		}
		return strings.NewReplacer("R", string(rune('0'+r)), "S", src, "D", string(rune('0'+right))).Replace(
			"R init\nR location cg.c 1R\nR compute 1e+06\nR irecv S -444 8000 6\nR isend D 0 8000 6\nR waitall 2\nR allreduce 100 0 0\nR finalize\n")
	}
	for _, tc := range []struct {
		name string
		src  string // rank 2's receive source; "" its left neighbour
		pad  int    // compute lines before rank 2's receive, moving it past buffer boundaries
		want bool   // a wildcard may be there
	}{
		{"none", "", 0, false},
		{"none, far in", "", 40000, false},
		{"-555", "-555", 0, true},
		{"-333", "-333", 0, true},
		{"-0555", "-0555", 0, true},
		{"-000333", "-000333", 0, true},
		{"-555 far in", "-555", 40000, true},
		{"-555 further", "-555", 40001, true},
		{"-55 is no wildcard, nor the -444 tags (the reader refuses -55)", "-55", 0, false},
		{"-5550 counts, conservatively", "-5550", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var index []string
			for r := range 4 {
				text := ring(r, "")
				if r == 2 {
					text = strings.Replace(ring(r, tc.src), "2 location cg.c 12\n", "2 location cg.c 12\n"+strings.Repeat("2 compute 1\n", tc.pad), 1)
				}
				name := filepath.Join("ring_files", "rank-"+string(rune('0'+r))+".txt")
				if err := os.MkdirAll(filepath.Join(dir, "ring_files"), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				index = append(index, filepath.Join(dir, name))
			}
			for _, size := range []int{16, 17, 64, wildcardScanBuf} {
				buf := make([]byte, size)
				got := false
				for _, f := range index {
					found, err := fileMayHaveWildcards(f, buf)
					if err != nil {
						t.Fatal(err)
					}
					got = got || found
				}
				if got != tc.want {
					t.Errorf("buffer of %d bytes: wildcard %v, want %v", size, got, tc.want)
				}
			}
			path := filepath.Join(dir, "ring.txt")
			var list strings.Builder
			for r := range 4 {
				list.WriteString("ring_files/rank-" + string(rune('0'+r)) + ".txt\n")
			}
			if err := os.WriteFile(path, []byte(list.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			src, err := OpenSource(path, "")
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			n, ok := src.Header().Attr(tracefmt.AttrUnrecordedSources)
			if ok != tc.want || n != "" {
				t.Errorf("header %s = %q, present %v; want present %v with \"\"", tracefmt.AttrUnrecordedSources, n, ok, tc.want)
			}
			// A caller that does not read the attribute (a replay under
			// --any-source free) gets the reader's header, unscanned:
			// "" (not known yet) whatever the files hold, and the same
			// events.
			unscanned, err := OpenSourceWith(path, "", SourceOptions{SendersUnused: true})
			if err != nil {
				t.Fatal(err)
			}
			defer unscanned.Close()
			if n, ok := unscanned.Header().Attr(tracefmt.AttrUnrecordedSources); !ok || n != "" {
				t.Errorf("SendersUnused: header %s = %q, present %v; want present with \"\" (no scan)", tracefmt.AttrUnrecordedSources, n, ok)
			}
			var uev [64]tracefmt.Event
			uk, uerr := unscanned.ReadRank(2, uev[:])
			var ev [64]tracefmt.Event
			k, err := src.ReadRank(2, ev[:])
			if uk != k || fmt.Sprint(uerr) != fmt.Sprint(err) || !slices.Equal(uev[:uk], ev[:k]) {
				t.Errorf("SendersUnused: ReadRank(2) = %d events, %v; the scanned source's %d, %v", uk, uerr, k, err)
			}
			// The header's source reads as before: rank 2's events, or
			// the reader's error at the source outside the world.
			if err != nil && !strings.HasPrefix(err.Error(), "ring_files/rank-2.txt:4:9: source "+tc.src+" is outside the world") || err == nil && k < 4 {
				t.Errorf("ReadRank(2): %d events, %v", k, err)
			}
			// The markers and texts the read defined are in the header.
			if h := src.Header(); err == nil && !(len(h.Markers) == 1 && h.Markers[0].Name == "location" && len(h.Texts) == 1 && h.Texts[0] == "cg.c:12") {
				t.Errorf("after reading rank 2: markers %v, texts %q; want [location], [cg.c:12]", h.Markers, h.Texts)
			}
		})
	}
}

// growingSource is a Source whose header's Markers and Texts grow when
// the test says, as a reader's do when its reads define them.
type growingSource struct {
	tracefmt.Source
	hdr tracefmt.Trace
}

func (g *growingSource) Header() *tracefmt.Trace { return &g.hdr }

// TestKnownSendersHeader: the scanned source's header has the scan's
// attributes and the markers and texts its source has defined so far;
// while they do not grow, Header returns the copy it returned last
// without allocating (Prefetch asks after every read: a copy each time
// was a third of a 256-rank stencil's allocations), and a copy once
// returned is never changed.
func TestKnownSendersHeader(t *testing.T) {
	attrs := []tracefmt.Attr{{Key: "scanned", Value: "yes"}}
	inner := &growingSource{hdr: tracefmt.Trace{Format: "ti", Ranks: make([]tracefmt.Rank, 2),
		Attrs: []tracefmt.Attr{{Key: tracefmt.AttrUnrecordedSources}}}}
	k := &knownSenders{Source: inner, attrs: attrs}
	var prev *tracefmt.Trace
	var kept []*tracefmt.Trace
	for i, step := range []struct {
		markers, texts int // defined by the reads before the call
		same           bool
	}{
		{0, 0, false}, // the first call copies
		{0, 0, true},
		{1, 0, false},
		{0, 0, true},
		{0, 2, false},
		{3, 1, false},
		{0, 0, true},
	} {
		for range step.markers {
			inner.hdr.Markers = append(inner.hdr.Markers, tracefmt.MarkerDef{Name: fmt.Sprintf("m%d", len(inner.hdr.Markers))})
		}
		for range step.texts {
			inner.hdr.Texts = append(inner.hdr.Texts, fmt.Sprintf("t%d", len(inner.hdr.Texts)))
		}
		h := k.Header()
		if !slices.Equal(h.Markers, inner.hdr.Markers) || !slices.Equal(h.Texts, inner.hdr.Texts) {
			t.Errorf("call %d: markers %v, texts %q; want %v, %q", i, h.Markers, h.Texts, inner.hdr.Markers, inner.hdr.Texts)
		}
		if !slices.Equal(h.Attrs, attrs) || h.Format != "ti" || len(h.Ranks) != 2 {
			t.Errorf("call %d: attrs %v, format %q, %d ranks; want %v, ti, 2", i, h.Attrs, h.Format, len(h.Ranks), attrs)
		}
		if same := h == prev; same != step.same {
			t.Errorf("call %d: the last copy returned again = %v, want %v", i, same, step.same)
		}
		prev = h
		kept = append(kept, h)
		// Called as Prefetch calls it, through the interface.
		var src tracefmt.Source = k
		var sink *tracefmt.Trace
		if allocs := testing.AllocsPerRun(100, func() { sink = src.Header() }); allocs != 0 || sink != h {
			t.Errorf("call %d: Header allocates %.0f times a call while nothing grows, want 0", i, allocs)
		}
	}
	// The copies returned keep what they had.
	for i, want := range []int{0, 0, 1, 1, 1, 4, 4} {
		if got := len(kept[i].Markers); got != want {
			t.Errorf("copy of call %d now has %d markers, want %d", i, got, want)
		}
	}
	// The source's own header keeps its attributes.
	if _, ok := inner.hdr.Attr(tracefmt.AttrUnrecordedSources); !ok {
		t.Errorf("the source's header lost %s", tracefmt.AttrUnrecordedSources)
	}
}

// TestPrefetchedTIAllocations: a TI index streamed through Prefetch, as
// sim reads it, allocates nothing per read once every rank has its
// buffers: what the reads leave behind is the GC's work and, at the end
// of a run, heap the GC goal lets grow (the scanned source's header copy
// per read was a third of a 256-rank stencil's allocations).
func TestPrefetchedTIAllocations(t *testing.T) {
	const ranks, lines, chunk = 4, 3000, 16
	dir := t.TempDir()
	var index strings.Builder
	for r := range ranks {
		var b strings.Builder
		fmt.Fprintf(&b, "%d init\n", r)
		for i := range lines {
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, "%d compute %d\n", r, 1000+i)
			case 1:
				fmt.Fprintf(&b, "%d send %d 0 %d\n", r, (r+1)%ranks, 64+i)
			default:
				fmt.Fprintf(&b, "%d recv %d 0 %d\n", r, (r+ranks-1)%ranks, 64+i-1)
			}
		}
		fmt.Fprintf(&b, "%d finalize\n", r)
		name := fmt.Sprintf("rank-%d.txt", r)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		index.WriteString(name + "\n")
	}
	path := filepath.Join(dir, "index.txt")
	if err := os.WriteFile(path, []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(path, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := src.Header().Attr(tracefmt.AttrUnrecordedSources); ok {
		t.Fatalf("the index's header keeps %s: the files have no wildcard, the scan should say so", tracefmt.AttrUnrecordedSources)
	}
	pre := tracefmt.Prefetch(src, chunk)
	defer pre.Close()
	buf := make([]tracefmt.Event, chunk/2)
	events, reads := 0, 0
	// round reads every rank once; it reports whether any had events.
	round := func() bool {
		more := false
		for r := range ranks {
			n, err := pre.ReadRank(r, buf)
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("rank %d: %v", r, err)
			}
			events += n
			reads++
			more = more || n > 0
		}
		return more
	}
	// Every rank's files, buffers and first halves.
	for range 4 {
		round()
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	events, reads = 0, 0
	for round() {
	}
	runtime.ReadMemStats(&after)
	if events < ranks*lines {
		t.Fatalf("read %d events, want at least %d", events, ranks*lines)
	}
	allocs := after.Mallocs - before.Mallocs
	t.Logf("%d allocations in %d reads of %d events", allocs, reads, events)
	if allocs > uint64(reads)/20 {
		t.Errorf("%d allocations in %d reads of %d events through Prefetch, want at most %d (none per read)", allocs, reads, events, reads/20)
	}
}
