// Package userfile opens the small files a user names by path — topology
// graphs, placement maps, configurations — and reads them with a size
// limit that fits their kind. A name that is not a regular file
// (/dev/zero, a FIFO, a directory) is refused before anything is read,
// so that "file:/dev/zero" cannot exhaust the memory of a server nor a
// FIFO block it; a file that grows past its limit while being read fails
// with an error that says so.
//
// Where the files come from is an Opener: the file system for the command
// line (OS), a directory (Dir), or an os.Root (InRoot) for a served
// session, which confines names to a library.
package userfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// Size limits by kind of file. A topology graph of 4 MiB holds about
// 150,000 links; a placement map of 8 MiB lists half a million ranks one
// by one (ranges and a map line need far less); a configuration is a few
// kilobytes; a SimGrid platform of 16 MiB describes some 100,000 hosts
// one by one (a cluster zone describes any number in one line).
const (
	TopologyLimit  = 4 << 20
	PlacementLimit = 8 << 20
	ConfigLimit    = 1 << 20
	PlatformLimit  = 16 << 20
)

// ErrNotRegular is returned for a name that is not a regular file.
var ErrNotRegular = errors.New("not a regular file")

// ErrOutside is returned by InRoot for a name that would leave the root:
// an absolute path, "..", or a symbolic link out of it. Its message never
// says whether the outside file exists.
var ErrOutside = errors.New("outside the library (give a path relative to it, without ..)")

// Opener opens a file a user named. It should refuse what is not a
// regular file before opening it, as OS and InRoot do: opening a FIFO
// blocks until a writer comes. Open checks again on the opened file.
type Opener func(name string) (fs.File, error)

// OS opens name by path from the file system (relative to the working
// directory), refusing what is not a regular file once links are followed.
func OS(name string) (fs.File, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	return os.Open(name)
}

// Dir opens names relative to dir (absolute names as they are), as OS
// does; an empty dir is the working directory.
func Dir(dir string) Opener {
	return func(name string) (fs.File, error) {
		if dir != "" && !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return OS(name)
	}
}

// InRoot opens names relative to root and nowhere else: absolute names,
// ".." and symbolic links that leave root get ErrOutside whether or not
// the file they designate exists; what is not a regular file gets
// ErrNotRegular.
func InRoot(root *os.Root) Opener {
	return func(name string) (fs.File, error) {
		if !Local(name) {
			return nil, ErrOutside
		}
		name = filepath.Clean(filepath.FromSlash(name))
		st, err := root.Stat(name)
		if err != nil {
			return nil, rootError(err)
		}
		if !st.Mode().IsRegular() {
			return nil, ErrNotRegular
		}
		f, err := root.Open(name)
		if err != nil {
			return nil, rootError(err)
		}
		return f, nil
	}
}

// Local reports whether name stays inside the directory it is relative
// to, lexically: not empty, not absolute, no "..", no control characters.
func Local(name string) bool {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return false
	}
	return filepath.IsLocal(filepath.FromSlash(name))
}

// rootError keeps "no such file" (the name is inside the root, so its
// absence tells nothing about the host) and turns every other failure of
// os.Root — an escape by a link, above all — into ErrOutside, without the
// underlying error, which could name the link's target.
func rootError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fs.ErrNotExist
	case errors.Is(err, fs.ErrPermission):
		return fs.ErrPermission
	}
	return ErrOutside
}

// LimitError is a file larger than the limit for its kind.
type LimitError struct {
	Kind  string // "topology", "placement", "configuration"
	Name  string // as the user gave it
	Limit int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s file %s: larger than the %s limit for %s files", e.Kind, e.Name, units.FormatBytes(e.Limit), e.Kind)
}

// Open opens name with open (nil: OS) as a file of the given kind
// ("topology", "placement", "configuration"), refuses it unless it is a
// regular file of at most limit bytes, and returns a reader that fails
// with a *LimitError if it grows past limit while being read. Errors
// start with "KIND file NAME:".
func Open(open Opener, kind, name string, limit int64) (io.ReadCloser, error) {
	if open == nil {
		open = OS
	}
	f, err := open(name)
	if err != nil {
		return nil, fmt.Errorf("%s file %s: %w", kind, name, plain(err))
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s file %s: %w", kind, name, plain(err))
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s file %s: %w", kind, name, ErrNotRegular)
	}
	lim := &LimitError{Kind: kind, Name: name, Limit: limit}
	if st.Size() > limit {
		f.Close()
		return nil, lim
	}
	return &limited{f: f, left: limit, err: lim}, nil
}

// ReadAll reads the whole file as Open opens it.
func ReadAll(open Opener, kind, name string, limit int64) ([]byte, error) {
	r, err := Open(open, kind, name, limit)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		var le *LimitError
		if errors.As(err, &le) {
			return nil, err
		}
		return nil, fmt.Errorf("%s file %s: %w", kind, name, plain(err))
	}
	return data, nil
}

// plain drops the operation and path an *fs.PathError adds ("open
// net.txt: no such file or directory"): the caller names the file
// already, as the user wrote it.
func plain(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// limited reads at most left bytes and fails past them.
type limited struct {
	f    fs.File
	left int64
	err  *LimitError
}

func (l *limited) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, l.err
	}
	// Read one byte more than allowed, to tell a file of exactly the
	// limit from a longer one.
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.f.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return max(n+int(l.left), 0), l.err
	}
	return n, err
}

func (l *limited) Close() error { return l.f.Close() }
