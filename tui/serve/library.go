package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// ErrOutsideLibrary is returned for a trace name that would leave the
// library: an absolute path, a path with "..", or a symbolic link whose
// target lies outside the library directory.
var ErrOutsideLibrary = errors.New("outside the library")

// ErrNotInLibrary is returned for a trace name that names no file of the
// library.
var ErrNotInLibrary = errors.New("no such trace in the library")

// Library is a directory of traces shared by every session of a server.
// Each trace is loaded once, on first use, and the same *tracefmt.Trace is
// returned to every caller until the file changes on disk; callers must
// treat it as read-only.
//
// A Library is safe for concurrent use.
type Library struct {
	dir    string   // absolute, symbolic links resolved
	root   *os.Root // every file is opened through it, so it cannot escape dir
	format string

	// ctx bounds the loads: they run detached from the session that asked
	// first, so that a student who disconnects does not fail the load for
	// the others waiting on it.
	ctx    context.Context
	cancel context.CancelFunc

	mu    sync.Mutex
	cache map[string]*libEntry // by real path (links followed) relative to dir
	loads int                  // loads started, for tests and logs
}

// libEntry is one trace of the cache; done is closed when trace or err is
// set.
type libEntry struct {
	done  chan struct{}
	trace *tracefmt.Trace
	err   error
	// The file's modification time and size when it was loaded: a teacher
	// who replaces a trace during a class gets the new one in the next
	// sessions, while open sessions keep the version they have.
	mod  time.Time
	size int64
	took time.Duration
}

// OpenLibrary opens the library directory dir. Format forces the format
// of every trace ("" detects it from the content).
func OpenLibrary(dir, format string) (*Library, error) {
	if dir == "" {
		return nil, errors.New("library: no directory given")
	}
	if format != "" {
		if _, err := formats.Lookup(format); err != nil {
			return nil, fmt.Errorf("library: %w", err)
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", dir, err)
	}
	// Resolve the directory's own links once, so that the containment
	// check below compares real paths with a real path.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", dir, err)
	}
	st, err := os.Stat(real)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("library %s: not a directory", dir)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", dir, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Library{
		dir:    real,
		root:   root,
		format: format,
		ctx:    ctx,
		cancel: cancel,
		cache:  make(map[string]*libEntry),
	}, nil
}

// Dir returns the library's directory: absolute, symbolic links resolved.
func (l *Library) Dir() string { return l.dir }

// Close cancels loads in progress and releases the directory. Traces
// already returned stay valid.
func (l *Library) Close() error {
	l.cancel()
	if err := l.root.Close(); err != nil {
		return fmt.Errorf("library %s: %w", l.dir, err)
	}
	return nil
}

// Resolve checks that name is a trace file inside the library and returns
// its clean path relative to the library directory. A name without an
// extension matches the one file of its directory with that base name
// ("ring" finds "ring.tsim").
func (l *Library) Resolve(name string) (string, error) {
	rel, _, _, err := l.resolve(name)
	return rel, err
}

// resolve does Resolve and returns the file's real path relative to the
// library (links followed: the cache key, so that a link and its target
// share one trace) and its information too.
func (l *Library) resolve(name string) (rel, real string, st fs.FileInfo, err error) {
	if name == "" {
		return "", "", nil, fmt.Errorf("library: %w: empty trace name", ErrNotInLibrary)
	}
	if strings.ContainsRune(name, 0) || strings.ContainsFunc(name, isControl) {
		return "", "", nil, fmt.Errorf("library: %q: %w: control characters in the name", name, ErrOutsideLibrary)
	}
	// IsLocal refuses absolute paths, "..", and on Windows reserved names
	// and volume names: the lexical half of the check.
	if !filepath.IsLocal(filepath.FromSlash(name)) {
		return "", "", nil, fmt.Errorf("library: %q: %w", name, ErrOutsideLibrary)
	}
	rel = filepath.Clean(filepath.FromSlash(name))
	real, st, err = l.contained(rel)
	if errors.Is(err, fs.ErrNotExist) && filepath.Ext(rel) == "" {
		if alt, ok := l.byBaseName(rel); ok {
			rel = alt
			real, st, err = l.contained(rel)
		}
	}
	if err != nil {
		return "", "", nil, err
	}
	if !st.Mode().IsRegular() {
		return "", "", nil, fmt.Errorf("library: %q: %w: not a regular file", name, ErrNotInLibrary)
	}
	return rel, real, st, nil
}

// contained is the physical half of the check: it follows symbolic links
// and refuses a file whose real path lies outside the library. os.Root
// enforces the same rule when the file is opened; checking here too gives
// a clear error before any session state is set up. It returns the real
// path relative to the library.
func (l *Library) contained(rel string) (string, fs.FileInfo, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(l.dir, rel))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("library: %q: %w", filepath.ToSlash(rel), errors.Join(ErrNotInLibrary, fs.ErrNotExist))
		}
		return "", nil, fmt.Errorf("library: %q: %w", filepath.ToSlash(rel), err)
	}
	inside, err := filepath.Rel(l.dir, real)
	if err != nil || !filepath.IsLocal(inside) {
		// Never where the link leads: a session must learn nothing of
		// the server's files.
		return "", nil, fmt.Errorf("library: %q: %w", filepath.ToSlash(rel), ErrOutsideLibrary)
	}
	st, err := l.root.Stat(rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil, fmt.Errorf("library: %q: %w", filepath.ToSlash(rel), errors.Join(ErrNotInLibrary, fs.ErrNotExist))
		}
		return "", nil, fmt.Errorf("library: %q: %w: %v", filepath.ToSlash(rel), ErrOutsideLibrary, err)
	}
	return inside, st, nil
}

// byBaseName finds the only file next to rel whose name without its
// extension is rel's base name.
func (l *Library) byBaseName(rel string) (string, bool) {
	dir, base := filepath.Split(rel)
	if dir == "" {
		dir = "."
	}
	entries, err := fs.ReadDir(l.root.FS(), filepath.ToSlash(filepath.Clean(dir)))
	if err != nil {
		return "", false
	}
	found := ""
	for _, e := range entries {
		n := e.Name()
		if strings.TrimSuffix(n, filepath.Ext(n)) != base || strings.HasPrefix(n, ".") {
			continue
		}
		if found != "" {
			return "", false // ambiguous: make the user say which
		}
		found = n
	}
	if found == "" {
		return "", false
	}
	return filepath.Join(filepath.Clean(dir), found), true
}

// maxListed bounds List so that a huge directory cannot make an error
// message or a walk expensive.
const maxListed = 200

// List returns the library's trace files (by extension, and the SimGrid
// TI index files among its .txt files; hidden files and directories
// skipped), relative to its directory with forward slashes,
// sorted; at most 200.
func (l *Library) List() ([]string, error) {
	return l.walk(l.listable)
}

// Compressed lists the library's compressed traces (run.prv.gz,
// x.tsim.bz2), which it does not serve (formats.OpenIn refuses them: a
// session must not make the server decompress without bound), so that
// the server can tell the teacher at its start rather than leave them
// missing from the students' list without a word.
func (l *Library) Compressed() ([]string, error) {
	return l.walk(func(p string) bool {
		return formats.ByExtension(p) == nil && formats.OutputFormat(p) != nil
	})
}

// walk lists the regular files of the library (hidden ones and hidden
// directories left out) for which keep holds, sorted, at most maxListed.
func (l *Library) walk(keep func(p string) bool) ([]string, error) {
	var out []string
	err := fs.WalkDir(l.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // an unreadable subdirectory hides its traces, no more
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && keep(p) {
			out = append(out, p)
			if len(out) >= maxListed {
				return fs.SkipAll
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", l.dir, err)
	}
	slices.Sort(out)
	return out, nil
}

// listable reports whether the file at p (slash-separated, relative to
// the library) is a trace to list: by its extension, or a .txt file that
// is a SimGrid TI index. smpirun -trace-ti writes the index and one file
// per rank, all .txt; only the index is a whole trace.
func (l *Library) listable(p string) bool {
	if formats.ByExtension(p) != nil {
		return true
	}
	if !strings.EqualFold(path.Ext(p), ".txt") {
		return false
	}
	f, err := l.root.Open(filepath.FromSlash(p))
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, formats.SniffLen)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	return simgridti.Sniff(head) && tiIndex(head)
}

// tiIndex reports whether the first line of head that is not blank or a
// comment is a lone file name, as in an index (a rank's file has actions:
// "0 send 1 64").
func tiIndex(head []byte) bool {
	for _, line := range strings.Split(string(head), "\n") {
		fs := strings.Fields(line)
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		return len(fs) == 1
	}
	return false
}

// Load returns the trace name designates (see Resolve) and its clean
// relative path. Concurrent calls for the same file (whatever the link
// used to name it) share one load and get the same pointer; ctx bounds
// only this caller's wait.
func (l *Library) Load(ctx context.Context, name string) (*tracefmt.Trace, string, error) {
	rel, real, st, err := l.resolve(name)
	if err != nil {
		return nil, "", err
	}
	l.mu.Lock()
	e := l.cache[real]
	if e != nil && isDone(e) && (e.err != nil || !e.mod.Equal(st.ModTime()) || e.size != st.Size()) {
		e = nil // failed, or changed on disk since: load it again
	}
	if e == nil {
		e = &libEntry{done: make(chan struct{}), mod: st.ModTime(), size: st.Size()}
		l.cache[real] = e
		l.loads++
		go l.load(real, e)
	}
	l.mu.Unlock()
	select {
	case <-ctx.Done():
		return nil, "", fmt.Errorf("library: %s: %w", filepath.ToSlash(rel), ctx.Err())
	case <-e.done:
	}
	if e.err != nil {
		return nil, "", e.err
	}
	return e.trace, filepath.ToSlash(rel), nil
}

func isDone(e *libEntry) bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// load reads one trace into e.
func (l *Library) load(rel string, e *libEntry) {
	start := time.Now()
	e.trace, e.err = l.read(rel)
	e.took = time.Since(start)
	close(e.done)
}

// read parses the trace at rel. It opens the file through the os.Root
// (formats.OpenIn), not by path, so that the file read is the one
// checked even if a link is swapped in between; the files a trace made
// of several names (a SimGrid index's per-rank files) are opened through
// the root too, so an index cannot lead a session out of the library.
func (l *Library) read(rel string) (*tracefmt.Trace, error) {
	t, _, err := formats.OpenIn(l.ctx, l.root, filepath.ToSlash(rel), l.format, nil)
	if err != nil {
		if l.ctx.Err() != nil {
			return nil, fmt.Errorf("library: %s: %w", filepath.ToSlash(rel), l.ctx.Err())
		}
		return nil, fmt.Errorf("library: %w", err)
	}
	return t, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// SavedDir is the library's directory of the students' saves, one
// subdirectory per student (SaveDir).
const SavedDir = "saved"

// Space returns the file space of one session: it reads topology graphs,
// placement maps and configurations from the library through its
// os.Root, and saves into own (see SaveDir), relative to the library.
func (l *Library) Space(own string) *userfile.Space {
	return userfile.NewSpace(l.root, own)
}

// SaveDir returns a student's save directory relative to the library:
// saved/NAME-FINGERPRINT, NAME from the key's comment in authorized_keys
// (for the teacher to find) and FINGERPRINT from the key itself (so that
// two students with one comment still get two directories). Without a
// key (anonymous access) the SSH user name is all there is:
// saved/anonymous-USER.
func SaveDir(fingerprint, comment, user string) string {
	if fingerprint == "" {
		return SavedDir + "/anonymous-" + cleanName(user, "nobody")
	}
	_, fp, _ := strings.Cut(fingerprint, ":")
	fp = strings.NewReplacer("/", "_", "+", "-", "=", "").Replace(fp)
	if len(fp) > 16 {
		fp = fp[:16]
	}
	return SavedDir + "/" + cleanName(comment, "key") + "-" + fp
}

// cleanName keeps the letters, digits, '-', '_' and single '.' of s (at
// most 32 of them, not starting with '.'), or returns def when none are
// left.
func cleanName(s, def string) string {
	var b strings.Builder
	for _, r := range s {
		if b.Len() >= 32 {
			break
		}
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		case r == '.' && b.Len() > 0 && !strings.HasSuffix(b.String(), "."):
			b.WriteRune(r)
		case r == '@' || r == ' ':
			b.WriteRune('_')
		}
	}
	if b.Len() == 0 {
		return def
	}
	return b.String()
}
