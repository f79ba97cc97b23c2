package simgridti

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/lineblock"
)

// tightCheck runs decodeTight on text (padded to a window) and, when it
// takes the line, checks it against decodeFast on the same line: the
// same record (fields neither sets keep the same sentinel), the line's
// length that of the text up to its first "\n". It returns whether the
// tight path took the line.
func tightCheck(t *testing.T, text []byte) bool {
	t.Helper()
	var w lineBuf
	copy(w[:], text)
	sentinel := fastRec{act: 99, nargs: 99, dt: 99, r: -7, rcol: -7, cols: [2]int32{-7, -7}, a: -7, b: -7, tag: -7, count: -7, v: -7}
	tight := sentinel
	n, ok := decodeTight(&w, &tight)
	if !ok {
		return false
	}
	want := bytes.IndexByte(w[:], '\n')
	if n != want {
		t.Fatalf("%q: tight line of %d bytes, its line break is at %d", text, n, want)
	}
	for _, inPlace := range []bool{false, true} {
		line := append([]byte(nil), w[:n]...)
		if inPlace {
			line = w[:n:len(w)] // decodeFast reads its own buffer
		}
		fast := sentinel
		if !decodeFast(line, &fast) {
			t.Fatalf("%q: the tight path takes a line decodeFast (in place %v) leaves", w[:n], inPlace)
		}
		if fast != tight {
			t.Fatalf("%q (in place %v):\ntight %+v\nfast  %+v", w[:n], inPlace, tight, fast)
		}
	}
	return true
}

// TestTightLines checks which lines the tight path takes (the forms
// SimGrid writes) and that it decodes them as decodeFast does.
func TestTightLines(t *testing.T) {
	for _, c := range []struct {
		line string
		take bool
	}{
		{"0 irecv 1 0 24000 6\n", true},
		{"63 isend 56 2 4000 6\n", true},
		{"7 send 1 3 10\n", true},
		{"7 recv 1 3 10 \n", true},
		{"0 waitall 8\n", true},
		{"0 waitall\n", true},
		{"0 waitall \n", true},
		{"0 barrier\n", true},
		{"1 barrier \n", true},
		{"0 compute 400000\n", true},
		{"0 compute 12345678\n", true},
		{"0 allreduce 1 0 0 \n", true},
		{"0 allreduce 1 100\n", true},
		{"12 wait 3 12 7\n", true},
		{"12 test 3 12 7 \n", true},
		{"1048575 send 1048575 99999999 99999999 59\n", true},
		// Left to the usual path.
		{"1048576 send 1 0 8 0\n", false}, // beyond MaxRanks
		{"0 send 1048576 0 8 0\n", false}, // peer beyond MaxRanks
		{"0 compute 123456789\n", true},   // nine digits: decimal.Exact
		{"0 compute 1e+06\n", true},       // a real, as SimGrid writes it
		{"0 compute 2.02e+06 \n", true},   // and a trailing space
		{"0 compute 0.5\n", true},
		{"0 compute 2.02e+06x\n", false},   // not a number
		{"0 compute 2.02e+06\t\n", false},  // a tab
		{"0 compute -5\n", false},          // a sign
		{"0 allreduce 1 2.5e+03\n", false}, // a real other than a compute's
		{"0 irecv -555 1 8 0\n", false},    // a wildcard
		{"0 send 1 0 8 60\n", false},       // an unknown datatype
		{"0 send 1 0 8 0 7\n", false},      // too many fields
		{"0 send 1 0\n", false},            // too few
		{"0 send  1 0 8 0\n", false},       // two spaces
		{"0\tsend 1 0 8 0\n", false},       // a tab
		{"p0 send 1 0 8 0\n", false},       // an actor name
		{"0 send 1 0 8 0\r\n", false},      // CRLF
		{"0 send 1 0 8 0  \n", false},      // two trailing spaces
		{"0 init\n", false},                // not a fast action
		{"0 isend2 1 0 8 0\n", false},      // a longer name
		{"0 compute\n", false},             // a missing amount
		{"0 barrier 1\n", false},           // an argument barrier does not take
		{"0 send 1 0 8x 0\n", false},       // a count running into a letter
		{" 0 send 1 0 8 0\n", false},       // a leading blank
		{"0 allreduce 1 0 0 0 0 0 0 0\n", false},
		{"0 send 1 0 8 0", false}, // no line break in the window
	} {
		if got := tightCheck(t, []byte(c.line)); got != c.take {
			t.Errorf("%q: tight path takes it: %v, want %v", c.line, got, c.take)
		}
	}
	// A line running to the window's end: its fields beyond the window
	// are not read.
	long := []byte("0 allreduce 12345678 12345678 1 ")
	for len(long) < len(lineBuf{})-2 {
		long = append(long, ' ')
	}
	long = append(long, "\n"...)
	if tightCheck(t, long) {
		t.Errorf("%q taken", long)
	}
}

// TestTightTakesSimGridLines checks that the tight path decodes the
// lines of the SimGrid traces in testdata, which is what makes the
// reading cheap: a block of them is decoded line by line without a
// search for the line breaks.
func TestTightTakesSimGridLines(t *testing.T) {
	text := []byte("0 init\n0 irecv 1 0 24000 6\n0 isend 63 0 24000 6\n0 waitall 8\n0 compute 400000\n0 allreduce 1 0 0 \n0 finalize\n")
	text = append(text, make([]byte, len(lineBuf{}))...)
	var d decodedBlock
	b := &lineblock.Block{Data: text, Line: 1}
	if err := decodeBlock(b, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.lines) != 7+1 { // the padding is one line of zeros
		t.Fatalf("%d lines, want 8", len(d.lines))
	}
	for i, l := range d.lines[1:6] {
		if l.kind != lineNamed || string(text[l.lo:l.hi]) != string(bytes.Split(text, []byte("\n"))[i+1]) {
			t.Errorf("line %d: kind %v, text %q", i+2, l.kind, text[l.lo:l.hi])
		}
	}
}

// FuzzTight checks that whatever line the tight path takes, decodeFast
// takes too and decodes alike.
func FuzzTight(f *testing.F) {
	for _, s := range []string{"0 irecv 1 0 24000 6\n", "0 allreduce 1 0 0 \n", "0 waitall\n", "12 wait 3 12 7\n", "0 compute 400000\n", "0 barrier \n", "0 send 1 0 8 0 7\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		tightCheck(t, text)
		memoCheck(t, text)
	})
}

// memoCheck decodes text (padded to a window) through a memo four
// times, and through another's decodeID, with other bytes after the line every second time (the third
// and fourth time from the memo's guess of the line after the last),
// and checks every answer against decodeTight's.
func memoCheck(t *testing.T, text []byte) {
	t.Helper()
	var m, mi lineMemo
	m.init(minMemoBits)
	mi.init(minMemoBits)
	for _, pad := range []byte{0, '7', 0, '7'} {
		var w lineBuf
		for i := range w {
			w[i] = pad
		}
		copy(w[:], text)
		var want, got fastRec
		wn, wok := decodeTight(&w, &want)
		gn, gok := m.decode(&w, &got)
		if gn != wn || gok != wok || wok && !sameRecord(got, want) {
			t.Fatalf("%q (then %q): memo %d %v %+v, decodeTight %d %v %+v", text, pad, gn, gok, got, wn, wok, want)
		}
		got = fastRec{}
		gn, id, gok := mi.decodeID(&w, &got)
		if id != 0 {
			// A line named: its record is the one byID noted.
			got = *mi.rec(id)
			if got.id != id {
				t.Fatalf("%q: decodeID named it %d, byID holds %d", text, id, got.id)
			}
		}
		if gn != wn || gok != wok || wok && !sameRecord(got, want) {
			t.Fatalf("%q (then %q): decodeID %d %v %+v, decodeTight %d %v %+v", text, pad, gn, gok, got, wn, wok, want)
		}
	}
}

// TestDigitsIn compares digitsIn with a byte-by-byte reading on words
// made of digits, the bytes around them and random bytes, every byte
// value in every place after a run of digits.
func TestDigitsIn(t *testing.T) {
	naive := func(x uint64) (uint64, int) {
		var v uint64
		for k := range 8 {
			c := byte(x >> (8 * k))
			if c < '0' || c > '9' {
				return v, k
			}
			v = v*10 + uint64(c-'0')
		}
		return v, 8
	}
	check := func(w [8]byte) {
		x := binary.LittleEndian.Uint64(w[:])
		wv, wk := naive(x)
		v, k := digitsIn(x)
		if k != wk || k > 0 && v != wv {
			t.Fatalf("%q: digitsIn %d digits = %d, want %d = %d", w, k, v, wk, wv)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for pos := range 8 {
		for c := range 256 {
			for range 64 {
				var w [8]byte
				for i := range w {
					w[i] = byte('0' + rng.IntN(10))
					if i > pos {
						w[i] = byte(rng.IntN(256))
					}
				}
				w[pos] = byte(c)
				check(w)
			}
		}
	}
}

// TestLookupPacked checks that every fast action's name packs to its
// action and that other words, and random keys, find none.
func TestLookupPacked(t *testing.T) {
	pack := func(name string) uint64 {
		var w [8]byte
		copy(w[:], name)
		return binary.LittleEndian.Uint64(w[:])
	}
	want := map[uint64]fastAct{}
	for act, name := range fastNames {
		if act == int(fastNone) || fastAct(act) == fastAllreduce {
			continue
		}
		want[pack(name)] = fastAct(act)
		if got := lookupPacked(pack(name)); got != fastAct(act) {
			t.Errorf("%s: action %d, want %d", name, got, act)
		}
	}
	if len(want) != 9 {
		t.Fatalf("%d names", len(want))
	}
	for _, w := range []string{"", "init", "Isend", "isen", "sendd", "waital", "waitalll", "computer", "barrie", "allreduc", "reduce", "bcast", "sleep"} {
		if got := lookupPacked(pack(w)); got != fastNone {
			t.Errorf("%q: action %d, want none", w, got)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 1 << 20 {
		k := rng.Uint64() >> (8 * rng.IntN(8))
		if got := lookupPacked(k); got != want[k] {
			t.Fatalf("%#x: action %d, want %d", k, got, want[k])
		}
	}
}
