package serve

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// keyring is the set of public keys allowed in, read from an OpenSSH
// authorized_keys file. The file is read again when it changes, so a
// teacher can add a late student without restarting the class's server.
type keyring struct {
	path string

	mu   sync.Mutex
	mod  time.Time
	size int64
	keys map[string]string // marshalled key → its comment ("alice@laptop")
}

// newKeyring reads path; a file that does not parse is an error at start,
// where the person starting the server can see it.
func newKeyring(path string) (*keyring, error) {
	k := &keyring{path: path}
	if err := k.reload(); err != nil {
		return nil, err
	}
	return k, nil
}

// lookup reports whether key is authorised and returns its comment.
// When the file changed but no longer parses, the previous keys stay in
// force and the error is returned alongside.
func (k *keyring) lookup(key gossh.PublicKey) (comment string, ok bool, err error) {
	err = k.reload()
	k.mu.Lock()
	defer k.mu.Unlock()
	comment, ok = k.keys[string(key.Marshal())]
	return comment, ok, err
}

// reload reads the file if it changed since the last read.
func (k *keyring) reload() error {
	st, err := os.Stat(k.path)
	if err != nil {
		return fmt.Errorf("authorized keys: %w", err)
	}
	k.mu.Lock()
	same := k.keys != nil && st.ModTime().Equal(k.mod) && st.Size() == k.size
	k.mu.Unlock()
	if same {
		return nil
	}
	data, err := readChecked(k.path)
	if err != nil {
		return err
	}
	keys, err := parseAuthorizedKeys(k.path, data)
	if err != nil {
		return err
	}
	k.mu.Lock()
	k.keys, k.mod, k.size = keys, st.ModTime(), st.Size()
	k.mu.Unlock()
	return nil
}

// maxAuthorizedKeys bounds the file: a classroom's keys are a few
// hundred bytes each.
const maxAuthorizedKeys = 4 << 20

// readChecked reads the file after checking, on the file as opened, that
// only the server's user or root can change it (checkStrictModes).
func readChecked(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	if err := checkStrictModes(path, st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, maxAuthorizedKeys+1))
	if err != nil {
		return nil, fmt.Errorf("authorized keys: %w", err)
	}
	if len(data) > maxAuthorizedKeys {
		return nil, fmt.Errorf("authorized keys %s: larger than %d MiB", path, maxAuthorizedKeys>>20)
	}
	return data, nil
}

// count returns the number of keys in force.
func (k *keyring) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.keys)
}

// parseAuthorizedKeys parses an authorized_keys file: one key a line,
// blank lines and # comments skipped. Options before a key (from=,
// command=, no-pty…) are accepted and ignored: the server runs nothing but
// the UI whatever they say.
func parseAuthorizedKeys(path string, data []byte) (map[string]string, error) {
	keys := make(map[string]string)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 16<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		key, comment, _, _, err := gossh.ParseAuthorizedKey(text)
		if err != nil {
			return nil, fmt.Errorf("authorized keys %s:%d: %w (expected \"TYPE BASE64 [COMMENT]\", as in ~/.ssh/id_ed25519.pub)", path, line, err)
		}
		if _, ok := key.(*gossh.Certificate); ok {
			return nil, fmt.Errorf("authorized keys %s:%d: a certificate, not a public key", path, line)
		}
		keys[string(key.Marshal())] = comment
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("authorized keys %s: %w", path, err)
	}
	return keys, nil
}
