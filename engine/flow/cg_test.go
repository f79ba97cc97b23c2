package flow

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// cg drives a network with the closed loop of the CG-like program of
// testdata/simgrid/bench (cg.c) on 64 ranks: every iteration a rank
// exchanges 24,000 B with its neighbours ±1 and 4,000 B with ±8, waits
// for its four messages, computes 400 µs, runs an 8-byte allreduce,
// computes 100 µs, runs another, and computes 50 µs. An allreduce is
// SMPI's (engine/collective's smpi plan): every rank sends to rank 0,
// then rank 0 broadcasts along a binomial tree. The 63 flows into rank
// 0's link arrive one after another, each start and end re-solving the
// flows that share it: the re-solves of a few flows each that dominate
// `tracesim sim --preset simgrid` on the CG trace.
type cg struct {
	kernelHost
	n     *Network
	steps int // steps to run per rank (cgSteps per iteration)
	step  []int
	wait  []bool
	// got counts, per rank, the messages that arrived for each of the
	// next cgWindow steps (a partner may be a step ahead).
	got     [][cgWindow]int
	dst     []int32 // per message id
	tag     []int32 // per message id: its step
	arrival []des.Time
}

// The steps of an iteration.
const (
	cgHalo    = iota // then 400 µs of computation
	cgGather1        // every rank to rank 0
	cgBcast1         // binomial from rank 0; then 100 µs
	cgGather2
	cgBcast2 // then 50 µs
	cgSteps
)

const (
	cgRanks  = 64
	cgWindow = 16
)

// Delivered counts the message for its destination's step.
func (c *cg) Delivered(id int32) {
	c.arrival = append(c.arrival, c.k.Now())
	r, tag := c.dst[id], int(c.tag[id])
	c.got[r][tag%cgWindow]++
	if c.wait[r] && c.step[r] == tag {
		c.tryFinish(int(r))
	}
}

func (c *cg) send(src, dst, step int, bytes int64) {
	id := int32(len(c.dst))
	c.dst, c.tag = append(c.dst, int32(dst)), append(c.tag, int32(step))
	c.n.Send(netmodel.Message{ID: id, Src: int32(src), Dst: int32(dst), Bytes: bytes})
}

// bcastChildren sends rank r's 8 bytes of step s to its children in the
// binomial tree rooted at 0: r + m for the powers of two m below r's
// lowest set bit (all of them for the root), largest first.
func (c *cg) bcastChildren(r, s int) {
	low := cgRanks
	if r != 0 {
		low = r & -r
	}
	for m := low / 2; m > 0; m /= 2 {
		if r+m < cgRanks {
			c.send(r, r+m, s, 8)
		}
	}
}

// need is the number of messages rank r waits for in step s.
func need(r, s int) int {
	switch s % cgSteps {
	case cgHalo:
		return 4
	case cgGather1, cgGather2:
		if r == 0 {
			return cgRanks - 1
		}
		return 0
	}
	if r == 0 {
		return 0
	}
	return 1
}

// start posts rank r's sends of its current step and waits for its
// receives.
func (c *cg) start(r int) {
	s := c.step[r]
	if s == c.steps {
		return
	}
	switch s % cgSteps {
	case cgHalo:
		c.send(r, (r+1)%cgRanks, s, 24000)
		c.send(r, (r+cgRanks-1)%cgRanks, s, 24000)
		c.send(r, (r+8)%cgRanks, s, 4000)
		c.send(r, (r+cgRanks-8)%cgRanks, s, 4000)
	case cgGather1, cgGather2:
		if r != 0 {
			c.send(r, 0, s, 8)
		}
	default:
		if r == 0 {
			c.bcastChildren(r, s)
		}
	}
	c.wait[r] = true
	c.tryFinish(r)
}

// tryFinish ends rank r's step once its messages are in: it forwards a
// broadcast, then computes or starts the next step.
func (c *cg) tryFinish(r int) {
	s := c.step[r]
	if c.got[r][s%cgWindow] < need(r, s) {
		return
	}
	c.got[r][s%cgWindow] = 0
	c.wait[r] = false
	c.step[r]++
	var d des.Time
	switch s % cgSteps {
	case cgHalo:
		d = 400 * des.Microsecond
	case cgBcast1, cgBcast2:
		if r != 0 {
			c.bcastChildren(r, s)
		}
		d = 100 * des.Microsecond
		if s%cgSteps == cgBcast2 {
			d = 50 * des.Microsecond
		}
	default:
		c.start(r)
		return
	}
	c.k.Schedule(c.k.Now()+d, evCompute, int32(r), 0)
}

// runCG replays iters iterations of the CG-like program on the star
// ("star") or the 4×4×4 torus ("torus") of testdata/simgrid/bench, with
// the settings of --preset simgrid (crosstraffic, envelope, TCP window,
// and the 10 µs metrics period `tracesim sim` runs with), and the given
// solver (see runStencil). It returns the delivery times in order and
// the kernel's event count.
func runCG(tb testing.TB, platform string, iters int, solver string) ([]des.Time, uint64) {
	arr, n := runCGWith(tb, platform, iters, solver, 0.05)
	return arr, n.h.(*cg).k.Events()
}

// runCGWith is runCG with the given crosstraffic; it returns the
// network.
func runCGWith(tb testing.TB, platform string, iters int, solver string, ct float64) ([]des.Time, *Network) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	spec := map[string]string{"star": "crossbar:64", "torus": "torus:4x4x4"}[platform]
	tp, err := topology.ParseWith(spec, topology.Options{Link: &lp})
	if err != nil {
		tb.Fatal(err)
	}
	n, err := New(Config{Topology: tp, CrossTraffic: ct, Envelope: 16, TCPGamma: 4194304,
		OneInjectionLink: true, SamplePeriod: 10 * des.Microsecond, Exhaustive: solver == "exhaustive"})
	if err != nil {
		tb.Fatal(err)
	}
	if solver == "reference" {
		n.solveWith = n.solveRef
	}
	solverOptions(n, solver)
	c := &cg{kernelHost: kernelHost{des.NewKernel(1)}, n: n, steps: iters * cgSteps, step: make([]int, cgRanks),
		wait: make([]bool, cgRanks), got: make([][cgWindow]int, cgRanks)}
	n.Attach(c)
	for r := range cgRanks {
		c.start(r)
	}
	drive(c.k, n, c.start)
	n.Finish()
	if want := iters * (4*cgRanks + 4*(cgRanks-1)); len(c.arrival) != want {
		tb.Fatalf("%d of %d messages delivered", len(c.arrival), want)
	}
	return c.arrival, n
}

// TestCGMatchesReference: on the CG-like loop, star and torus, the
// solver delivers every message when the reference solver does, within a
// picosecond, and the run ends at the same instant.
func TestCGMatchesReference(t *testing.T) {
	for _, platform := range []string{"star", "torus"} {
		want, _ := runCG(t, platform, 5, "reference")
		got, _ := runCG(t, platform, 5, "checked")
		for i := range got {
			if d := got[i] - want[i]; d > 1 || d < -1 {
				t.Fatalf("%s: delivery %d at %v, reference %v", platform, i, got[i], want[i])
			}
		}
		if end, wantEnd := got[len(got)-1], want[len(want)-1]; end-wantEnd > 1 || wantEnd-end > 1 {
			t.Fatalf("%s: last delivery at %v, reference %v", platform, end, wantEnd)
		}
	}
}

// BenchmarkCG replays the CG-like loop (see cg) for 20 iterations on the
// star and the torus with the solver ("checked") and with the solver it
// replaced ("reference"), in one run: their ns/op give the ratios. It
// reports flows and kernel events per second.
func BenchmarkCG(b *testing.B) {
	for _, platform := range []string{"star", "torus"} {
		for _, solver := range []string{"checked", "reference"} {
			b.Run(platform+"/"+solver, func(b *testing.B) {
				var flows, events uint64
				b.ReportAllocs()
				for b.Loop() {
					arr, ev := runCG(b, platform, 20, solver)
					flows += uint64(len(arr))
					events += ev
				}
				b.ReportMetric(float64(flows)/b.Elapsed().Seconds(), "flows/s")
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
