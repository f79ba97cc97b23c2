// Package formats is the table of trace formats tracesim reads and writes:
// detection by content, opening a file with progress and cancellation, and
// saving atomically in a named format.
package formats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/tracesim/tracesim/internal/atomicfile"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// Format describes one trace format.
type Format struct {
	// Name is the short name used by --format and --to ("clog2").
	Name string
	// Description is a one-line human description.
	Description string
	// Extensions lists file name extensions, with the dot (".clog2").
	Extensions []string
	// Sniff reports whether the first bytes of a file (up to SniffLen) look
	// like this format.
	Sniff func(head []byte) bool
	// Read parses a trace from r, the content of the file at path; formats
	// made of several files open the others relative to path. Nil for
	// write-only formats (Perfetto's JSON).
	Read func(path string, r io.Reader) (*tracefmt.Trace, error)
	// Write writes t to w, which will become the file at path; formats made
	// of several files write the others next to it. Nil for read-only
	// formats.
	Write func(path string, w io.Writer, t *tracefmt.Trace, o WriteOptions) error
	// Timed reports whether the format stores timestamps; writing an
	// untimed trace to a timed format needs times assigned first.
	Timed bool
	// Stream opens the trace at path as a tracefmt.Source, which yields
	// each rank's events without reading the trace whole; it returns
	// ErrNotStreamable when the file's layout does not allow it. Nil for
	// formats that never stream.
	Stream func(path string) (tracefmt.Source, error)
}

// ErrNotStreamable says that a trace must be read whole (Open): its
// format or its layout holds no rank's events apart from the others'.
var ErrNotStreamable = errors.New("the trace cannot be streamed rank by rank")

// OpenSource opens the trace at path as a tracefmt.Source when its format
// and layout allow (a SimGrid TI index of per-rank files, a tsim file:
// indexed first, see tsim.Source), else returns
// ErrNotStreamable. format names the format as for Open (empty:
// detected).
func OpenSource(path, format string) (tracefmt.Source, error) {
	return OpenSourceWith(path, format, SourceOptions{})
}

// SourceOptions tunes OpenSourceWith.
type SourceOptions struct {
	// SendersUnused tells that the caller never reads the header's
	// tracefmt.AttrUnrecordedSources (a replay under --any-source free,
	// which lets any sender match whatever the trace says): a TI index's
	// rank files are then not scanned for wildcard receives before the
	// first event (a read of every file: 23 MB and about 10 ms on the
	// 256-rank SimGrid stencil), and the header keeps the reader's "" (not
	// known yet).
	SendersUnused bool
}

// OpenSourceWith is OpenSource with options.
func OpenSourceWith(path, format string, o SourceOptions) (tracefmt.Source, error) {
	fm, err := detectFile(path, format)
	if errors.Is(err, errCompressed) {
		return nil, ErrNotStreamable
	}
	if err != nil {
		return nil, err
	}
	if fm.Stream == nil {
		return nil, ErrNotStreamable
	}
	src, err := fm.Stream(path)
	if err != nil {
		if errors.Is(err, ErrNotStreamable) {
			return nil, err
		}
		return nil, addPath(path, err)
	}
	if fm.Name == "ti" && !o.SendersUnused {
		src = withoutUnrecordedSources(path, src)
	}
	return src, nil
}

// SniffLen is how many leading bytes Detect passes to Sniff.
const SniffLen = 4096

// Readable reports whether tracesim can read the format.
func (f *Format) Readable() bool { return f.Read != nil }

// Writable reports whether tracesim can write the format.
func (f *Format) Writable() bool { return f.Write != nil }

// Lookup returns the format with the given name.
func Lookup(name string) (*Format, error) {
	all := All()
	for i := range all {
		if all[i].Name == name {
			return &all[i], nil
		}
	}
	return nil, fmt.Errorf("unknown format %q (known: %s)", name, strings.Join(Names(false), ", "))
}

// Names lists the names of all formats, or of the writable ones.
func Names(writable bool) []string {
	var out []string
	for _, f := range All() {
		if !writable || f.Writable() {
			out = append(out, f.Name)
		}
	}
	return out
}

// ByExtension returns the format whose extension path has, or nil.
func ByExtension(path string) *Format {
	ext := strings.ToLower(filepath.Ext(path))
	all := All()
	for i := range all {
		for _, e := range all[i].Extensions {
			if e == ext {
				return &all[i]
			}
		}
	}
	return nil
}

// Detect picks the format of a file from its first bytes, falling back to
// its extension when no format recognises the content.
func Detect(path string, head []byte) (*Format, error) {
	all := All()
	for i := range all {
		if all[i].Sniff != nil && all[i].Sniff(head) {
			return &all[i], nil
		}
	}
	if f := ByExtension(path); f != nil {
		return f, nil
	}
	if what := foreign(head); what != "" {
		return nil, fmt.Errorf("%s: %s", path, what)
	}
	return nil, fmt.Errorf("%s: unrecognised trace format (use --format; known: %s)", path, strings.Join(Names(false), ", "))
}

// Progress is called while a file loads with the bytes read so far and the
// file size. A reader that looks the file over first (tsim counts each
// rank's records) fills the first tenth of the size with that pass and
// the rest with the read proper: done only grows, whatever the passes.
// Calls may come from another goroutine than the load's, one at a time.
type Progress func(done, total int64)

// Open reads the trace at path. An empty format name means detection by
// content. The read stops with ctx's error when ctx is cancelled.
func Open(ctx context.Context, path, format string, progress Progress) (*tracefmt.Trace, *Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if st.IsDir() {
		if anchors, _ := filepath.Glob(filepath.Join(path, "*.otf2")); len(anchors) == 1 {
			// An OTF2 archive is a directory of files: say which one
			// names it.
			return nil, nil, fmt.Errorf("%s: is a directory, not a trace file (open its OTF2 anchor file %s)", path, anchors[0])
		}
		return nil, nil, fmt.Errorf("%s: is a directory, not a trace file", path)
	}
	head, err := readHead(f)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	// name is what the reader is given (side files are found beside it,
	// the format's extension is its), shown what errors call the file.
	// A compressed file is read through its decompressor as the file its
	// name less the suffix names, and errors say "(decompressed)", so
	// that a line or offset is not looked for in the compressed bytes.
	name, shown := path, path
	w := &watchedReader{ctx: ctx, r: io.MultiReader(bytes.NewReader(head), f), total: st.Size(), progress: progress}
	r := withFile(w, f)
	if kind := compression(head); kind != "" {
		dr, err := decompressor(path, kind, w)
		if err == nil {
			dr = &decompressing{r: dr, kind: kind, compressed: w}
			if head, err = readHead(dr); err != nil {
				err = fmt.Errorf("%s: %w", path, err)
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, err
		}
		name, shown = decompressedName(path), path+" (decompressed)"
		r = io.MultiReader(bytes.NewReader(head), dr)
	}
	fm, err := formatOf(head, name, format)
	if err != nil {
		return nil, nil, renamed(err, name, shown)
	}
	if !fm.Readable() {
		return nil, nil, fmt.Errorf("%s: tracesim writes %s files but cannot read them (readable: %s)", shown, fm.Name, strings.Join(readable(), ", "))
	}
	t, err := fm.Read(name, r)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fm, ctx.Err()
		}
		if index, ok := tiIndexOf(name); ok && fm.Name == "ti" {
			// A rank's file read alone names ranks it does not know of:
			// the useful message is where the whole trace is.
			return nil, fm, fmt.Errorf("%s: this is one rank's file of an indexed trace: open %s (%w)", shown, index, err)
		}
		return nil, fm, renamed(addPath(name, err), name, shown)
	}
	if t.Format == "" {
		t.Format = fm.Name
	}
	return t, fm, nil
}

// tiIndexOf returns the index file of an indexed SimGrid TI trace that
// path is one rank's file of: SimGrid writes the ranks' files into
// "<index>_files/" beside the index.
func tiIndexOf(path string) (string, bool) {
	dir := filepath.Dir(path)
	index, ok := strings.CutSuffix(dir, "_files")
	if !ok || index == "" {
		return "", false
	}
	if st, err := os.Stat(index); err != nil || st.IsDir() {
		return "", false
	}
	return index, true
}

// addPath names the file at path in a reader's error once: unchanged
// when the reader named it by path already, the base name a reader put
// first ("x.prv:4: …", "x.bin: …") replaced by path, else path prefixed.
// A prefix on top of the base name said it twice ("/d/x.prv: x.prv:4").
func addPath(path string, err error) error {
	msg := err.Error()
	if strings.Contains(msg, path) {
		return err
	}
	if base := filepath.Base(path); base != path {
		if rest, ok := strings.CutPrefix(msg, base); ok && (strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, " ")) {
			return &renamedError{msg: path + rest, err: err}
		}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// renamedError is a reader's error whose leading file name addPath
// replaced; errors.Is and errors.As still see the reader's error.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// WriteOptions tune writing a trace in a format other than its own.
type WriteOptions struct {
	// CPUSpeed (flops/s) converts between time and work: an untimed trace
	// written to a timed format gets timestamps from its compute amounts at
	// this speed, and a timed trace written to a replay format gets compute
	// amounts from its computation time. Zero means: refuse to invent
	// timestamps, and use the replay format's default speed for work.
	CPUSpeed float64
	// Inputs are files the output must not replace (see InputFiles); the
	// write is refused when the output is one of them.
	Inputs []string
	// Context, when set, stops a write once it is cancelled (SIGINT):
	// the write fails with its error within a buffer's worth of output
	// and the temporary file is removed.
	Context context.Context
}

// stopped returns the context's error once it is cancelled.
func (o WriteOptions) stopped() error {
	if o.Context == nil {
		return nil
	}
	return o.Context.Err()
}

// readable lists the names of the formats tracesim reads.
func readable() []string {
	var out []string
	for _, f := range All() {
		if f.Readable() {
			out = append(out, f.Name)
		}
	}
	return out
}

// InputFiles returns the files a trace at path is read from: path itself
// and, for a SimGrid TI index, every file it lists. format names the
// format as for Open (empty: detected).
func InputFiles(path, format string) ([]string, error) {
	files := []string{path}
	fm, err := detectFile(path, format)
	if err != nil || fm.Name != "ti" {
		// A file that cannot be read is reported by the reader.
		return files, nil
	}
	listed, err := simgridti.IndexFiles(path)
	if err != nil {
		return nil, addPath(path, err)
	}
	return append(files, listed...), nil
}

// detectFile returns the named format, or the format of the file at path.
func detectFile(path, format string) (*Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head, err := readHead(f)
	if err != nil {
		return nil, err
	}
	if compression(head) != "" {
		return nil, errCompressed
	}
	return pick(path, format, head)
}

// formatOf picks the format of the file called name whose first bytes
// are head: the named one, else the one detected.
func formatOf(head []byte, name, format string) (*Format, error) {
	if len(head) == 0 {
		// The format the name or --format gives says where it expected
		// what (x.goal:1: empty file: expected num_ranks N); otherwise
		// said plainly: "unrecognised format" would send the user
		// looking for a --format to try.
		fm := ByExtension(name)
		if format != "" {
			var err error
			if fm, err = Lookup(format); err != nil {
				return nil, err
			}
		}
		if fm != nil && fm.Readable() {
			return fm, nil
		}
		return nil, fmt.Errorf("%s: offset 0: empty file (0 bytes), not a trace: expected one of %s", name, strings.Join(readable(), ", "))
	}
	return pick(name, format, head)
}

// readHead reads the first SniffLen bytes of f (fewer in a short file).
func readHead(f io.Reader) ([]byte, error) {
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return head[:n], nil
}

// pick returns the named format, or the one detected from head.
func pick(path, format string, head []byte) (*Format, error) {
	if format != "" {
		return Lookup(format)
	}
	return Detect(path, head)
}

// Save writes t to path in the named format (empty: by extension, else
// tsim), atomically.
func Save(path, format string, t *tracefmt.Trace) error {
	return SaveWith(path, format, t, WriteOptions{})
}

// SaveWith is Save with options. An untimed trace written to a timed
// format needs o.CPUSpeed; the error says so when it is missing.
func SaveWith(path, format string, t *tracefmt.Trace, o WriteOptions) error {
	// A name ending in .gz is written gzipped, in the format of the name
	// less the suffix (run.tsim.gz: tsim), its side files beside it
	// uncompressed (run.prv.gz: run.pcf, run.row), as Open reads it.
	inner, kind := path, compressionOfName(path)
	if kind != "" {
		if kind != "gzip" {
			return fmt.Errorf("%s: tracesim compresses its output with gzip only: name it .gz, or write it uncompressed and compress it with %s", path, kind)
		}
		inner = decompressedName(path)
	}
	var fm *Format
	var err error
	switch {
	case format != "":
		fm, err = Lookup(format)
	case ByExtension(inner) != nil:
		fm = ByExtension(inner)
	default:
		fm, err = Lookup("tsim")
	}
	if err != nil {
		return err
	}
	if !fm.Writable() {
		return fmt.Errorf("%s: tracesim cannot write %s files (writable: %s)", path, fm.Name, strings.Join(Names(true), ", "))
	}
	if kind != "" && fm.Name == "otf2" {
		return fmt.Errorf("%s: an OTF2 archive is a directory of files, not one file to compress: name it .otf2", path)
	}
	if fm.Timed && !t.Timed {
		if o.CPUSpeed <= 0 {
			return fmt.Errorf("%s: %s needs timestamps but the trace is untimed: give a CPU speed (--cpu-speed 1Gf) to turn its compute amounts into times", path, fm.Name)
		}
		t, err = tracefmt.AssignTimes(t, o.CPUSpeed)
		if err != nil {
			return fmt.Errorf("%s: assigning times: %w", path, err)
		}
	}
	return atomicfile.WriteWith(path, atomicfile.Options{Inputs: o.Inputs, Context: o.Context, Gzip: kind != ""}, func(w io.Writer) error {
		if o.Context != nil {
			w = atomicfile.Stopping(w, o.stopped)
		}
		if err := fm.Write(inner, w, t, o); err != nil {
			if err := o.stopped(); err != nil {
				return err
			}
			return addPath(path, err)
		}
		return nil
	})
}

// OutputFormat returns the format a trace saved at path without a named
// format is written in (by its extension, looked for under a compression
// suffix: run.tsim.gz is tsim), or nil when the name does not tell.
func OutputFormat(path string) *Format {
	return ByExtension(decompressedName(path))
}

// readerContext returns the context of Open's reader r, so that a
// reader that parses on several goroutines stops them all when the
// load is cancelled (not only at its next read of r), or
// context.Background() for any other reader.
func readerContext(r io.Reader) context.Context {
	switch w := r.(type) {
	case *watchedReader:
		return w.ctx
	case watchedFile:
		return w.ctx
	}
	return context.Background()
}

// watchedFile is a watchedReader that can also read its file at an
// offset (io.ReaderAt) and says its size, for a reader that looks the
// file over in a pass of its own before reading it in order (tsim counts
// each rank's records, to decode them into place). ReadAt stops with the
// context; until the first Read, its bytes fill the first tenth of the
// progress (lookOverShare), the goroutines of the pass taking turns.
type watchedFile struct {
	*watchedReader
	f io.ReaderAt
}

func (w watchedFile) ReadAt(p []byte, off int64) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := w.f.ReadAt(p, off)
	w.lookedOver(n)
	return n, err
}

// Size is the file's size when it was opened, so that a reader may
// share a pass over it between goroutines.
func (w watchedFile) Size() int64 { return w.total }

// withFile returns w, made a watchedFile when f reads at offsets.
func withFile(w *watchedReader, f any) io.Reader {
	if ra, ok := f.(io.ReaderAt); ok {
		return watchedFile{w, ra}
	}
	return w
}

// watchedReader reports progress and stops reading once its context is
// cancelled.
type watchedReader struct {
	ctx      context.Context
	r        io.Reader
	done     int64
	total    int64
	last     int64
	progress Progress
	started  bool // Read was called (used by Read's goroutine only)

	// mu guards what a look-over pass (watchedFile.ReadAt, on several
	// goroutines) and Read share.
	mu sync.Mutex
	// looked is what the look-over pass read; lastLook when it last
	// reported progress.
	looked, lastLook int64
	// reading is set by the first Read: ReadAt reports no more.
	reading bool
	// base is the progress the look-over pass reached when the read in
	// order began, which maps the read onto the rest of the bar.
	base int64
	// shown is the progress last reported.
	shown int64
}

// lookOverShare is the part (its inverse) of the progress bar a pass
// over the whole file before the read fills: tsim's count pass costs
// about a tenth of its load.
const lookOverShare = 10

func (w *watchedReader) Read(p []byte) (int, error) {
	if err := w.ctx.Err(); err != nil {
		return 0, err
	}
	if !w.started && w.progress != nil {
		w.started = true
		w.mu.Lock()
		w.reading, w.base = true, w.shown
		w.mu.Unlock()
	}
	n, err := w.r.Read(p)
	w.done += int64(n)
	if w.progress != nil && (w.done-w.last >= 1<<20 || err == io.EOF) {
		w.last = w.done
		v := w.done
		w.mu.Lock()
		if w.base > 0 && w.total > 0 {
			v = w.base + int64(float64(w.total-w.base)*float64(min(w.done, w.total))/float64(w.total))
		}
		w.show(v)
		w.mu.Unlock()
	}
	return n, err
}

// lookedOver counts n bytes a look-over pass read, reporting progress
// every MiB, up to a tenth of the file.
func (w *watchedReader) lookedOver(n int) {
	if w.progress == nil || n <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.reading {
		return
	}
	w.looked += int64(n)
	if w.looked-w.lastLook >= 1<<20 {
		w.lastLook = w.looked
		w.show(min(w.looked, w.total) / lookOverShare)
	}
}

// show reports progress v unless it would go back; w.mu is held.
func (w *watchedReader) show(v int64) {
	if v > w.shown || v == w.total && w.shown == 0 {
		w.shown = v
		w.progress(v, w.total)
	}
}
