package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"
)

// LoadHostKey returns the server's host key from path, generating an
// ed25519 key there first when the file does not exist (created reports
// that). The private key is written with mode 0600 and its public half to
// path+".pub", so that students can check the fingerprint the server logs.
// Like sshd, it refuses a private key that others may read.
//
// Every read and write goes through an os.Root on path's directory (the
// configuration directory by default): a key file that is a link out of
// it (to another user's key, to /etc) is refused rather than read, and
// nothing is created outside it.
func LoadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	if path == "" {
		return nil, false, errors.New("host key: no path given")
	}
	dir, name := filepath.Dir(path), filepath.Base(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	defer root.Close()
	data, err := root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		if err := generateHostKey(root, name); err != nil {
			return nil, false, err
		}
		created = true
		data, err = root.ReadFile(name)
	}
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	st, err := root.Stat(name)
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, false, fmt.Errorf("host key %s: not a regular file", path)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("host key %s: mode %#o lets others read it; run chmod 600 %s", path, st.Mode().Perm(), path)
	}
	signer, err = gossh.ParsePrivateKey(data)
	if err != nil {
		return nil, false, fmt.Errorf("host key %s: %w", path, err)
	}
	if created {
		// From the key on disk, not the one generated: another server
		// starting at the same moment may have won the race.
		line := gossh.MarshalAuthorizedKey(signer.PublicKey())
		if err := writeIn(root, name+".pub", line, 0o644, true); err != nil {
			return nil, false, fmt.Errorf("host key %s.pub: %w", path, err)
		}
	}
	return signer, created, nil
}

// generateHostKey writes a new ed25519 key in OpenSSH format to name in
// root.
func generateHostKey(root *os.Root, name string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("host key: generate: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "tracesim host key")
	if err != nil {
		return fmt.Errorf("host key: encode: %w", err)
	}
	if err := writeIn(root, name, pem.EncodeToMemory(block), 0o600, false); err != nil {
		return fmt.Errorf("host key %s: %w", name, err)
	}
	return nil
}

// writeIn writes data to name in root atomically: a temporary file beside
// it, created with mode perm from the start (a private key is never
// readable by others, not even for a moment), synced, then moved into
// place. With replace false the move is a link, so that a file that
// appeared meanwhile (a second server started at the same moment) is kept
// rather than replaced. Every step goes through root, so a name that is a
// link out of root's directory is refused.
func writeIn(root *os.Root, name string, data []byte, perm os.FileMode, replace bool) error {
	tmp := "." + name + ".new-" + rand.Text()
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	defer root.Remove(tmp)
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if replace {
		if st, err := root.Lstat(name); err == nil && !st.Mode().IsRegular() {
			return fmt.Errorf("%s: not a regular file", name)
		}
		return root.Rename(tmp, name)
	}
	err = root.Link(tmp, name)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	return err
}
