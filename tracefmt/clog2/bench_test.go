package clog2

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/tracesim/tracesim/internal/cputime"
	"github.com/tracesim/tracesim/tracefmt"
)

// benchMB is the size of the generated benchmark file: 1024 MB unless
// CLOG2_BENCH_MB says otherwise (e.g. CLOG2_BENCH_MB=64 for quick runs).
func benchMB(b *testing.B) int {
	if s := os.Getenv("CLOG2_BENCH_MB"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("CLOG2_BENCH_MB=%q: want a positive number of megabytes", s)
		}
		return n
	}
	return 1024
}

// benchTrace builds what MPE's MPI wrappers log: 64 ranks exchanging
// messages in MPI_Send/MPI_Recv states (BAREEVT + MSGEVT records), with an
// MPI_Allreduce every 8 steps, about mb megabytes once written.
func benchTrace(tb testing.TB, mb int) *tracefmt.Trace {
	tb.Helper()
	const P = 64
	const perStep = 237 // bytes of records per rank and step
	steps := mb << 20 / (perStep * P)
	b := tracefmt.NewBuilder(P, true, tracefmt.Second)
	send, recv, allred := b.State("MPI_Send"), b.State("MPI_Recv"), b.State("MPI_Allreduce")
	for r := range P {
		b.Grow(r, steps*7)
		t := float64(r) * 1e-7
		add := func(e tracefmt.Event) {
			if _, err := b.Add(r, e); err != nil {
				tb.Fatal(err)
			}
		}
		for s := range steps {
			next := func(d float64) float64 { t += d; return t }
			dst, src := (r+1+s%7)%P, (r+P-1-s%7)%P
			add(tracefmt.Enter(next(2e-6), send))
			add(tracefmt.Send(next(1e-7), dst, int32(s%16), 0, int64(8<<(s%10))))
			add(tracefmt.Leave(next(3e-7), send))
			add(tracefmt.Enter(next(1e-6), recv))
			add(tracefmt.Recv(next(4e-6), src, int32(s%16), 0, int64(8<<(s%10))))
			add(tracefmt.Leave(next(1e-7), recv))
			if s%8 == 7 {
				add(tracefmt.Enter(next(1e-6), allred))
				add(tracefmt.Collective(next(5e-6), tracefmt.OpAllreduce, -1, 0, 8, 8))
				add(tracefmt.Leave(next(1e-7), allred))
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// benchFile returns a generated CLOG2 file of about mb megabytes under
// os.TempDir(), writing it on first use.
func benchFile(b *testing.B, mb int) string {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("tracesim-clog2-bench-%dMB.clog2", mb))
	if st, err := os.Stat(path); err == nil && st.Size() > int64(mb)<<19 {
		return path
	}
	b.Logf("writing %s (once)", path)
	tr := benchTrace(b, mb)
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		b.Fatal(err)
	}
	if err := Write(f, tr); err != nil {
		f.Close()
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

func BenchmarkRead(b *testing.B) {
	path := benchFile(b, benchMB(b))
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	events, runs := 0, 0
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := cputime.Used()
	var tr *tracefmt.Trace
	for b.Loop() {
		tr = nil // let the previous trace go while the next one is read
		f, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		tr, err = Read(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		events = tr.NumEvents()
		runs++
	}
	if cpu = cputime.Used() - cpu; cpu > 0 {
		// What one core reads, however loaded the machine.
		b.ReportMetric(float64(st.Size())*float64(runs)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
	b.ReportMetric(float64(events)*float64(runs)/b.Elapsed().Seconds(), "events/s")
	// The heap the loaded trace keeps per event.
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(events), "B/event")
	runtime.KeepAlive(tr)
}

func BenchmarkWrite(b *testing.B) {
	tr := benchTrace(b, 64)
	var buf bytes.Buffer
	if err := Write(&buf, tr); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := Write(io.Discard, tr); err != nil {
			b.Fatal(err)
		}
	}
}
