package simgridti

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt"
)

// patternBuilder adds events to a fresh untimed model.
type patternBuilder struct {
	t    *testing.T
	b    *tracefmt.Builder
	reqs []int64
}

func newPattern(t *testing.T, ranks int) *patternBuilder {
	return &patternBuilder{t: t, b: tracefmt.NewBuilder(ranks, false, tracefmt.Second), reqs: make([]int64, ranks)}
}

func (p *patternBuilder) add(r int, e tracefmt.Event) {
	if _, err := p.b.Add(r, e); err != nil {
		p.t.Fatal(err)
	}
}

func (p *patternBuilder) compute(r int, flops float64) { p.add(r, tracefmt.ComputeWork(0, flops)) }
func (p *patternBuilder) send(r, dst int, tag int32, n int64) {
	p.add(r, tracefmt.Send(0, dst, tag, 0, n))
}
func (p *patternBuilder) recv(r, src int, tag int32, n int64) {
	p.add(r, tracefmt.Recv(0, src, tag, 0, n))
}

// isend and irecv return the request id.
func (p *patternBuilder) isend(r, dst int, tag int32, n int64) int64 {
	e := tracefmt.Send(0, dst, tag, 0, n)
	return p.nonBlocking(r, e)
}

func (p *patternBuilder) irecv(r, src int, tag int32, n int64) int64 {
	e := tracefmt.Recv(0, src, tag, 0, n)
	return p.nonBlocking(r, e)
}

func (p *patternBuilder) nonBlocking(r int, e tracefmt.Event) int64 {
	p.reqs[r]++
	e.Flags |= tracefmt.FlagNonBlocking
	e.SetRequest(p.reqs[r])
	p.add(r, e)
	return p.reqs[r]
}

func (p *patternBuilder) coll(op tracefmt.CollOp, root int, bytes func(r int) (int64, int64)) {
	for r := range p.b.Trace().Ranks {
		s, rv := bytes(r)
		p.add(r, tracefmt.Collective(0, op, root, 0, s, rv))
	}
}

func (p *patternBuilder) finish() *tracefmt.Trace {
	tr, err := p.b.Finish()
	if err != nil {
		p.t.Fatal(err)
	}
	return tr
}

// pingPong is the PUPPET ping-pong of models.md: SimGrid replays it on a
// 2-host 125 MB/s, 5 µs star under CM02 in 1.200036 s.
func pingPong(t *testing.T) *tracefmt.Trace {
	p := newPattern(t, 2)
	p.compute(0, 1e9)
	p.send(0, 1, 0, 1000)
	p.recv(0, 1, 0, 1000)
	p.compute(1, 5e8)
	p.recv(1, 0, 0, 1000)
	p.compute(1, 2e8)
	p.send(1, 0, 0, 1000)
	return p.finish()
}

// stencil2d: a 2×2 grid, halo exchange with irecv/isend/waitall, then an
// allreduce, twice.
func stencil2d(t *testing.T) *tracefmt.Trace {
	p := newPattern(t, 4)
	for it := range 2 {
		for r := range 4 {
			x, y := r%2, r/2
			nbrs := []int{(1 - x) + 2*y, x + 2*(1-y)}
			p.compute(r, 2e8*float64(1+r))
			for _, n := range nbrs {
				p.irecv(r, n, int32(it), 80000)
			}
			for _, n := range nbrs {
				p.isend(r, n, int32(it), 80000)
			}
			p.add(r, tracefmt.WaitAll(0))
		}
		p.coll(tracefmt.OpAllreduce, -1, func(int) (int64, int64) { return 8, 8 })
	}
	return p.finish()
}

// ringWithWaits passes a token around 4 ranks with isend/wait and a test.
func ringWithWaits(t *testing.T) *tracefmt.Trace {
	p := newPattern(t, 4)
	for r := range 4 {
		next, prev := (r+1)%4, (r+3)%4
		rq := p.irecv(r, prev, 5, 1<<20)
		p.compute(r, 1e8)
		sq := p.isend(r, next, 5, 1<<20)
		w := tracefmt.Wait(0, rq)
		w.Flags |= tracefmt.FlagTest
		p.add(r, w)
		p.add(r, tracefmt.Wait(0, rq))
		p.add(r, tracefmt.Wait(0, sq))
	}
	return p.finish()
}

// masterWorker: rank 0 hands out work and takes results with wildcard
// receives.
func masterWorker(t *testing.T) *tracefmt.Trace {
	p := newPattern(t, 3)
	for w := 1; w < 3; w++ {
		p.send(0, w, 1, 4096)
	}
	for range 4 {
		e := tracefmt.Recv(0, 0, 2, 0, 64)
		e.Flags |= tracefmt.FlagAnySource
		p.add(0, e)
	}
	for w := 1; w < 3; w++ {
		p.recv(w, 0, 1, 4096)
		for range 2 {
			p.compute(w, 3e8*float64(w))
			p.send(w, 0, 2, 64)
		}
	}
	tr := p.finish()
	// Give the wildcards their senders, as a reader would.
	back, err := Read(bytesOf(t, tr, WriteOptions{Datatype: Byte}), nil)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// everyCollective calls each collective once on 3 ranks, plus a sendrecv
// exchange, a sleep and a location marker.
func everyCollective(t *testing.T) *tracefmt.Trace {
	p := newPattern(t, 3)
	same := func(n int64) func(int) (int64, int64) { return func(int) (int64, int64) { return n, n } }
	rooted := func(root int, s, r func(me int) (int64, int64)) func(int) (int64, int64) {
		return func(me int) (int64, int64) {
			if me == root {
				return s(me)
			}
			return r(me)
		}
	}
	p.coll(tracefmt.OpBarrier, -1, same(0))
	p.coll(tracefmt.OpBcast, 1, rooted(1, func(int) (int64, int64) { return 800, 0 }, func(int) (int64, int64) { return 0, 800 }))
	p.coll(tracefmt.OpReduce, 2, rooted(2, same(80), func(int) (int64, int64) { return 80, 0 }))
	p.coll(tracefmt.OpAllreduce, -1, same(8000))
	p.coll(tracefmt.OpScan, -1, same(64))
	p.coll(tracefmt.OpExscan, -1, same(64))
	p.coll(tracefmt.OpAlltoall, -1, same(3*4096))
	p.coll(tracefmt.OpAllgather, -1, func(int) (int64, int64) { return 100, 300 })
	p.coll(tracefmt.OpGather, 0, rooted(0, func(int) (int64, int64) { return 40, 120 }, func(int) (int64, int64) { return 40, 0 }))
	p.coll(tracefmt.OpScatter, 1, rooted(1, func(int) (int64, int64) { return 120, 40 }, func(int) (int64, int64) { return 0, 40 }))
	p.coll(tracefmt.OpGatherv, 2, rooted(2, func(int) (int64, int64) { return 30, 60 }, func(me int) (int64, int64) { return int64(10 * (me + 1)), 0 }))
	p.coll(tracefmt.OpAllgatherv, -1, func(me int) (int64, int64) { return int64(8 * (me + 1)), 48 })
	p.coll(tracefmt.OpScatterv, 0, rooted(0, func(int) (int64, int64) { return 33, 1 }, func(me int) (int64, int64) { return 0, int64(10 * (me + 1)) }))
	p.coll(tracefmt.OpReduceScatter, -1, func(me int) (int64, int64) { return 48, int64(8 * (me + 1)) })
	p.coll(tracefmt.OpAlltoallv, -1, func(me int) (int64, int64) { return [3]int64{30, 0, 6}[me], [3]int64{9, 21, 6}[me] })
	for r := range 2 {
		s := tracefmt.Send(0, 1-r, 0, 0, 100000)
		s.Flags |= tracefmt.FlagSendrecv
		v := tracefmt.Recv(0, 1-r, 0, 0, 100000)
		v.Flags |= tracefmt.FlagSendrecv
		p.add(r, s)
		p.add(r, v)
	}
	p.add(2, tracefmt.ComputeTime(0, 0.25))
	return p.finish()
}

// TestSimGridAcceptsOurTraces writes patterns, SimGrid's own examples and
// the trace of its tracer with our writer, in both layouts, and replays
// them with `smpirun -replay`: SimGrid must accept them and report a
// simulated time, the ping-pong's being the one models.md measured and
// the rewritten examples' that of SimGrid's originals.
func TestSimGridAcceptsOurTraces(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("SimGrid's smpirun is not installed (Debian package libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("replays with SimGrid take a few seconds")
	}
	cases := []struct {
		name  string
		trace *tracefmt.Trace
		opt   WriteOptions
		// want is the simulated time, or a SimGrid example file whose
		// own replay gives it; zero and empty: any time.
		want     float64
		original string
	}{
		{name: "ping-pong", trace: pingPong(t), want: 1.200036},
		{name: "stencil2d", trace: stencil2d(t), opt: WriteOptions{Datatype: Double}},
		{name: "ring", trace: ringWithWaits(t)},
		{name: "master-worker", trace: masterWorker(t)},
		{name: "master-worker, wildcards resolved", trace: masterWorker(t), opt: WriteOptions{ResolveWildcards: true}},
		{name: "every collective", trace: everyCollective(t), opt: WriteOptions{Datatype: Int}},
		{name: "timed trace", trace: timedModel(t), opt: WriteOptions{CPUSpeed: 2e9}},
		{name: "tagged sendrecv of 256 KiB", trace: taggedSendrecv(t)},
		{name: "smpi332 tracer output", trace: readTestdata(t, "smpi332/trace.txt")},
		{name: "smpi332 tracer output, wildcards resolved", trace: readTestdata(t, "smpi332/trace.txt"), opt: WriteOptions{ResolveWildcards: true}},
	}
	for _, f := range []string{"actions_with_isend.txt", "actions_waitall.txt", "actions_allgatherv.txt"} {
		cases = append(cases, struct {
			name     string
			trace    *tracefmt.Trace
			opt      WriteOptions
			want     float64
			original string
		}{name: f, trace: readTestdata(t, "simgrid-examples/"+f), original: "simgrid-examples/" + f})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			P := c.trace.Size()
			cluster := simgrid.Cluster{Hosts: P, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6}
			cfg := []string{"network/model:CM02"}
			want := c.want
			if c.original != "" {
				abs, err := filepath.Abs(filepath.Join("testdata", c.original))
				if err != nil {
					t.Fatal(err)
				}
				res := replay(t, oneLineIndex(t, abs), P, cluster, cfg)
				want = res.SimulatedTime
			}
			dir := t.TempDir()
			single := filepath.Join(dir, "single.txt")
			f, err := os.Create(single)
			if err != nil {
				t.Fatal(err)
			}
			if err := Write(f, c.trace, c.opt); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
			perRank := filepath.Join(dir, "trace.txt")
			if err := WriteIndex(perRank, c.trace, c.opt); err != nil {
				t.Fatal(err)
			}
			var times []float64
			for _, index := range []string{oneLineIndex(t, single), perRank} {
				res := replay(t, index, P, cluster, cfg)
				if !(res.SimulatedTime > 0) {
					t.Errorf("%s: simulated time %v", index, res.SimulatedTime)
				}
				times = append(times, res.SimulatedTime)
			}
			t.Logf("SimGrid: %.6f s (%s)", times[0], c.name)
			if times[0] != times[1] {
				t.Errorf("one file replays in %v s, per-rank files in %v s", times[0], times[1])
			}
			if want > 0 && math.Abs(times[0]-want) > 1e-6*want {
				t.Errorf("simulated time %v s, want %v s", times[0], want)
			}
		})
	}
}

func replay(t *testing.T, index string, ranks int, c simgrid.Cluster, cfg []string) simgrid.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := simgrid.Run(ctx, simgrid.Replay{Index: index, Ranks: ranks, Cluster: c, Config: cfg, Dir: t.TempDir()})
	if err != nil {
		t.Fatalf("%v\ncommand: %q", err, res.Args)
	}
	return res
}

// oneLineIndex writes an index naming one file that holds every rank.
func oneLineIndex(t *testing.T, file string) string {
	t.Helper()
	index := filepath.Join(t.TempDir(), "index")
	if err := os.WriteFile(index, []byte(file+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return index
}

func readTestdata(t *testing.T, name string) *tracefmt.Trace {
	t.Helper()
	tr, err := ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestAssignTimesAgreesWithSimGrid: tracefmt.AssignTimes replays a trace
// on an ideal machine; SimGrid on a platform with no latency and a huge
// bandwidth must find the same makespan.
func TestAssignTimesAgreesWithSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("SimGrid's smpirun is not installed (Debian package libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("replays with SimGrid take a few seconds")
	}
	for name, tr := range map[string]*tracefmt.Trace{
		"ping-pong":          pingPong(t),
		"stencil2d":          stencil2d(t),
		"ring":               ringWithWaits(t),
		"actions_with_isend": readTestdata(t, "simgrid-examples/actions_with_isend.txt"),
		"actions_waitall":    readTestdata(t, "simgrid-examples/actions_waitall.txt"),
	} {
		t.Run(name, func(t *testing.T) {
			timed, err := tracefmt.AssignTimes(tr, 1e9)
			if err != nil {
				t.Fatal(err)
			}
			_, makespan := timed.Span()
			index := filepath.Join(t.TempDir(), "trace.txt")
			if err := WriteIndex(index, tr, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
			// smpi/test:0: SimGrid charges 0.1 ms per MPI_Test by default.
			res := replay(t, index, tr.Size(), simgrid.Cluster{Hosts: tr.Size(), Speed: 1e9, Bandwidth: 1e15, Latency: 0},
				[]string{"network/model:CM02", "smpi/test:0"})
			if math.Abs(res.SimulatedTime-makespan) > 1e-6*makespan {
				t.Errorf("AssignTimes makespan %v s, SimGrid %v s", makespan, res.SimulatedTime)
			}
		})
	}
}
