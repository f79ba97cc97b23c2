package packet_test

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
)

// BenchmarkTorusAlltoall replays, as NSIM does (seed 004 §5.2), an
// alltoall of 4-byte messages among the nodes of a torus with dimension
// order and dateline VCs, in causal mode, and reports the peak heap, the
// process's peak resident size and the packet hops per second. The trace
// holds the messages of Bruck's algorithm, which MPICH picks for it
// (log2 P rounds; in round k every rank sends the P/2 blocks of 4 B whose
// index has bit k set to rank + 2^k, and receives from rank − 2^k), as
// non-blocking sends and receives and a waitall. TRACESIM_BIG_PACKET sets
// the packet size (default 2KiB, NSIM's MTU; 0 sends every message as one
// packet, which is much faster). The 64×32×32 torus (65,536 nodes, 128 KiB
// per message) takes about 13 minutes with 2 KiB packets: run it alone,
//
//	go test -run '^$' -bench 'TorusAlltoall/64x32x32' -benchtime 1x ./engine/packet
func BenchmarkTorusAlltoall(b *testing.B) {
	for _, dims := range []string{"16x16x16", "64x32x32"} {
		b.Run(dims, func(b *testing.B) { benchTorusAlltoall(b, dims) })
	}
}

func benchTorusAlltoall(b *testing.B, dims string) {
	psize := os.Getenv("TRACESIM_BIG_PACKET")
	if psize == "" {
		psize = "2KiB"
	}
	P := 1
	for _, d := range strings.Split(dims, "x") {
		k, _ := strconv.Atoi(d)
		P *= k
	}
	for range b.N {
		runtime.GC()
		tr := bruckAlltoall(b, P, 4)
		cfg := replay.Default()
		for _, kv := range [][2]string{{"mode", "causal"}, {"model", "packet"}, {"topology", "torus:" + dims},
			{"routing", "dor"}, {"vcs", "2"}, {"buffer", "4"}, {"packet-size", psize}, {"header", "32B"},
			{"bandwidth", "32Gb/s"}, {"sample-period", "0"}} {
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				b.Fatal(err)
			}
		}
		var peak atomic.Uint64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-time.After(200 * time.Millisecond):
				}
			}
		}()
		start := time.Now()
		s, err := replay.New(tr, cfg, replay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Run(context.Background()); err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		close(stop)
		wg.Wait()
		res := s.Results()
		if !res.Complete {
			b.Fatalf("incomplete: %+v", res.Deadlock)
		}
		b.ReportMetric(float64(peak.Load())/(1<<20), "MiB-peak-heap")
		if hwm := vmHWM(); hwm > 0 {
			b.ReportMetric(float64(hwm)/(1<<20), "MiB-peak-RSS")
		}
		b.ReportMetric(float64(res.Network.Hops)/wall.Seconds(), "hops/s")
		b.ReportMetric(float64(res.Network.Hops), "hops")
		b.ReportMetric(res.Makespan*1e3, "sim-ms")
	}
}

// bruckAlltoall is the trace of an alltoall of size bytes per pair among
// P = 2^k ranks by Bruck's algorithm, in point-to-point messages.
func bruckAlltoall(b *testing.B, P int, size int64) *tracefmt.Trace {
	bl := tracefmt.NewBuilder(P, false, tracefmt.Second)
	add := func(r int, e tracefmt.Event) {
		if _, err := bl.Add(r, e); err != nil {
			b.Fatal(err)
		}
	}
	for r := range P {
		req := int64(0)
		for pof := 1; pof < P; pof *= 2 {
			bytes := int64(P/2) * size
			recv := tracefmt.Recv(0, (r-pof+P)%P, int32(pof), 0, bytes)
			send := tracefmt.Send(0, (r+pof)%P, int32(pof), 0, bytes)
			for _, e := range []tracefmt.Event{recv, send} {
				req++
				e.Flags |= tracefmt.FlagNonBlocking
				e.SetRequest(req)
				add(r, e)
			}
			add(r, tracefmt.WaitAll(0))
		}
	}
	tr, err := bl.Finish()
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// vmHWM is the process's peak resident set size from /proc (0 elsewhere).
func vmHWM() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
