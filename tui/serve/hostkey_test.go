package serve

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"
)

// TestLoadHostKey: the first start generates an ed25519 key with mode
// 0600 and its .pub; the next start loads the same key.
func TestLoadHostKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "host")
	first, created, err := LoadHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if !created || first.PublicKey().Type() != gossh.KeyAlgoED25519 {
		t.Fatalf("created %v, type %s", created, first.PublicKey().Type())
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %#o, want 0600", st.Mode().Perm())
	}
	pub, err := os.ReadFile(path + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pub, gossh.MarshalAuthorizedKey(first.PublicKey())) {
		t.Errorf(".pub = %q", pub)
	}
	// No temporary files or directories left next to the key.
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 2 {
		t.Errorf("%d entries next to the key, want 2 (key and .pub)", len(entries))
	}

	second, created, err := LoadHostKey(path)
	if err != nil {
		t.Fatal(err)
	}
	if created || !bytes.Equal(second.PublicKey().Marshal(), first.PublicKey().Marshal()) {
		t.Error("the second start did not load the same key")
	}
}

// TestLoadHostKeyRefusesReadableKey: like sshd, a private key others can
// read is refused with the fix in the message.
func TestLoadHostKeyRefusesReadableKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host")
	if _, _, err := LoadHostKey(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err := LoadHostKey(path)
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("err = %v", err)
	}
}

func TestLoadHostKeyGarbage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host")
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadHostKey(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v, want an error naming the file", err)
	}
}

func TestParseAuthorizedKeys(t *testing.T) {
	k := newClientKey(t)
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k.PublicKey())))
	good := "# class of 2026\n\n" + line + " bob@lab\n" + `no-pty,command="ls" ` + line + " again\n"
	keys, err := parseAuthorizedKeys("ak", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 1 {
		t.Errorf("%d keys, want 1", len(keys))
	}
	_, err = parseAuthorizedKeys("ak", []byte(line+"\nssh-ed25519 AAAAbroken\n"))
	if err == nil || !strings.Contains(err.Error(), "ak:2") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}

func TestNewConfigErrors(t *testing.T) {
	lib, _, _ := openTestLibrary(t)
	host, _, err := LoadHostKey(filepath.Join(t.TempDir(), "host"))
	if err != nil {
		t.Fatal(err)
	}
	ak := filepath.Join(t.TempDir(), "ak")
	if err := os.WriteFile(ak, gossh.MarshalAuthorizedKey(newClientKey(t).PublicKey()), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"no host key":    {Library: lib, AuthorizedKeys: ak},
		"no library":     {HostKey: host, AuthorizedKeys: ak},
		"no auth":        {HostKey: host, Library: lib},
		"both auths":     {HostKey: host, Library: lib, AuthorizedKeys: ak, AllowAnonymous: true},
		"missing keys":   {HostKey: host, Library: lib, AuthorizedKeys: ak + ".missing"},
		"negative idle":  {HostKey: host, Library: lib, AuthorizedKeys: ak, IdleTimeout: -1},
		"bad keys files": {HostKey: host, Library: lib, AuthorizedKeys: lib.Dir() + "/ring.tsim"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
}

// TestLoadHostKeyStaysInItsDirectory: the key and its .pub are read and
// written through an os.Root on their directory, so a link out of it (to
// another key, to a file that does not exist yet, through "..") is
// refused, and nothing is read or created outside.
func TestLoadHostKeyStaysInItsDirectory(t *testing.T) {
	tests := []struct {
		name string
		// setup makes links in dir (the key's directory) towards out, a
		// directory beside it holding a valid key "key".
		setup func(t *testing.T, dir, out string)
	}{
		{"key links to a key outside", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join(out, "key"), filepath.Join(dir, "host"))
		}},
		{"key links relatively with ..", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join("..", filepath.Base(out), "key"), filepath.Join(dir, "host"))
		}},
		{"key links to a missing file outside", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join(out, "new"), filepath.Join(dir, "host"))
		}},
		{"key links through a subdirectory and ..", func(t *testing.T, dir, out string) {
			if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join("sub", "..", "..", filepath.Base(out), "key"), filepath.Join(dir, "host"))
		}},
		{".pub links outside", func(t *testing.T, dir, out string) {
			symlink(t, filepath.Join(out, "new.pub"), filepath.Join(dir, "host.pub"))
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir, out := filepath.Join(base, "config"), filepath.Join(base, "elsewhere")
			for _, d := range []string{dir, out} {
				if err := os.Mkdir(d, 0o700); err != nil {
					t.Fatal(err)
				}
			}
			if _, _, err := LoadHostKey(filepath.Join(out, "key")); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadDir(out)
			tc.setup(t, dir, out)
			signer, _, err := LoadHostKey(filepath.Join(dir, "host"))
			if err == nil {
				t.Fatalf("loaded key %s through a link out of %s", gossh.FingerprintSHA256(signer.PublicKey()), dir)
			}
			if !strings.Contains(err.Error(), filepath.Join(dir, "host")) {
				t.Errorf("error %q does not name the key", err)
			}
			if after, _ := os.ReadDir(out); len(after) != len(before) {
				t.Errorf("%d files in the other directory, %d before: something was written there", len(after), len(before))
			}
		})
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}
