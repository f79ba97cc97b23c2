package formats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/dumpi"
	"github.com/tracesim/tracesim/tracefmt/otf2"
	"github.com/tracesim/tracesim/tracefmt/paraver"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// SideOpener opens a file that a trace made of several files names (a
// SimGrid index's per-rank files), by the name the trace gives it.
type SideOpener func(name string) (io.ReadCloser, error)

// readIn reads a trace of format fm from r, the content of the file
// called name, and opens its other files, if any, through open only.
type readIn func(fm *Format, name string, r io.Reader, open SideOpener) (*tracefmt.Trace, error)

// rootReaders returns, by format name, how OpenIn reads each format.
// A format made of several files must be listed with a reader that opens
// its side files through the SideOpener; a format absent from this table
// cannot be opened in a root at all, so that one added to All with a
// Read that opens side files by path is refused rather than let out of
// the library. Single-file formats use their Read, which takes the name
// for its messages only.
func rootReaders() map[string]readIn {
	m := map[string]readIn{
		"ti": func(_ *Format, name string, r io.Reader, open SideOpener) (*tracefmt.Trace, error) {
			return simgridti.ReadNamedContext(readerContext(r), name, r, simgridti.Opener(open))
		},
		"otf2": func(_ *Format, name string, r io.Reader, open SideOpener) (*tracefmt.Trace, error) {
			t, _, err := otf2.Read(name, r, stoppedWith(r, otf2.Opener(open)))
			return t, err
		},
		"paraver": func(_ *Format, name string, r io.Reader, open SideOpener) (*tracefmt.Trace, error) {
			return paraver.Read(name, r, paraver.Opener(open))
		},
		"dumpi": func(_ *Format, name string, r io.Reader, open SideOpener) (*tracefmt.Trace, error) {
			return dumpi.Read(name, r, dumpi.Opener(open))
		},
	}
	single := func(fm *Format, name string, r io.Reader, _ SideOpener) (*tracefmt.Trace, error) {
		return fm.Read(name, r)
	}
	for _, n := range []string{"clog2", "clog", "tsim", "alog", "dimemas", "goal"} {
		m[n] = single
	}
	return m
}

// OpenIn reads the trace called name in the directory root opens, as
// Open does, but confined to root: the file and every file it names (the
// per-rank files of a SimGrid index) are opened through the os.Root, so
// an absolute name, a ".." out of the root or a symbolic link that leads
// out is refused at open — with an error that names the file as given
// and says it is outside the library, never where the link points nor
// whether that target exists. Names are slash- or OS-separated, relative
// to root. An empty format name means detection by content.
func OpenIn(ctx context.Context, root *os.Root, name, format string, progress Progress) (*tracefmt.Trace, *Format, error) {
	name = filepath.ToSlash(name)
	open := userfile.InRoot(root)
	f, err := open(name)
	if err != nil {
		if errors.Is(err, userfile.ErrNotRegular) {
			if st, serr := root.Stat(filepath.FromSlash(name)); serr == nil && st.IsDir() {
				return nil, nil, fmt.Errorf("%s: is a directory, not a trace file", name)
			}
		}
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	head, err := readHead(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if kind := compression(head); kind != "" {
		// A compressed file's size says nothing of what it holds: a
		// session must not make the server decompress a file of any
		// size it likes, so the teacher decompresses it beforehand.
		return nil, nil, fmt.Errorf("%s: %s-compressed: a library's traces are read uncompressed (decompress it in the library first)", name, kind)
	}
	fm, err := formatOf(head, name, format)
	if err != nil {
		return nil, nil, err
	}
	if fm.Read == nil {
		return nil, fm, fmt.Errorf("%s: tracesim writes %s files but cannot read them", name, fm.Name)
	}
	read, ok := rootReaders()[fm.Name]
	if !ok {
		return nil, fm, fmt.Errorf("%s: %s traces cannot be opened from a library yet", name, fm.Name)
	}
	dir := path.Dir(name)
	side := func(listed string) (io.ReadCloser, error) {
		// Listed names are relative to the trace's directory; an
		// absolute one, or one that climbs out of the root, is refused
		// by InRoot (path.Join keeps a leading "..").
		if filepath.IsAbs(listed) || strings.HasPrefix(listed, "/") {
			return nil, userfile.ErrOutside
		}
		rc, err := open(path.Join(dir, filepath.ToSlash(listed)))
		if err != nil {
			return nil, err
		}
		return rc, nil
	}
	r := withFile(&watchedReader{ctx: ctx, r: io.MultiReader(bytes.NewReader(head), f), total: st.Size(), progress: progress}, f)
	t, err := read(fm, name, r, side)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fm, ctx.Err()
		}
		if index, ok := tiIndexIn(root, name); ok && fm.Name == "ti" {
			return nil, fm, fmt.Errorf("%s: this is one rank's file of an indexed trace: open %s (%w)", name, index, err)
		}
		return nil, fm, addPath(name, err)
	}
	if t.Format == "" {
		t.Format = fm.Name
	}
	return t, fm, nil
}

// tiIndexIn is tiIndexOf for a name in root.
func tiIndexIn(root *os.Root, name string) (string, bool) {
	index, ok := strings.CutSuffix(path.Dir(name), "_files")
	if !ok || index == "" || index == "." {
		return "", false
	}
	if st, err := root.Stat(filepath.FromSlash(index)); err != nil || st.IsDir() {
		return "", false
	}
	return index, true
}
