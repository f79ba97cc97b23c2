package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"sync/atomic"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// A streamed TI trace cannot say before its events are read whether it
// has wildcard receives (SRC -555, or -333 from SimGrid 3.32's tracer):
// its Source sets tracefmt.AttrUnrecordedSources to "", and a replay with
// any-source auto then lets every receive match freely, which rules out
// the work the replay saves when it knows every sender (collectives
// computed in bulk). The files can say it much faster than they parse:
// a wildcard source is a negative number, so a file in which no '-' is
// followed by 555 or 333 (after any leading zeros, as strconv reads
// "-0555") has none. The test is conservative: a -555 anywhere else (a
// tag, a comment) keeps the attribute, and the run is as before.

// wildcardScanBuf is the size of the reads of tiMayHaveWildcards: large
// enough that the syscalls cost little against the byte scan.
const wildcardScanBuf = 256 << 10

// tiMayHaveWildcards reports whether any of files may hold a wildcard
// receive source, reading each once.
func tiMayHaveWildcards(files []string) (bool, error) {
	buf := make([]byte, wildcardScanBuf)
	for _, name := range files {
		found, err := fileMayHaveWildcards(name, buf)
		if found || err != nil {
			return true, err
		}
	}
	return false, nil
}

// fileMayHaveWildcards scans one file with buf; a '-' read at the end of
// one buffer is looked at with the next buffer's bytes.
func fileMayHaveWildcards(name string, buf []byte) (bool, error) {
	f, err := os.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	// keep bytes of the previous read stay in front of the next: a '-',
	// up to a few zeros and two digits.
	const keep = 8
	carry := 0
	for {
		n, err := io.ReadFull(f, buf[carry:])
		end := carry + n
		last := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !last {
			return false, err
		}
		upTo := end
		if !last && end > keep {
			upTo = end - keep
		}
		if wildcardIn(buf[:end], upTo) {
			return true, nil
		}
		if last {
			return false, nil
		}
		// Whatever starts in the last keep bytes is looked at again.
		carry = copy(buf, buf[upTo:end])
	}
}

// wildcardIn reports whether a '-' at an offset below upTo in b starts
// -555 or -333, after any zeros. b ends the file when upTo is len(b): a
// number cut short there has fewer digits than a wildcard. Otherwise a
// '-' so far from the end that only zeros follow it to there counts as
// one, conservatively.
func wildcardIn(b []byte, upTo int) bool {
	for i := 0; i < upTo; {
		j := bytes.IndexByte(b[i:upTo], '-')
		if j < 0 {
			return false
		}
		k := i + j + 1
		for k < len(b) && b[k] == '0' {
			k++
		}
		if k+3 > len(b) {
			return len(b) > upTo
		}
		if d := b[k : k+3]; string(d) == "555" || string(d) == "333" {
			return true
		}
		i = k
	}
	return false
}

// withoutUnrecordedSources returns src with a header that says it has no
// wildcard receives whose sender is unrecorded when the files of the TI
// index at path prove it, else src.
func withoutUnrecordedSources(path string, src tracefmt.Source) tracefmt.Source {
	h := src.Header()
	if n, ok := h.Attr(tracefmt.AttrUnrecordedSources); !ok || n != "" {
		return src
	}
	// An index or file that cannot be read is the reader's to report, at
	// its line: the header stays as the reader made it.
	files, err := simgridti.IndexFiles(path)
	if err != nil || len(files) == 0 {
		return src
	}
	if may, err := tiMayHaveWildcards(files); may || err != nil {
		return src
	}
	attrs := slices.DeleteFunc(slices.Clone(h.Attrs), func(a tracefmt.Attr) bool { return a.Key == tracefmt.AttrUnrecordedSources })
	return &knownSenders{Source: src, attrs: attrs}
}

// knownSenders is a Source whose header's attributes say what a scan of
// its files found out.
type knownSenders struct {
	tracefmt.Source
	attrs []tracefmt.Attr
	// last is the copy Header returned last; it is never changed once
	// returned, so a caller may keep it while the source reads on.
	last atomic.Pointer[tracefmt.Trace]
}

// Header returns the source's header with the scan's attributes. A
// source's Markers and Texts grow as its events are read (the rest of
// its header never changes): Header makes a new copy when they grew
// since the copy it returned last, else it returns that copy again.
// Prefetch asks after every read (of 64 events at 256 ranks): a copy
// each time was 10 MB of garbage on a stencil of 256 ranks and 3.1 M
// events, a third of the run's allocations, which took its heap to a
// higher GC goal before the end (peak RSS +4 to +7 MB).
func (k *knownSenders) Header() *tracefmt.Trace {
	h := k.Source.Header()
	if l := k.last.Load(); l != nil && len(l.Markers) == len(h.Markers) && len(l.Texts) == len(h.Texts) {
		return l
	}
	c := *h
	c.Attrs = k.attrs
	k.last.Store(&c)
	return &c
}
