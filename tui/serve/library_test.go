package serve

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

func openTestLibrary(t *testing.T) (*Library, string, string) {
	t.Helper()
	dir, outside := newLibraryDir(t)
	lib, err := OpenLibrary(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lib.Close() })
	return lib, dir, outside
}

func TestLibraryResolve(t *testing.T) {
	lib, _, outside := openTestLibrary(t)
	for _, tc := range []struct {
		name, want string
		err        error
	}{
		{"ring.tsim", "ring.tsim", nil},
		{"ring", "ring.tsim", nil},
		{"./ring.tsim", "ring.tsim", nil},
		{"week2/pingpong.tsim", "week2/pingpong.tsim", nil},
		{"week2/pingpong", "week2/pingpong.tsim", nil},
		{"week2/../ring.tsim", "ring.tsim", nil},
		{"alias.tsim", "alias.tsim", nil}, // a link that stays inside
		{"../../etc/passwd", "", ErrOutsideLibrary},
		{"/etc/passwd", "", ErrOutsideLibrary},
		{outside, "", ErrOutsideLibrary},
		{"..", "", ErrOutsideLibrary},
		{"week2/../../secret.tsim", "", ErrOutsideLibrary},
		{"escape.tsim", "", ErrOutsideLibrary},
		{"escape", "", ErrOutsideLibrary},
		{"etc/passwd", "", ErrOutsideLibrary},
		{"ring.tsim\x00", "", ErrOutsideLibrary},
		{"ring\n.tsim", "", ErrOutsideLibrary},
		{"", "", ErrNotInLibrary},
		{"missing.tsim", "", ErrNotInLibrary},
		{"missing", "", ErrNotInLibrary},
		{"week2", "", ErrNotInLibrary},
		{".", "", ErrNotInLibrary},
	} {
		got, err := lib.Resolve(tc.name)
		switch {
		case tc.err == nil && err != nil:
			t.Errorf("Resolve(%q): %v", tc.name, err)
		case tc.err != nil && !errors.Is(err, tc.err):
			t.Errorf("Resolve(%q) = %q, %v; want %v", tc.name, got, err, tc.err)
		case filepath.ToSlash(got) != tc.want:
			t.Errorf("Resolve(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLibraryAmbiguousBaseName: a bare name that fits two files is not
// guessed.
func TestLibraryAmbiguousBaseName(t *testing.T) {
	lib, dir, _ := openTestLibrary(t)
	writeTrace(t, dir, "two.tsim", gen.Options{Pattern: "ring", Ranks: 2, Iters: 1, Compute: -1, Seed: 1})
	writeTrace(t, dir, "two.txt", gen.Options{Pattern: "ring", Ranks: 2, Iters: 1, Compute: -1, Seed: 1})
	if _, err := lib.Resolve("two"); !errors.Is(err, ErrNotInLibrary) {
		t.Errorf("Resolve(two) = %v, want not found", err)
	}
}

// TestLibraryLoadOnce: concurrent loads of one file, by any of its names,
// read it once and share one trace.
func TestLibraryLoadOnce(t *testing.T) {
	lib, _, _ := openTestLibrary(t)
	const n = 16
	got := make([]*tracefmt.Trace, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			name := []string{"ring.tsim", "ring", "alias.tsim", "./ring.tsim"}[i%4]
			tr, _, err := lib.Load(context.Background(), name)
			if err != nil {
				t.Error(err)
			}
			got[i] = tr
		})
	}
	wg.Wait()
	for i, tr := range got {
		if tr == nil || tr != got[0] {
			t.Fatalf("load %d returned another trace", i)
		}
	}
	if lib.loads != 1 {
		t.Errorf("%d loads, want 1", lib.loads)
	}
	if len(got[0].Ranks) != 4 {
		t.Errorf("%d ranks, want 4", len(got[0].Ranks))
	}
}

// TestLibraryReloadsChangedFile: a trace replaced on disk is read again
// for new sessions; the old one stays valid for the sessions holding it.
func TestLibraryReloadsChangedFile(t *testing.T) {
	lib, dir, _ := openTestLibrary(t)
	old, _, err := lib.Load(context.Background(), "ring")
	if err != nil {
		t.Fatal(err)
	}
	writeTrace(t, dir, "ring.tsim", gen.Options{Pattern: "ring", Ranks: 6, Iters: 2, Compute: -1, Seed: 1})
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "ring.tsim"), later, later); err != nil {
		t.Fatal(err)
	}
	tr, _, err := lib.Load(context.Background(), "ring")
	if err != nil {
		t.Fatal(err)
	}
	if tr == old || len(tr.Ranks) != 6 || len(old.Ranks) != 4 {
		t.Errorf("after the change: %d ranks (old %d), same pointer %v", len(tr.Ranks), len(old.Ranks), tr == old)
	}
}

// TestLibraryBadTrace: a file that does not parse is an error naming it,
// and is tried again next time (it may have been fixed).
func TestLibraryBadTrace(t *testing.T) {
	lib, dir, _ := openTestLibrary(t)
	bad := filepath.Join(dir, "bad.tsim")
	if err := os.WriteFile(bad, []byte("tsim 1\nthis is not a trace\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := lib.Load(context.Background(), "bad.tsim"); err == nil {
			t.Fatal("a bad trace loaded")
		}
	}
	if lib.loads != 2 {
		t.Errorf("%d loads, want 2 (errors are not cached)", lib.loads)
	}
}

// TestLibraryWaiterCancelled: a caller that gives up does not fail the
// load for the others.
func TestLibraryWaiterCancelled(t *testing.T) {
	lib, _, _ := openTestLibrary(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := lib.Load(ctx, "ring"); !errors.Is(err, context.Canceled) {
		// The load may have been fast enough to win the race with the
		// cancelled wait; either way it must not poison the cache.
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
	}
	if _, _, err := lib.Load(context.Background(), "ring"); err != nil {
		t.Fatalf("after a cancelled wait: %v", err)
	}
}

func TestLibraryList(t *testing.T) {
	lib, dir, _ := openTestLibrary(t)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeTrace(t, filepath.Join(dir, ".git"), "hidden.tsim", gen.Options{Pattern: "ring", Ranks: 2, Iters: 1, Compute: -1, Seed: 1})
	// A SimGrid TI trace as smpirun -trace-ti writes it: an index and a
	// file per rank, all .txt. The index is listed, the rank files not.
	ti := map[string]string{
		"week3/app.txt":                  "app.txt_files/rank-0.txt\napp.txt_files/rank-1.txt\n",
		"week3/app.txt_files/rank-0.txt": "0 init\n0 send 1 64\n0 finalize\n",
		"week3/app.txt_files/rank-1.txt": "1 init\n1 recv 0 64\n1 finalize\n",
	}
	for name, text := range ti {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := lib.List()
	if err != nil {
		t.Fatal(err)
	}
	// Links are listed only as what they are (WalkDir does not follow
	// them), so the ones pointing outside never show.
	want := []string{"ring.tsim", "week2/pingpong.tsim", "week3/app.txt"}
	if !slices.Equal(got, want) {
		t.Errorf("List() = %q, want %q", got, want)
	}
	tr, rel, err := lib.Load(t.Context(), "week3/app.txt")
	if err != nil || rel != "week3/app.txt" || len(tr.Ranks) != 2 {
		t.Errorf("Load(week3/app.txt) = %v, %q, %v; want 2 ranks", tr, rel, err)
	}
}

// Compressed traces are not listed nor loaded (a session must not make
// the server decompress without bound); Compressed names them for the
// server's start, and a file that is no trace compressed is not one.
func TestLibraryCompressed(t *testing.T) {
	lib, dir, _ := openTestLibrary(t)
	for _, name := range []string{"run.prv.gz", "week2/x.tsim.bz2", "notes.txt.gz", "data.gz"} {
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(name)), []byte{0x1f, 0x8b, 8, 0}, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := lib.Compressed()
	if want := []string{"run.prv.gz", "week2/x.tsim.bz2"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Compressed() = %q, %v; want %q", got, err, want)
	}
	if list, _ := lib.List(); slices.Contains(list, "run.prv.gz") {
		t.Errorf("List() = %q lists a compressed trace", list)
	}
	if _, _, err := lib.Load(t.Context(), "run.prv.gz"); err == nil || !strings.Contains(err.Error(), "gzip-compressed: a library's traces are read uncompressed") {
		t.Errorf("Load(run.prv.gz): %v", err)
	}
}

// The server says at its start which of the library's traces it will not
// serve because they are compressed.
func TestServeWarnsOfCompressedTraces(t *testing.T) {
	dir := t.TempDir()
	writeTrace(t, dir, "ring.tsim", gen.Options{Pattern: "ring", Ranks: 2, Iters: 1, Compute: -1, Seed: 1})
	if err := os.WriteFile(filepath.Join(dir, "run.prv.gz"), []byte{0x1f, 0x8b, 8, 0}, 0o644); err != nil {
		t.Fatal(err)
	}
	lib, err := OpenLibrary(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	ts := startServer(t, func(c *Config) { c.Library = lib })
	want := `msg="compressed traces are not served: decompress them in the library (gunzip -k, bunzip2 -k)" count=1 files=run.prv.gz`
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(ts.logs.String(), want); {
		if time.Now().After(deadline) {
			t.Fatalf("no warning %q in the server's log:\n%s", want, tail(ts.logs.String(), 2000))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestOpenLibraryErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, format string }{
		{"", ""},
		{filepath.Join(dir, "missing"), ""},
		{file, ""},
		{dir, "nosuchformat"},
	} {
		if lib, err := OpenLibrary(tc.dir, tc.format); err == nil {
			lib.Close()
			t.Errorf("OpenLibrary(%q, %q) succeeded", tc.dir, tc.format)
		}
	}
}

// Students save into directories of their own, named after their key's
// comment and fingerprint, so that one cannot replace another's file of
// the same name; without a key the SSH user name is all there is.
func TestSaveDirs(t *testing.T) {
	lib, dir, _ := openTestLibrary(t)
	a, b := newClientKey(t).PublicKey(), newClientKey(t).PublicKey()
	fa, fb := gossh.FingerprintSHA256(a), gossh.FingerprintSHA256(b)
	cases := []struct {
		fingerprint, comment, user string
		wantPrefix                 string
	}{
		{fa, "alice@laptop", "alice", "saved/alice_laptop-"},
		{fb, "alice@laptop", "alice", "saved/alice_laptop-"}, // same comment, another key
		{fa, "../../etc", "x", "saved/etc-"},
		{fa, "", "x", "saved/key-"},
		{"", "", "bob/../..", "saved/anonymous-bob"},
		{"", "", "", "saved/anonymous-nobody"},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		d := SaveDir(c.fingerprint, c.comment, c.user)
		if !strings.HasPrefix(d, c.wantPrefix) || strings.Contains(d, "..") || strings.Count(d, "/") != 1 {
			t.Errorf("SaveDir(%q, %q, %q) = %q, want %s…", c.fingerprint, c.comment, c.user, d, c.wantPrefix)
		}
		seen[d] = true
	}
	if len(seen) != len(cases) {
		t.Errorf("two students share a directory: %v", seen)
	}
	// Two students save one name: two files, each with its content.
	for _, st := range []struct{ dir, content string }{
		{SaveDir(fa, "alice@laptop", "alice"), "a"},
		{SaveDir(fb, "alice@laptop", "alice"), "b"},
	} {
		rel, err := lib.Space(st.dir).Save("m.toml", func(w io.Writer) error {
			_, err := io.WriteString(w, st.content)
			return err
		})
		if err != nil || rel != st.dir+"/m.toml" {
			t.Fatalf("save: %q %v", rel, err)
		}
		if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel))); err != nil || string(data) != st.content {
			t.Errorf("%s: %q %v, want %q", rel, data, err, st.content)
		}
	}
}
