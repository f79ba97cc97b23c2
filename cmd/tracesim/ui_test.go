package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The UI itself is tested in package tui (goldens, layouts, a tmux
// end-to-end run); these tests cover the command line that starts it.
func TestUIFlags(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.tsim"), filepath.Join(dir, "b.tsim")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("tsim 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		args []string
		code int
		out  string // in stdout or stderr
	}{
		{"help", []string{a, "--help"}, exitOK, "Colour theme: dark, light"},
		{"help lists the library", []string{"--no-color", "--help"}, exitOK, "library"},
		{"unknown theme", []string{a, "--theme", "neon"}, exitUsage, `unknown theme "neon"`},
		{"unknown flag", []string{"--sparkle"}, exitUsage, "sparkle"},
		{"two files", []string{a, b}, exitUsage, "expected 0 to 1 arguments"},
		{"missing file after a flag", []string{"--theme", "dark", filepath.Join(dir, "nope.clog2")}, exitFail, "nope.clog2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := tracesim(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, c.code, out, errs)
			}
			if !strings.Contains(out+errs, c.out) {
				t.Errorf("output lacks %q:\nstdout: %s\nstderr: %s", c.out, out, errs)
			}
		})
	}
}
