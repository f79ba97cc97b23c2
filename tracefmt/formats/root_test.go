package formats

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rootFixture lays out a library and, beside it, a directory the
// library's links point into:
//
//	lib/ok.ti, lib/ok.ti_files/{0,1}.ti   an index inside the library
//	lib/ring.tsim                         a single-file trace
//	lib/up.tsim -> ../secret/hidden.tsim  a link out (target exists)
//	lib/gone.tsim -> ../secret/nothing    a link out (no target)
//	lib/ranks -> ../secret                a directory link out
//	lib/dotdot.ti    lists ../secret/0.ti
//	lib/abs.ti       lists /abs/path/secret/0.ti
//	lib/linked.ti    lists ranks/0.ti (through the directory link)
//	lib/sub/linkrank.ti lists r.ti, a link to ../../secret/0.ti
func rootFixture(t *testing.T) (lib, secret string) {
	t.Helper()
	base := t.TempDir()
	lib, secret = filepath.Join(base, "lib"), filepath.Join(base, "secret")
	rank := func(r int) string { return itoa(r) + " init\n" + itoa(r) + " compute 1e6\n" + itoa(r) + " finalize\n" }
	files := map[string]string{
		"lib/ok.ti":             "ok.ti_files/0.ti\nok.ti_files/1.ti\n",
		"lib/ok.ti_files/0.ti":  rank(0),
		"lib/ok.ti_files/1.ti":  rank(1),
		"lib/ring.tsim":         readTestdata(t, "tsim", "ring3.tsim"),
		"lib/dotdot.ti":         "../secret/0.ti\n../secret/1.ti\n",
		"lib/abs.ti":            filepath.Join(secret, "0.ti") + "\n" + filepath.Join(secret, "1.ti") + "\n",
		"lib/linked.ti":         "ranks/0.ti\nranks/1.ti\n",
		"lib/sub/linkrank.ti":   "r.ti\n",
		"secret/0.ti":           rank(0),
		"secret/1.ti":           rank(1),
		"secret/hidden.tsim":    readTestdata(t, "tsim", "ring3.tsim"),
		"lib/sub/placeholder.x": "",
	}
	for name, data := range files {
		p := filepath.Join(base, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"lib/up.tsim":     "../secret/hidden.tsim",
		"lib/gone.tsim":   "../secret/nothing",
		"lib/ranks":       "../secret",
		"lib/sub/r.ti":    "../../secret/0.ti",
		"lib/abslink.ti":  filepath.Join(secret, "0.ti"),
		"lib/inside.tsim": "ring.tsim",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(name))); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	return lib, secret
}

func itoa(n int) string { return string(rune('0' + n)) }

func readTestdata(t *testing.T, parts ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(append([]string{"..", "..", "testdata"}, parts...)...))
	if err != nil {
		t.Skipf("testdata: %v", err)
	}
	return string(data)
}

func TestOpenInConfinesTraceAndSideFiles(t *testing.T) {
	lib, secret := rootFixture(t)
	root, err := os.OpenRoot(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name    string
		ranks   int    // > 0: opens with that many ranks
		wantErr string // else: the error says this
	}{
		{name: "ring.tsim", ranks: 3},
		{name: "inside.tsim", ranks: 3}, // a link that stays inside
		{name: "ok.ti", ranks: 2},
		{name: "./ok.ti", ranks: 2},
		{name: "up.tsim", wantErr: "up.tsim: outside the library"},
		{name: "gone.tsim", wantErr: "gone.tsim: outside the library"},
		{name: "../secret/hidden.tsim", wantErr: "../secret/hidden.tsim: outside the library"},
		{name: filepath.Join(secret, "hidden.tsim"), wantErr: "outside the library"},
		{name: "ranks/0.ti", wantErr: "ranks/0.ti: outside the library"},
		{name: "dotdot.ti", wantErr: "dotdot.ti:1: opening ../secret/0.ti: outside the library"},
		{name: "abs.ti", wantErr: "abs.ti:1: opening " + filepath.Join(secret, "0.ti") + ": outside the library"},
		{name: "linked.ti", wantErr: "linked.ti:1: opening ranks/0.ti: outside the library"},
		{name: "sub/linkrank.ti", wantErr: "sub/linkrank.ti:1: opening r.ti: outside the library"},
		{name: "abslink.ti", wantErr: "abslink.ti: outside the library"},
		{name: "sub", wantErr: "sub: is a directory, not a trace file"},
		{name: "missing.tsim", wantErr: "missing.tsim: file does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, _, err := OpenIn(context.Background(), root, tc.name, "", nil)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("OpenIn: %v", err)
				}
				if len(tr.Ranks) != tc.ranks {
					t.Fatalf("%d ranks, want %d", len(tr.Ranks), tc.ranks)
				}
				return
			}
			if err == nil {
				t.Fatalf("opened %s (%d ranks), want %q", tc.name, len(tr.Ranks), tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %q, want it to contain %q", err, tc.wantErr)
			}
			// A link's target is never named: not the hidden file, not
			// the outside directory unless the user typed it.
			for _, leak := range []string{"hidden", "nothing", "escapes"} {
				if !strings.Contains(tc.name, leak) && strings.Contains(err.Error(), leak) {
					t.Fatalf("error %q reveals %q", err, leak)
				}
			}
			if !strings.Contains(tc.name, "secret") && !strings.Contains(tc.wantErr, "secret") && strings.Contains(err.Error(), "secret") {
				t.Fatalf("error %q reveals the link's target", err)
			}
		})
	}
}

// A link to an existing file outside and one to a missing file get the
// same error: the library's users learn nothing about the host.
func TestOpenInSameErrorWhetherTargetExists(t *testing.T) {
	lib, _ := rootFixture(t)
	root, err := os.OpenRoot(lib)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	_, _, e1 := OpenIn(context.Background(), root, "up.tsim", "", nil)
	_, _, e2 := OpenIn(context.Background(), root, "gone.tsim", "", nil)
	if e1 == nil || e2 == nil {
		t.Fatalf("errors %v, %v: want both refused", e1, e2)
	}
	got1 := strings.TrimPrefix(e1.Error(), "up.tsim")
	got2 := strings.TrimPrefix(e2.Error(), "gone.tsim")
	if got1 != got2 {
		t.Fatalf("errors differ: %q vs %q", e1, e2)
	}
}

// Every format tracesim reads can be opened from a library: a format made of several
// files needs a reader in rootReaders that opens them through the root.
func TestEveryFormatOpensInRoot(t *testing.T) {
	readers := rootReaders()
	for _, f := range All() {
		if _, ok := readers[f.Name]; !ok && f.Read != nil {
			t.Errorf("format %s has no reader in rootReaders: OpenIn refuses it", f.Name)
		}
	}
}
