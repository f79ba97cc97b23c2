package clog2

import (
	"bytes"
	"os"
	"testing"
)

// FuzzRead: no input makes the reader panic or allocate without bound;
// what it accepts is a valid trace that the writer can write, and writing
// what was read back gives the same bytes again.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile(cpilogPath); err == nil {
		f.Add(b)
	}
	small := newCraft(true, 3, 256)
	small.auto, small.stale = true, true
	f.Add(kitchenSink(small))
	garbage := newCraft(true, 3, 256)
	garbage.auto, garbage.every, garbage.filler = true, 2, 0x5a
	f.Add(kitchenSink(garbage))
	un := newCraft(false, 2, 256)
	un.rec(0.5, 0, 1, recTimeShift, timeshift(0.1)...)
	un.rec(0.5, 0, 1, recCommEvt, commevt(commWorldCreate, 0, 1, 1)...)
	un.rec(1.0, 0, 1, recMsgEvt, msg(etypeSend, -1, 0, 7, 128)...)
	f.Add(un.end(recEndLog, 2).comms([]int32{0, 1}, []int32{1, 1}).bytes())
	for _, ranks := range [][]int32{{1, 2, 0}, {0, 1, 2}, {2, 2, 1}} {
		c := newCraft(true, 3, 256).worldCommEvts(3, 0)
		c.auto = true
		for _, r := range ranks {
			c.rec(1, 0, r, recBareEvt, bare(5000)...)
		}
		f.Add(c.end(recEndLog, maxTime).worldTable(3).bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if p, err := parsePreamble(data[:min(len(data), preambleLen)]); err == nil && p.worldSize > 4096 {
			t.Skip("worlds beyond 4096 ranks only cost memory")
		}
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		if err := tr.Validate(); err != nil {
			t.Fatalf("accepted an invalid trace: %v", err)
		}
		var first bytes.Buffer
		if err := Write(&first, tr); err != nil {
			return // e.g. a field the model keeps but MPE's layout cannot hold
		}
		back, err := Read(bytes.NewReader(first.Bytes()))
		if err != nil {
			t.Fatalf("cannot read what was written: %v", err)
		}
		if a, b := semantics(tr), semantics(back); !equalLines(a, b) {
			t.Fatalf("write changes the trace: %s", diffLines(a, b))
		}
		var second bytes.Buffer
		if err := Write(&second, back); err != nil {
			t.Fatalf("cannot write what was read back: %v", err)
		}
		if !bytes.Equal(first.Bytes(), second.Bytes()) {
			t.Fatalf("second write differs: %s", firstDiff(first.Bytes(), second.Bytes()))
		}
	})
}
