package replay

import (
	"context"
	"errors"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/tracefmt"
)

// ringCompute is a ring of 4 ranks: 10 iterations of 100 µs of
// computation then a 1 KiB message to the right neighbour, as the ring
// of `tracesim gen` has (1 ms of computation per rank in all).
func ringCompute(t *testing.T) *tracefmt.Trace {
	p := newProg(t, 4)
	for range 10 {
		for r := range 4 {
			p.compute(r, 100e-6)
			if r%2 == 0 {
				p.send(r, (r+1)%4, 0, 1024).recv(r, (r+3)%4, 0, 1024)
			} else {
				p.recv(r, (r+3)%4, 0, 1024).send(r, (r+1)%4, 0, 1024)
			}
		}
	}
	return p.trace()
}

// runErr runs tr to its end and returns the run's error.
func runErr(t *testing.T, tr *tracefmt.Trace, cfg Config) (*Sim, error) {
	t.Helper()
	s, err := New(tr, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Run(context.Background())
	if !s.Done() {
		t.Fatalf("the run did not end (error %v)", err)
	}
	if err != s.Err() {
		t.Fatalf("Run returned %v, Err %v", err, s.Err())
	}
	return s, err
}

func TestSimulatedTimePastItsRangeIsAnError(t *testing.T) {
	one := func(t *testing.T, flops float64) *tracefmt.Trace {
		return newProg(t, 1).work(0, flops).trace()
	}
	gib := func(t *testing.T) *tracefmt.Trace {
		return newProg(t, 2).send(0, 1, 0, 1<<30).recv(1, 0, 0, 1<<30).trace()
	}
	tests := []struct {
		name  string
		trace func(*testing.T) *tracefmt.Trace
		cfg   []string
		// want is the error's text; empty for a run that fits, whose
		// makespan is then wantMakespan seconds exactly.
		want         string
		wantMakespan float64
	}{
		{name: "cpu-scale 1e12", trace: ringCompute, cfg: []string{"cpu-scale", "1e12"},
			want: "replay: simulated time would exceed 106.75 days (9,223,372 s, 2^63 ps) at rank 0, event 0: " +
				"compute of 100 µs × cpu-scale 1e+12 lasts 100000000 s (1157 days), starting at 0 s"},
		{name: "cpu-scale 1e10 passes the limit on the way", trace: ringCompute, cfg: []string{"cpu-scale", "1e10"},
			want: "at rank 1, event 27: compute of 100 µs × cpu-scale 1e+10 lasts 1000000 s (11.57 days), starting at 9000000 s (104.2 days)"},
		{name: "cpu-scale 1e9 fits", trace: ringCompute, cfg: []string{"cpu-scale", "1e9", "model", "loggops", "L", "0s", "o", "0s", "g", "0s", "G", "0s", "O", "0s"},
			wantMakespan: 1e6},
		{name: "1e16 flop at 1 Gf", trace: func(t *testing.T) *tracefmt.Trace { return one(t, 1e16) },
			want: "at rank 0, event 0: compute of 10000 Tf at 1 Gf/s lasts 10000000 s (115.7 days), starting at 0 s"},
		{name: "9e15 flop at 1 Gf fits", trace: func(t *testing.T) *tracefmt.Trace { return one(t, 9e15) },
			wantMakespan: 9e6},
		{name: "1 GiB at 1 b/s, packet model", trace: gib, cfg: []string{"model", "packet", "bandwidth", "1b/s"},
			want: "in the network: the packet network cannot deliver its traffic in time (1 messages in flight, the largest 1 GiB from rank 0 to rank 1)"},
		{name: "1 GiB at 1 b/s, puppet model", trace: gib, cfg: []string{"bandwidth", "1b/s"},
			want: "in the network: the puppet network cannot deliver its traffic in time (1 messages in flight, the largest 1 GiB from rank 0 to rank 1), starting at 0 s"},
		{name: "1 GiB at 1 b/s, simgrid model", trace: gib, cfg: []string{"model", "simgrid", "bandwidth", "1b/s"},
			want: "the simgrid network cannot deliver its traffic in time"},
		{name: "1 GiB at 1 b/s, loggops overhead", trace: gib, cfg: []string{"model", "loggops", "O", "8s"},
			want: "at rank 0, event 0: a CPU overhead longer than the limit, starting at 0 s"},
		{name: "analytic collective", trace: func(t *testing.T) *tracefmt.Trace {
			return newProg(t, 4).coll(tracefmt.OpAllreduce, 0, 1<<30, 1<<30).trace()
		}, cfg: []string{"collectives", "analytic", "bandwidth", "8b/s"},
			want: "at rank 0, event 0: its collective would end past it"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := runErr(t, tc.trace(t), cfgWith(t, tc.cfg...))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if res := s.Results(); res.Makespan != tc.wantMakespan {
					t.Fatalf("makespan %v s, want %v s", res.Makespan, tc.wantMakespan)
				}
				return
			}
			var re *TimeRangeError
			if !errors.As(err, &re) {
				t.Fatalf("error %v, want a TimeRangeError", err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "replay: simulated time would exceed "+des.Limit) {
				t.Fatalf("error\n%s\nwant it to contain\n%s", err, tc.want)
			}
			// Nothing that wrapped round reaches the results.
			res := s.Results()
			if res.Makespan < 0 {
				t.Errorf("makespan %v s", res.Makespan)
			}
			for _, r := range res.Ranks {
				if r.Compute < 0 || r.CPUWait < 0 || r.Finish < 0 || r.Utilisation < 0 {
					t.Errorf("rank %d: %+v", r.Rank, r)
				}
			}
		})
	}
}

// A big topology under an analytic model costs what its ranks use: the
// models keep no per-node state for nodes that never send.
func TestAnalyticModelsOnAHugeTopologyAllocateLittle(t *testing.T) {
	tr := newProg(t, 8).send(0, 7, 0, 1024).recv(7, 0, 0, 1024).trace()
	for _, model := range []string{"puppet", "loggops", "simgrid"} {
		cfg := cfgWith(t, "model", model, "topology", "torus:4096x4096")
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, res := simulate(t, tr, cfg, Options{})
		runtime.ReadMemStats(&after)
		if got := after.TotalAlloc - before.TotalAlloc; got > 50<<20 || res.Messages.Count != 1 {
			t.Errorf("%s: %d messages, %d MB allocated", model, res.Messages.Count, got>>20)
		}
	}
}

// A packet that takes months to cross a slow link is sampled as a few
// long periods, not as one sample per 10 µs (which never ended).
func TestPacketSamplesOfASlowLinkAreBounded(t *testing.T) {
	tr := newProg(t, 2).send(0, 1, 0, 1<<30).recv(1, 0, 0, 1<<30).trace()
	cfg := cfgWith(t, "model", "packet", "bandwidth", "1Kb/s", "sample-period", "10us")
	var n int
	var bytes int64
	var longest des.Time
	_, res := simulate(t, tr, cfg, Options{OnSample: func(s *netmodel.Sample) {
		n++
		longest = max(longest, s.Period)
		for _, l := range s.Links {
			bytes += l.Bytes
		}
	}})
	if want := float64(1<<30+16) * 8 / 1000; math.Abs(res.Makespan-want) > 1 {
		t.Errorf("makespan %v s, want about %v s", res.Makespan, want)
	}
	if n > 20 || longest < des.Second {
		t.Errorf("%d samples, the longest of %s; want a few, one spanning the transfer", n, longest)
	}
	if bytes == 0 {
		t.Error("the samples carry no bytes")
	}
}
