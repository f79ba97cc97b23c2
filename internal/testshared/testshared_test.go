package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

func TestExternal(t *testing.T) {
	base := t.TempDir()
	// base/shared/testdata-external/a.txt beside base/wt/repo (go.mod).
	repo := filepath.Join(base, "wt", "repo")
	ext := filepath.Join(base, "shared", "testdata-external")
	for _, d := range []string{filepath.Join(repo, "pkg", "sub"), ext} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(repo, "go.mod"), filepath.Join(ext, "a.txt")} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(filepath.Join(repo, "pkg", "sub"))
	t.Setenv(Env, "")
	if got := External(); got != ext {
		t.Errorf("walking up: External() = %q, want %q", got, ext)
	}
	if got := Path("a.txt"); got != filepath.Join(ext, "a.txt") {
		t.Errorf("Path(a.txt) = %q", got)
	}
	if got := Path("b.txt"); got != "" {
		t.Errorf("Path of a missing sample = %q, want \"\"", got)
	}
	other := t.TempDir()
	t.Setenv(Env, other)
	if got := External(); got != filepath.Join(other, "testdata-external") {
		t.Errorf("with $%s: External() = %q", Env, got)
	}
}

func TestRequireSkips(t *testing.T) {
	t.Setenv(Env, t.TempDir())
	skipped := true
	t.Run("too few", func(t *testing.T) {
		Require(t, 1, "nothing/here.txt")
		skipped = false
	})
	if !skipped {
		t.Error("Require with no sample present did not skip")
	}
}
