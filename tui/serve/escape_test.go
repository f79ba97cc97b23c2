package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A SimGrid index inside the library passes the name check; the files
// it lists are opened through the library's root too, so one that lists
// a file outside (by "..", by an absolute path, through a link to a
// directory or to a file) is refused at open, and the error a session
// sees names neither the server's paths nor where a link leads.
func TestLibraryIndexSideFilesStayInside(t *testing.T) {
	dir, outside := newLibraryDir(t)
	base := filepath.Dir(dir)
	rank := "0 init\n0 compute 1e6\n0 finalize\n"
	files := map[string]string{
		"hidden/0.ti":          rank,
		"lib/ok.ti":            "ok_files/0.ti\n",
		"lib/ok_files/0.ti":    rank,
		"lib/dotdot.ti":        "../hidden/0.ti\n",
		"lib/abs.ti":           filepath.Join(base, "hidden", "0.ti") + "\n",
		"lib/viadir.ti":        "out/0.ti\n",
		"lib/week2/vialink.ti": "r0.ti\n",
		"lib/week2/updir.ti":   "../../hidden/0.ti\n",
		"lib/week2/sibling.ti": "../ok_files/0.ti\n",
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
	for link, target := range map[string]string{
		"lib/out":         "../hidden",
		"lib/week2/r0.ti": "../../hidden/0.ti",
	} {
		if err := os.Symlink(target, filepath.Join(base, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	lib, err := OpenLibrary(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer lib.Close()
	tests := []struct {
		name string
		want string // "": loads one rank
	}{
		{"ok.ti", ""},
		{"week2/sibling.ti", ""}, // ".." that stays inside
		{"dotdot.ti", "library: dotdot.ti:1: opening ../hidden/0.ti: outside the library"},
		{"abs.ti", "library: abs.ti:1: opening "},
		{"viadir.ti", "library: viadir.ti:1: opening out/0.ti: outside the library"},
		{"week2/vialink.ti", "library: week2/vialink.ti:1: opening r0.ti: outside the library"},
		{"week2/updir.ti", "library: week2/updir.ti:1: opening ../../hidden/0.ti: outside the library"},
		{"escape.tsim", `library: "escape.tsim": outside the library`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, _, err := lib.Load(t.Context(), tc.name)
			if tc.want == "" {
				if err != nil || len(tr.Ranks) != 1 {
					t.Fatalf("Load: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("loaded %s, want %q", tc.name, tc.want)
			}
			if got := err.Error(); !strings.HasPrefix(got, tc.want) || !strings.Contains(got, "outside the library") {
				t.Fatalf("error %q, want %q… outside the library", got, tc.want)
			}
			if tc.name != "abs.ti" && (strings.Contains(err.Error(), base) || strings.Contains(err.Error(), outside)) {
				t.Fatalf("error %q names the server's files", err)
			}
		})
	}
}
