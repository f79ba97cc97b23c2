package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The name check before a load only looks at the file the user picked;
// the load itself goes through the library's os.Root, so that the files
// a SimGrid index names are confined too. Each index here is inside the
// library and passes the check; its rank files lead out and the load
// fails, without naming where they lead.
func TestLibraryLoadConfinesSideFiles(t *testing.T) {
	base := t.TempDir()
	lib, secret := filepath.Join(base, "lib"), filepath.Join(base, "secret")
	rank := "0 init\n0 compute 1e6\n0 finalize\n"
	files := map[string]string{
		"secret/0.ti":       rank,
		"lib/ok.ti":         "ok_files/0.ti\n",
		"lib/ok_files/0.ti": rank,
		"lib/dotdot.ti":     "../secret/0.ti\n",
		"lib/abs.ti":        filepath.Join(secret, "0.ti") + "\n",
		"lib/viadir.ti":     "out/0.ti\n",
		"lib/vialink.ti":    "r0.ti\n",
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
	if err := os.Symlink("../secret", filepath.Join(lib, "out")); err != nil {
		t.Skip("no symlinks:", err)
	}
	if err := os.Symlink("../secret/0.ti", filepath.Join(lib, "r0.ti")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		file string
		want string // "" : loads
	}{
		{"ok.ti", ""},
		{"dotdot.ti", "dotdot.ti:1: opening ../secret/0.ti: outside the library"},
		{"abs.ti", "outside the library"},
		{"viadir.ti", "viadir.ti:1: opening out/0.ti: outside the library"},
		{"vialink.ti", "vialink.ti:1: opening r0.ti: outside the library"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			m := newModel(t, 100, 30, func(o *Options) { o.Library = lib })
			if m.startLoad(filepath.Join(lib, tc.file)); m.load == nil {
				t.Fatalf("the load did not start: %s", m.err)
			}
			finishLoad(t, m)
			if tc.want == "" {
				if m.err != "" || m.Trace() == nil || m.Trace().Size() != 1 {
					t.Fatalf("load failed: %q", m.err)
				}
				return
			}
			if !strings.Contains(m.err, tc.want) {
				t.Fatalf("error %q, want %q", m.err, tc.want)
			}
			if tc.file != "abs.ti" && strings.Contains(m.err, base) {
				t.Fatalf("error %q names the host's path", m.err)
			}
		})
	}
}
