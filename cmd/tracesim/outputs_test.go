package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsNeverReplaceInputs: every command that writes refuses an
// output that is its input, under any name (issue 20), before doing the
// work, and leaves the input as it was.
func TestOutputsNeverReplaceInputs(t *testing.T) {
	ring, err := os.ReadFile(filepath.Join("..", "..", "testdata", "tsim", "ring3.tsim"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		args    func(dir string) []string
		wantErr string
	}{
		{"convert onto itself", func(d string) []string {
			return []string{"convert", filepath.Join(d, "x.tsim"), "-o", filepath.Join(d, "x.tsim"), "--to", "ti"}
		}, "x.tsim: is also an input"},
		{"convert onto a hard link", func(d string) []string {
			must(t, os.Link(filepath.Join(d, "x.tsim"), filepath.Join(d, "h.tsim")))
			return []string{"convert", filepath.Join(d, "x.tsim"), "-o", filepath.Join(d, "h.tsim")}
		}, "h.tsim: is the same file as the input"},
		{"convert onto a symlink to it", func(d string) []string {
			must(t, os.Symlink("x.tsim", filepath.Join(d, "l.tsim")))
			return []string{"convert", filepath.Join(d, "x.tsim"), "-o", filepath.Join(d, "l.tsim")}
		}, "l.tsim: is the same file as the input"},
		{"convert a TI index onto its rank file", func(d string) []string {
			return []string{"convert", filepath.Join(d, "run.txt"), "-o", filepath.Join(d, "run.txt_files", "rank-1.txt"), "--to", "ti"}
		}, "rank-1.txt: is also an input"},
		{"sim --messages-out onto the trace", func(d string) []string {
			return []string{"sim", filepath.Join(d, "x.tsim"), "--messages-out", filepath.Join(d, "x.tsim")}
		}, "--messages-out: "},
		{"sim --trace-out onto --messages-out", func(d string) []string {
			return []string{"sim", filepath.Join(d, "x.tsim"), "--messages-out", filepath.Join(d, "m.csv"), "--trace-out", filepath.Join(d, "m.csv")}
		}, "(another output of this run)"},
		{"fix onto itself", func(d string) []string {
			return []string{"fix", filepath.Join(d, "x.tsim"), "-o", filepath.Join(d, "x.tsim")}
		}, "tracesim fix: -o: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "x.tsim"), ring, 0o640))
			must(t, os.Mkdir(filepath.Join(dir, "run.txt_files"), 0o755))
			must(t, os.WriteFile(filepath.Join(dir, "run.txt"), []byte("run.txt_files/rank-0.txt\nrun.txt_files/rank-1.txt\n"), 0o644))
			rank1 := "1 init\n1 recv 0 0 8\n1 finalize\n"
			must(t, os.WriteFile(filepath.Join(dir, "run.txt_files", "rank-0.txt"), []byte("0 init\n0 send 1 0 8\n0 finalize\n"), 0o644))
			must(t, os.WriteFile(filepath.Join(dir, "run.txt_files", "rank-1.txt"), []byte(rank1), 0o644))
			code, _, errs := tracesim(t, tt.args(dir)...)
			if code == exitOK || !strings.Contains(errs, tt.wantErr) || !strings.Contains(errs, "refusing to replace it") {
				t.Fatalf("exit %d, stderr %q; want a refusal containing %q", code, errs, tt.wantErr)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "x.tsim")); string(b) != string(ring) {
				t.Error("the trace was changed")
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "run.txt_files", "rank-1.txt")); string(b) != rank1 {
				t.Error("the TI rank file was changed")
			}
		})
	}
}

// TestConvertKeepsModeAndLink: converting onto an existing 0640 file keeps
// its mode; onto a symbolic link writes the link's target.
func TestConvertKeepsModeAndLink(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join("..", "..", "testdata", "tsim", "ring3.tsim")
	out := filepath.Join(dir, "out.tsim")
	must(t, os.WriteFile(out, []byte("old"), 0o600))
	must(t, os.Chmod(out, 0o640))
	must(t, os.Symlink("out.tsim", filepath.Join(dir, "link.tsim")))
	for _, o := range []string{out, filepath.Join(dir, "link.tsim")} {
		if code, _, errs := tracesim(t, "convert", in, "-o", o); code != exitOK {
			t.Fatalf("convert -o %s: exit %d: %s", o, code, errs)
		}
	}
	st, err := os.Lstat(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o640 || !st.Mode().IsRegular() {
		t.Errorf("out.tsim: mode %v, want a regular file of mode 0640", st.Mode())
	}
	if l, err := os.Lstat(filepath.Join(dir, "link.tsim")); err != nil || l.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.tsim is no longer a symbolic link: %v %v", l, err)
	}
	if b, _ := os.ReadFile(out); !strings.HasPrefix(string(b), "tsim 1\n") {
		t.Errorf("out.tsim holds %.20q, want the converted trace", b)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
