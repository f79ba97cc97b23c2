//go:build unix

package serve

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// checkStrictModes refuses an authorized_keys file that someone other
// than the server's user (or root) could change, as OpenSSH's StrictModes
// does: st is the file as opened, path its name. The file must be a
// regular file owned by the server's user or root and not writable by
// group or others; so must every directory up to the root, except that a
// directory writable by all with the sticky bit (/tmp) is allowed, since
// nobody else may then replace or rename what is in it.
func checkStrictModes(path string, st fs.FileInfo) error {
	uid := uint32(os.Geteuid())
	refused := func(kind, name string, fi fs.FileInfo, why string) error {
		return fmt.Errorf("authorized keys: Authentication refused: bad ownership or modes for %s %s (%s, mode %#o)", kind, name, why, fi.Mode().Perm())
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("authorized keys %s: not a regular file (%s)", path, st.Mode().Type())
	}
	if why := badOwnerOrMode(st, uid, false); why != "" {
		return refused("file", path, st, why)
	}
	abs, err := filepath.Abs(path)
	if err == nil {
		abs, err = filepath.EvalSymlinks(abs)
	}
	if err != nil {
		return fmt.Errorf("authorized keys: %w", err)
	}
	for dir := filepath.Dir(abs); ; dir = filepath.Dir(dir) {
		dst, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("authorized keys: %w", err)
		}
		if why := badOwnerOrMode(dst, uid, true); why != "" {
			return refused("directory", dir, dst, why)
		}
		if parent := filepath.Dir(dir); parent == dir {
			return nil
		}
	}
}

// badOwnerOrMode says what is wrong with fi for the user uid, "" when
// nothing is.
func badOwnerOrMode(fi fs.FileInfo, uid uint32, dir bool) string {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok && sys.Uid != uid && sys.Uid != 0 {
		return fmt.Sprintf("owned by uid %d, not the server's user (uid %d) or root", sys.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 == 0 || dir && fi.Mode()&fs.ModeSticky != 0 {
		return ""
	}
	if fi.Mode().Perm()&0o002 != 0 {
		return "writable by others"
	}
	return "writable by its group"
}
