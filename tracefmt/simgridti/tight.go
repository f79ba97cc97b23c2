package simgridti

import (
	"math/bits"

	"github.com/tracesim/tracesim/tracefmt/decimal"
)

// The tight path decodes the lines of the exact form SimGrid's tracer
// writes ("3 irecv 2 0 24000 6", fields of one to eight digits separated
// by one space, a line break after the last field or after one trailing
// space; a compute's amount also as a real, "2.02e+06", which is how
// SimGrid writes most of them) straight from the buffer the lines are
// in, finding each line's end as it decodes: no search for the line
// break, no copy, one word load per field (its digits are converted
// eight at a time, see digitsIn). It returns exactly the record
// decodeFast gives for the line; anything else (tabs, runs of blanks,
// actor names, signs, other reals, long numbers, a "\r\n", a line near
// the end of the buffer) it leaves to the usual path, which splits the
// line and calls decodeFast, so the tight path changes nothing a trace
// or an error reads.

// tightLast bounds the length of a line the tight path takes: every
// byte it reads, a word from each field's start and the byte after the
// line break, then lies in the window (a lineBuf) without the index
// wrapping (see at). A read that wraps lies beyond a field that starts
// past tightLast, so the line's length tells afterwards.
const tightLast = fastMax - 9

// digitsIn returns how many of the eight bytes of x (the first lowest)
// are digits before the first that is not, and their value (zero when
// there is none). A byte c is a digit if y = c^'0' is below 10: y+0x76
// then lacks the high bit, which a larger y (or one with the high bit)
// sets; a carry out of a byte starts only from one so flagged, and runs
// upwards, past the first. The digits' values are the low bytes of y,
// which three multiplications add up as in uintWord: ones, then pairs,
// then fours.
func digitsIn(x uint64) (v uint64, k int) {
	y := x ^ 0x30*ones
	nd := ((y + 0x76*ones) | y) & (0x80 * ones)
	k = bits.TrailingZeros64(nd) >> 3
	d := y << ((64 - 8*k) & 63)
	d = (d * (10<<8 + 1)) >> 8 & 0x00ff00ff00ff00ff
	d = (d * (100<<16 + 1)) >> 16 & 0x0000ffff0000ffff
	d = (d * (10000<<32 + 1)) >> 32
	return d, k
}

// decodeTight decodes the line that starts b, a window of the buffer
// holding it, if it has the tight form (see above), and returns the
// line's length (the index of its "\n" in b). It fills fr as decodeFast
// fills it for that line.
//
// Each argument is read by the same three lines, written out for each
// action rather than in a loop or a function (too large to be inlined):
// its digits from one word, its end, the byte there (a space, or the
// line break for the last). j is always the index of the byte that
// ends the field read last, c that byte.
func decodeTight(b *lineBuf, fr *fastRec) (int, bool) {
	r, j := digitsIn(load8(b, 0))
	if j == 0 || at(b, j) != ' ' || r >= MaxRanks {
		return 0, false
	}
	// The action, as decodeFast reads it: its bytes up to the first at
	// or below ' '.
	act, j := actionAt(b, j+1)
	c := at(b, j)
	if act == fastNone || c != ' ' && c != '\n' {
		return 0, false
	}
	first := j + 1 // where the first argument starts, if any
	fr.act, fr.dt, fr.r, fr.rcol, fr.id = act, -1, int32(r), 1, 0
	withDatatype := false
	switch act {
	case fastSend, fastIsend, fastRecv, fastIrecv:
		if c != ' ' {
			return 0, false
		}
		peer, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if k == 0 || at(b, j) != ' ' || peer >= MaxRanks {
			return 0, false
		}
		fr.cols[1] = int32(j + 2)
		tag, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if k == 0 || at(b, j) != ' ' {
			return 0, false
		}
		count, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if c = at(b, j); k == 0 || c != ' ' && c != '\n' {
			return 0, false
		}
		fr.nargs, withDatatype = 3, true
		fr.a, fr.tag, fr.count = int32(peer), int32(tag), int64(count)
	case fastWait, fastTest:
		if c != ' ' {
			return 0, false
		}
		from, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if k == 0 || at(b, j) != ' ' || from >= MaxRanks {
			return 0, false
		}
		fr.cols[1] = int32(j + 2)
		to, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if k == 0 || at(b, j) != ' ' || to >= MaxRanks {
			return 0, false
		}
		tag, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if c = at(b, j); k == 0 || c != ' ' && c != '\n' {
			return 0, false
		}
		fr.nargs, fr.a, fr.b, fr.tag = 3, int32(from), int32(to), int32(tag)
	case fastWaitall:
		fr.nargs = 0
		if c == ' ' && at(b, j+1) != '\n' {
			_, k := digitsIn(load8(b, j+1))
			j += 1 + k
			if c = at(b, j); k == 0 || c != ' ' && c != '\n' {
				return 0, false
			}
			fr.nargs = 1
		}
	case fastCompute:
		if c != ' ' {
			return 0, false
		}
		i := j + 1
		v, k := digitsIn(load8(b, i))
		j += 1 + k
		if c = at(b, j); k == 0 || c != ' ' && c != '\n' {
			// Not up to eight digits: an amount SimGrid wrote as a
			// real ("2.02e+06"), which decodeFast, its integer
			// reading failed, takes from decimal.Exact.
			r, j2, ok := realAt(b, i)
			if !ok {
				return 0, false
			}
			fr.nargs, fr.v, j, c = 1, r, j2, at(b, j2)
			break
		}
		fr.nargs, fr.v = 1, float64(v)
	case fastAllreduce:
		if c != ' ' {
			return 0, false
		}
		count, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if k == 0 || at(b, j) != ' ' {
			return 0, false
		}
		flops, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if c = at(b, j); k == 0 || c != ' ' && c != '\n' {
			return 0, false
		}
		fr.nargs, withDatatype = 2, true
		fr.count, fr.v = int64(count), float64(flops)
	default: // barrier
		fr.nargs = 0
	}
	if withDatatype && c == ' ' && at(b, j+1) != '\n' {
		// The optional datatype closing a send, receive or allreduce.
		dt, k := digitsIn(load8(b, j+1))
		j += 1 + k
		if c = at(b, j); k == 0 || c != ' ' && c != '\n' || !Datatype(dt).Known() {
			return 0, false
		}
		fr.dt = int8(dt)
		fr.nargs++
	}
	if c == ' ' {
		// One trailing space.
		if j++; at(b, j) != '\n' {
			return 0, false
		}
	}
	if j > tightLast {
		return 0, false
	}
	// decodeFast's first column: the first argument's, or the line's
	// end.
	fr.cols[0] = int32(min(first, j) + 1)
	return j, true
}

// realAt reads the field at b[i:] of a tight line as decodeFast's
// numberAt does when the field is not a plain integer: its bytes up to
// the space or line break that ends it (any other byte at or below ' '
// refuses the line), through decimal.Exact. It returns the value and the
// index of the byte ending the field.
func realAt(b *lineBuf, i int) (float64, int, bool) {
	j := i
	for j < tightLast && at(b, j) > ' ' {
		j++
	}
	if c := at(b, j); j == i || c != ' ' && c != '\n' {
		return 0, 0, false
	}
	v, ok := decimal.Exact(b[i:j])
	return v, j, ok
}
