package otf2

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
)

// benchMB is the size of the generated benchmark archive: 1024 MB unless
// OTF2_BENCH_MB says otherwise (e.g. OTF2_BENCH_MB=64 for quick runs).
func benchMB(b *testing.B) int {
	if s := os.Getenv("OTF2_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("OTF2_BENCH_MB=%q: want a positive number of megabytes", s)
		}
		return n
	}
	return 1024
}

// benchTrace builds what Score-P records of an MPI code: 64 ranks
// exchanging messages inside MPI_Send/MPI_Recv regions, with an
// MPI_Allreduce every 8 steps, about mb megabytes once written as OTF2
// (about 95 bytes per rank and step).
func benchTrace(tb testing.TB, mb int) *tracefmt.Trace {
	tb.Helper()
	const P = 64
	const perStep = 95
	steps := mb << 20 / (perStep * P)
	b := tracefmt.NewBuilder(P, true, tracefmt.Nanosecond)
	send, recv, allred := b.State("MPI_Send"), b.State("MPI_Recv"), b.State("MPI_Allreduce")
	for r := range P {
		b.Grow(r, steps*7)
		t := float64(r) * 100
		add := func(e tracefmt.Event) {
			if _, err := b.Add(r, e); err != nil {
				tb.Fatal(err)
			}
		}
		for s := range steps {
			next := func(d float64) float64 { t += d; return t }
			dst, src := (r+1+s%7)%P, (r+P-1-s%7)%P
			add(tracefmt.Enter(next(2000), send))
			add(tracefmt.Send(next(100), dst, int32(s%16), 0, int64(8<<(s%10))))
			add(tracefmt.Leave(next(300), send))
			add(tracefmt.Enter(next(1000), recv))
			add(tracefmt.Recv(next(4000), src, int32(s%16), 0, int64(8<<(s%10))))
			add(tracefmt.Leave(next(100), recv))
			if s%8 == 7 {
				add(tracefmt.Enter(next(1000), allred))
				add(tracefmt.Collective(next(5000), tracefmt.OpAllreduce, -1, 0, 8, 8))
				add(tracefmt.Leave(next(100), allred))
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// BenchmarkRead reads a generated archive (b.SetBytes: the size of all
// its files, so -bench reports MB/s).
func BenchmarkRead(b *testing.B) {
	dir := b.TempDir()
	anchor := writeArchive(b, benchTrace(b, benchMB(b)), dir)
	var size int64
	filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			size += fi.Size()
		}
		return err
	})
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := ReadFile(anchor); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDecodeEvents decodes the event files of a generated archive
// without building a trace: the decoder's share of BenchmarkRead.
func BenchmarkDecodeEvents(b *testing.B) {
	dir := b.TempDir()
	writeArchive(b, benchTrace(b, max(benchMB(b)/16, 1)), dir)
	files, _ := filepath.Glob(filepath.Join(dir, "traces", "*.evt"))
	var data [][]byte
	var size int64
	for _, f := range files {
		d, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, d)
		size += int64(len(d))
	}
	b.SetBytes(size)
	b.ResetTimer()
	for range b.N {
		for _, d := range data {
			if _, err := countEvents(d, writeEventChunk); err != nil {
				b.Fatal(err)
			}
		}
	}
}
