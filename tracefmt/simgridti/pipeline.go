package simgridti

import "runtime"

// A file of actions is read in two stages on two goroutines when the
// process has more than one CPU: one reads the lines and splits them into
// fields (a fifth of the work), the other parses the actions. Batches of
// lines go from the first to the second and come back to be reused.

// lineBatch is a run of action lines (blank and comment lines left out),
// split into fields.
type lineBatch struct {
	// buf holds the lines' text, which fields alias; a batch is reused
	// only once parsed, and what outlives a line keeps a copy of it.
	buf    []byte
	fields []field
	lines  []batchLine
	// last is the number of the last line read into the batch (blank
	// ones included).
	last int
}

// batchLine is one line of a batch: its number and how many of the
// batch's fields are its own (at least one).
type batchLine struct {
	no, fields int
}

// batchBytes is the text a batch holds before it is handed over: large
// enough that handing over is rare, small enough to stay in cache.
const batchBytes = 64 << 10

// pipelined reports whether parseAll reads lr on a goroutine of its own:
// with a second CPU, and for an input not known to be small (a short
// string or per-rank file is not worth a goroutine).
func pipelined(lr *lineReader) bool {
	return len(lr.buf) >= readChunk && runtime.GOMAXPROCS(0) > 1
}

// parseAll parses every remaining line of lr.
func (p *parser) parseAll(src *source, lr *lineReader) error {
	if !pipelined(lr) {
		for {
			line, ok := lr.next()
			if !ok {
				break
			}
			src.line++
			if err := p.parseText(src, line); err != nil {
				return err
			}
		}
		return scanErr(src, lr)
	}
	full := make(chan *lineBatch, 2)
	free := make(chan *lineBatch, 3)
	done := make(chan struct{})
	go splitLines(lr, src.line, full, free, done)
	for b := range full {
		k := 0
		for _, ln := range b.lines {
			fs := b.fields[k : k+ln.fields]
			k += ln.fields
			src.line = ln.no
			var err error
			if len(fs) < 2 {
				err = src.errAt(fs[0], "expected a rank and an action (such as \"%s compute 1e6\"), got a single field", fs[0].s)
			} else {
				err = p.parseLine(src, fs)
			}
			if err != nil {
				// Wait for the reader to stop, which it does at its
				// next batch (at most 64 KiB more text): the caller
				// may reuse or close what it reads once this returns.
				close(done)
				for range full {
				}
				return err
			}
		}
		src.line = b.last
		select {
		case free <- b:
		default:
		}
	}
	// The channel is closed after the last batch: lr is settled.
	return scanErr(src, lr)
}

// splitLines reads lr's lines after line number no into batches sent on
// full, taking batches to fill from free when there are, and stops early
// when done is closed. It closes full when it returns.
func splitLines(lr *lineReader, no int, full chan<- *lineBatch, free <-chan *lineBatch, done <-chan struct{}) {
	defer close(full)
	get := func() *lineBatch {
		select {
		case b := <-free:
			b.buf, b.fields, b.lines = b.buf[:0], b.fields[:0], b.lines[:0]
			return b
		default:
			return &lineBatch{buf: make([]byte, 0, batchBytes)}
		}
	}
	b := get()
	for {
		line, ok := lr.next()
		if !ok {
			break
		}
		no++
		if skipLine(line) {
			continue
		}
		if len(b.buf)+len(line) > cap(b.buf) && len(b.lines) > 0 {
			b.last = b.lines[len(b.lines)-1].no
			select {
			case full <- b:
			case <-done:
				return
			}
			b = get()
		}
		start, nf := len(b.buf), len(b.fields)
		b.buf = append(b.buf, line...)
		b.fields = splitFields(b.buf[start:], b.fields)
		b.lines = append(b.lines, batchLine{no, len(b.fields) - nf})
	}
	b.last = no
	select {
	case full <- b:
	case <-done:
	}
}
