// Package atomicfile writes files so that a reader (or a crash) never sees
// a half-written file: the content goes to a temporary file in the same
// directory, which is synced and then renamed over the target.
//
// Writing also guards what users expect of an output: it never replaces
// one of the inputs it was made from (the same path, a hard link or a
// symbolic link to it), a symbolic link is written through to its target
// and stays a link, a rewritten file keeps its permissions, and the
// temporary files a killed writer left behind are removed a day later.
package atomicfile

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleAge is how old a temporary file of ours must be before a write in
// its directory removes it: old enough that no writer still running can
// own it.
const StaleAge = 24 * time.Hour

// tempMarker sits between the target's name and CreateTemp's random
// digits in a temporary file's name: ".NAME.tmp-123456789".
const tempMarker = ".tmp-"

// Options tune WriteWith.
type Options struct {
	// Inputs are files the output must not replace; the write is refused
	// when the target is one of them.
	Inputs []string
	// KeepStale skips the removal of stale temporary files, for callers
	// that write many files into one directory and clean it once.
	KeepStale bool
	// Context, when set, stops the write once it is cancelled (SIGINT,
	// SIGTERM): every write to the file checks it (the writer hands
	// down a megabyte at a time), the temporary file is removed and the
	// previous file stays as it was.
	Context context.Context
	// Limit, when positive, is the most bytes the file may take: a write
	// beyond it fails with ErrLimit, and the previous file stays.
	Limit int64
	// Gzip compresses what the writer is given with gzip (see Gzipped:
	// an output named .gz); Limit bounds the compressed bytes, those on
	// disk.
	Gzip bool
}

// Gzipped reports whether path names a gzip file (.gz or .gzip, any
// case), which an output is then written as (Options.Gzip).
func Gzipped(path string) bool {
	ext := filepath.Ext(path)
	return strings.EqualFold(ext, ".gz") || strings.EqualFold(ext, ".gzip")
}

// compressed runs fn on a gzip writer over w when gz is set, else on w.
func compressed(w io.Writer, gz bool, fn func(w io.Writer) error) error {
	if !gz {
		return fn(w)
	}
	z := gzip.NewWriter(w)
	if err := fn(z); err != nil {
		return err
	}
	return z.Close()
}

// ErrLimit is the error of a write beyond Options.Limit.
var ErrLimit = errors.New("output larger than its limit")

// guardedWriter is the file under the buffer: it stops at a cancelled
// context and at the limit.
type guardedWriter struct {
	w       io.Writer
	ctx     context.Context
	limit   int64
	written int64
}

func (g *guardedWriter) Write(p []byte) (int, error) {
	if g.ctx != nil {
		if err := g.ctx.Err(); err != nil {
			return 0, fmt.Errorf("interrupted: %w", err)
		}
	}
	if g.limit > 0 && g.written+int64(len(p)) > g.limit {
		return 0, fmt.Errorf("%w (%d bytes)", ErrLimit, g.limit)
	}
	n, err := g.w.Write(p)
	g.written += int64(n)
	return n, err
}

// Write creates or replaces path with what fn writes. If fn or any step
// fails, the previous file (if any) is left untouched and the temporary file
// is removed.
func Write(path string, fn func(w io.Writer) error) error {
	return WriteWith(path, Options{}, fn)
}

// WriteWith is Write with options. A symbolic link at path is followed and
// its final target is replaced; an existing target keeps its permission
// bits (a new file gets 0644); a target that is a device or a pipe
// (/dev/null) is written directly, since there is no file to replace.
func WriteWith(path string, o Options, fn func(w io.Writer) error) (err error) {
	target, err := resolve(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := CheckNotInput(path, o.Inputs...); err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		switch {
		case st.IsDir():
			return fmt.Errorf("%s: is a directory, not a file to write", path)
		case !st.Mode().IsRegular():
			return writeDirect(path, target, o.Gzip, fn)
		}
		mode = st.Mode().Perm()
	}
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	if !o.KeepStale {
		RemoveStale(dir, time.Now())
	}
	f, err := os.CreateTemp(dir, "."+base+tempMarker+"*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(&guardedWriter{w: f, ctx: o.Context, limit: o.Limit}, 1<<20)
	if err = compressed(bw, o.Gzip, fn); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if o.Context != nil {
		// Cancelled after the last write: the file may be whole, but the
		// user asked to stop, so nothing is replaced.
		if err = o.Context.Err(); err != nil {
			return fmt.Errorf("%s: interrupted: %w", path, err)
		}
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// CreateTemp makes the file 0600: give it the mode of the file it
	// replaces, or the usual one for a new trace or config.
	if err = os.Chmod(tmp, mode); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = os.Rename(tmp, target); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// writeDirect writes to a target that is not a regular file.
func writeDirect(path, target string, gz bool, fn func(w io.Writer) error) error {
	f, err := os.OpenFile(target, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	if err := compressed(bw, gz, fn); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// maxLinks bounds the symbolic links resolve follows, as the kernel does.
const maxLinks = 40

// resolve follows symbolic links from path to the file a write should
// replace. Unlike filepath.EvalSymlinks it accepts a link whose target does
// not exist yet: writing through it creates the target.
func resolve(path string) (string, error) {
	for range maxLinks {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", fmt.Errorf("more than %d levels of symbolic links", maxLinks)
}

// CheckNotInput returns an error when writing out would replace one of
// inputs: the same file by another path, a hard link to it, or a symbolic
// link leading to it. Inputs that do not exist are ignored.
func CheckNotInput(out string, inputs ...string) error {
	target, err := resolve(out)
	if err != nil {
		return fmt.Errorf("%s: %w", out, err)
	}
	ost, err := os.Stat(target)
	if err != nil {
		// Nothing there yet, so nothing read from there either; but
		// two spellings of one new path are still one file.
		for _, in := range inputs {
			if sameName(target, in) {
				return refuse(out, in)
			}
		}
		return nil
	}
	for _, in := range inputs {
		ist, err := os.Stat(in)
		if err == nil && os.SameFile(ost, ist) {
			return refuse(out, in)
		}
	}
	return nil
}

func refuse(out, in string) error {
	if filepath.Clean(out) == filepath.Clean(in) {
		return fmt.Errorf("%s: is also an input: refusing to replace it with an output (choose another output file)", out)
	}
	return fmt.Errorf("%s: is the same file as the input %s: refusing to replace it with an output (choose another output file)", out, in)
}

// sameName reports whether two paths name the same place once made
// absolute and cleaned.
func sameName(a, b string) bool {
	a, errA := filepath.Abs(a)
	b, errB := filepath.Abs(b)
	return errA == nil && errB == nil && a == b
}

// RemoveStale removes the temporary files of this package in dir that are
// older than StaleAge at now: those a writer killed before its rename left
// behind. Errors are ignored: cleaning is a courtesy, not part of a write.
func RemoveStale(dir string, now time.Time) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !isTemp(e.Name()) || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil || now.Sub(info.ModTime()) < StaleAge {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

// isTemp reports whether name is one of our temporary files:
// ".NAME.tmp-DIGITS".
func isTemp(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	i := strings.LastIndex(name, tempMarker)
	if i < 2 {
		return false
	}
	digits := name[i+len(tempMarker):]
	if digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
