package simgridti

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchTrace returns a TI text of 64 ranks doing halo exchanges with
// irecv/isend/waitall, compute and an allreduce per step (about 40 MB).
func benchTrace(b *testing.B, wildcards bool) []byte {
	b.Helper()
	const P, steps = 64, 4000
	var buf bytes.Buffer
	for r := range P {
		fmt.Fprintf(&buf, "%d init\n", r)
	}
	for r := range P {
		left, right := (r+P-1)%P, (r+1)%P
		src := left
		if wildcards {
			src = -555
		}
		for s := range steps {
			// Tags tell the directions apart: a message from the left
			// carries an even tag.
			even, odd := 2*(s%7), 2*(s%7)+1
			fmt.Fprintf(&buf, "%d irecv %d %d 4096 0\n%d irecv %d %d 4096 0\n", r, src, even, r, right, odd)
			fmt.Fprintf(&buf, "%d compute %g\n", r, 1e6+float64(r*s))
			fmt.Fprintf(&buf, "%d isend %d %d 4096 0\n%d isend %d %d 4096 0\n", r, left, odd, r, right, even)
			fmt.Fprintf(&buf, "%d waitall\n%d allreduce 1 100 0\n", r, r)
		}
		fmt.Fprintf(&buf, "%d finalize\n", r)
	}
	return buf.Bytes()
}

func BenchmarkRead(b *testing.B) {
	for _, wild := range []bool{false, true} {
		b.Run(fmt.Sprintf("wildcards=%v", wild), func(b *testing.B) {
			data := benchTrace(b, wild)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				tr, err := Read(bytes.NewReader(data), nil)
				if err != nil {
					b.Fatal(err)
				}
				if c := tr.CountMessages(); c.UnmatchedRecvs != 0 {
					b.Fatalf("%+v", c)
				}
			}
		})
	}
}

func BenchmarkWrite(b *testing.B) {
	tr, err := Read(bytes.NewReader(benchTrace(b, false)), nil)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, tr, WriteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
