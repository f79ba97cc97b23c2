package preset

import (
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// sgPlatforms are the platforms of the validation: eight 1 Gflop/s hosts
// with 125 MB/s, 5 µs links in each of SimGrid's cluster topologies, and
// the star's sharing policies and limiter. hostfile places the ranks
// ("" = one rank per host, host i for rank i).
var sgPlatforms = []struct {
	name, attrs, hostfile string
}{
	{"star", ``, ""},
	{"star SHARED", `sharing_policy="SHARED"`, ""},
	{"star FATPIPE", `sharing_policy="FATPIPE"`, ""},
	{"star limiter 200MBps", `limiter_link="200MBps"`, ""},
	{"star 2 ranks/host", ``, "host0:2\nhost1:2\nhost2:2\nhost3:2\n"},
	// A SHARED link is one link both ways: SimGrid's star puts it in
	// the route between two ranks of a host once (the engine twice, at
	// half the rate, until the random programs found it).
	{"star SHARED 2 ranks/host", `sharing_policy="SHARED"`, "host0:2\nhost1:2\nhost2:2\nhost3:2\n"},
	{"star loopback, 2 ranks/host", `loopback_bw="500MBps" loopback_lat="1us"`, "host0:2\nhost1:2\nhost2:2\nhost3:2\n"},
	{"torus 2x4", `topology="TORUS" topo_parameters="2,4"`, ""},
	{"torus 2x2x2", `topology="TORUS" topo_parameters="2,2,2"`, ""},
	{"fat tree 2-ary 3-tree", `topology="FAT_TREE" topo_parameters="3;2,2,2;1,2,2;1,1,1"`, ""},
	{"torus 2x4 SHARED", `topology="TORUS" topo_parameters="2,4" sharing_policy="SHARED"`, ""},
	{"torus 8 limiter 100MBps", `topology="TORUS" topo_parameters="8" limiter_link="100MBps"`, ""},
	{"dragonfly 2,1;2,1;2,1;1", `topology="DRAGONFLY" topo_parameters="2,1;2,1;2,1;1"`, ""},
	{"dragonfly 2,2;2,1;2,2;1 SHARED", `topology="DRAGONFLY" topo_parameters="2,2;2,1;2,2;1" sharing_policy="SHARED"`, ""},
	{"dragonfly 1,1;2,1;4,1;1", `topology="DRAGONFLY" topo_parameters="1,1;2,1;4,1;1"`, ""},
	{"dragonfly 1,1;2,1;4,1;1 limiter", `topology="DRAGONFLY" topo_parameters="1,1;2,1;4,1;1" limiter_link="200MBps"`, ""},
}

// sgModes are smpirun's network models and the preset that stands for
// each: CM02 with and without crosstraffic, and the default SMPI model.
var sgModes = []struct {
	name, preset, crosstraffic string
	cfg                        []string
}{
	{"simgrid", "simgrid", "", []string{"network/model:CM02"}},
	{"simgrid --crosstraffic 0", "simgrid", "0", []string{"network/model:CM02", "network/crosstraffic:0"}},
	{"smpi", "smpi", "", nil},
}

// sgDir holds the validation set: the MPI programs of validation.c
// recorded by SimGrid 3.32 as time-independent traces of 8 ranks
// (record.sh; testdata/simgrid/README.md).
const sgDir = "../../testdata/simgrid/validation"

// sgPatterns are the recorded programs of the validation: the index of
// each trace in sgDir, under the name the table gives it.
var sgPatterns = []struct {
	name, index string
}{
	{"halo 2-D", "halo.txt"},
	{"alltoall", "alltoall.txt"},
	{"master-worker any-source", "masterworker.txt"},
	{"cg", "cg.txt"},
	{"pipeline", "pipeline.txt"},
	{"incast", "incast.txt"},
}

// writePlatform writes an 8-host cluster with the given attributes and
// its hostfile into dir.
func writePlatform(t *testing.T, dir string, i int, attrs, hostfile string) (platform, hosts string) {
	t.Helper()
	platform = filepath.Join(dir, fmt.Sprintf("platform%d.xml", i))
	xml := fmt.Sprintf(`<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <cluster id="c" prefix="host" suffix="" radical="0-7" speed="1Gf" bw="125MBps" lat="5us" %s/>
</platform>
`, attrs)
	if hostfile == "" {
		for h := range 8 {
			hostfile += fmt.Sprintf("host%d\n", h)
		}
	}
	hosts = filepath.Join(dir, fmt.Sprintf("hostfile%d", i))
	if err := os.WriteFile(platform, []byte(xml), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hosts, []byte(hostfile), 0o644); err != nil {
		t.Fatal(err)
	}
	return platform, hosts
}

// presetMakespan is `tracesim sim INDEX --platform P --hostfile H
// --preset NAME [--crosstraffic C]`.
func presetMakespan(t *testing.T, index, platform, hostfile, name, crosstraffic string) float64 {
	t.Helper()
	p, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	c := replay.Default()
	if err := p.Apply(&c); err != nil {
		t.Fatal(err)
	}
	kv := []string{"platform", platform, "hostfile", hostfile}
	if crosstraffic != "" {
		kv = append(kv, "crosstraffic", crosstraffic)
	}
	for i := 0; i < len(kv); i += 2 {
		if err := c.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c, err = c.Resolve(); err != nil {
		t.Fatal(err)
	}
	tr, err := simgridti.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	res := replayTrace(t, tr, c)
	if !res.Complete {
		t.Fatalf("incomplete: %+v", res.Deadlock)
	}
	return res.Makespan
}

// replayTrace replays tr on the machine c and returns the results.
func replayTrace(t *testing.T, tr *tracefmt.Trace, c replay.Config) replay.Results {
	t.Helper()
	s, err := replay.New(tr, c, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return s.Results()
}

// pinFile holds the makespans smpirun -replay (SimGrid 3.32) gave for the
// cases of TestPresetsAgainstSimGrid, so that machines without SimGrid
// check the presets against them: "pattern|platform|mode|seconds" lines.
const pinFile = "testdata/smpirun.txt"

var pin = flag.Bool("pin", false, "TestPresetsAgainstSimGrid: rewrite "+pinFile+" from smpirun")

// knownDeviations are the cases where the presets are not exact, with
// their error bound (the 1 %); elsewhere they agree within
// 0.01 %. alltoall on TORUS 2,4 under SMPI's model (+0.011 %): in its
// third 1 KB MPI_Alltoall SimGrid 3.32's max-min solver gives two flows
// more than the bandwidth of the link they share (its own debug check
// reports the infeasible allocation; TestSimGridInfeasibleShare), so
// SimGrid ends earlier than a feasible sharing can.
var knownDeviations = map[string]float64{
	"alltoall/torus 2x4/smpi": 0.01,
}

func readPins(t *testing.T) map[string]float64 {
	data, err := os.ReadFile(pinFile)
	if err != nil {
		t.Fatal(err)
	}
	pins := map[string]float64{}
	for n, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "|")
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if len(f) != 4 || err != nil {
			t.Fatalf("%s:%d: expected pattern|platform|mode|seconds", pinFile, n+1)
		}
		pins[strings.Join(f[:3], "/")] = v
	}
	return pins
}

// TestPresetsAgainstSimGrid replays every pattern on every platform with
// the simgrid and smpi presets (`tracesim sim TRACE --platform P
// --hostfile H --preset simgrid|smpi [--crosstraffic 0]`) and compares
// the makespans with smpirun -replay's under CM02 with and without
// crosstraffic and under its default model: run when smpirun is
// installed, else against the makespans it gave (pinFile). -v prints the
// table docs/sim.md shows.
func TestPresetsAgainstSimGrid(t *testing.T) {
	if testing.Short() {
		t.Skip("288 replays")
	}
	live := true
	if _, err := simgrid.Path(); err != nil {
		live = false
	}
	if *pin && !live {
		t.Fatal("-pin needs smpirun")
	}
	var pins map[string]float64
	if !live {
		pins = readPins(t)
	}
	dir := t.TempDir()
	var table, pinned []string
	for pi, pl := range sgPlatforms {
		platform, hostfile := writePlatform(t, dir, pi, pl.attrs, pl.hostfile)
		for _, pat := range sgPatterns {
			index := filepath.Join(sgDir, pat.index)
			for _, m := range sgModes {
				name := pat.name + "/" + pl.name + "/" + m.name
				t.Run(name, func(t *testing.T) {
					sg, ok := pins[name]
					if live {
						res, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: 8,
							Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true})
						if err != nil {
							t.Fatal(err)
						}
						sg, ok = res.SimulatedTime, true
					}
					if !ok {
						t.Fatalf("no makespan pinned in %s", pinFile)
					}
					pinned = append(pinned, fmt.Sprintf("%s|%s|%s|%.12g", pat.name, pl.name, m.name, sg))
					ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
					diff := (ours - sg) / sg
					table = append(table, fmt.Sprintf("| %s | %s | %s | %.9f | %.9f | %+.4f |", pat.name, pl.name, m.name, sg, ours, 100*diff))
					tol, known := knownDeviations[name]
					if !known {
						tol = 1e-4
					}
					if math.Abs(diff) > tol {
						t.Errorf("ours %.9f s, SimGrid %.9f s: %+.4f %% (bound %g %%)", ours, sg, 100*diff, 100*tol)
					}
				})
			}
		}
	}
	if *pin {
		if err := os.WriteFile(pinFile, []byte(strings.Join(pinned, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("\n| case | platform | preset | SimGrid (s) | ours (s) | error %% |\n|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}

// TestSimGridInfeasibleShare pins the cause of the one inexact case of
// TestPresetsAgainstSimGrid (alltoall on TORUS 2,4): five 1000-byte
// flows on TORUS 2,4 started at once, two of which (0 → 3 and 7 → 3)
// share the link from host 1 to host 3. With crosstraffic SimGrid 3.32's
// LMM gives them 122.9 and 120.8 MB/s on that 125 MB/s link (its own
// check, `--log=ker_lmm.thres:debug`, prints "Incorrect value (243750000
// is not smaller than 125000000)") and ends at 23.28 µs, earlier than
// without crosstraffic (26.256 µs): the engine shares the link and ends
// at 26.256 µs (10 µs of latency, then 2 × 1016 B at 125 MB/s) both ways,
// which SimGrid also gives without crosstraffic.
func TestSimGridInfeasibleShare(t *testing.T) {
	dir := t.TempDir()
	flows := [][2]int{{0, 3}, {1, 0}, {1, 6}, {6, 0}, {7, 3}}
	index, err := simgrid.WriteRanks(dir, "five", 8, func(r int) []string {
		var a []string
		for _, f := range flows {
			if f[1] == r {
				a = append(a, fmt.Sprintf("irecv %d 0 1000 6", f[0]))
			}
		}
		for _, f := range flows {
			if f[0] == r {
				a = append(a, fmt.Sprintf("isend %d 0 1000 6", f[1]))
			}
		}
		if len(a) > 0 {
			a = append(a, fmt.Sprintf("waitall %d", len(a)))
		}
		return a
	})
	if err != nil {
		t.Fatal(err)
	}
	platform, hostfile := writePlatform(t, dir, 0, `topology="TORUS" topo_parameters="2,4"`, "")
	const want = 10e-6 + 2*1016/125e6
	for _, ct := range []string{"", "0"} {
		ours := presetMakespan(t, index, platform, hostfile, "simgrid", ct)
		if math.Abs(ours-want) > 1e-11 {
			t.Errorf("crosstraffic %q: makespan %.12f s, want %.12f s", ct, ours, want)
		}
	}
	if _, err := simgrid.Path(); err != nil {
		return
	}
	for _, m := range sgModes[:2] {
		res, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: 8,
			Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: SimGrid %.12f s, engine %.12f s", m.name, res.SimulatedTime, want)
		if m.crosstraffic == "0" && math.Abs(res.SimulatedTime-want) > 1e-11 {
			t.Errorf("without crosstraffic SimGrid gives %.12f s, want %.12f s as the engine", res.SimulatedTime, want)
		}
	}
}
