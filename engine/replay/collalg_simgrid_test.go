package replay

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/internal/simgrid"
	"github.com/tracesim/tracesim/tracefmt/simgridti"
)

// namedAlgorithms pairs each --coll-alg algorithm with SimGrid 3.32's
// implementation of the same algorithm (its smpi/OP setting): both come
// from MPICH's (or Open MPI's) code, so their messages, sizes and order
// agree. pow2 marks the algorithms MPICH runs on a power of two ranks
// only; whole the one whose sizes must be a multiple of the ranks
// (SimGrid's lr reduces a remainder by recursive doubling after the ring,
// and a buffer smaller than the ranks by recursive doubling alone: not
// the ring algorithm). action is the TI line of one rank (SIZE, COUNTS:
// the size, and the size once per rank). The binomial scatter is not
// listed: SimGrid's (Open MPI's in-order tree, which its MPICH selector
// also uses) serves the root's smallest subtree first, MPICH's the
// largest.
var namedAlgorithms = []struct {
	op, ours, simgrid, action string
	pow2, whole               bool
}{
	{"bcast", "binomial", "binomial_tree", "bcast SIZE 1 6", false, false},
	{"bcast", "ring", "scatter_LR_allgather", "bcast SIZE 1 6", false, false},
	{"bcast", "recursive-doubling", "scatter_rdb_allgather", "bcast SIZE 1 6", true, false},
	{"reduce", "binomial", "binomial", "reduce SIZE 0 1 6", false, false},
	{"reduce", "rabenseifner", "scatter_gather", "reduce SIZE 0 1 6", false, false},
	{"reduce", "rabenseifner", "scatter_gather", "reduce SIZE 0 3 6", false, false},
	{"allreduce", "recursive-doubling", "rdb", "allreduce SIZE 0 6", false, false},
	{"allreduce", "rabenseifner", "rab_rdb", "allreduce SIZE 0 6", false, false},
	{"allreduce", "ring", "lr", "allreduce SIZE 0 6", false, true},
	{"allgather", "recursive-doubling", "rdb", "allgather SIZE SIZE 6 6", true, false},
	{"allgather", "dissemination", "bruck", "allgather SIZE SIZE 6 6", false, false},
	{"allgather", "ring", "ring", "allgather SIZE SIZE 6 6", false, false},
	{"alltoall", "dissemination", "bruck", "alltoall SIZE SIZE 6 6", false, false},
	{"alltoall", "ring", "ring", "alltoall SIZE SIZE 6 6", false, false},
	{"alltoall", "pairwise", "pair", "alltoall SIZE SIZE 6 6", true, false},
	{"barrier", "dissemination", "ompi_bruck", "barrier", false, false},
	{"gather", "binomial", "ompi_binomial", "gather SIZE SIZE 1 6 6", false, false},
	{"reducescatter", "pairwise", "mpich_pair", "reducescatter COUNTS 0 6", false, false},
	{"reducescatter", "ring", "ompi_ring", "reducescatter COUNTS 0 6", false, false},
}

// TestNamedAlgorithmsAgainstSimGrid replays one collective at a time
// with every named algorithm and with SimGrid's implementation of it
// (smpirun -replay --cfg=smpi/OP:NAME, CM02 without crosstraffic, a star
// of 125 MB/s, 5 µs links) on 4 to 16 ranks, with a message in the
// latency regime and one in the bandwidth regime whose size no power of
// two divides (the last blocks are short). The makespans agree within
// 0.01 %. It is what validates MPICH's choices (--coll-alg auto): each
// is one of these algorithms.
func TestNamedAlgorithmsAgainstSimGrid(t *testing.T) {
	if _, err := simgrid.Path(); err != nil {
		t.Skip("smpirun not installed (Debian libsimgrid-dev)")
	}
	if testing.Short() {
		t.Skip("runs smpirun")
	}
	var table []string
	for _, a := range namedAlgorithms {
		for _, P := range []int{4, 5, 8, 12, 16} {
			if a.pow2 && P&(P-1) != 0 {
				continue
			}
			for _, size := range []int{64, 200003} {
				if a.whole {
					size = (size + P - 1) / P * P
				}
				name := fmt.Sprintf("%s=%s/%d ranks/%d B/%s", a.op, a.ours, P, size, strings.Fields(a.action)[0])
				t.Run(name, func(t *testing.T) {
					line := strings.ReplaceAll(a.action, "COUNTS", strings.TrimSpace(strings.Repeat(fmt.Sprint(size)+" ", P)))
					line = strings.ReplaceAll(line, "SIZE", fmt.Sprint(size))
					index, err := simgrid.WriteRanks(t.TempDir(), "coll", P, func(int) []string { return []string{line} })
					if err != nil {
						t.Fatal(err)
					}
					cluster := sgCluster
					cluster.Hosts = P
					sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: P, Cluster: cluster,
						Config:  []string{"network/model:CM02", "network/crosstraffic:0", "smpi/" + strings.ReplaceAll(a.op, "reducescatter", "reduce_scatter") + ":" + a.simgrid},
						Precise: true})
					if err != nil {
						t.Fatal(err)
					}
					tr, err := simgridti.ReadFile(index)
					if err != nil {
						t.Fatal(err)
					}
					cfg := flowSGConfig(t, "0")
					if err := cfg.Set("coll-alg", a.op+"="+a.ours); err != nil {
						t.Fatal(err)
					}
					_, res := simulate(t, tr, cfg, Options{})
					diff := (res.Makespan - sg.SimulatedTime) / sg.SimulatedTime
					table = append(table, fmt.Sprintf("| %s | %s | %s | %d | %d | %.9f | %.9f | %+.5f |", a.op, a.ours, a.simgrid, P, size, sg.SimulatedTime, res.Makespan, 100*diff))
					if math.Abs(diff) > 1e-4 {
						t.Errorf("%s: ours %.9f s, SimGrid's %s %.9f s (%+.4f %%)", line, res.Makespan, a.simgrid, sg.SimulatedTime, 100*diff)
					}
				})
			}
		}
	}
	t.Logf("\n| operation | ours | SimGrid's | ranks | bytes | SimGrid (s) | ours (s) | error %% |\n|---|---|---|---|---|---|---|---|\n%s", strings.Join(table, "\n"))
}
