package atomicfile

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestRefusesInputs: an output that is one of the inputs, by any name, is
// refused with an error naming both, and the input keeps its content.
func TestRefusesInputs(t *testing.T) {
	tests := []struct {
		name    string
		out     func(dir, in string) string // creates and returns the output path
		wantErr string
	}{
		{"same path", func(_, in string) string { return in }, "in.tsim: is also an input"},
		{"another spelling", func(dir, _ string) string { return filepath.Join(dir, ".", "sub", "..", "in.tsim") }, "is also an input"},
		{"hard link", func(dir, in string) string {
			p := filepath.Join(dir, "hard.tsim")
			must(t, os.Link(in, p))
			return p
		}, "hard.tsim: is the same file as the input"},
		{"symbolic link", func(dir, in string) string {
			p := filepath.Join(dir, "link.tsim")
			must(t, os.Symlink("in.tsim", p))
			return p
		}, "link.tsim: is the same file as the input"},
		{"link to a link", func(dir, in string) string {
			must(t, os.Symlink("in.tsim", filepath.Join(dir, "l1")))
			p := filepath.Join(dir, "l2")
			must(t, os.Symlink("l1", p))
			return p
		}, "l2: is the same file as the input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
			in := filepath.Join(dir, "in.tsim")
			must(t, os.WriteFile(in, []byte("input"), 0o644))
			out := tt.out(dir, in)
			err := WriteWith(out, Options{Inputs: []string{filepath.Join(dir, "other"), in}}, writeString("output"))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			if b, _ := os.ReadFile(in); string(b) != "input" {
				t.Errorf("input now holds %q", b)
			}
		})
	}
}

// TestWriteKeepsWhatUsersExpect: a rewritten file keeps its mode, a
// symbolic link is written through and stays a link, a new file is 0644.
func TestWriteKeepsWhatUsersExpect(t *testing.T) {
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string) string // returns the output path
		check    string                                // the file whose content and mode are checked
		wantMode fs.FileMode
		wantLink bool
	}{
		{"mode 0640 kept", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "out")
			must(t, os.WriteFile(p, []byte("old"), 0o600))
			must(t, os.Chmod(p, 0o640))
			return p
		}, "out", 0o640, false},
		{"new file", func(t *testing.T, dir string) string { return filepath.Join(dir, "out") }, "out", 0o644, false},
		{"symlink written through", func(t *testing.T, dir string) string {
			must(t, os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o600))
			p := filepath.Join(dir, "out")
			must(t, os.Symlink("target", p))
			return p
		}, "target", 0o600, true},
		{"dangling symlink creates its target", func(t *testing.T, dir string) string {
			p := filepath.Join(dir, "out")
			must(t, os.Symlink("target", p))
			return p
		}, "target", 0o644, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			out := tt.setup(t, dir)
			if err := Write(out, writeString("new")); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, tt.check)
			if b, _ := os.ReadFile(p); string(b) != "new" {
				t.Errorf("%s holds %q, want %q", tt.check, b, "new")
			}
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != tt.wantMode {
				t.Errorf("mode %v, want %v", st.Mode().Perm(), tt.wantMode)
			}
			lst, err := os.Lstat(out)
			if err != nil {
				t.Fatal(err)
			}
			if isLink := lst.Mode()&fs.ModeSymlink != 0; isLink != tt.wantLink {
				t.Errorf("output is a symbolic link: %v, want %v", isLink, tt.wantLink)
			}
		})
	}
}

// TestWriteToDevice: /dev/null is written to, not replaced.
func TestWriteToDevice(t *testing.T) {
	st, err := os.Stat(os.DevNull)
	if err != nil || st.Mode().IsRegular() {
		t.Skip("no device file to write")
	}
	if err := Write(os.DevNull, writeString("discarded")); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(os.DevNull)
	if err != nil || !os.SameFile(st, after) || after.Mode().IsRegular() {
		t.Fatalf("%s was replaced: %v %v", os.DevNull, after, err)
	}
}

// TestRemovesStaleTemps: a write removes our temporary files older than a
// day from its directory, and leaves recent ones and other files alone.
func TestRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-25 * time.Hour)
	files := []struct {
		name     string
		age      time.Time
		wantKept bool
	}{
		{".trace.tsim.tmp-123456", old, false},
		{".other.csv.tmp-9", old, false},
		{".trace.tsim.tmp-777", time.Now(), true}, // a writer may still own it
		{".notes.tmp-draft", old, true},           // not our pattern
		{"trace.tsim.tmp-123", old, true},         // not hidden: not ours
		{".tmp-123", old, true},                   // no target name
		{"kept.tsim", old, true},
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		must(t, os.WriteFile(p, nil, 0o644))
		must(t, os.Chtimes(p, f.age, f.age))
	}
	if err := Write(filepath.Join(dir, "out.tsim"), writeString("x")); err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		_, err := os.Stat(filepath.Join(dir, f.name))
		if kept := err == nil; kept != f.wantKept {
			t.Errorf("%s kept: %v, want %v", f.name, kept, f.wantKept)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
