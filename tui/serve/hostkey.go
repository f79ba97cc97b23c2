package serve

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	gossh "golang.org/x/crypto/ssh"

	"github.com/tracesim/tracesim/internal/atomicfile"
)

// LoadHostKey returns the server's host key from path, generating an
// ed25519 key there first when the file does not exist (created reports
// that). The private key is written with mode 0600 and its public half to
// path+".pub", so that students can check the fingerprint the server logs.
// Like sshd, it refuses a private key that others may read.
func LoadHostKey(path string) (signer gossh.Signer, created bool, err error) {
	if path == "" {
		return nil, false, errors.New("host key: no path given")
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := generateHostKey(path); err != nil {
			return nil, false, err
		}
		created = true
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
	}
	st, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("host key: %w", err)
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
		err := atomicfile.Write(path+".pub", func(w io.Writer) error {
			_, err := w.Write(line)
			return err
		})
		if err != nil {
			return nil, false, fmt.Errorf("host key: %w", err)
		}
	}
	return signer, created, nil
}

// generateHostKey writes a new ed25519 key in OpenSSH format to path.
func generateHostKey(path string) error {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return fmt.Errorf("host key: generate: %w", err)
	}
	block, err := gossh.MarshalPrivateKey(priv, "tracesim host key")
	if err != nil {
		return fmt.Errorf("host key: encode: %w", err)
	}
	if err := writePrivate(path, pem.EncodeToMemory(block)); err != nil {
		return fmt.Errorf("host key: %w", err)
	}
	return nil
}

// writePrivate writes data to path atomically with mode 0600.
// atomicfile.Write gives its files mode 0644 before the rename, which
// would show a private key to every local user for a moment; so the file
// is written inside a fresh 0700 directory next to path (same file
// system, so the final rename stays atomic), narrowed to 0600 there, and
// only then renamed into place.
func writePrivate(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmpDir, err := os.MkdirTemp(dir, "."+filepath.Base(path)+".new-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmpDir)
	tmp := filepath.Join(tmpDir, filepath.Base(path))
	err = atomicfile.Write(tmp, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	// Link rather than rename: a key that appeared meanwhile (a second
	// server started at the same moment) must not be replaced.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil
		}
		return os.Rename(tmp, path)
	}
	return nil
}
