package userfile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Space is the files one session may name besides traces: it reads from
// a library directory (topology graphs, placement maps, configurations
// the teacher put there) and writes only into its own subdirectory of it,
// so that students of one class cannot replace each other's saved
// configurations. Every name is relative to the library and goes through
// an os.Root: absolute names, ".." and links out of it are refused.
//
// A Space is safe for concurrent use.
type Space struct {
	root *os.Root // shared and owned by the caller; nil: dir is opened per use
	dir  string
	own  string // slash-separated, relative to the library; "" is the library itself
}

// NewSpace returns the space of a session in the library that root
// opens; the caller keeps root open as long as the space is used. own is
// the session's save directory relative to the library ("" saves in the
// library itself); it is created on the first save.
func NewSpace(root *os.Root, own string) *Space {
	return &Space{root: root, own: own}
}

// DirSpace is NewSpace for a library given by its path, opened for each
// use: for an application with one user and no server to own the root.
func DirSpace(dir, own string) *Space {
	return &Space{dir: dir, own: own}
}

// Own returns the save directory, relative to the library.
func (s *Space) Own() string { return s.own }

// with runs fn with the library's root.
func (s *Space) with(fn func(r *os.Root) error) error {
	if s.root != nil {
		return fn(s.root)
	}
	r, err := os.OpenRoot(s.dir)
	if err != nil {
		return fmt.Errorf("library: %w", plain(err))
	}
	defer r.Close()
	return fn(r)
}

// Open opens a file by its name relative to the library; it is the
// space's Opener (see InRoot).
func (s *Space) Open(name string) (fs.File, error) {
	var f fs.File
	err := s.with(func(r *os.Root) error {
		var err error
		f, err = InRoot(r)(name)
		return err
	})
	return f, err
}

// Find returns the library-relative name under which a file the user
// named is read: their own copy (in the save directory) when there is
// one, else the library's.
func (s *Space) Find(name string) string {
	if s.own == "" || !Local(name) {
		return name
	}
	mine := path.Join(s.own, filepath.ToSlash(name))
	if f, err := s.Open(mine); err == nil {
		f.Close()
		return mine
	}
	return name
}

// SaveName returns the library-relative name Save writes name to.
func (s *Space) SaveName(name string) (string, error) {
	if !Local(name) {
		return "", fmt.Errorf("%s: %w", name, ErrOutside)
	}
	return path.Join(s.own, filepath.ToSlash(filepath.Clean(name))), nil
}

// Save creates or replaces name in the save directory with what fn
// writes, atomically: a temporary file beside it, synced, then renamed
// over it, all through the os.Root. It returns the file's name relative
// to the library; errors name it that way too, never by the server's
// absolute path.
func (s *Space) Save(name string, fn func(w io.Writer) error) (string, error) {
	rel, err := s.SaveName(name)
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("%s: %w", rel, rootSaveError(err))
	}
	err = s.with(func(r *os.Root) error {
		native := filepath.FromSlash(rel)
		if dir := filepath.Dir(native); dir != "." {
			if err := r.MkdirAll(dir, 0o755); err != nil {
				if st, serr := r.Stat(dir); serr == nil && !st.IsDir() {
					return fmt.Errorf("%s is not a directory", filepath.ToSlash(dir))
				}
				return err
			}
		}
		// A name that is a directory or a link out of the library is not
		// replaced: Lstat does not follow the last link, and Rename would
		// replace the link itself, so refuse links outright.
		if st, err := r.Lstat(native); err == nil && !st.Mode().IsRegular() {
			return ErrNotRegular
		}
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		tmp := filepath.Join(filepath.Dir(native), "."+filepath.Base(native)+".tmp-"+hex.EncodeToString(b[:]))
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		ok := false
		defer func() {
			if !ok {
				f.Close()
				r.Remove(tmp)
			}
		}()
		bw := bufio.NewWriter(f)
		if err := fn(bw); err != nil {
			return err
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		if err := r.Rename(tmp, native); err != nil {
			return err
		}
		ok = true
		return nil
	})
	if err != nil {
		return fail(err)
	}
	return rel, nil
}

// rootSaveError drops the paths os.Root's errors carry (they may be the
// temporary file's) and names an escape for what it is.
func rootSaveError(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	if strings.Contains(err.Error(), "escapes") {
		return ErrOutside
	}
	return err
}
