package alog

import (
	"bytes"
	"fmt"
	"testing"
)

// benchLog returns an ALOG file of n message exchanges between 16
// processes, each inside SEND and RECV states: 6 lines per exchange.
func benchLog(n int) []byte {
	var b bytes.Buffer
	b.WriteString("-1 0 0 0 0 0 bench\n-3 0 0 16 0 0\n-13 0 155 156 0 0 green:light_gray RECV\n-13 0 161 162 0 0 blue:gray3 SEND\n")
	for i := range n {
		s, r, ts := i%16, (i+1)%16, 10*i
		fmt.Fprintf(&b, "161 %d 0 %d 0 %d \n", s, i, ts)
		fmt.Fprintf(&b, "-101 %d 0 %d 0 %d %d 1024\n", s, r, ts+1, i%7)
		fmt.Fprintf(&b, "162 %d 0 %d 0 %d \n", s, i, ts+2)
		fmt.Fprintf(&b, "155 %d 0 %d 0 %d \n", r, i, ts+3)
		fmt.Fprintf(&b, "-102 %d 0 %d 0 %d %d 1024\n", r, s, ts+4, i%7)
		fmt.Fprintf(&b, "156 %d 0 %d 0 %d \n", r, i, ts+5)
	}
	return b.Bytes()
}

// BenchmarkRead reports the throughput of Read on a 15 MB log
// (600 000 event lines).
func BenchmarkRead(b *testing.B) {
	data := benchLog(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		if tr.NumEvents() != 600_000 {
			b.Fatalf("%d events", tr.NumEvents())
		}
	}
}
