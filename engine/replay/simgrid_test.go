package replay

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// The star cluster the traces of testdata/simgrid are replayed on:
// 1 Gflop/s hosts, 125 MB/s and 5 µs private links.
var sgCluster = simgrid.Cluster{Hosts: 8, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6}

// sgConfig is the engine configuration that models sgCluster under
// SimGrid's CM02 without contention (docs/sim.md): the simgrid model with
// the links' latency and bandwidth, the hosts' speed, SMPI's 64 KiB
// detached threshold; on two ranks SMPI's barrier (to rank 0 and back)
// and allreduce (reduce, then broadcast) are the linear and binomial
// algorithms.
func sgConfig(t testing.TB) Config {
	return cfgWith(t, "model", "simgrid", "latency", "5us", "bandwidth", "125MB/s", "cpu-speed", "1Gf",
		"eager-threshold", "64KiB", "coll-alg", "barrier=linear,allreduce=binomial")
}

// sgOptions are the SimGrid settings of the comparison: CM02, no
// crosstraffic (it would load the reverse links with 5 % of each flow,
// a form of sharing the contention-free model leaves out).
var sgOptions = []string{"network/model:CM02", "network/crosstraffic:0"}

const sgDir = "../../testdata/simgrid"

// TestSimGridComparison replays the TI traces SimGrid recorded for the
// programs of testdata/simgrid/patterns.c with `smpirun -replay` and with
// the engine: on patterns without link sharing the predicted makespans
// agree within 5 %. halo shares uplinks (two messages leave each host
// at once), which SimGrid's max-min sharing slows and the engine does
// not: it is only logged.
func TestSimGridComparison(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	tests := []struct {
		name    string
		ranks   int
		sharing bool
	}{
		{"pingpong", 2, false},
		{"ring", 8, false},
		{"shift", 8, false},
		{"pairs", 8, false},
		{"tokens", 8, false},
		{"coll2", 2, false},
		{"halo", 8, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			index := filepath.Join(sgDir, tc.name+".txt")
			tr, err := simgridti.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Size() != tc.ranks {
				t.Fatalf("%d ranks, want %d", tr.Size(), tc.ranks)
			}
			start := time.Now()
			_, res := simulate(t, tr, sgConfig(t), Options{})
			ours := time.Since(start)
			if !res.Complete {
				t.Fatalf("incomplete: %+v", res.Deadlock)
			}
			start = time.Now()
			sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: tc.ranks, Cluster: sgCluster, Config: sgOptions})
			theirs := time.Since(start)
			if err != nil {
				t.Fatal(err)
			}
			diff := (res.Makespan - sg.SimulatedTime) / sg.SimulatedTime
			t.Logf("%s: engine %.9f s, SimGrid %.9f s (%+.3f %%); replay took %v here, %v in smpirun",
				tc.name, res.Makespan, sg.SimulatedTime, 100*diff, ours, theirs)
			// The issue asks for 5 %; the models agree to SimGrid's
			// printed precision, so a tighter bound guards regressions.
			if !tc.sharing && math.Abs(diff) > 0.005 {
				t.Errorf("%s: engine %.9f s and SimGrid %.9f s differ by %.2f %% (more than 0.5 %%)", tc.name, res.Makespan, sg.SimulatedTime, 100*diff)
			}
		})
	}
}

// TestSimGridTracesReplay checks the committed traces without SimGrid:
// they replay to completion with the numbers SimGrid gave when they were
// recorded (pinned, so that a change of the engine shows).
func TestSimGridTracesReplay(t *testing.T) {
	if _, err := os.Stat(sgDir); err != nil {
		t.Skip("testdata/simgrid absent")
	}
	// What `smpirun -replay` printed (6 decimals) on sgCluster with
	// sgOptions, SimGrid 3.32.
	want := map[string]float64{
		"pingpong": 0.204927, "ring": 0.072246, "shift": 0.037550, "pairs": 0.013495,
		"tokens": 0.030109, "coll2": 0.009655,
	}
	for name, sg := range want {
		tr, err := simgridti.ReadFile(filepath.Join(sgDir, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		_, res := simulate(t, tr, sgConfig(t), Options{})
		if !res.Complete || math.Abs(res.Makespan-sg) > 1e-6 {
			t.Errorf("%s: complete %v, makespan %.9f s, SimGrid %.6f s", name, res.Complete, res.Makespan, sg)
		}
	}
}

// sgRing builds a large untimed ring-shift trace for timing the two
// replayers side by side.
func sgRing(t testing.TB, ranks, iters int) *tracefmt.Trace {
	b := tracefmt.NewBuilder(ranks, false, tracefmt.Second)
	for r := range ranks {
		for it := range iters {
			b.Add(r, tracefmt.ComputeWork(0, float64(1e5*(1+(r+it)%4))))
			s := tracefmt.Send(0, (r+1)%ranks, 0, 0, 4096)
			s.Flags |= tracefmt.FlagSendrecv
			v := tracefmt.Recv(0, (r+ranks-1)%ranks, 0, 0, 4096)
			v.Flags |= tracefmt.FlagSendrecv
			b.Add(r, s)
			b.Add(r, v)
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestSimGridSpeed times smpirun -replay and the engine (simgrid and flow
// models) on the same TI
// trace (16 ranks × 20,000 iterations of compute + sendRecv, 960,000
// actions) and logs both; run it with -run SimGridSpeed -v.
func TestSimGridSpeed(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed")
	}
	if testing.Short() || os.Getenv("TRACESIM_SIMGRID_SPEED") == "" {
		t.Skip("set TRACESIM_SIMGRID_SPEED=1 to time smpirun (tens of seconds)")
	}
	const ranks, iters = 16, 20000
	tr := sgRing(t, ranks, iters)
	dir := t.TempDir()
	index := filepath.Join(dir, "ring.txt")
	if err := simgridti.WriteIndex(index, tr, simgridti.WriteOptions{Datatype: simgridti.Byte}); err != nil {
		t.Fatal(err)
	}
	back, err := simgridti.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	cluster := sgCluster
	cluster.Hosts = ranks
	start := time.Now()
	sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: ranks, Cluster: cluster, Config: sgOptions})
	theirs := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name string
		cfg  Config
	}{{"simgrid model", sgConfig(t)}, {"flow model", flowSGConfig(t, "0")}} {
		start = time.Now()
		_, res := simulate(t, back, m.cfg, Options{})
		ours := time.Since(start)
		t.Logf("%d trace events: %s %v (makespan %.6f s), smpirun -replay %v (makespan %.6f s): %.1f× faster",
			back.NumEvents(), m.name, ours, res.Makespan, theirs, sg.SimulatedTime, theirs.Seconds()/ours.Seconds())
		if d := math.Abs(res.Makespan-sg.SimulatedTime) / sg.SimulatedTime; d > 0.05 {
			t.Errorf("%s: makespans differ by %.2f %%", m.name, 100*d)
		}
	}
}
