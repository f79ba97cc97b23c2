//go:build unix

package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestStrictModes: an authorized_keys file that another user could
// change stops the server with OpenSSH's message, naming the file or the
// directory at fault.
func TestStrictModes(t *testing.T) {
	type setup struct {
		fileMode, dirMode, parentMode os.FileMode
		fileOwner                     int // -1: the test's user
	}
	for _, tc := range []struct {
		name string
		setup
		want string // "" when the server starts
	}{
		{"fine 0600", setup{0o600, 0o700, 0o755, -1}, ""},
		{"readable by all 0644", setup{0o644, 0o755, 0o755, -1}, ""},
		{"file 0666", setup{0o666, 0o700, 0o755, -1}, "Authentication refused: bad ownership or modes for file %F (writable by others, mode 0666)"},
		{"file group-writable 0620", setup{0o620, 0o700, 0o755, -1}, "Authentication refused: bad ownership or modes for file %F (writable by its group"},
		{"directory 0777 without sticky bit", setup{0o600, 0o777, 0o755, -1}, "Authentication refused: bad ownership or modes for directory %D (writable by others, mode 0777)"},
		{"group-writable directory 0770", setup{0o600, 0o770, 0o755, -1}, "Authentication refused: bad ownership or modes for directory %D (writable by its group, mode 0770)"},
		{"sticky directory 1777", setup{0o600, 0o777 | os.ModeSticky, 0o755, -1}, ""},
		{"ancestor 0777", setup{0o600, 0o700, 0o777, -1}, "Authentication refused: bad ownership or modes for directory %P (writable by others"},
		{"file of another user", setup{0o600, 0o700, 0o755, 4242}, "Authentication refused: bad ownership or modes for file %F (owned by uid 4242"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.fileOwner >= 0 && os.Geteuid() != 0 {
				t.Skip("changing a file's owner needs root")
			}
			parent := filepath.Join(t.TempDir(), "class")
			dir := filepath.Join(parent, "keys")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(dir, "authorized_keys")
			key := newClientKey(t)
			if err := os.WriteFile(file, gossh.MarshalAuthorizedKey(key.PublicKey()), 0o600); err != nil {
				t.Fatal(err)
			}
			// Chmod, not the umask-filtered creation modes.
			for _, c := range []struct {
				path string
				mode os.FileMode
			}{{file, tc.fileMode}, {dir, tc.dirMode}, {parent, tc.parentMode}} {
				if err := os.Chmod(c.path, c.mode); err != nil {
					t.Fatal(err)
				}
			}
			t.Cleanup(func() { os.Chmod(parent, 0o755) })
			if tc.fileOwner >= 0 {
				if err := os.Chown(file, tc.fileOwner, -1); err != nil {
					t.Fatal(err)
				}
			}
			lib, err := OpenLibrary(t.TempDir(), "")
			if err != nil {
				t.Fatal(err)
			}
			defer lib.Close()
			host, _, err := LoadHostKey(filepath.Join(t.TempDir(), "host"))
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(Config{HostKey: host, AuthorizedKeys: file, Library: lib})
			if tc.want == "" {
				if err != nil {
					t.Fatalf("New: %v", err)
				}
				return
			}
			want := strings.NewReplacer("%F", file, "%D", dir, "%P", parent).Replace(tc.want)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("New error = %v\nwant one with %q", err, want)
			}
		})
	}
}

// TestStrictModesOnReload: a changed file that fails the check is not
// read; the keys in force stay, and the refusal is logged.
func TestStrictModesOnReload(t *testing.T) {
	ts := startServer(t, nil)
	late := newClientKey(t)
	ts.addKey(t, late, 0o666)
	if c, err := ts.dial("mallory", gossh.PublicKeys(late)); err == nil {
		c.Close()
		t.Fatal("a key added to a file writable by all got in")
	}
	c := ts.connect(t) // the key in force before
	c.Close()
	waitLog(t, ts, "Authentication refused: bad ownership or modes for file "+ts.keys)
}
