package simgridti

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// refUint is what uintField must return for the field at s[i:] of a
// line s, read byte by byte: the value of one to nine digits ending at
// a blank or the line's end, else not ok.
func refUint(s string, i int) (v, j int, ok bool) {
	j = i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i || j-i > 9 || j < len(s) && !blank[s[j]] {
		return 0, j, false
	}
	v, err := strconv.Atoi(s[i:j])
	return v, j, err == nil
}

// TestFastIntegers checks the fast path's integer fields, read digit by
// digit (uintField) and a word at a time (uintWord), against strconv:
// every length from 0 to 12 digits, with every byte in every place of
// the field (a non-digit ends the digits wherever it is), at offsets
// that make the word read cross the line's end.
func TestFastIntegers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k <= 12; k++ {
		for trial := range 30 {
			digits := make([]byte, k)
			for d := range digits {
				digits[d] = byte('0' + rng.IntN(10))
				if trial == 0 {
					digits[d] = '9' // the largest value of each length
				}
			}
			for at := -1; at < k; at++ {
				for c := range 256 {
					if at < 0 && c > 0 {
						break // the digits as they are, once
					}
					field := append([]byte(nil), digits...)
					if at >= 0 {
						field[at] = byte(c)
					}
					for _, pad := range []int{0, 5, 50} {
						for _, tail := range []string{"", " 7", "\t7"} {
							s := strings.Repeat(" ", pad) + string(field) + tail
							if len(s) >= fastMax {
								continue
							}
							var b lineBuf
							copy(b[:], s)
							wv, wj, wok := refUint(s, pad)
							for name, f := range map[string]func(*lineBuf, int, int) (int, int, bool){"uintField": uintField, "uintWord": uintWord} {
								v, j, ok := f(&b, pad, len(s))
								if ok != wok || ok && (v != wv || j != wj) {
									t.Fatalf("%s(%q, %d) = %d, %d, %v; want %d, %d, %v", name, s, pad, v, j, ok, wv, wj, wok)
								}
							}
						}
					}
				}
			}
		}
	}
}

// FuzzFastNumbers: every number the fast path decodes from a field
// equals strconv's reading of the field, bit for bit (the amounts of
// compute and allreduce, counts, ranks, tags, datatypes), and a field of
// plain digits is always taken. Fields it leaves go to the general path,
// which FuzzRead compares with the fast one.
func FuzzFastNumbers(f *testing.F) {
	for _, s := range []string{"0", "7", "42", "24000", "400000", "99999999", "123456789", "1234567890",
		"1e+06", "1E6", "2.5e-7", ".5", "3.", "0.1", "123456789012345", "1234567890123456", "1e22", "1e23",
		"-1", "-0", "-444", "-555", "-666", "p3", "08", "1_0", "0x10", "inf", "1e", "\x00", "9\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if s == "" || strings.ContainsAny(s, " \t\v\f") {
			return // not one field
		}
		plain := len(s) > 0 && len(s) <= 9 && strings.Trim(s, "0123456789") == ""
		float := func(line string, got float64) {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.Float64bits(v) != math.Float64bits(got) {
				t.Fatalf("%q: decoded %v (%#x), strconv %v (%#x), %v", line, got, math.Float64bits(got), v, math.Float64bits(v), err)
			}
		}
		integer := func(line string, got int32) {
			v, err := strconv.ParseInt(s, 10, 32)
			if err != nil || int32(v) != got {
				t.Fatalf("%q: decoded %d, strconv %d, %v", line, got, v, err)
			}
		}
		// decode decodes line; take says the fast path must take it
		// if the field is plain (not so for ranks and datatypes, whose
		// values it checks).
		decode := func(line string, take bool) (fastRec, bool) {
			var fr fastRec
			ok := decodeFast([]byte(line), &fr)
			if take && plain && !ok && len(line) < fastMax {
				t.Fatalf("%q: a plain field, not decoded", line)
			}
			return fr, ok
		}
		// Amounts.
		if line := "0 compute " + s; true {
			if fr, ok := decode(line, true); ok {
				float(line, fr.v)
			}
		}
		if line := "3 allreduce 8 " + s + " 1"; true {
			if fr, ok := decode(line, true); ok {
				float(line, fr.v)
			}
		}
		// Counts: the amount without its fraction.
		for _, line := range []string{"1 isend 0 1 " + s + " 2", "1 allreduce " + s + " 0"} {
			if fr, ok := decode(line, true); ok {
				v, err := strconv.ParseFloat(s, 64)
				if err != nil || v >= 1<<53 || fr.count != int64(v) {
					t.Fatalf("%q: decoded count %d, strconv %v, %v", line, fr.count, v, err)
				}
			}
		}
		// Ranks and peers, in their plain form (an actor name or a
		// special negative rank is another reading).
		if s == "" || s[0] != 'p' && s[0] != '-' {
			if line := s + " send 1 0 8"; true {
				if fr, ok := decode(line, false); ok {
					integer(line, fr.r)
				}
			}
			if line := "p1 recv " + s + " 0 8"; true {
				if fr, ok := decode(line, false); ok {
					integer(line, fr.a)
				}
			}
			if line := "1 wait 0 " + s + " 5"; true {
				if fr, ok := decode(line, false); ok {
					integer(line, fr.b)
				}
			}
		}
		// Tags, signed.
		for _, line := range []string{"1 irecv 0 " + s + " 8 0", "1 test 0 1 " + s} {
			if fr, ok := decode(line, true); ok {
				integer(line, fr.tag)
			}
		}
		// Datatypes.
		if line := "1 send 0 1 8 " + s; true {
			if fr, ok := decode(line, false); ok {
				integer(line, int32(fr.dt))
			}
		}
	})
}

// TestDecodeInPlace: a line read in its own buffer (followed there by a
// line break, and by more text that must not be read as the line's)
// decodes as its copy does, and a line followed by anything else is
// copied, not read in place.
func TestDecodeInPlace(t *testing.T) {
	lines := []string{"0 isend 1 1 24000 6", "12 compute 400000", "3 allreduce 1 0 0 ", "p2 wait 1 0 3",
		"0 send 1 3 1024", "0 waitall 8", "0 barrier", "0 compute 1e+06", "1 irecv -555 -444 8 0", "0 send 1 2 3 4 5"}
	for _, line := range lines {
		var want fastRec
		wok := decodeFast([]byte(line), &want)
		if !wok && line != "0 send 1 2 3 4 5" {
			t.Fatalf("%q: not decoded", line)
		}
		// After the line, what the next line could hold: digits and
		// letters run on into its fields if it were read as the line's.
		for _, after := range []string{"\n", "\r\n", "\r", "7\n", "e3\n", "x\n", " 9\n", "\x00\n"} {
			buf := []byte(line + after + strings.Repeat("9", 100))
			var got fastRec
			ok := decodeFast(buf[:len(line)], &got)
			if ok != wok || got != want {
				t.Fatalf("%q followed by %q: %v %+v; alone %v %+v", line, after, ok, got, wok, want)
			}
		}
	}
}
