package tsim

import (
	"io"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/iotest"
)

// TestLineReader: the lines of random texts (lines of 0 to 70 bytes,
// some ending in "\r\n", the last with or without its break) come out
// one by one, numbered, whatever the reads return: the words searched
// for a line break never pass one, nor the end of the data read.
func TestLineReader(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for trial := range 300 {
		var b strings.Builder
		for range rng.IntN(200) {
			for range rng.IntN(71) {
				b.WriteByte("ab \t\x00\x0b\x09\x8a"[rng.IntN(8)])
			}
			b.WriteString([]string{"\n", "\r\n", "\n"}[rng.IntN(3)])
		}
		if rng.IntN(2) == 0 {
			b.WriteString("last")
		}
		text := b.String()
		want := strings.Split(text, "\n")
		if want[len(want)-1] == "" {
			want = want[:len(want)-1]
		}
		for k, r := range []io.Reader{strings.NewReader(text), iotest.OneByteReader(strings.NewReader(text)), iotest.HalfReader(strings.NewReader(text))} {
			lr := newLineReader(r)
			for n, w := range want {
				line, err := lr.next()
				if err != nil {
					t.Fatalf("trial %d, reader %d, line %d: %v", trial, k, n+1, err)
				}
				if w = strings.TrimSuffix(w, "\r"); string(line) != w || lr.line != n+1 {
					t.Fatalf("trial %d, reader %d: line %d = %q (numbered %d), want %q", trial, k, n+1, line, lr.line, w)
				}
			}
			if line, err := lr.next(); err != io.EOF {
				t.Fatalf("trial %d, reader %d: after the last line %q, %v; want EOF", trial, k, line, err)
			}
		}
	}
}
