package serve

import (
	"path/filepath"
	"testing"
)

// FuzzResolve: whatever name a client sends, a name the library accepts
// designates a regular file whose real path lies inside the library.
func FuzzResolve(f *testing.F) {
	dir, _ := newLibraryDir(f)
	lib, err := OpenLibrary(dir, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { lib.Close() })
	for _, s := range []string{"ring", "ring.tsim", "../../etc/passwd", "/etc/passwd", "escape.tsim",
		"etc/passwd", "week2/../ring.tsim", "week2/pingpong", "alias.tsim", "./././ring.tsim", "..\\..\\x", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		rel, err := lib.Resolve(name)
		if err != nil {
			return
		}
		real, err := filepath.EvalSymlinks(filepath.Join(lib.Dir(), rel))
		if err != nil {
			t.Fatalf("Resolve(%q) = %q, which does not resolve: %v", name, rel, err)
		}
		inside, err := filepath.Rel(lib.Dir(), real)
		if err != nil || !filepath.IsLocal(inside) {
			t.Fatalf("Resolve(%q) = %q, really %s: outside the library", name, rel, real)
		}
	})
}

// FuzzParseAuthorizedKeys: any file content gives keys or an error,
// never a panic.
func FuzzParseAuthorizedKeys(f *testing.F) {
	f.Add([]byte("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGnA4r6Xbh6CjmzRv3lq5fH1xNf8d1rK0cQmJYvH0c8a alice\n"))
	f.Add([]byte("# comment\n\nno-pty,command=\"x\" ssh-ed25519 AAAA bob\n"))
	f.Add([]byte("\xff\xfe"))
	f.Fuzz(func(t *testing.T, data []byte) {
		keys, err := parseAuthorizedKeys("ak", data)
		if err == nil && keys == nil {
			t.Fatal("nil keys without an error")
		}
	})
}
