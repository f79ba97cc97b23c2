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
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// TestSMPICollectivesAgainstSimGrid replays one collective at a time on 6
// ranks with smpirun -replay (CM02, no crosstraffic) on a star whose
// links are so fast (100 GB/s) and so slow to start (1 ms) that the
// makespan counts the rounds of latency an algorithm needs: it shows the
// message pattern, not the bandwidth sharing the analytic model leaves
// out. --coll-alg all=smpi must give SimGrid's makespan; the MPICH
// choices (auto) differ on most operations.
func TestSMPICollectivesAgainstSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	const P = 6
	cluster := simgrid.Cluster{Hosts: P, Speed: 1e9, Bandwidth: 1e11, Latency: 1e-3}
	for _, c := range []struct {
		name   string
		action func(r int) string
	}{
		{"barrier", func(int) string { return "barrier" }},
		{"bcast", func(int) string { return "bcast 100 2" }},
		{"reduce", func(int) string { return "reduce 100 0 3" }},
		{"allreduce", func(int) string { return "allreduce 100 0" }},
		{"gather", func(int) string { return "gather 10 10 1" }},
		{"scatter", func(int) string { return "scatter 10 10 4" }},
		{"allgather", func(int) string { return "allgather 10 10" }},
		{"alltoall", func(int) string { return "alltoall 10 10" }},
		{"alltoall large", func(int) string { return "alltoall 20000 20000 6 6" }},
		{"reducescatter", func(int) string { return "reducescatter 10 10 10 10 10 10 0" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var index strings.Builder
			for r := 0; r < P; r++ {
				name := fmt.Sprintf("r%d.txt", r)
				text := fmt.Sprintf("%d init\n%d %s\n%d finalize\n", r, r, c.action(r), r)
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				index.WriteString(name + "\n")
			}
			idx := filepath.Join(dir, "index.txt")
			if err := os.WriteFile(idx, []byte(index.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			tr, err := simgridti.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: idx, Ranks: P, Cluster: cluster, Config: sgOptions})
			if err != nil {
				t.Fatal(err)
			}
			base := []string{"model", "simgrid", "latency", "1ms", "bandwidth", "100GB/s", "cpu-speed", "1Gf"}
			_, smpi := simulate(t, tr, cfgWith(t, append(base, "coll-alg", "all=smpi")...), Options{})
			_, mpich := simulate(t, tr, cfgWith(t, base...), Options{})
			t.Logf("%s: SimGrid %.6f s, all=smpi %.9f s, MPICH's %.9f s", c.name, sg.SimulatedTime, smpi.Makespan, mpich.Makespan)
			if d := math.Abs(smpi.Makespan - sg.SimulatedTime); d > 2e-6 {
				t.Errorf("%s: all=smpi %.9f s, SimGrid %.6f s", c.name, smpi.Makespan, sg.SimulatedTime)
			}
		})
	}
}
