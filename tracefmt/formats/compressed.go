package formats

import (
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/tracesim/tracesim/internal/atomicfile"
)

// A trace is often kept compressed: Paraver opens a .prv.gz as it is, and
// archives of text traces (tsim, SimGrid TI, ALOG, GOAL) are gzipped or
// bzipped. Open recognises the compression by its magic, whatever the
// file's name, and reads what it holds through the decompressor: the
// format is detected from the decompressed bytes and the file name less
// its compression suffix (x.prv.gz is read as x.prv, its .pcf found
// beside it as for x.prv). The reader then sees a stream, not the file:
// no pass over the file before the read (tsim's count), and no streaming
// rank by rank (sim falls back to the whole read).

// compression names the compression whose magic head starts with, or "".
func compression(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		return "gzip"
	case len(head) >= 4 && bytes.HasPrefix(head, []byte("BZh")) && head[3] >= '1' && head[3] <= '9':
		return "bzip2"
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0x00}):
		return "xz"
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return "zstd"
	}
	return ""
}

// decompressCommand is the command that decompresses a compression Open
// cannot, for the error that refuses it.
func decompressCommand(kind string) string {
	if kind == "xz" {
		return "unxz -k"
	}
	return "zstd -d"
}

// compressionOfName names the compression path's suffix says, or "".
func compressionOfName(path string) string {
	if atomicfile.Gzipped(path) {
		return "gzip"
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".bz2":
		return "bzip2"
	case ".xz":
		return "xz"
	case ".zst":
		return "zstd"
	}
	return ""
}

// decompressedName returns path without its compression suffix (x.prv.gz
// is x.prv), or path itself when it has none.
func decompressedName(path string) string {
	if compressionOfName(path) != "" {
		return path[:len(path)-len(filepath.Ext(path))]
	}
	return path
}

// errCompressed says that a file is compressed (detectFile): a compressed
// trace is read whole, never streamed.
var errCompressed = errors.New("the trace is compressed")

// decompressor returns a reader of what r, a stream of the compression
// kind, holds, or an error that names path and says what to do.
func decompressor(path, kind string, r io.Reader) (io.Reader, error) {
	switch kind {
	case "gzip":
		// Members written one after the other (pigz, bgzip, cat a.gz
		// b.gz) are read as one stream, as gunzip does.
		z, err := gzip.NewReader(r)
		if err != nil {
			return nil, fmt.Errorf("%s: offset 0: gzip header: %w", path, err)
		}
		return z, nil
	case "bzip2":
		return bzip2.NewReader(r), nil
	}
	return nil, fmt.Errorf("%s: %s-compressed: tracesim decompresses gzip and bzip2 only; decompress it first (%s %s)",
		path, kind, decompressCommand(kind), path)
}

// renamed is err with a leading from in its message replaced by to
// (err itself when they are the same name); errors.Is and errors.As
// still see err.
func renamed(err error, from, to string) error {
	if from == to {
		return err
	}
	rest, ok := strings.CutPrefix(err.Error(), from)
	if !ok {
		return fmt.Errorf("%s: %w", to, err)
	}
	return &renamedError{msg: to + rest, err: err}
}

// decompressing reads a decompressor and says, of a failure, that it is
// the compressed data's and where in the compressed file it came: a
// reader would otherwise report "unexpected EOF" at a line of the
// decompressed text, as if the trace itself were cut short.
type decompressing struct {
	r          io.Reader
	kind       string
	compressed *watchedReader
}

func (d *decompressing) Read(p []byte) (int, error) {
	n, err := d.r.Read(p)
	if err != nil && err != io.EOF && d.compressed.ctx.Err() == nil {
		what := "corrupt"
		if errors.Is(err, io.ErrUnexpectedEOF) {
			what = "cut short (the file is truncated)"
		}
		err = fmt.Errorf("%s data %s, by offset %d of the compressed file: %w", d.kind, what, d.compressed.done, err)
	}
	return n, err
}
