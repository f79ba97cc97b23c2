package userfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// library makes a root directory with a few files, a FIFO and links, and
// a secret file beside it.
func library(t *testing.T) (dir string, root *os.Root) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "lib")
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(base, "secret.txt"), []byte("root:x:0:0:secret\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "net.txt"), []byte("router a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "big.txt"), make([]byte, 2000), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "exact.txt"), make([]byte, 1000), 0o644))
	must(t, os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "out-abs")))
	must(t, os.Symlink("../secret.txt", filepath.Join(dir, "out-rel")))
	must(t, os.Symlink("../missing.txt", filepath.Join(dir, "out-missing")))
	must(t, os.Symlink("net.txt", filepath.Join(dir, "in-link")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	r, err := os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return dir, r
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestReadAllInRoot(t *testing.T) {
	_, root := library(t)
	cases := []struct {
		name, want, err string
	}{
		{"net.txt", "router a\n", ""},
		{"in-link", "router a\n", ""},
		{"./sub/../net.txt", "router a\n", ""},
		{"exact.txt", strings.Repeat("\x00", 1000), ""},
		{"big.txt", "", "topology file big.txt: larger than the 1000 B limit for topology files"},
		{"/etc/passwd", "", "topology file /etc/passwd: outside the library"},
		{"../secret.txt", "", "topology file ../secret.txt: outside the library"},
		{"../missing.txt", "", "topology file ../missing.txt: outside the library"},
		{"out-abs", "", "topology file out-abs: outside the library"},
		{"out-rel", "", "topology file out-rel: outside the library"},
		{"out-missing", "", "topology file out-missing: outside the library"},
		{"/dev/zero", "", "topology file /dev/zero: outside the library"},
		{"fifo", "", "topology file fifo: not a regular file"},
		{"sub", "", "topology file sub: not a regular file"},
		{"nope.txt", "", "topology file nope.txt: file does not exist"},
	}
	for _, c := range cases {
		done := make(chan struct{})
		var data []byte
		var err error
		go func() {
			data, err = ReadAll(InRoot(root), "topology", c.name, 1000)
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: blocked", c.name)
		}
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && string(data) != c.want:
			t.Errorf("%s: read %q, want %q", c.name, data, c.want)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		case err != nil && strings.Contains(err.Error(), "root:x"):
			t.Errorf("%s: the error shows the outside file: %v", c.name, err)
		}
	}
}

func TestReadAllOS(t *testing.T) {
	dir, _ := library(t)
	cases := []struct {
		name, err string
	}{
		{"/dev/zero", "configuration file /dev/zero: not a regular file"},
		{filepath.Join(dir, "fifo"), "configuration file " + filepath.Join(dir, "fifo") + ": not a regular file"},
		{dir, "configuration file " + dir + ": not a regular file"},
		{filepath.Join(dir, "big.txt"), "configuration file " + filepath.Join(dir, "big.txt") + ": larger than the 1 KiB limit for configuration files"},
		{filepath.Join(dir, "nope"), "configuration file " + filepath.Join(dir, "nope") + ": no such file or directory"},
		{filepath.Join(dir, "exact.txt"), ""},
	}
	for _, c := range cases {
		_, err := ReadAll(nil, "configuration", c.name, 1024)
		if (err == nil) != (c.err == "") || (err != nil && !strings.HasPrefix(err.Error(), c.err)) {
			t.Errorf("%s: error %v, want %q", c.name, err, c.err)
		}
	}
}

// growing is a regular file whose size says little: it streams more than
// it declared, as /proc files do.
type growing struct{ n int }

func (g *growing) Stat() (fs.FileInfo, error) { return os.Stat(".") }
func (g *growing) Read(p []byte) (int, error) { g.n += len(p); return len(p), nil }
func (g *growing) Close() error               { return nil }

func TestLimitWhileReading(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "small"), []byte("x"), 0o644))
	f := &growing{}
	open := func(string) (fs.File, error) {
		st, err := os.Stat(filepath.Join(dir, "small"))
		return statFile{f, st}, err
	}
	r, err := Open(open, "placement", "map.txt", 4096)
	must(t, err)
	n, err := io.Copy(io.Discard, r)
	var le *LimitError
	if !errors.As(err, &le) || n != 4096 || err.Error() != "placement file map.txt: larger than the 4 KiB limit for placement files" {
		t.Errorf("read %d bytes, error %v; want 4096 and the limit error", n, err)
	}
	if f.n > 4096+32*1024 {
		t.Errorf("read %d bytes from the file past a limit of 4096", f.n)
	}
}

type statFile struct {
	*growing
	st fs.FileInfo
}

func (s statFile) Stat() (fs.FileInfo, error) { return s.st, nil }

// Save writes into the space's own directory only, atomically, and its
// errors name files relative to the library, never by absolute path.
func TestSpaceSave(t *testing.T) {
	dir, root := library(t)
	must(t, os.MkdirAll(filepath.Join(dir, "saved", "bob"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "saved", "carol"), []byte("a file, not a directory"), 0o644))
	must(t, os.Symlink(filepath.Join(filepath.Dir(dir), "secret.txt"), filepath.Join(dir, "saved", "bob", "link.toml")))
	write := func(w io.Writer) error { _, err := io.WriteString(w, "x = 1\n"); return err }
	cases := []struct {
		own, name, rel, err string
	}{
		{"saved/alice", "m.toml", "saved/alice/m.toml", ""},
		{"saved/alice", "sub/m.toml", "saved/alice/sub/m.toml", ""},
		{"saved/alice", "../bob/m.toml", "", "../bob/m.toml: outside the library"},
		{"saved/alice", "/tmp/m.toml", "", "/tmp/m.toml: outside the library"},
		{"saved/bob", "link.toml", "", "saved/bob/link.toml: not a regular file"},
		{"saved/carol", "m.toml", "", "saved/carol/m.toml: saved/carol is not a directory"},
	}
	for _, c := range cases {
		for _, sp := range []*Space{NewSpace(root, c.own), DirSpace(dir, c.own)} {
			rel, err := sp.Save(c.name, write)
			switch {
			case c.err == "" && (err != nil || rel != c.rel):
				t.Errorf("%s %s: %q %v, want %q", c.own, c.name, rel, err, c.rel)
			case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err) || strings.Contains(err.Error(), dir)):
				t.Errorf("%s %s: error %v, want %q", c.own, c.name, err, c.err)
			}
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "saved", "alice", "m.toml")); err != nil || string(data) != "x = 1\n" {
		t.Errorf("saved file: %q %v", data, err)
	}
	if data, _ := os.ReadFile(filepath.Join(filepath.Dir(dir), "secret.txt")); string(data) != "root:x:0:0:secret\n" {
		t.Errorf("the file a link points to was written: %q", data)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "saved", "alice"))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	// Find prefers the student's own copy, then the library's.
	sp := NewSpace(root, "saved/alice")
	for name, want := range map[string]string{"m.toml": "saved/alice/m.toml", "net.txt": "net.txt", "../x": "../x"} {
		if got := sp.Find(name); got != want {
			t.Errorf("Find(%q) = %q, want %q", name, got, want)
		}
	}
}
