package simgridti

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// streamed reads every rank of src through ReadRank in chunks of n
// events.
func streamed(t *testing.T, src tracefmt.Source, n int) [][]tracefmt.Event {
	t.Helper()
	out := make([][]tracefmt.Event, len(src.Header().Ranks))
	buf := make([]tracefmt.Event, n)
	// Ranks take turns, as a replay pulls them.
	for live := len(out); live > 0; {
		live = 0
		for r := range out {
			k, err := src.ReadRank(r, buf)
			if errors.Is(err, io.EOF) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			out[r] = append(out[r], buf[:k]...)
			live++
		}
	}
	return out
}

// sameEvent compares a streamed event with the one ReadFile gives: equal
// but for message matches (a Source leaves them to the replay) and the
// senders ReadFile guessed for wildcard receives.
func sameEvent(a, b tracefmt.Event, hdrState, fileState string) bool {
	if a.IsP2P() {
		a.Match, b.Match = 0, 0
	}
	if a.Kind == tracefmt.KindRecv && a.Flags.Has(tracefmt.FlagAnySource) {
		if a.Peer != anySource {
			return false
		}
		a.Peer = b.Peer
	}
	if a.Kind == tracefmt.KindRecv && a.Flags.Has(tracefmt.FlagAnyTag) {
		a.Tag = b.Tag
	}
	if a.Kind == tracefmt.KindEnter || a.Kind == tracefmt.KindLeave {
		// State ids differ (a Source defines them all up front); their
		// names must not.
		if hdrState != fileState {
			return false
		}
		a.Peer = b.Peer
	}
	return a == b
}

// TestSourceMatchesReadFile streams index traces (SimGrid's own, and
// generated ones written by WriteIndex) in chunks of several sizes and
// expects the events ReadFile gives.
func TestSourceMatchesReadFile(t *testing.T) {
	dir := t.TempDir()
	paths := []string{
		filepath.Join("..", "..", "testdata", "simgrid", "halo.txt"),
		filepath.Join("..", "..", "testdata", "simgrid", "tokens.txt"),
		filepath.Join("..", "..", "testdata", "simgrid", "coll2.txt"),
		filepath.Join("testdata", "smpi332", "trace.txt"),
	}
	// The ring has more ranks than a Source keeps files open.
	for _, pat := range []struct {
		name         string
		ranks, iters int
	}{{"cg", 8, 20}, {"master-worker", 8, 20}, {"stencil2d", 8, 20}, {"alltoall", 8, 20}, {"ring", maxOpenFiles + 44, 2}} {
		tr, err := gen.Generate(gen.Options{Pattern: pat.name, Ranks: pat.ranks, Iters: pat.iters, Size: 4096, Compute: 1e-4, Latency: gen.DefaultLatency, Bandwidth: gen.DefaultBandwidth})
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, pat.name+".txt")
		if err := WriteIndex(p, tr, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, path := range paths {
		want, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, chunk := range []int{1, 3, 1000} {
			src, err := OpenSource(path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			got := streamed(t, src, chunk)
			hdr := src.Header()
			// A rank holds the events of one line between calls at
			// most, however small the calls' buffers.
			for r, rs := range src.p.ranks {
				if rs != nil && cap(rs.events) > maxLineEvents {
					t.Fatalf("%s chunk %d: rank %d keeps room for %d events between calls, want at most %d", path, chunk, r, cap(rs.events), maxLineEvents)
				}
			}
			if err := src.Close(); err != nil {
				t.Fatal(err)
			}
			if len(got) != want.Size() {
				t.Fatalf("%s: %d ranks streamed, want %d", path, len(got), want.Size())
			}
			for r := range got {
				w := want.Ranks[r].Events
				if len(got[r]) != len(w) {
					t.Fatalf("%s chunk %d: rank %d streams %d events, want %d", path, chunk, r, len(got[r]), len(w))
				}
				for i := range w {
					g := got[r][i]
					var hs, fs string
					if g.Kind == tracefmt.KindEnter || g.Kind == tracefmt.KindLeave {
						hs, fs = hdr.StateName(g.State()), want.StateName(w[i].State())
					}
					if !sameEvent(g, w[i], hs, fs) {
						t.Fatalf("%s chunk %d: rank %d event %d is %+v (%s), want %+v (%s)", path, chunk, r, i, g, hs, w[i], fs)
					}
					if g.Kind == tracefmt.KindMarker && hdr.Text(&g) != want.Text(&w[i]) {
						t.Fatalf("%s: rank %d event %d text %q, want %q", path, r, i, hdr.Text(&g), want.Text(&w[i]))
					}
				}
			}
		}
	}
}

// TestOpenSourceLayouts: only an index of per-rank files streams; errors
// name the file and line at fault.
func TestOpenSourceLayouts(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	single := write("single.txt", "0 init\n0 compute 10\n1 compute 5\n")
	one := write("one.txt", "single.txt\n")
	missing := write("missing.txt", "r0.txt\nnope.txt\n")
	write("r0.txt", "0 compute 1\n")
	write("r1.txt", "1 compute 1\n1 send 0 0 12 6\n1 bogus 3\n")
	bad := write("bad.txt", "r0.txt\nr1.txt\n")
	for _, p := range []string{single, one} {
		if _, err := OpenSource(p); !errors.Is(err, ErrNotStreamable) {
			t.Errorf("OpenSource(%s) = %v, want ErrNotStreamable", filepath.Base(p), err)
		}
	}
	if _, err := OpenSource(missing); err == nil || !strings.Contains(err.Error(), "missing.txt:2: opening nope.txt") {
		t.Errorf("OpenSource(missing.txt) = %v, want an error naming missing.txt:2 and nope.txt", err)
	}
	src, err := OpenSource(bad)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	buf := make([]tracefmt.Event, 16)
	_, err = src.ReadRank(1, buf)
	if err == nil || !strings.HasPrefix(err.Error(), "r1.txt:3:3: unknown action \"bogus\"") {
		t.Errorf("ReadRank(1) = %v, want an error at r1.txt:3:3", err)
	}
}

// FuzzSource: the input split at its first blank line into the files of
// two ranks. Streaming them never panics, and streams what ReadFile reads
// of the same index: as many events per rank, or an error too.
func FuzzSource(f *testing.F) {
	for _, s := range []string{
		"0 init\n0 isend 1 3 8 0\n0 wait 0 1 3\n\n1 recv 0 3 8\n1 finalize\n",
		"0 sendRecv 5 1 6 1 0 1\n0 alltoall 2 2\n\n1 sendRecv 6 0 5 0\n1 alltoall 2 2\n",
		"0 recv -555 8 1\n0 waitAny 2\n0 location a.c 3\n\n1 send 0 8 1\n1 reducescatter 1 2 0\n",
		"0 compute 1e6\n\n2 compute 1\n",
		"p0 Irecv p1 1\np0 wait\n\np1 send p0 1e3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		parts := bytes.SplitN(data, []byte("\n\n"), 2)
		if len(parts) < 2 {
			parts = append(parts, nil)
		}
		for r, part := range parts {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.txt", r)), part, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		index := filepath.Join(dir, "index.txt")
		if err := os.WriteFile(index, []byte("r0.txt\nr1.txt\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := ReadFile(index)
		src, err := OpenSource(index)
		if err != nil {
			t.Fatalf("OpenSource: %v", err)
		}
		defer src.Close()
		buf := make([]tracefmt.Event, 3)
		for r := range 2 {
			n, serr := 0, error(nil)
			for {
				k, err := src.ReadRank(r, buf)
				n += k
				if err != nil {
					if !errors.Is(err, io.EOF) {
						serr = err
					}
					break
				}
			}
			switch {
			case serr != nil && werr == nil:
				t.Fatalf("rank %d streams with %v; ReadFile reads it", r, serr)
			case werr == nil && n != len(want.Ranks[r].Events):
				t.Fatalf("rank %d streams %d events; ReadFile reads %d", r, n, len(want.Ranks[r].Events))
			}
		}
	})
}

// TestSourceReadAhead: a rank file's lines are read through its own
// buffer, so lines that straddle a refill, lines longer than the buffer,
// a last line without a newline and CRLF endings stream the actions of
// the file; a line beyond maxLine is an error naming the file and line.
func TestSourceReadAhead(t *testing.T) {
	pad := strings.Repeat(" ", 3*maxReadAhead) // longer than any buffer
	many := strings.Repeat("1 compute 7\n", 5000)
	for _, tc := range []struct {
		name, r1 string
		want     []string // rank 1's actions
		err      string
	}{
		{"straddling refills", many, slices.Repeat([]string{"compute 7f"}, 5000), ""},
		{"longer than the buffer", "1 compute 3" + pad + "\n1 send 0 0 12 6\n", []string{"compute 3f", "send>0 t0 12B"}, ""},
		{"no final newline", many[:len(many)-1], slices.Repeat([]string{"compute 7f"}, 5000), ""},
		{"crlf", "1 compute 2\r\n1 compute 4\r\n", []string{"compute 2f", "compute 4f"}, ""},
		{"beyond maxLine", "1 compute 1\n1 compute 1" + strings.Repeat(" ", maxLine) + "\n", nil,
			fmt.Sprintf("r1.txt:2:1: line longer than %d bytes", maxLine)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := openTwoRanks(t, "0 compute 1\n", tc.r1)
			defer src.Close()
			var got []string
			buf := make([]tracefmt.Event, 7)
			for {
				n, err := src.ReadRank(1, buf)
				for i := range buf[:n] {
					if k := buf[i].Kind; k != tracefmt.KindEnter && k != tracefmt.KindLeave {
						got = append(got, describe(src.Header(), &buf[i]))
					}
				}
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					if tc.err == "" || !strings.HasPrefix(err.Error(), tc.err) {
						t.Fatalf("ReadRank(1) = %v, want error %q", err, tc.err)
					}
					return
				}
			}
			if tc.err != "" {
				t.Fatalf("rank 1 streamed %d actions, want error %q", len(got), tc.err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("rank 1 streams %d actions %.60q, want %d %.60q", len(got), got, len(tc.want), tc.want)
			}
		})
	}
}

// TestMemoBitsFor: a stream's memo has room for 32 lines a rank, within
// its bounds.
func TestMemoBitsFor(t *testing.T) {
	for _, c := range []struct{ ranks, bits int }{
		{1, minMemoBits}, {2, minMemoBits}, {32, minMemoBits}, {33, 11}, {64, 11}, {65, 12},
		{128, 12}, {256, 13}, {257, maxMemoBits}, {1024, maxMemoBits}, {65536, maxMemoBits},
	} {
		if got := memoBitsFor(c.ranks); got != c.bits {
			t.Errorf("memoBitsFor(%d) = %d, want %d", c.ranks, got, c.bits)
		}
	}
}

// TestSourceMemoHoldsManyRanks streams a 1,024-rank stencil as a replay
// pulls it (ranks taking turns) and checks that the memo still holds
// most lines of every rank's loop at the end: a memo sized for 64 ranks
// held 1,024 of 11,008 (85 % now), missed most lines, and read the trace at
// 2.6× the instructions a line of a 64-rank one.
func TestSourceMemoHoldsManyRanks(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 1024, Iters: 6, Size: 4096, Compute: 1e-4, Latency: gen.DefaultLatency, Bandwidth: gen.DefaultBandwidth})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "stencil.txt")
	if err := WriteIndex(path, tr, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	streamed(t, src, 256)
	m := src.p.memo
	distinct := map[string]bool{}
	for _, rf := range src.files {
		data, err := os.ReadFile(rf.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.SplitAfter(string(data), "\n") {
			var b lineBuf
			if n := copy(b[:], line); n < len(line) || !strings.HasSuffix(line, "\n") {
				continue // too long for a key, or the last
			}
			var fr fastRec
			if _, ok := decodeTight(&b, &fr); ok {
				distinct[line] = true
			}
		}
	}
	held := 0
	for line := range distinct {
		var b lineBuf
		copy(b[:], line)
		key, hash, ok := lineKey(&b)
		if !ok {
			continue
		}
		if h := m.pair(hash); m.slots[h].key == key || m.slots[h|1].key == key {
			held++
		}
	}
	if len(distinct) < 4*1024 {
		t.Fatalf("%d distinct tight lines in 1,024 ranks: the test needs several a rank", len(distinct))
	}
	if held < len(distinct)*8/10 {
		t.Errorf("the memo holds %d of the %d distinct lines of the ranks' loops, want at least 80 %% (the pairs of slots its 1<<maxMemoBits slots make fill unevenly)", held, len(distinct))
	}
}

// TestSourceKeepsEachRanksGuess: ranks taking turns, each call of a rank
// ends with the memo's guess on the rank's own next line, and the rank
// keeps it for its next call (the memo's own guess is then the other
// rank's), so that the call's first lines apply from their templates.
func TestSourceKeepsEachRanksGuess(t *testing.T) {
	var r0, r1 strings.Builder
	for range 200 {
		r0.WriteString("0 isend 1 0 64\n0 irecv 1 0 64\n0 waitall\n0 compute 100\n")
		r1.WriteString("1 isend 0 0 64\n1 irecv 0 0 64\n1 waitall\n1 compute 200\n")
	}
	src := openTwoRanks(t, r0.String(), r1.String())
	defer src.Close()
	buf := make([]tracefmt.Event, 16)
	for call := range 40 {
		r := call % 2
		if _, err := src.ReadRank(r, buf); err != nil {
			t.Fatalf("ReadRank(%d): %v", r, err)
		}
		if call < 4 {
			continue // the memo learns the loops
		}
		rf := &src.files[r]
		next := rf.buf[rf.lo:rf.hi]
		next = next[:bytes.IndexByte(next, '\n')+1]
		gi := rf.memoAt[1]
		if gi == 0 || !src.p.memo.slots[gi-1].holds((*lineBuf)(rf.buf[rf.lo:rf.lo+len(lineBuf{})])) {
			t.Fatalf("call %d: rank %d keeps guess %d, which does not hold its next line %q", call, r, gi, next)
		}
	}
}

// openTwoRanks writes an index of two rank files holding r0 and r1 and
// opens it as a Source.
func openTwoRanks(t *testing.T, r0, r1 string) *Source {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"r0.txt": r0, "r1.txt": r1, "index.txt": "r0.txt\nr1.txt\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := OpenSource(filepath.Join(dir, "index.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return src
}
