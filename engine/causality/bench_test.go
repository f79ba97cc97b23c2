package causality

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// benchTrace returns a skewed 64-rank stencil2d trace of about events
// events, as `tracesim bench` uses: one in 8 of its events is a message,
// and about half of them are reversed.
func benchTrace(b *testing.B, events int) *tracefmt.Trace {
	return benchPattern(b, "stencil2d", events)
}

func benchPattern(b *testing.B, pattern string, events int) *tracefmt.Trace {
	b.Helper()
	o := gen.Options{Pattern: pattern, Ranks: 64, Iters: 1, Compute: -1, Skew: 50e-6}
	c, err := gen.Expect(o)
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = max(1, events/c.Events)
	t, err := gen.Generate(o)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// cpuTime returns the CPU time the process has used, user and system.
func cpuTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkCheck measures the scan of Check (no replay) on 1M-event
// traces: messages per second is the figure of merit. ring has one
// message per 7 events, stencil2d one per 8.6 and collectives.
// Mmsgs/cpu-s divides by the CPU time of every core used instead of the
// elapsed time: it is what one core checks per second, and it moves less
// than the wall-clock figure when others load the machine.
func BenchmarkCheck(b *testing.B) {
	for _, p := range []string{"ring", "stencil2d"} {
		b.Run(p, func(b *testing.B) {
			t := benchPattern(b, p, 1_000_000)
			g := NewGraph(t)
			var msgs int
			cpu := cpuTime(b)
			for b.Loop() {
				rep, err := g.Check(context.Background(), Options{Replay: ReplayOff})
				if err != nil {
					b.Fatal(err)
				}
				msgs += rep.Messages
			}
			b.ReportMetric(float64(msgs)/(cpuTime(b)-cpu).Seconds()/1e6, "Mmsgs/cpu-s")
			b.ReportMetric(float64(msgs)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
			b.ReportMetric(float64(t.NumEvents())*float64(b.N)/b.Elapsed().Seconds()/1e6, "Mevents/s")
		})
	}
}

// BenchmarkCheckWithGraph includes building the graph, as a first
// Check of a trace does.
func BenchmarkCheckWithGraph(b *testing.B) {
	t := benchTrace(b, 1_000_000)
	var msgs int
	for b.Loop() {
		rep, err := Check(context.Background(), t, Options{Replay: ReplayOff})
		if err != nil {
			b.Fatal(err)
		}
		msgs += rep.Messages
	}
	b.ReportMetric(float64(msgs)/b.Elapsed().Seconds()/1e6, "Mmsgs/s")
}

// BenchmarkFix measures Correct at two sizes: ns/event should not grow
// with the trace.
func BenchmarkFix(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		for _, m := range []Method{MethodCLC, MethodBoth} {
			b.Run(fmt.Sprintf("%s/events=%d", m, n), func(b *testing.B) {
				t := benchTrace(b, n)
				for b.Loop() {
					c, err := Correct(context.Background(), t, CorrectOptions{Method: m})
					if err != nil {
						b.Fatal(err)
					}
					if c.ViolationsAfter() != 0 {
						b.Fatal("violations left")
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(t.NumEvents()), "ns/event")
			})
		}
	}
}

func BenchmarkLamport(b *testing.B) {
	t := benchTrace(b, 1_000_000)
	g := NewGraph(t)
	for b.Loop() {
		if _, err := g.Lamport(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(t.NumEvents()), "ns/event")
}

func BenchmarkCone(b *testing.B) {
	t := benchTrace(b, 1_000_000)
	g := NewGraph(t)
	e := tracefmt.EventRef{Rank: 31, Index: int32(len(t.Ranks[31].Events) / 2)}
	for b.Loop() {
		if _, err := g.Cone(e); err != nil {
			b.Fatal(err)
		}
	}
}
