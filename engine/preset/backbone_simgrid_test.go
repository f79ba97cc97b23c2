package preset

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
)

// needSmpirun skips a test that runs smpirun where it is not installed
// or under -short.
func needSmpirun(t *testing.T) {
	t.Helper()
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
}

// fourPairs is rank r's actions of four pairs sending 1 MB at once:
// ranks 0-3 to ranks 4-7.
func fourPairs(r int) []string {
	if r < 4 {
		return []string{fmt.Sprintf("send %d 0 1000000", r+4)}
	}
	return []string{fmt.Sprintf("recv %d 0 1000000", r-4)}
}

// randomActions gives each rank's actions of simgrid.RandomProgram(seed,
// ranks).
func randomActions(seed uint64, ranks int) func(int) []string {
	prog := simgrid.RandomProgram(seed, ranks)
	return func(r int) []string { return simgrid.Flatten(prog, r, -1) }
}

// againstSimGrid replays a program of ranks ranks (actions gives each
// rank's) on hosts hosts of a star cluster with the given attributes,
// perHost ranks a host, with smpirun -replay and with the preset of each
// of sgModes, as subtests name/mode: the makespans must agree within
// 0.0001 %; check, when set, looks at ours too.
func againstSimGrid(t *testing.T, name string, ranks, hosts, perHost int, attrs string, actions func(int) []string, check func(t *testing.T, ours float64)) {
	t.Helper()
	dir := t.TempDir()
	index, err := simgrid.WriteRanks(dir, "sg", ranks, actions)
	if err != nil {
		t.Fatal(err)
	}
	platform, hostfile := writeCluster(t, dir, hosts, perHost, attrs)
	compareModes(t, name, index, ranks, platform, hostfile, check)
}

// compareModes replays the trace of index (ranks ranks) on platform with
// hostfile under smpirun -replay and the preset of each of sgModes, as
// subtests name/mode (see againstSimGrid).
func compareModes(t *testing.T, name, index string, ranks int, platform, hostfile string, check func(t *testing.T, ours float64)) {
	t.Helper()
	for _, m := range sgModes {
		t.Run(name+"/"+m.name, func(t *testing.T) {
			res, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: ranks, Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true})
			if err != nil {
				t.Fatal(err)
			}
			sg := res.SimulatedTime
			ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
			t.Logf("SimGrid %.9f s, ours %.9f s", sg, ours)
			if d := (ours - sg) / sg; math.Abs(d) > 1e-6 {
				t.Errorf("ours %.9f s, SimGrid %.9f s: %+.4f %%", ours, sg, 100*d)
			}
			if check != nil {
				check(t, ours)
			}
		})
	}
}

// TestBackbonesAgainstSimGrid replays messages across the backbone of
// SimGrid star clusters (bb_bw, bb_lat, bb_sharing_policy) with smpirun
// -replay and with the presets (sgModes), where the backbone is what the
// messages share: four pairs at once through a SHARED backbone slower
// than the hosts' links (with and without a limiter), and, with two ranks
// a host on SHARED links, a message within a host (one link and the
// backbone: a short route) beside one between hosts (a route twice as
// long) through a FATPIPE backbone, which SimGrid's solver shares by
// route latency: the longer one gets half of it (bounding each flow by
// the backbone, as the flow model did before, ends at 20.0 ms where
// SimGrid ends at 30.0 ms). Within 0.0001 %.
func TestBackbonesAgainstSimGrid(t *testing.T) {
	needSmpirun(t)
	pairs := fourPairs
	// Ranks 0, 1 on host0; 2, 3 on host1; 4, 5 on host2.
	withinAndAcross := func(r int) []string {
		return map[int][]string{
			0: {"send 1 0 1000000"}, 1: {"recv 0 0 1000000"},
			2: {"send 4 0 1000000"}, 4: {"recv 2 0 1000000"},
			3: {"send 5 0 300000"}, 5: {"recv 3 0 300000"},
		}[r]
	}
	for _, c := range []struct {
		name    string
		attrs   string
		hosts   int
		perHost int
		ranks   int
		actions func(int) []string
	}{
		{"4 pairs, SHARED backbone", `bb_bw="200MBps" bb_lat="20us"`, 8, 1, 8, pairs},
		{"4 pairs, SHARED backbone, limiter", `bb_bw="200MBps" bb_lat="20us" limiter_link="40MBps"`, 8, 1, 8, pairs},
		{"4 pairs, FATPIPE backbone", `bb_bw="100MBps" bb_lat="20us" bb_sharing_policy="FATPIPE"`, 8, 1, 8, pairs},
		{"within and across, FATPIPE backbone", `sharing_policy="SHARED" bb_bw="50MBps" bb_sharing_policy="FATPIPE"`, 3, 2, 6, withinAndAcross},
		{"within and across, SHARED backbone", `sharing_policy="SHARED" bb_bw="50MBps"`, 3, 2, 6, withinAndAcross},
	} {
		againstSimGrid(t, c.name, c.ranks, c.hosts, c.perHost, c.attrs, c.actions, nil)
	}
}
