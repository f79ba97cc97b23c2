package preset

import (
	"context"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

var (
	randomFirst  = flag.Uint64("random-first", 1, "TestRandomProgramsAgainstSimGrid: first seed")
	randomCount  = flag.Int("random-count", 30, "TestRandomProgramsAgainstSimGrid: programs to draw")
	randomPhases = flag.Int("random-phases", -1, "TestRandomProgramsAgainstSimGrid: keep only the first phases of each program (to find the phase at fault)")
	randomKeep   = flag.String("random-keep", "", "TestRandomProgramsAgainstSimGrid: write the traces and platforms into this directory and keep them")
)

// randomPlatform returns a cluster of ranks hosts of one of SimGrid's
// topologies, drawn from rng, as the attributes of its <cluster> and a
// name.
func randomPlatform(rng *rand.Rand, ranks int) (name, attrs string) {
	var two [][2]int // factorisations a×b of ranks with a, b ≥ 2
	for a := 2; a*a <= ranks; a++ {
		if ranks%a == 0 {
			two = append(two, [2]int{a, ranks / a})
		}
	}
	sharing := ""
	if rng.IntN(4) == 0 {
		sharing = ` sharing_policy="SHARED"`
	}
	switch k := rng.IntN(4); {
	case k == 0 || len(two) == 0 && k != 1:
		name, attrs := randomBackbone(rng)
		if sharing != "" {
			name = " SHARED" + name
		}
		return "star" + name, sharing + attrs
	case k == 1 || len(two) == 0:
		return fmt.Sprintf("torus %d", ranks), fmt.Sprintf(`topology="TORUS" topo_parameters="%d"`, ranks) + sharing
	case k == 2:
		f := two[rng.IntN(len(two))]
		if f[0] != f[1] {
			return fmt.Sprintf("torus %d,%d", f[0], f[1]), fmt.Sprintf(`topology="TORUS" topo_parameters="%d,%d"`, f[0], f[1]) + sharing
		}
		// Two levels of f[0] down links each (a square number of
		// ranks): f[0] hosts a leaf switch, f[0] leaves, one or two top
		// switches.
		up := 1 + rng.IntN(2)
		p := fmt.Sprintf("2;%d,%d;1,%d;1,1", f[0], f[1], up)
		return "fat tree " + p, fmt.Sprintf(`topology="FAT_TREE" topo_parameters="%s"`, p)
	default:
		f := two[rng.IntN(len(two))]
		// groups, chassis per group, routers per chassis, hosts per
		// router: f[0] groups of f[1] routers of one host.
		p := fmt.Sprintf("%d,1;1,1;%d,1;1", f[0], f[1])
		return "dragonfly " + p, fmt.Sprintf(`topology="DRAGONFLY" topo_parameters="%s"`, p) + sharing
	}
}

// randomBackbone draws, half of the time, a backbone for a star of
// 125 MB/s links: slower, as fast or faster than the links, with or
// without latency, SHARED (SimGrid's default) or FATPIPE; its name and
// its attributes ("" for none).
func randomBackbone(rng *rand.Rand) (name, attrs string) {
	if rng.IntN(2) == 0 {
		return "", ""
	}
	bw := []string{"50MBps", "125MBps", "400MBps"}[rng.IntN(3)]
	lat := []string{"0us", "20us"}[rng.IntN(2)]
	attrs = fmt.Sprintf(` bb_bw="%s" bb_lat="%s"`, bw, lat)
	name = fmt.Sprintf(", backbone %s %s", bw, lat)
	if rng.IntN(4) == 0 {
		attrs += ` bb_sharing_policy="FATPIPE"`
		name += " FATPIPE"
	}
	return name, attrs
}

// infeasibleBound is the error allowed where SimGrid's solver reports an
// infeasible allocation: its makespan then comes from rates no feasible
// sharing gives, and the engine's (feasible) one may differ. It is the
// issue's bound, 1 %: seeds 0–99 (300 cases) stay within it, the largest
// such error +0.34 % (seed 47, two ranks a host with a loopback link,
// CM02 without crosstraffic: SimGrid loads a link to 150 %). The program
// seed 24 drew before the generator took MPI_ANY_SOURCE receives (7
// ranks, star, SMPI's model) still differs by +1.13 %, and is SimGrid's
// error: at 11.6 ms its solver gives a flow all 125 MB/s of a link that
// another flow's crosstraffic also loads (128.125 MB/s), and its
// makespan with crosstraffic (0.051929 s) is shorter than its own
// without (0.052437 s, which the engine matches to 6 ps); docs/sim.md.
const infeasibleBound = 0.01

// TestRandomProgramsAgainstSimGrid draws random MPI programs
// (simgrid.RandomProgram: point-to-point phases, blocking exchanges,
// sendrecv and every collective, sizes around the thresholds) of 2 to 16
// ranks, each on a random SimGrid cluster (star, half of them with a
// backbone, torus, two-level fat tree, dragonfly; sometimes SHARED links;
// sometimes two ranks a host of one or two cores,
// with or without a loopback link), and replays each with
// smpirun -replay and with the preset that stands for its model
// (sgModes: CM02 with and without crosstraffic, --preset simgrid; SMPI's
// default model, --preset smpi). The makespans must agree within 0.01 %,
// as the recorded programs of TestPresetsAgainstSimGrid do, except where
// SimGrid's own check of its solver finds an infeasible allocation
// (infeasibleBound). -random-first and -random-count choose the seeds,
// -random-keep keeps the traces and -random-phases cuts them short, to
// find the phase at fault. It found the binomial trees' sends posted at
// once (TestBinomialTreesOneChildARound).
func TestRandomProgramsAgainstSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	dir := *randomKeep
	if dir == "" {
		dir = t.TempDir()
	}
	var table []string
	for seed := *randomFirst; seed < *randomFirst+uint64(*randomCount); seed++ {
		rng := rand.New(rand.NewPCG(seed, 1))
		ranks := 2 + rng.IntN(15)
		// A quarter of the even worlds run two ranks a host of a star
		// (SimGrid 3.32 finds no route from a host to itself in its
		// other clusters), half of those with a loopback link for the
		// messages between them.
		hosts, perHost := ranks, 1
		var pname, attrs string
		if ranks%2 == 0 && ranks >= 4 && rng.IntN(4) == 0 {
			hosts, perHost = ranks/2, 2
			pname = "star"
			if rng.IntN(4) == 0 {
				pname, attrs = "star SHARED", ` sharing_policy="SHARED"`
			}
			bname, battrs := randomBackbone(rng)
			pname, attrs = pname+bname, attrs+battrs
		} else {
			pname, attrs = randomPlatform(rng, hosts)
		}
		if perHost > 1 {
			pname += ", 2 ranks/host"
			if rng.IntN(2) == 0 {
				pname, attrs = pname+" of 2 cores", attrs+` core="2"`
			}
			if rng.IntN(2) == 0 && !strings.Contains(attrs, "SHARED") {
				pname += ", loopback"
				attrs += ` loopback_bw="500MBps" loopback_lat="1us"`
			}
		}
		prog := simgrid.RandomProgram(seed, ranks)
		sub := filepath.Join(dir, fmt.Sprint(seed))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		index, err := simgrid.WriteRanks(sub, "rnd", ranks, func(r int) []string { return simgrid.Flatten(prog, r, *randomPhases) })
		if err != nil {
			t.Fatal(err)
		}
		platform, hostfile := writeCluster(t, sub, hosts, perHost, attrs)
		for _, m := range sgModes {
			name := fmt.Sprintf("seed %d/%d ranks/%s/%s", seed, ranks, pname, m.name)
			t.Run(name, func(t *testing.T) {
				replay := simgrid.Replay{Index: index, Ranks: ranks, Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true}
				res, err := simgrid.Run(context.Background(), replay)
				if err != nil {
					t.Fatal(err)
				}
				sg := res.SimulatedTime
				ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
				diff := (ours - sg) / sg
				tol, note := 1e-4, ""
				if math.Abs(diff) > tol {
					// Where SimGrid's own check finds that its solver
					// gave a link more than its bandwidth, its makespan
					// is not that of a max-min sharing
					// (TestSimGridInfeasibleShare).
					bad, err := simgrid.InfeasibleSharing(context.Background(), replay)
					if err != nil {
						t.Fatal(err)
					}
					if bad != "" {
						tol, note = infeasibleBound, " (SimGrid's solver: "+bad+")"
					}
				}
				table = append(table, fmt.Sprintf("| %d | %d | %s | %s | %.9f | %.9f | %+.4f |%s", seed, ranks, pname, m.name, sg, ours, 100*diff, note))
				if math.Abs(diff) > tol {
					t.Errorf("ours %.9f s, SimGrid %.9f s: %+.4f %%%s (bound %g %%; trace in %s)", ours, sg, 100*diff, note, 100*tol, sub)
				}
			})
		}
	}
	t.Logf("\n| seed | ranks | platform | preset | SimGrid (s) | ours (s) | error %% |\n|---|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// TestRandomProgramsComplete: the random programs are valid MPI — every
// send has its receive, every rank calls the same collectives — so each
// replays to its end, under the flow and packet models, without a
// deadlock; and a seed always draws the same program.
func TestRandomProgramsComplete(t *testing.T) {
	dir := t.TempDir()
	for seed := uint64(1); seed <= 100; seed++ {
		ranks := 1 + int(seed%16)
		prog := simgrid.RandomProgram(seed, ranks)
		if again := simgrid.RandomProgram(seed, ranks); !reflect.DeepEqual(prog, again) {
			t.Fatalf("seed %d: two draws differ", seed)
		}
		sub := filepath.Join(dir, fmt.Sprint(seed))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		index, err := simgrid.WriteRanks(sub, "rnd", ranks, func(r int) []string { return simgrid.Flatten(prog, r, -1) })
		if err != nil {
			t.Fatal(err)
		}
		tr, err := simgridti.ReadFile(index)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, model := range []string{"flow", "packet"} {
			c := replay.Default()
			if err := c.Set("model", model); err != nil {
				t.Fatal(err)
			}
			if res := replayTrace(t, tr, c); !res.Complete {
				t.Errorf("seed %d, %d ranks, %s: incomplete, deadlock %+v", seed, ranks, model, res.Deadlock)
			}
		}
	}
}

// writeCluster writes a cluster of hosts 1 Gflop/s hosts with 125 MB/s,
// 5 µs links and the given attributes, and a hostfile with perHost ranks
// a host, into dir.
func writeCluster(t *testing.T, dir string, hosts, perHost int, attrs string) (platform, hostfile string) {
	t.Helper()
	platform = filepath.Join(dir, "platform.xml")
	xml := fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="host" suffix="" radical="0-%d" speed="1Gf" bw="125MBps" lat="5us" %s/>
</platform>
`, hosts-1, attrs)
	var hf strings.Builder
	for h := range hosts {
		if perHost > 1 {
			fmt.Fprintf(&hf, "host%d:%d\n", h, perHost)
		} else {
			fmt.Fprintf(&hf, "host%d\n", h)
		}
	}
	hostfile = filepath.Join(dir, "hostfile")
	if err := os.WriteFile(platform, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hostfile, []byte(hf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return platform, hostfile
}
