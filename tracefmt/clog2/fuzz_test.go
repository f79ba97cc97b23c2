package clog2

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/alog"
	"github.com/tracesim/tracesim/tracefmt/clog"
)

// FuzzRead: no input makes the reader panic or allocate without bound;
// what it accepts is a valid trace that the writer can write, and writing
// what was read back gives the same bytes again. The corpus starts from
// real MPE logs; preambles claiming any world size are fuzzed, since the
// reader judges the claim against the file before allocating for it.
func FuzzRead(f *testing.F) {
	if b, err := os.ReadFile(cpilogPath); err == nil {
		f.Add(b)
	}
	// Real MPE logs of the older formats (CLOG, ALOG), written as CLOG2: MPE's own
	// converter turns them into CLOG2 the same way.
	for _, src := range []struct {
		path string
		read func(io.Reader) (*tracefmt.Trace, error)
	}{
		{"../clog/testdata/fpilog.clog", clog.Read},
		{testshared.Dir() + "/clog/pmandel.clog", clog.Read},
		{testshared.Dir() + "/alog/srtest.alog", alog.Read},
	} {
		in, err := os.Open(src.path)
		if err != nil {
			continue // a shared sample that is absent
		}
		tr, err := src.read(in)
		in.Close()
		if err != nil {
			f.Fatalf("%s: %v", src.path, err)
		}
		var b bytes.Buffer
		if err := Write(&b, tr); err != nil {
			f.Fatalf("%s: writing as CLOG2: %v", src.path, err)
		}
		f.Add(b.Bytes())
	}
	// ALOG logs with user markers (see alog_test.go), written as CLOG2.
	for _, a := range alogSamples {
		if tr, ok := readALOGSample(f, a.path, a.text); ok {
			f.Add(writeBytes(f, tr))
		}
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
		tr, err := Read(bytes.NewReader(data))
		// Blocks and ranks on workers (from 2 blocks and any number of
		// events on) or one after the other: the same trace or error.
		par, parErr := newReader(bytes.NewReader(data), 0, 2).read()
		if (err == nil) != (parErr == nil) || err != nil && err.Error() != parErr.Error() || traceText(tr) != traceText(par) {
			t.Fatalf("read on workers: error %v, want %v (or the trace differs)", parErr, err)
		}
		// Every record decoded by record, not scanned by blocks.
		ref, refErr := byRecord(data).read()
		if (err == nil) != (refErr == nil) || err != nil && err.Error() != refErr.Error() || traceText(tr) != traceText(ref) {
			t.Fatalf("read record by record: error %v, want %v (or the trace differs)", refErr, err)
		}
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error without an offset: %v", err)
			}
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
