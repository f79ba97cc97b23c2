package tsim

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math/bits"
	"sync"
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

// minCountPart is the fewest bytes the count pass gives a goroutine of
// its own.
const minCountPart = 4 << 20

// countRecords counts the lines of ra from offset off that look like
// records (a number or - first, then a rank), by rank, for the ranks
// below limit, in up to parts pieces on goroutines of their own when
// size (ra's length, 0 when unknown) says there is enough to share. It
// stops at the first read error, which it returns; ctx is looked at
// between reads.
func countRecords(ctx context.Context, ra io.ReaderAt, off, size int64, parts, limit int) ([]int32, error) {
	parts = min(parts, int((size-off)/minCountPart))
	if parts < 2 {
		return countRange(ctx, ra, off, -1, false, limit)
	}
	// Part k counts the lines that start in [at[k], at[k+1]); the last
	// reads on to the end, wherever it is now.
	counts := make([][]int32, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	step := (size - off) / int64(parts)
	for k := range parts {
		from, end := off+int64(k)*step, off+int64(k+1)*step
		if k == parts-1 {
			end = -1
		}
		first := k == 0
		wg.Go(func() {
			counts[k], errs[k] = countPart(ctx, ra, from, end, first, limit)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	total := counts[0]
	for _, c := range counts[1:] {
		if len(c) > len(total) {
			total, c = c, total
		}
		for r, n := range c {
			total[r] = int32(min(int64(total[r])+int64(n), maxRankEvents))
		}
	}
	return total, nil
}

// countPart counts the lines that start in ra from offset from and
// before end (-1: to the end); from is a line's start when first is set.
func countPart(ctx context.Context, ra io.ReaderAt, from, end int64, first bool, limit int) ([]int32, error) {
	if first || from == 0 {
		return countRange(ctx, ra, from, end, false, limit)
	}
	// A line starts at from when the byte before it ends one: reading
	// from there and skipping to the first newline finds the first line
	// that starts at from or after.
	return countRange(ctx, ra, from-1, end, true, limit)
}

// countPad is the bytes after a read's data in the count pass's buffer:
// line breaks, which stop every loop of peekRecord, and room for the
// word it reads at the data's end.
const countPad = 8

// countRange counts the lines that start in ra from offset off and
// before offset end (-1: to the end of ra), skipping the first line's
// bytes up to its newline when skip is set.
func countRange(ctx context.Context, ra io.ReaderAt, off, end int64, skip bool, limit int) ([]int32, error) {
	var counts []int32
	arr := new(countArr)
	buf := arr[:countBuf+countPad]
	carry := 0 // bytes of a line cut by the end of the last read
	base := off
	for {
		if err := ctx.Err(); err != nil {
			return counts, err
		}
		n, err := ra.ReadAt(buf[carry:countBuf], base+int64(carry))
		last := err != nil
		if last && err != io.EOF {
			return counts, err
		}
		data := buf[:carry+n]
		padded := buf[:len(data)+countPad]
		copy(padded[len(data):], "\n\n\n\n\n\n\n\n")
		// The lines that start at stop or after are the next part's.
		stop := len(data)
		if end >= 0 {
			stop = int(min(int64(stop), max(end-base, 0)))
		}
		pos := 0
		for pos < len(data) {
			if !skip && end >= 0 && base+int64(pos) >= end {
				return counts, nil
			}
			if !skip {
				if p := countRun(arr, pos, len(data), stop, limit, counts); p != pos {
					pos = p
					continue
				}
			}
			// The first fields, then the line break after them.
			r, j, st := peekRecord(padded, pos, limit)
			i := bytes.IndexByte(data[j:], '\n')
			if i < 0 {
				if !last {
					break
				}
				i = len(data) - j
			}
			i += j - pos
			if !skip {
				switch st {
				case peekRecordOf:
					if r < len(counts) && counts[r] < maxRankEvents {
						counts[r]++
					} else {
						counts = countRank(counts, r)
					}
				case peekUnsure:
					counts = countLine(counts, data[pos:pos+i], limit)
				}
			}
			skip = false
			pos += i + 1
		}
		if last {
			return counts, nil
		}
		if pos == 0 && len(data) == countBuf {
			// A line longer than the buffer: its first fields decide
			// (the line's start was checked against end above), and
			// the rest of it is skipped.
			if !skip {
				counts = countLine(counts, data, limit)
			}
			skip = true
			base += countBuf
			carry = 0
			continue
		}
		carry = copy(buf, data[pos:])
		base += int64(pos)
	}
}

// countArr is the count pass's buffer: a read's data (countBuf bytes at
// most) and countPad line breaks after it, in an array twice as long,
// so that countRun's indices, masked, need no bounds checks.
type countArr = [2*countBuf + 8]byte

// countWord returns the eight bytes of b from i, the first lowest.
func countWord(b *countArr, i int) uint64 {
	return binary.LittleEndian.Uint64(b[i&(2*countBuf-1):])
}

// countAt returns b[i].
func countAt(b *countArr, i int) byte { return b[i&(2*countBuf-1)] }

// countRun counts the lines from b[pos:] on that have the common shape
// of a record, in a loop of its own (a call a line cost 7 % of the
// pass), while they start before stop, their line break is within the
// data (n bytes), and their rank is one counts has room for: nearly
// every line. The shape is TIME RANK KIND with single spaces, a time
// that starts with a digit and a rank below limit; the rank and line
// break it finds are what peekRecord and the search for the line break
// give such a line. It returns the start of the first line it left, for
// countRange's general path (which counts what it would). The line
// break is found eight bytes at a time, stopping at the padding after
// the data at the latest (see countPad).
func countRun(b *countArr, pos, n, stop, limit int, counts []int32) int {
	const highs = 0x8080808080808080
	for pos < stop {
		i := pos
		if countAt(b, i)-'0' > 9 {
			break
		}
		// The first byte at or below ' ' ends the time.
		for {
			x := countWord(b, i)
			if m := (x - 0x21*ones) &^ x & highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if countAt(b, i) != ' ' {
			break
		}
		i++
		c := countAt(b, i)
		if c-'0' > 9 {
			break
		}
		r := 0
		for ; c-'0' <= 9; c = countAt(b, i) {
			if r = r*10 + int(c-'0'); r >= limit {
				return pos
			}
			i++
		}
		if c != ' ' {
			break
		}
		i++
		if c = countAt(b, i); c < 'a' || c > 'z' {
			break
		}
		for {
			// The high bit of the first '\n' is set in m: the borrows
			// run upward only, so the lowest bit set is exact.
			x := countWord(b, i) ^ ones*'\n'
			if m := (x - ones) &^ x & highs; m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= n || r >= len(counts) || counts[r] >= maxRankEvents {
			break
		}
		counts[r]++
		pos = i + 1
	}
	return pos
}

// What peekRecord makes of a line.
const (
	peekNone     = iota // no record: countLine counts nothing
	peekRecordOf        // a record of the rank returned
	peekUnsure          // a byte it does not judge: countLine's
)

// peekRecord reads the first fields of the line at d[i:] as countLine
// does, stopping at its line break at the latest (d holds the data and
// countPad line breaks after it), and returns the rank of a record, the
// index it stopped at, at or before the line's break, and its verdict.
// The first field is skipped a word at a time; a control byte in it
// leaves the line to countLine.
func peekRecord(d []byte, i, limit int) (r, j int, st int) {
	c := d[i]
	for c == ' ' || c == '\t' {
		i++
		c = d[i]
	}
	if !(c-'0' <= 9 || c == '-' || c == '+' || c == '.') {
		return 0, i, peekNone
	}
	// The first byte at or below ' ' of the field.
	for {
		x := binary.LittleEndian.Uint64(d[i:])
		if m := (x - 0x21*ones) &^ x & (0x80 * ones); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			break
		}
		i += 8
	}
	if c = d[i]; c == '\n' {
		return 0, i, peekNone
	}
	if c != ' ' && c != '\t' {
		return 0, i, peekUnsure
	}
	for c == ' ' || c == '\t' {
		i++
		c = d[i]
	}
	start := i
	for ; c-'0' <= 9; c = d[i] {
		r = r*10 + int(c-'0')
		if r >= limit {
			return 0, i, peekNone
		}
		i++
	}
	if i == start || c != ' ' && c != '\t' {
		return 0, i, peekNone
	}
	for c == ' ' || c == '\t' {
		i++
		c = d[i]
	}
	if c < 'a' || c > 'z' {
		return 0, i, peekNone
	}
	return r, i, peekRecordOf
}

// countLine adds line to counts when it looks like a record of a rank
// below limit: blanks, a field that starts with a digit, '-', '+' or
// '.', blanks, a rank, blanks and a lower-case letter.
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
	if digits == 0 || i == len(line) || !isBlank(line[i]) {
		return counts
	}
	// A kind follows: lines of junk ("0 0") count nothing, so that the
	// streams allocated for the counts stay within a few times the size
	// of what could be records.
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i == len(line) || line[i] < 'a' || line[i] > 'z' {
		return counts
	}
	return countRank(counts, r)
}

// countRank adds a record of rank r to counts.
func countRank(counts []int32, r int) []int32 {
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
