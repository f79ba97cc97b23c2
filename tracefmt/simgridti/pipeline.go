package simgridti

import "runtime"

// A file of actions is read in two stages on two goroutines when the
// process has more than one CPU: one reads the input and cuts it into
// lines, the other parses them. Batches of lines go from the first to the
// second and come back to be reused.

// lineBatch is a run of lines (blank and comment lines left out).
type lineBatch struct {
	// buf holds the lines' text; a batch is reused only once parsed,
	// and what outlives a line keeps a copy of it.
	buf   []byte
	lines []batchLine
	// last is the number of the last line read into the batch (blank
	// ones included).
	last int
}

// batchLine is one line of a batch: its number and where its text ends
// in the batch's buf (it starts where the line before ends).
type batchLine struct {
	no, end int
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
		start := 0
		for _, ln := range b.lines {
			text := b.buf[start:ln.end]
			start = ln.end
			src.line = ln.no
			if err := p.parseText(src, text); err != nil {
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
			b.buf, b.lines = b.buf[:0], b.lines[:0]
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
		b.buf = append(b.buf, line...)
		b.lines = append(b.lines, batchLine{no, len(b.buf)})
	}
	b.last = no
	select {
	case full <- b:
	case <-done:
	}
}
