package simgridti

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/tracefmt/lineblock"
)

// memoLines are tight lines and others: repeated lines, lines that
// differ in one byte, a line longer than a key, lines decodeTight leaves.
var memoLines = []string{
	"0 irecv 1 0 24000 6\n",
	"0 irecv 63 1 24000 6\n",
	"0 isend 1 1 24000 6\n",
	"0 isend 63 0 24000 6\n",
	"0 waitall 8\n",
	"0 compute 400000\n",
	"0 allreduce 1 0 0 \n",
	"0 allreduce 1 0 0\n",
	"52 isend 53 0 4096 0\n",
	"52 isend 51 0 4096 0\n",
	"52 irecv 53 0 4096 0\n",
	"52 irecv 51 0 4096 0\n",
	"12 wait 3 12 7\n",
	"12 test 3 12 7 \n",
	"1 barrier\n",
	"1048575 send 1048575 99999999 99999999 59\n", // longer than a key
	"1048575 send 1048575 99999 9 59\n",           // 31 bytes and "\n"
	"0 compute 1e+06\n",                           // left to decodeFast
	"0 init\n",
	"0 irecv -555 1 8 0\n",
	"0 send 1 0 8 0\r\n",
}

// TestMemoDecodesAsTight feeds a memo the lines in a random order, many
// times over, each time in a window whose bytes after the line differ:
// every answer must be decodeTight's for the same window, and a line
// seen before (with no other line of its slot pair seen since) must be
// found without decoding it again.
func TestMemoDecodesAsTight(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var m lineMemo
	m.init(minMemoBits)
	ids := map[uint32]string{}
	for i := range 20000 {
		text := memoLines[rng.IntN(len(memoLines))]
		var w lineBuf
		copy(w[:], text)
		for j := len(text); j < len(w); j++ {
			w[j] = "0123456789 \nabc"[rng.IntN(15)] // the next lines' bytes
		}
		var want, got fastRec
		wn, wok := decodeTight(&w, &want)
		misses := m.misses
		gn, gok := m.decode(&w, &got)
		if gn != wn || gok != wok || gok && !sameRecord(got, want) {
			t.Fatalf("step %d, %q: memo %d %v %+v, decodeTight %d %v %+v", i, text, gn, gok, got, wn, wok, want)
		}
		if gok && got.id != 0 {
			// An id names one line's bytes, never another's: the
			// templates rest on it.
			line := string(w[:gn+1])
			if prev, ok := ids[got.id]; ok && prev != line {
				t.Fatalf("step %d: id %d names %q and %q", i, got.id, prev, line)
			}
			ids[got.id] = line
		}
		if m.misses > misses && i > 1000 && wok && len(text) <= 8*memoWords && m.rest == 0 {
			// With a score of keys in 512 pairs of slots, a miss after
			// the first thousand lines means two lines of a pair evict
			// each other.
			t.Fatalf("step %d: %q decoded again", i, text)
		}
	}
}

// TestMemoFindsRepeats checks the memo on a loop of SimGrid lines, as a
// rank's file repeats them: after the first iteration every line is
// found (no decodeTight), and a stream of distinct lines turns the memo
// off for a while.
func TestMemoFindsRepeats(t *testing.T) {
	var m lineMemo
	m.init(minMemoBits)
	loop := memoLines[:15]
	for it := range 100 {
		for _, text := range loop {
			var w lineBuf
			copy(w[:], text)
			var fr fastRec
			if _, ok := m.decode(&w, &fr); !ok {
				t.Fatalf("%q not taken", text)
			}
		}
		if it == 0 {
			m.misses = 0
		}
	}
	if m.misses != 0 {
		t.Fatalf("%d lines decoded again after the first iteration", m.misses)
	}
	for i := range 2 * memoTrial {
		var w lineBuf
		copy(w[:], fmt.Sprintf("3 compute %d\n", 1000000+i))
		var fr fastRec
		if _, ok := m.decode(&w, &fr); !ok || fr.v != float64(1000000+i) {
			t.Fatalf("line %d: %v %+v", i, ok, fr)
		}
	}
	if m.rest <= 0 {
		t.Fatalf("after %d distinct lines the memo is still tried", 2*memoTrial)
	}
}

// memoPairOf returns the slot pair a line of at most 31 bytes (its
// "\n" included in text) hashes to.
func memoPairOf(text string) uint64 {
	var k [memoWords]uint64
	for i := range len(text) {
		k[i/8] |= uint64(text[i]) << (8 * (i % 8))
	}
	return memoHash(k[0], k[1], k[2], k[3]) >> (64 - minMemoBits) &^ 1
}

// TestMemoSlotPairs decodes lines that hash to the same pair of slots,
// two of them in turn (both kept: after the first two, none decoded
// again) then three (each evicting another): every answer is
// decodeTight's.
func TestMemoSlotPairs(t *testing.T) {
	byPair := map[uint64][]string{}
	var same []string
	for r := 0; len(same) < 3; r++ {
		text := fmt.Sprintf("%d isend %d 0 4096 0\n", r%64, r/64)
		h := memoPairOf(text)
		byPair[h] = append(byPair[h], text)
		if len(byPair[h]) == 3 {
			same = byPair[h]
		}
	}
	check := func(m *lineMemo, text string) {
		t.Helper()
		var w lineBuf
		copy(w[:], text)
		var want, got fastRec
		wn, wok := decodeTight(&w, &want)
		gn, gok := m.decode(&w, &got)
		if !wok || gn != wn || gok != wok || !sameRecord(got, want) {
			t.Fatalf("%q: memo %d %v %+v, decodeTight %d %v %+v", text, gn, gok, got, wn, wok, want)
		}
	}
	var m lineMemo
	m.init(minMemoBits)
	for i := range 100 {
		check(&m, same[i%2])
		if i == 1 {
			m.misses = 0
		}
	}
	if m.misses != 0 {
		t.Fatalf("two lines of one slot pair: %d decoded again", m.misses)
	}
	for i := range 99 {
		check(&m, same[i%3])
	}
	if m.misses != 97 {
		// The first two are the two lines the pair held.
		t.Fatalf("three lines of one slot pair in turn: %d of 99 decoded again, want 97", m.misses)
	}
}

// sameRecord reports whether the memo's record got is decodeTight's
// want, but for the id the memo gives the line (decodeTight gives none).
func sameRecord(got, want fastRec) bool {
	if want.id != 0 {
		return false
	}
	got.id = 0
	return got == want
}

// TestMemoGuessChecked: the memo guesses that a loop's lines come in
// the order they came before, and must not take a line for the one it
// guessed when they differ in any byte or in length. Lines repeat in a
// fixed order (so the guesses are made), and every so often a variant
// of the guessed line comes instead: one byte changed, one digit added
// or removed, the line break moved. Each must decode as decodeTight
// decodes it.
func TestMemoGuessChecked(t *testing.T) {
	loop := []string{
		"0 irecv 1 0 24000 6\n", "0 irecv 63 1 24000 6\n", "0 isend 1 1 24000 6\n",
		"0 waitall 8\n", "0 compute 400000\n", "0 allreduce 1 0 0 \n",
		"12 isend 13 4 123456789 6\n", "7 send 12345678 0 12345678 0\n",
	}
	variants := func(line string) []string {
		var out []string
		body := line[:len(line)-1]
		for i := range body {
			for _, c := range []byte{'0', '9', ' ', 'x'} {
				if body[i] != c {
					out = append(out, body[:i]+string(c)+body[i+1:]+"\n")
				}
			}
			out = append(out, body[:i]+body[i+1:]+"\n")
		}
		return append(out, body+"1\n", body+" \n", body+"\n\n", body[:len(body)-1]+"\n")
	}
	var m lineMemo
	m.init(minMemoBits)
	decodes := 0
	check := func(text string) {
		t.Helper()
		var w lineBuf
		for i := range w {
			w[i] = '5' // what follows could extend a line cut short
		}
		copy(w[:], text)
		var want, got fastRec
		wn, wok := decodeTight(&w, &want)
		gn, gok := m.decode(&w, &got)
		if gn != wn || gok != wok || wok && !sameRecord(got, want) {
			t.Fatalf("%q: memo %d %v %+v, decodeTight %d %v %+v", text, gn, gok, got, wn, wok, want)
		}
		decodes++
	}
	for range 3 {
		for _, l := range loop {
			check(l)
		}
	}
	for k, l := range loop {
		for _, v := range variants(l) {
			// The loop up to l, so that l is guessed, then its variant,
			// then the rest of the loop.
			for _, before := range loop[:k] {
				check(before)
			}
			check(v)
			for _, after := range loop[k+1:] {
				check(after)
			}
			for _, l := range loop {
				check(l)
			}
		}
	}
	if decodes < 1000 {
		t.Fatalf("only %d lines decoded", decodes)
	}
}

// TestMemoRecDecodesAgain: a block's worker hands out a line the memo
// knows by its id alone, and the goroutine applying it finds its record
// in the memo's byID, or decodes the line again once later lines' ids
// took its place there. Both must give decodeTight's record.
func TestMemoRecDecodesAgain(t *testing.T) {
	var text []byte
	a := "3 isend 5 7 24000 6\n"
	text = append(text, a...)
	// Enough distinct lines after a for its byID place to be taken,
	// among lines found often enough that the memo does not rest.
	for i := range 1 << minMemoBits {
		text = fmt.Appendf(text, "3 compute %d\n3 barrier\n3 barrier\n3 barrier\n", 1000+i)
	}
	text = append(text, a...)
	text = append(text, "3 wait 3 5 7\n"...)
	text = append(text, a...)
	text = append(text, make([]byte, len(lineBuf{}))...)
	var d decodedBlock
	if err := decodeBlock(&lineblock.Block{Data: text, Line: 1}, &d); err != nil {
		t.Fatal(err)
	}
	// what decodeTight sets of a record (it leaves the fields a line
	// lacks as they were), with the line's id.
	same := func(got fastRec, l blockLine) bool {
		want := got
		if _, ok := decodeTight((*lineBuf)(text[l.lo:]), &want); !ok {
			t.Fatalf("line %d is not tight", l.no+1)
		}
		want.id = l.id
		return got == want
	}
	first, again := d.lines[0], d.lines[len(d.lines)-2]
	if first.kind != lineNamed || again.kind != lineNamed || first.id != again.id || d.lines[len(d.lines)-4].id != first.id {
		t.Fatalf("lines a: %+v and %+v, want one name", first, again)
	}
	if got := d.memo.rec(first.id).id; got == first.id {
		t.Fatalf("byID still holds a's record (id %d): the test needs it taken", got)
	}
	for _, l := range []blockLine{first, again} {
		if got := d.memoRec(text, &l); !same(got, l) || got.act != fastIsend || got.count != 24000 {
			t.Errorf("line %d: memoRec %+v", l.no+1, got)
		}
	}
	// The wait, named after the others, is still in byID.
	w := d.lines[len(d.lines)-3]
	if got := d.memoRec(text, &w); w.kind != lineNamed || !same(got, w) || got.act != fastWait {
		t.Errorf("wait: %+v, memoRec %+v", w, got)
	}
}

// TestMemoGuessesEitherFollower: a line followed by one of two others
// in turn (CG's allreduce, before one compute and then another) has
// both guessed, without a hash; a third line is guessed by neither and
// still decodes as decodeTight decodes it.
func TestMemoGuessesEitherFollower(t *testing.T) {
	window := func(s string) *lineBuf {
		var w lineBuf
		copy(w[:], s)
		return &w
	}
	a, b, c := "0 allreduce 1 0 0 \n", "0 compute 100000\n", "0 compute 50000\n"
	var m lineMemo
	m.init(minMemoBits)
	var fr fastRec
	for range 3 {
		for _, s := range []string{a, b, a, c} {
			if _, _, ok := m.decodeID(window(s), &fr); !ok {
				t.Fatalf("%q not decoded", s)
			}
		}
	}
	for _, next := range []string{b, c} {
		m.decodeID(window(a), &fr)
		gi := m.guessed(window(next))
		if gi == 0 || m.slots[gi-1].n != len(next)-1 {
			t.Errorf("after %q, %q not guessed (slot %d)", a, next, gi)
		}
		m.decodeID(window(next), &fr)
	}
	m.decodeID(window(a), &fr)
	d := "0 compute 7\n"
	if gi := m.guessed(window(d)); gi != 0 {
		t.Errorf("%q guessed (slot %d)", d, gi)
	}
	n, id, ok := m.decodeID(window(d), &fr)
	got := *m.rec(id)
	// decodeTight leaves the fields a line lacks as they were.
	want := got
	wn, _ := decodeTight(window(d), &want)
	want.id = id
	if !ok || n != wn || id == 0 || got != want || got.act != fastCompute || got.v != 7 {
		t.Errorf("%q: decodeID %d %d %v %+v, want %d %+v", d, n, id, ok, got, wn, want)
	}
}
