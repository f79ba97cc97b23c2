package replay

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// flowSGConfig models sgCluster under SimGrid's CM02 with the flow model:
// the star cluster's 5 µs, 125 MB/s links, 1 Gflop/s hosts, SMPI's 64 KiB
// detached threshold and transfers that start once both sides are
// posted, SMPI's barrier and allreduce, and the given crosstraffic.
func flowSGConfig(t testing.TB, crosstraffic string) Config {
	return cfgWith(t, "model", "flow", "latency", "5us", "bandwidth", "125MB/s", "cpu-speed", "1Gf",
		"eager-threshold", "64KiB", "eager-start", "match", "coll-alg", "barrier=linear,allreduce=smpi",
		"crosstraffic", crosstraffic)
}

// tiPattern writes a time-independent trace of ranks ranks (one file per
// rank, lines from actions without the rank prefix) and returns its index.
func tiPattern(t *testing.T, dir, name string, ranks int, actions func(r int) []string) string {
	t.Helper()
	path, err := simgrid.WriteRanks(dir, name, ranks, actions)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// sharingPatterns are the generated cases in which flows share links on
// the star: each returns the actions of rank r of 8.
var sharingPatterns = []struct {
	name    string
	actions func(r int) []string
}{
	{"incast", simgrid.Incast8},
	{"alltoall", simgrid.Alltoall8},
	{"master-worker", simgrid.MasterWorker8(false)},
	{"halo-ring", simgrid.HaloRing8},
}

// flowSGCase is one trace of the validation.
type flowSGCase struct {
	name  string
	index string
	ranks int
	// shared: some link carries two flows at once even without
	// crosstraffic.
	shared bool
}

// flowSGCases lists the recorded patterns of testdata/simgrid and the
// generated sharingPatterns (written to dir).
func flowSGCases(t *testing.T, dir string) []flowSGCase {
	var cases []flowSGCase
	for _, p := range []struct {
		name   string
		ranks  int
		shared bool
	}{{"pingpong", 2, false}, {"ring", 8, false}, {"shift", 8, false}, {"pairs", 8, false},
		{"tokens", 8, false}, {"coll2", 2, false}, {"halo", 8, true}} {
		cases = append(cases, flowSGCase{p.name, filepath.Join(sgDir, p.name+".txt"), p.ranks, p.shared})
	}
	for _, p := range sharingPatterns {
		cases = append(cases, flowSGCase{p.name, tiPattern(t, dir, p.name, 8, p.actions), 8, true})
	}
	return cases
}

// flowMakespan replays a validation case with the flow model.
func flowMakespan(t *testing.T, tc flowSGCase, cross string) float64 {
	t.Helper()
	tr, err := simgridti.ReadFile(tc.index)
	if err != nil {
		t.Fatal(err)
	}
	_, res := simulate(t, tr, flowSGConfig(t, cross), Options{})
	if !res.Complete {
		t.Fatalf("incomplete: %+v", res.Deadlock)
	}
	return res.Makespan
}

// TestFlowSimGridValidation replays traces under SimGrid's CM02 (smpirun
// -replay on sgCluster) and with the flow model, with and without
// crosstraffic: the recorded patterns of testdata/simgrid and generated
// ones whose flows share links (incast, alltoall, master-worker, halo).
// The issue asks for 1 %, and 0.01 % where no link is shared; the models
// agree to SimGrid's 12 printed decimals, so 0.001 % guards regressions.
// Run with -v for the table (docs/sim.md has it).
func TestFlowSimGridValidation(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	var table []string
	cases := flowSGCases(t, t.TempDir())
	for _, cross := range []string{"0", "0.05"} {
		for _, tc := range cases {
			name := tc.name + "/crosstraffic=" + cross
			t.Run(name, func(t *testing.T) {
				ours := flowMakespan(t, tc, cross)
				ct := "network/crosstraffic:0"
				if cross != "0" {
					ct = "network/crosstraffic:1"
				}
				sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: tc.index, Ranks: tc.ranks, Cluster: sgCluster,
					Config: []string{"network/model:CM02", ct, "smpi/test:0"}, Precise: true})
				if err != nil {
					t.Fatal(err)
				}
				diff := (ours - sg.SimulatedTime) / sg.SimulatedTime
				table = append(table, fmt.Sprintf("| %s | %s | %s | %.9f | %.9f | %+.5f |", tc.name, yesNo(tc.shared), cross, sg.SimulatedTime, ours, 100*diff))
				if math.Abs(diff) > 1e-5 {
					t.Errorf("%s: flow model %.9f s, SimGrid %.9f s: %+.5f %% (more than 0.001 %%)", name, ours, sg.SimulatedTime, 100*diff)
				}
			})
		}
	}
	// TCP-gamma: over 50 ms links the window bounds a flow at
	// 4194304 B / (2 × 100 ms) = 21 MB/s, below the links' 125 MB/s.
	t.Run("tcp-gamma", func(t *testing.T) {
		index := tiPattern(t, t.TempDir(), "gamma", 2, gammaPattern)
		cluster := sgCluster
		cluster.Hosts, cluster.Latency = 2, 50e-3
		sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: 2, Cluster: cluster,
			Config: []string{"network/model:CM02", "smpi/test:0"}, Precise: true})
		if err != nil {
			t.Fatal(err)
		}
		ours := gammaMakespan(t, index)
		diff := (ours - sg.SimulatedTime) / sg.SimulatedTime
		table = append(table, fmt.Sprintf("| tcp-gamma (50 ms links) | no | 0.05 | %.9f | %.9f | %+.5f |", sg.SimulatedTime, ours, 100*diff))
		if math.Abs(diff) > 1e-5 {
			t.Errorf("flow model %.9f s, SimGrid %.9f s: %+.5f %%", ours, sg.SimulatedTime, 100*diff)
		}
	})
	// A 64-rank 2-D stencil (gen stencil2d, 10 iterations) on a 64-host
	// star: four flows in and out of every host, crossing each other's
	// crosstraffic; once without its allreduces, and once with them,
	// replayed as SMPI's (--coll-alg allreduce=smpi: a linear reduce to
	// rank 0, then a binomial broadcast).
	for _, withAllreduce := range []bool{false, true} {
		name, label := "stencil64", "stencil64 (64 hosts, no allreduce)"
		if withAllreduce {
			name, label = "stencil64+allreduce", "stencil64 (64 hosts, allreduce=smpi)"
		}
		t.Run(name, func(t *testing.T) {
			index := stencil64(t, t.TempDir(), withAllreduce)
			cluster := sgCluster
			cluster.Hosts = 64
			sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: 64, Cluster: cluster,
				Config: []string{"network/model:CM02", "smpi/test:0"}, Precise: true})
			if err != nil {
				t.Fatal(err)
			}
			ours := stencil64Makespan(t, index)
			diff := (ours - sg.SimulatedTime) / sg.SimulatedTime
			table = append(table, fmt.Sprintf("| %s | yes | 0.05 | %.9f | %.9f | %+.5f |", label, sg.SimulatedTime, ours, 100*diff))
			if math.Abs(diff) > 1e-5 {
				t.Errorf("flow model %.9f s, SimGrid %.9f s: %+.5f %%", ours, sg.SimulatedTime, 100*diff)
			}
		})
	}
	t.Logf("\n| case | shared without crosstraffic | crosstraffic | SimGrid (s) | flow model (s) | error %% |\n|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// gammaPattern sends 1 MB from rank 0 to 1 and 100 KB back.
func gammaPattern(r int) []string {
	if r == 0 {
		return []string{"send 1 0 1000000 6", "recv 1 0 100000 6"}
	}
	return []string{"recv 0 0 1000000 6", "send 0 0 100000 6"}
}

// gammaMakespan replays gammaPattern on 50 ms links with the flow model.
func gammaMakespan(t *testing.T, index string) float64 {
	t.Helper()
	tr, err := simgridti.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	cfg := flowSGConfig(t, "0.05")
	if err := cfg.Set("latency", "50ms"); err != nil {
		t.Fatal(err)
	}
	_, res := simulate(t, tr, cfg, Options{})
	return res.Makespan
}

// stencil64 writes the TI trace of a 64-rank stencil2d, without its
// allreduces unless withAllreduce, and returns its index.
func stencil64(t *testing.T, dir string, withAllreduce bool) string {
	t.Helper()
	tr := generate(t, gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 10, Seed: 1})
	index := filepath.Join(dir, "stencil64.txt")
	if err := simgridti.WriteIndex(index, tr, simgridti.WriteOptions{Datatype: simgridti.Byte}); err != nil {
		t.Fatal(err)
	}
	if withAllreduce {
		return index
	}
	files, err := filepath.Glob(filepath.Join(dir, "stencil64.txt_files", "*.txt"))
	if err != nil || len(files) != 64 {
		t.Fatalf("%d rank files: %v", len(files), err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var keep []string
		for _, line := range strings.SplitAfter(string(data), "\n") {
			if !strings.Contains(line, " allreduce ") {
				keep = append(keep, line)
			}
		}
		if err := os.WriteFile(f, []byte(strings.Join(keep, "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return index
}

// stencil64Makespan replays a stencil64 trace with the flow model under
// CM02 with crosstraffic, its allreduces (if any) as SMPI's.
func stencil64Makespan(t *testing.T, index string) float64 {
	t.Helper()
	tr, err := simgridti.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	_, res := simulate(t, tr, flowSGConfig(t, "0.05"), Options{})
	if !res.Complete {
		t.Fatalf("incomplete: %+v", res.Deadlock)
	}
	return res.Makespan
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestFlowSimGridPinned checks the validation set without SimGrid: the
// flow model reproduces, to the nanosecond, the makespans SimGrid 3.32
// printed (12 decimals) for it under CM02.
func TestFlowSimGridPinned(t *testing.T) {
	if _, err := os.Stat(sgDir); err != nil {
		t.Skip("testdata/simgrid absent")
	}
	want := map[string][2]float64{ // crosstraffic 0, 0.05
		"pingpong": {0.204927360, 0.204927360}, "ring": {0.072245984, 0.072245984},
		"shift": {0.037550112, 0.037722618}, "pairs": {0.013495184, 0.013761443},
		"tokens": {0.030108768, 0.030564501}, "coll2": {0.009655408, 0.009655408},
		"halo": {0.013635280, 0.013814544}, "incast": {0.057241792, 0.057241792},
		"alltoall": {0.028421792, 0.029541882}, "master-worker": {0.045843584, 0.045843584},
		"halo-ring": {0.031530768, 0.032730806},
	}
	// SimGrid: 0.252453613281 s; without the window bound it would be
	// 0.208800256 s.
	if got := gammaMakespan(t, tiPattern(t, t.TempDir(), "gamma", 2, gammaPattern)); math.Abs(got-0.252453613) > 1e-9 {
		t.Errorf("tcp-gamma: makespan %.9f s, SimGrid 0.252453613 s", got)
	}
	// SimGrid: 0.011115424 s.
	if got := stencil64Makespan(t, stencil64(t, t.TempDir(), false)); math.Abs(got-0.011115424) > 1e-9 {
		t.Errorf("stencil64: makespan %.9f s, SimGrid 0.011115424 s", got)
	}
	for _, tc := range flowSGCases(t, t.TempDir()) {
		for i, cross := range []string{"0", "0.05"} {
			w, ok := want[tc.name]
			if !ok {
				t.Fatalf("%s: no pinned makespan", tc.name)
			}
			if got := flowMakespan(t, tc, cross); math.Abs(got-w[i]) > 1e-9 {
				t.Errorf("%s, crosstraffic %s: makespan %.9f s, SimGrid %.9f s", tc.name, cross, got, w[i])
			}
		}
	}
}
