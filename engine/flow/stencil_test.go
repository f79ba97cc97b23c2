package flow

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
	"github.com/tracesim/tracesim/engine/topology"
)

// stencil drives a network with a closed loop like a 2-D halo exchange:
// the nodes form a periodic side × side grid; each iteration a node
// computes, sends one message to each of its four neighbours, and starts
// the next iteration once its four incoming messages have arrived. The
// computation varies from node to node, so the ranks drift apart and
// flows start and end at many different instants, as in a real trace.
type stencil struct {
	kernelHost
	n       *Network
	side    int
	bytes   int64
	iters   int
	got     []int // messages received this iteration, per node
	iter    []int
	nextID  int32
	arrival []des.Time // per message id: when it was delivered
}

const evCompute = 200 // obj: node whose computation ends

// kernelHost is the netmodel.Host of a closed-loop driver on a kernel of
// its own, but for Delivered: injections are not reported.
type kernelHost struct{ k *des.Kernel }

func (h kernelHost) Now() des.Time     { return h.k.Now() }
func (h kernelHost) Rand() *rand.Rand  { return h.k.Rand() }
func (h kernelHost) Injected(id int32) {}
func (h kernelHost) Schedule(at des.Time, kind uint8, obj int32, arg int64) {
	h.k.Schedule(at, kind, obj, arg)
}

// Delivered counts the message at its destination (id encodes it).
func (s *stencil) Delivered(id int32) {
	s.arrival = append(s.arrival, s.k.Now())
	dst := int(id) % (s.side * s.side)
	s.got[dst]++
	if s.got[dst] == 4 {
		s.got[dst] = 0
		s.compute(dst)
	}
}

// compute starts node v's next iteration: 1–2 ms of computation.
func (s *stencil) compute(v int) {
	if s.iter[v] == s.iters {
		return
	}
	s.iter[v]++
	d := des.Millisecond + des.Time((v*7919+s.iter[v]*104729)%1000)*des.Microsecond
	s.k.Schedule(s.k.Now()+d, evCompute, int32(v), 0)
}

// send posts node v's four halo messages. A message id is a running
// number times the node count plus the destination.
func (s *stencil) send(v int) {
	x, y, side := v%s.side, v/s.side, s.side
	for _, d := range [4]int{y*side + (x+1)%side, y*side + (x+side-1)%side, ((y+side-1)%side)*side + x, ((y+1)%side)*side + x} {
		id := s.nextID*int32(side*side) + int32(d)
		s.nextID++
		s.n.Send(netmodel.Message{ID: id, Src: int32(v), Dst: int32(d), Bytes: s.bytes})
	}
}

// runStencil replays iters iterations of the stencil on side × side
// nodes of a star with SimGrid's crosstraffic, with the solver
// ("checked", the default), with the checked solver building every
// round's system anew and checking every link ("fresh"), with
// Config.Exhaustive ("exhaustive") or with the reference solver
// ("reference"); it returns the delivery times
// in order and the kernel's event count.
func runStencil(tb testing.TB, side, iters int, solver string) ([]des.Time, uint64) {
	arr, n := runStencilOn(tb, "crossbar:"+itoa(side*side), side, iters, solver, 0.05)
	return arr, n.h.(*stencil).k.Events()
}

// runStencilOn is runStencil on the topology spec (side × side nodes)
// with the given crosstraffic.
func runStencilOn(tb testing.TB, spec string, side, iters int, solver string, ct float64) ([]des.Time, *Network) {
	nodes := side * side
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	tp, err := topology.ParseWith(spec, topology.Options{Link: &lp})
	if err != nil {
		tb.Fatal(err)
	}
	n, err := New(Config{Topology: tp, CrossTraffic: ct, Envelope: 16, Exhaustive: solver == "exhaustive"})
	if err != nil {
		tb.Fatal(err)
	}
	if solver == "reference" {
		n.solveWith = n.solveRef
	}
	solverOptions(n, solver)
	s := &stencil{kernelHost: kernelHost{des.NewKernel(1)}, n: n, side: side, bytes: 16384, iters: iters,
		got: make([]int, nodes), iter: make([]int, nodes)}
	n.Attach(s)
	for v := range nodes {
		s.compute(v)
	}
	drive(s.k, n, s.send)
	if want := nodes * iters * 4; len(s.arrival) != want {
		tb.Fatalf("%d of %d messages delivered", len(s.arrival), want)
	}
	return s.arrival, n
}

// solverOptions sets the solver's test switches that solver names, a
// comma-separated list: "fresh" (system.fresh), "nomemo" (no memo of the
// systems), "nowhole" (no whole-solve memo), "tiny" (a whole-solve memo
// of 300 words), "verify" (the memo's hits checked, see
// solveMemo.verify).
func solverOptions(n *Network, solver string) {
	for _, o := range strings.Split(solver, ",") {
		switch o {
		case "fresh":
			n.sys.fresh = true
		case "nomemo":
			n.sys.memo.off = true
		case "nowhole":
			n.whole.off = true
		case "tiny":
			n.whole.limit = 300
		case "verify":
			n.sys.memo.verify = true
		case "scanall":
			n.sys.zeroRate = true // seed scans every flow of a changed link
		}
	}
}

// drive runs the kernel's events until there are none: the network's to
// the network, the end of node v's computation (evCompute) to compute(v).
func drive(k *des.Kernel, n *Network, compute func(v int)) {
	for {
		e, ok := k.Next()
		if !ok {
			return
		}
		if e.Kind == evCompute {
			compute(int(e.Obj))
			continue
		}
		n.Handle(e)
	}
}

func itoa(v int) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

// TestSolverMatchesReference: the solver, checked or exhaustive, gives
// the delivery times of the reference solver (the one it replaced) on a
// drifting stencil, where crosstraffic connects every flow to every
// other: to the picosecond, or within one picosecond where summing in
// another order rounds a completion time the other way.
func TestSolverMatchesReference(t *testing.T) {
	for _, side := range []int{4, 8} {
		want, _ := runStencil(t, side, 20, "reference")
		for _, solver := range []string{"checked", "exhaustive"} {
			got, _ := runStencil(t, side, 20, solver)
			off := 0
			for i := range got {
				if d := got[i] - want[i]; d > 1 || d < -1 {
					t.Fatalf("%s, %d×%d: delivery %d at %v, reference %v", solver, side, side, i, got[i], want[i])
				} else if d != 0 {
					off++
				}
			}
			t.Logf("%s, %d×%d: %d deliveries, %d off by 1 ps", solver, side, side, len(got), off)
		}
	}
}

// BenchmarkStencil replays a drifting 2-D halo exchange (16 KiB to each
// of four neighbours, 1–2 ms of computation) on 64 and 256 nodes of a
// star with crosstraffic — the flows of SimGrid's CM02 on the stencil of
// testdata/simgrid/bench — with the solver ("checked"), with
// Config.Exhaustive and with the solver it replaced ("reference"), in one
// run: their ns/op give the ratios. It reports flows and kernel events
// per second.
func BenchmarkStencil(b *testing.B) {
	for _, side := range []int{8, 16} {
		for _, solver := range []string{"checked", "exhaustive", "reference"} {
			b.Run(itoa(side*side)+"/"+solver, func(b *testing.B) {
				var flows, events uint64
				for b.Loop() {
					arr, ev := runStencil(b, side, 10, solver)
					flows += uint64(len(arr))
					events += ev
				}
				b.ReportMetric(float64(flows)/b.Elapsed().Seconds(), "flows/s")
				b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}

// TestSolverMatchesReferenceRandom: on random traffic (messages of 1 KB
// to 4 MB sent at random instants between random nodes) over topologies
// with several paths, SHARED links, limiters, TCP bounds and SMPI-like
// factors, the checked solver delivers every message when the reference
// solver does, within a picosecond.
func TestSolverMatchesReferenceRandom(t *testing.T) {
	for trial := range 48 {
		spec, cfg, sends := randomTraffic(t, trial, 3, 200)
		h, _ := run(t, cfg, sends)
		ref, _ := runSolver(t, cfg, sends, true)
		got := h.delivered
		for id, want := range ref.delivered {
			if d := got[id] - want; d > 1 || d < -1 {
				t.Fatalf("trial %d (%s): message %d delivered at %v, reference %v", trial, spec, id, got[id], want)
			}
		}
	}
}

// randomTraffic is random traffic trial: messages of 1 KB to 4 MB sent
// at random instants between random nodes (random stream seed), over a
// topology and with settings that vary with trial — tori, crossbars, fat
// trees and rings; crosstraffic 0.05, 0 or 0.5; SHARED links, limiters,
// TCP bounds, SMPI-like factors, FATPIPE links.
func randomTraffic(t *testing.T, trial int, seed uint64, msgs int) (string, Config, []send) {
	t.Helper()
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	spec := []string{"torus:4x4", "crossbar:8", "fattree:k=4,levels=2", "ring:6"}[trial%4]
	tp, err := topology.ParseWith(spec, topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Topology: tp, Envelope: 16, CrossTraffic: []float64{0.05, 0, 0.5}[trial%3]}
	switch trial % 6 {
	case 1:
		cfg.Sharing = Shared
	case 2:
		cfg.Limiter = 200e6
	case 3:
		cfg.TCPGamma = 4194304
	case 4:
		cfg.Factors = func(b int64) (float64, float64) {
			if b < 65536 {
				return 1.5, 0.6
			}
			return 1, 0.9
		}
	case 5:
		cfg.Sharing = FatPipe
	}
	rng := rand.New(rand.NewPCG(uint64(trial), seed))
	N := tp.NumNodes()
	sends := make([]send, msgs)
	for i := range sends {
		src := rng.IntN(N)
		sends[i] = send{at: des.Time(rng.IntN(20_000)) * des.Microsecond / 10, src: int32(src),
			dst: int32((src + 1 + rng.IntN(N-1)) % N), bytes: int64(1000 + rng.IntN(4<<20))}
	}
	return spec, cfg, sends
}
