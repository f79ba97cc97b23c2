package simgridti

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/internal/cputime"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
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

// benchFiles writes, once per machine, a CG-like trace of 64 ranks (about
// 1.15 M events: 1200 iterations of gen's cg pattern) as TI in both
// layouts under os.TempDir(), and returns the single file and the index.
func benchFiles(b *testing.B) (single, index string) {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "tracesim-ti-bench-v1")
	single, index = filepath.Join(dir, "cg64.ti"), filepath.Join(dir, "cg64-index.txt")
	if _, err := os.Stat(index); err == nil {
		return single, index
	}
	tr, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 64, Iters: 1200, Size: 8192, Compute: 200e-6, Latency: gen.DefaultLatency, Bandwidth: gen.DefaultBandwidth})
	if err != nil {
		b.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(single, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := WriteIndex(index, tr, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	return single, index
}

// dirBytes returns the bytes of the index at path and of the files it
// lists.
func dirBytes(b *testing.B, path string) int64 {
	b.Helper()
	files, err := IndexFiles(path)
	if err != nil {
		b.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	n := st.Size()
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			b.Fatal(err)
		}
		n += st.Size()
	}
	return n
}

// BenchmarkReadFile reads the CG-like trace from disk in both layouts and
// reports MB/s, events/s and the heap the loaded trace keeps per event
// (B/event).
func BenchmarkReadFile(b *testing.B) {
	single, index := benchFiles(b)
	for _, c := range []struct{ name, path string }{{"single", single}, {"index", index}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(dirBytes(b, c.path))
			b.ReportAllocs()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var tr *tracefmt.Trace
			n := 0
			cpu := cputime.Used()
			for b.Loop() {
				tr = nil
				var err error
				if tr, err = ReadFile(c.path); err != nil {
					b.Fatal(err)
				}
				n++
			}
			if cpu = cputime.Used() - cpu; cpu > 0 {
				// What one core reads, however loaded the machine.
				b.ReportMetric(float64(dirBytes(b, c.path))*float64(n)/cpu.Seconds()/1e6, "MB/cpu-s")
			}
			events := tr.NumEvents()
			b.ReportMetric(float64(events)*float64(n)/b.Elapsed().Seconds(), "events/s")
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(events), "B/event")
			runtime.KeepAlive(tr)
		})
	}
}

// BenchmarkReadStencil reads the input of `tracesim bench`'s ti/read: a
// generated 64-rank stencil2d trace of about a million events, as TI
// (about 6 bytes a event: every action is an enter, its event and a
// leave), and reports MB per CPU second beside the wall-clock rate.
func BenchmarkReadStencil(b *testing.B) {
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 520, Compute: -1})
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(&buf, tr, WriteOptions{}); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu := cputime.Used()
	n := 0
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), nil); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if cpu = cputime.Used() - cpu; cpu > 0 {
		b.ReportMetric(float64(len(data))*float64(n)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
}

// BenchmarkSource streams the CG-like index as `tracesim sim` does (a
// window of 256 events per rank, ranks taking turns), directly and through
// tracefmt.Prefetch, and reports MB per CPU second: the parsing cost of a
// streamed replay, which ReadFile's figures do not show (they also match
// messages and keep the trace).
func BenchmarkSource(b *testing.B) {
	_, index := benchFiles(b)
	size := dirBytes(b, index)
	for _, prefetch := range []bool{false, true} {
		b.Run(fmt.Sprintf("prefetch=%v", prefetch), func(b *testing.B) {
			b.SetBytes(size)
			buf := make([]tracefmt.Event, 256)
			cpu := cputime.Used()
			n := 0
			for b.Loop() {
				s, err := OpenSource(index)
				if err != nil {
					b.Fatal(err)
				}
				var src tracefmt.Source = s
				if prefetch {
					src = tracefmt.Prefetch(s, 0)
				}
				done := make([]bool, len(src.Header().Ranks))
				for live := len(done); live > 0; {
					for r := range done {
						if done[r] {
							continue
						}
						if _, err := src.ReadRank(r, buf); errors.Is(err, io.EOF) {
							done[r] = true
							live--
						} else if err != nil {
							b.Fatal(err)
						}
					}
				}
				src.Close()
				n++
			}
			if cpu = cputime.Used() - cpu; cpu > 0 {
				b.ReportMetric(float64(size)*float64(n)/cpu.Seconds()/1e6, "MB/cpu-s")
			}
		})
	}
}
