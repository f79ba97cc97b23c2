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
