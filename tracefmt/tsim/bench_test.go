package tsim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/internal/cputime"
	"github.com/tracesim/tracesim/tracefmt"
)

// The benchmark trace: 10 M events over 64 ranks.
const (
	benchEvents = 10_000_000
	benchRanks  = 64
)

// benchTrace builds a trace of about n events over P ranks, deterministic
// for its arguments: each rank posts an Irecv from its left neighbour,
// sends to its right neighbour, waits, computes, and every eighth
// iteration joins an Allreduce; a marker with a text every 1000
// iterations. Times are microseconds with nanosecond digits.
func benchTrace(tb testing.TB, n, P int) *tracefmt.Trace {
	tb.Helper()
	b := tracefmt.NewBuilder(P, true, tracefmt.Microsecond)
	compute := b.DefineState(tracefmt.StateDef{Name: "Compute", Category: tracefmt.CatCompute, Color: "#4caf50"})
	irecv := b.DefineState(tracefmt.StateDef{Name: "MPI_Irecv", Category: tracefmt.CatP2P, Color: "#f44336"})
	sendS := b.DefineState(tracefmt.StateDef{Name: "MPI_Send", Category: tracefmt.CatP2P, Color: "#2196f3"})
	waitS := b.DefineState(tracefmt.StateDef{Name: "MPI_Wait", Category: tracefmt.CatWait, Color: "#9e9e9e"})
	allred := b.DefineState(tracefmt.StateDef{Name: "MPI_Allreduce", Category: tracefmt.CatCollective, Color: "#ff9800"})
	mark := b.DefineMarker(tracefmt.MarkerDef{Name: "iteration"})
	// 13 events per iteration plus 3 every eighth.
	iters := int(float64(n) / (float64(P) * (13 + 3.0/8)))
	rng := rand.New(rand.NewPCG(uint64(n), uint64(P)))
	add := func(r int, e tracefmt.Event) {
		if _, err := b.Add(r, e); err != nil {
			tb.Fatal(err)
		}
	}
	for r := range P {
		b.Grow(r, iters*14)
		left, right := (r+P-1)%P, (r+1)%P
		t := 0.0
		tick := func(max float64) float64 {
			t = math.Round((t+rng.Float64()*max)*1000) / 1000
			return t
		}
		for it := range iters {
			tag := int32(it % 16)
			if it%1000 == 0 {
				m := tracefmt.Mark(tick(1), mark)
				m.SetTextRef(b.Text(fmt.Sprintf("iteration %d", it)))
				add(r, m)
			}
			add(r, tracefmt.Enter(tick(1), irecv))
			rv := tracefmt.Recv(tick(1), left, tag, 0, 4096)
			rv.Flags = tracefmt.FlagNonBlocking
			rv.SetRequest(int64(it + 1))
			add(r, rv)
			add(r, tracefmt.Leave(tick(1), irecv))
			add(r, tracefmt.Enter(tick(1), sendS))
			add(r, tracefmt.Send(tick(3), right, tag, 0, 4096))
			add(r, tracefmt.Leave(tick(5), sendS))
			add(r, tracefmt.Enter(tick(1), waitS))
			add(r, tracefmt.Wait(tick(20), int64(it+1)))
			add(r, tracefmt.Leave(tick(1), waitS))
			add(r, tracefmt.Enter(tick(1), compute))
			add(r, tracefmt.ComputeTime(t, 50))
			add(r, tracefmt.Leave(tick(100), compute))
			if it%8 == 7 {
				add(r, tracefmt.Enter(tick(1), allred))
				add(r, tracefmt.Collective(t, tracefmt.OpAllreduce, -1, 0, 8, 8))
				add(r, tracefmt.Leave(tick(30), allred))
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		tb.Fatal(err)
	}
	return tr
}

// benchData returns the encoded benchmark trace, generated once and kept
// in the system's temporary directory for later runs.
func benchData(b *testing.B) []byte {
	b.Helper()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("tracesim-tsim-bench-v1-%d-%d.tsim", benchEvents, benchRanks))
	if data, err := os.ReadFile(path); err == nil {
		return data
	}
	tr := benchTrace(b, benchEvents, benchRanks)
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		b.Fatal(err)
	}
	err = Write(f, tr)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkRead parses the 10 M-event trace and reports throughput in
// MB/s and events/s, and the resident heap of the loaded trace per event.
func BenchmarkRead(b *testing.B) {
	data := benchData(b)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var tr *tracefmt.Trace
	n := 0
	cpu := cputime.Used()
	for b.Loop() {
		tr = nil // let the previous trace go while the next one is read
		var err error
		if tr, err = Read(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
		n++
	}
	if cpu = cputime.Used() - cpu; cpu > 0 {
		// What one core reads, however loaded the machine.
		b.ReportMetric(float64(len(data))*float64(n)/cpu.Seconds()/1e6, "MB/cpu-s")
	}
	events := tr.NumEvents()
	b.ReportMetric(float64(events)*float64(n)/b.Elapsed().Seconds(), "events/s")
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/float64(events), "B/event")
	if c := tr.CountMessages(); c.UnmatchedSends+c.UnmatchedRecvs != 0 || c.Matched == 0 {
		b.Fatalf("messages %+v", c)
	}
	runtime.KeepAlive(tr)
	runtime.KeepAlive(data) // counted in before, so it must be in after
}

// BenchmarkWrite writes the 10 M-event trace.
func BenchmarkWrite(b *testing.B) {
	tr, err := Read(bytes.NewReader(benchData(b)))
	if err != nil {
		b.Fatal(err)
	}
	var cw countWriter
	if err := Write(&cw, tr); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(cw.n)
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if err := Write(io.Discard, tr); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(tr.NumEvents())*float64(n)/b.Elapsed().Seconds(), "events/s")
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	return len(p), nil
}

// BenchmarkCountRecords runs the count pass alone (one part) over the
// 10 M-event trace: the cost a counted read adds to the parse.
func BenchmarkCountRecords(b *testing.B) {
	data := benchData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := countRecords(context.Background(), bytes.NewReader(data), 0, 0, 1, MaxRanks); err != nil {
			b.Fatal(err)
		}
	}
}
