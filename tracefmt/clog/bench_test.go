package clog

import (
	"bytes"
	"testing"
)

// benchLog returns a merged log of n message exchanges between 16 ranks,
// each inside SEND and RECV states: 6 RAW records per exchange.
func benchLog(n int) []byte {
	f := newLog()
	for i := range n {
		s, r := int32(i%16), int32((i+1)%16)
		t := float64(i) * 1e-5
		f.raw(t, s, 161, 0, "")
		f.send(t, s, r, int32(i%7), 1024)
		f.raw(t, s, 162, 0, "")
		f.raw(t, r, 155, 0, "")
		f.recv(t, r, s, int32(i%7), 1024)
		f.raw(t, r, 156, 0, "")
	}
	f.stateDef(0, 207, 155, 156, "green:light_gray", "RECV")
	f.stateDef(0, 208, 161, 162, "blue:gray3", "SEND")
	return f.bytes()
}

// BenchmarkRead reports the throughput of Read on a 34 MB log
// (600 000 records).
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
