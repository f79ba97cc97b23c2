package tsim

import (
	"bytes"
	"context"
	"io"
)

// An input that can be read again (an io.ReaderAt: a file, or a reader of
// bytes in memory) is counted before it is parsed: a quick pass finds
// each record's rank, so that every rank's stream is allocated once at
// its size and the records are decoded into place. Without counts the
// events wait in chunks until the end and are copied into streams of the
// right size: twice the memory of the trace at the hand-over, or a
// garbage collection of the whole process between groups of ranks to
// return the chunks. The counts are a hint, never trusted: a rank with
// more records than counted (the file grew between the passes) goes on in
// chunks, and one with fewer keeps a stream of the records it has.

// countBuf is the size of the count pass's reads.
const countBuf = 64 << 10

// countRecords counts the lines of ra from offset off that look like
// records (a number or - first, then a rank), by rank, for the ranks
// below limit. It stops at the first read error, which it returns with
// the counts so far; ctx is looked at between reads.
func countRecords(ctx context.Context, ra io.ReaderAt, off int64, limit int) ([]int32, error) {
	var counts []int32
	buf := make([]byte, countBuf)
	carry := 0 // bytes of a line cut by the end of the last read
	skip := false
	for {
		if err := ctx.Err(); err != nil {
			return counts, err
		}
		n, err := ra.ReadAt(buf[carry:], off)
		off += int64(n)
		end := carry + n
		last := err != nil
		if err != nil && err != io.EOF {
			return counts, err
		}
		data := buf[:end]
		for len(data) > 0 {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				if !last {
					break
				}
				i = len(data)
			}
			if !skip {
				counts = countLine(counts, data[:i], limit)
			}
			skip = false
			data = data[min(i+1, len(data)):]
		}
		if last {
			return counts, nil
		}
		carry = copy(buf, data)
		if carry == len(buf) {
			// A line longer than the buffer: its first fields decide,
			// and the rest of it is skipped.
			counts = countLine(counts, buf, limit)
			carry, skip = 0, true
			for skip {
				n, err := ra.ReadAt(buf, off)
				if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
					// The next read starts after the line.
					off += int64(i + 1)
					skip = false
					break
				}
				off += int64(n)
				if err != nil {
					if err == io.EOF {
						return counts, nil
					}
					return counts, err
				}
			}
		}
	}
}

// countLine adds line to counts when it looks like a record of a rank
// below limit: blanks, a field that starts with a digit, '-', '+' or
// '.', blanks and a rank followed by a blank.
func countLine(counts []int32, line []byte, limit int) []int32 {
	i := 0
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i == len(line) {
		return counts
	}
	if c := line[i]; !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.') {
		return counts
	}
	for i < len(line) && !isBlank(line[i]) {
		i++
	}
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	r, digits := 0, 0
	for ; i < len(line) && line[i] >= '0' && line[i] <= '9'; i++ {
		r = r*10 + int(line[i]-'0')
		if digits++; r >= limit {
			return counts
		}
	}
	if digits == 0 || i < len(line) && !isBlank(line[i]) {
		return counts
	}
	if r >= len(counts) {
		n := max(r+1, 2*len(counts))
		grown := make([]int32, n)
		copy(grown, counts)
		counts = grown
	}
	if counts[r] < maxRankEvents {
		counts[r]++
	}
	return counts
}
