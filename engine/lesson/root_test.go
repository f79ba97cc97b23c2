package lesson

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDirStaysInItsDirectory: a served lessons directory is read through
// an os.Root, so a lesson that is a link out of it, or a trace that a
// lesson reaches by a link or by "..", is refused with an error naming
// the lesson; a link inside the directory is followed.
func TestDirStaysInItsDirectory(t *testing.T) {
	lessonText := func(trace string) []byte {
		return []byte("---\ntitle: T\nlevel: beginner\ntrace: " + trace + "\n---\nText.\n\n## Look\nAt the timeline.\n")
	}
	ring, err := builtinFS.ReadFile("builtin/exchange4.tsim")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// setup fills dir (the lessons) and out (a directory beside it
		// that holds a lesson "out.md" and a trace "out.tsim").
		setup   func(t *testing.T, dir, out string)
		dirErr  string // Dir's error, "" for none
		loadErr string // then LoadTrace's error for the first lesson
	}{
		{"lesson links out", func(t *testing.T, dir, out string) {
			link(t, filepath.Join(out, "out.md"), filepath.Join(dir, "a.md"))
		}, "a.md: statat a.md: path escapes from parent", ""},
		{"lesson links out with ..", func(t *testing.T, dir, out string) {
			link(t, filepath.Join("..", "out", "out.md"), filepath.Join(dir, "a.md"))
		}, "a.md: statat a.md: path escapes from parent", ""},
		{"trace is ../", func(t *testing.T, dir, out string) {
			write(t, filepath.Join(dir, "a.md"), lessonText("../out/out.tsim"))
		}, "a trace file is named relative to the lesson, inside its directory", ""},
		{"trace links out", func(t *testing.T, dir, out string) {
			write(t, filepath.Join(dir, "a.md"), lessonText("t.tsim"))
			link(t, filepath.Join(out, "out.tsim"), filepath.Join(dir, "t.tsim"))
		}, "", "path escapes from parent"},
		{"trace links inside", func(t *testing.T, dir, out string) {
			write(t, filepath.Join(dir, "a.md"), lessonText("t.tsim"))
			write(t, filepath.Join(dir, "real.tsim"), ring)
			link(t, "real.tsim", filepath.Join(dir, "t.tsim"))
		}, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, out := filepath.Join(base, "lessons"), filepath.Join(base, "out")
			for _, d := range []string{dir, out} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			write(t, filepath.Join(out, "out.md"), lessonText("out.tsim"))
			write(t, filepath.Join(out, "out.tsim"), ring)
			tc.setup(t, dir, out)
			ls, err := Dir(dir)
			if tc.dirErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.dirErr) || !strings.Contains(err.Error(), filepath.Join(dir, "a.md")) {
					t.Fatalf("Dir = %d lessons, %v; want an error naming %s with %q", len(ls), err, filepath.Join(dir, "a.md"), tc.dirErr)
				}
				return
			}
			if err != nil || len(ls) != 1 {
				t.Fatalf("Dir = %d lessons, %v", len(ls), err)
			}
			tr, err := ls[0].LoadTrace(context.Background())
			if tc.loadErr == "" {
				if err != nil || len(tr.Ranks) != 4 {
					t.Fatalf("LoadTrace: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.loadErr) || !strings.Contains(err.Error(), filepath.Join(dir, "a.md")) {
				t.Errorf("LoadTrace = %v; want an error naming the lesson with %q", err, tc.loadErr)
			}
		})
	}
}

func link(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, name); err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
