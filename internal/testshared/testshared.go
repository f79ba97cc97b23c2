// Package testshared finds the external sample traces tests read when they
// are there: the shared directory's testdata-external, kept beside the
// repository rather than in it (their licences and sizes differ).
//
// The shared directory is $TRACESIM_SHARED when set, else the first
// directory named "shared" beside the module root or one of its
// ancestors: /work/main's ../shared, and as well a worktree's
// /work/wt/NAME → /work/shared. A path relative to a package's directory
// ("../../../shared") resolved only from one checkout.
package testshared

import (
	"os"
	"path/filepath"
	"testing"
)

// Env is the variable that names the shared directory.
const Env = "TRACESIM_SHARED"

// External returns the testdata-external directory, or "" when there is
// none.
func External() string {
	if d := os.Getenv(Env); d != "" {
		return filepath.Join(d, "testdata-external")
	}
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	root := moduleRoot(wd)
	if root == "" {
		return ""
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "testdata-external")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// moduleRoot returns the nearest directory at or above dir holding a
// go.mod, "" when there is none.
func moduleRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// Dir returns the testdata-external directory, or, when there is none, a
// path that does not exist, so that a test joining a sample's name to it
// finds the sample absent and skips as it would without the directory.
func Dir() string {
	if d := External(); d != "" {
		return d
	}
	return filepath.Join(string(filepath.Separator), "nonexistent", "tracesim-shared", "testdata-external")
}

// Path returns the external sample at rel (slash-separated, under
// testdata-external), or "" when the sample or the directory is absent.
func Path(rel string) string {
	d := External()
	if d == "" {
		return ""
	}
	p := filepath.Join(d, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// Require returns the samples of rels that are present, and skips t
// (naming what is missing and where it looked) when fewer than min are,
// so that a test that compares over external samples is reported as
// skipped rather than passing on too few.
func Require(t testing.TB, min int, rels ...string) []string {
	t.Helper()
	var out, missing []string
	for _, rel := range rels {
		if p := Path(rel); p != "" {
			out = append(out, p)
		} else {
			missing = append(missing, rel)
		}
	}
	if len(out) < min {
		where := External()
		if where == "" {
			where = "no shared/testdata-external beside the module or its parents, and $" + Env + " unset"
		}
		t.Skipf("%d of %d external samples present (need %d; missing %v; looked in %s)", len(out), len(rels), min, missing, where)
	}
	return out
}
