package preset

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/tracesim/tracesim/internal/simgrid"
)

// cgActions is rank r's actions of ranks ranks running iters iterations
// of testdata/simgrid/bench/cg.c, as `smpirun -trace-ti` records them: a
// halo with both neighbours and the ranks P/8 away, a matrix-vector
// product and two one-double allreduces with vector updates between.
func cgActions(ranks, iters int) func(int) []string {
	return func(r int) []string {
		nb := [4]int{(r + 1) % ranks, (r + ranks - 1) % ranks, (r + ranks/8) % ranks, (r + ranks - ranks/8) % ranks}
		size := [4]int{24000, 24000, 4000, 4000}
		var a []string
		for range iters {
			for k := range 4 {
				a = append(a, fmt.Sprintf("irecv %d %d %d 6", nb[k], k, size[k]))
			}
			for k := range 4 {
				a = append(a, fmt.Sprintf("isend %d %d %d 6", nb[k], k^1, size[k]))
			}
			a = append(a, "waitall 8", fmt.Sprintf("compute %d", 400000+1000*(r%7)),
				"allreduce 1 0 0", "compute 100000", "allreduce 1 0 0", "compute 50000")
		}
		return a
	}
}

// stencilActions is rank r's actions of a side × side periodic grid
// running iters iterations of testdata/simgrid/bench/stencil.c: a 16 KB
// halo with the four neighbours, a computation, and every tenth
// iteration a one-double allreduce.
func stencilActions(side, iters int) func(int) []string {
	return func(r int) []string {
		x, y := r%side, r/side
		nb := [4]int{y*side + (x+1)%side, y*side + (x+side-1)%side, ((y+side-1)%side)*side + x, ((y+1)%side)*side + x}
		var a []string
		for it := range iters {
			for k := range 4 {
				a = append(a, fmt.Sprintf("irecv %d %d 16384 6", nb[k], k^1))
			}
			for k := range 4 {
				a = append(a, fmt.Sprintf("isend %d %d 16384 6", nb[k], k))
			}
			a = append(a, "waitall 8", fmt.Sprintf("compute %d", 2000000+20000*((x+y)%5)))
			if it%10 == 9 {
				a = append(a, "allreduce 1 0 0")
			}
		}
		return a
	}
}

// shiftActions is rank r's actions of ranks ranks each sending 100 KB to
// the next rank and receiving from the previous one, iters times, with a
// computation of its own length between: on a star of split-duplex links
// and on a torus whose dimension-order route from a host to the next is
// one link, every link carries one flow at a time.
func shiftActions(ranks, iters int) func(int) []string {
	return func(r int) []string {
		var a []string
		for it := range iters {
			a = append(a, fmt.Sprintf("irecv %d 0 100000 6", (r+ranks-1)%ranks),
				fmt.Sprintf("isend %d 0 100000 6", (r+1)%ranks), "waitall 2",
				fmt.Sprintf("compute %d", 1000000+50000*((r+it)%4)))
		}
		return a
	}
}

// TestLargeProgramsAgainstSimGrid replays the benchmark's programs at
// their benchmark sizes of 64 and 256 ranks (fewer iterations: 10,000 to
// 26,000 actions each, so that the 18 smpirun replays take under a
// minute) on star and torus clusters with smpirun -replay and with the
// presets (sgModes). The issue bounds the error at 0.01 % where no link
// carries two flows at once (the shift) and 1 % where links are shared
// (the CG-like halo, the stencil, the allreduces' gathers); the presets
// follow SimGrid's solver and agree to the ninth digit, so the test
// holds them to 0.0001 % and 0.01 %. -v prints the table docs/sim.md
// shows.
func TestLargeProgramsAgainstSimGrid(t *testing.T) {
	needSmpirun(t)
	const (
		// The issue asks for 0.01 % and 1 %; the presets follow
		// SimGrid's solver, and agree to the ninth digit on these.
		exact  = 1e-6 // 0.0001 %
		shared = 1e-4 // 0.01 %
	)
	for _, c := range []struct {
		name    string
		ranks   int
		actions func(int) []string
		torus   string
		tol     float64
	}{
		{"CG-like, 64 ranks, 16 iterations", 64, cgActions(64, 16), "4,4,4", shared},
		{"stencil, 256 ranks, 10 iterations", 256, stencilActions(16, 10), "16,16", shared},
		{"shift, 256 ranks, 10 iterations", 256, shiftActions(256, 10), "16,16", exact},
	} {
		dir := t.TempDir()
		index, err := simgrid.WriteRanks(dir, "sg", c.ranks, c.actions)
		if err != nil {
			t.Fatal(err)
		}
		for _, pl := range []struct{ name, dir, attrs string }{
			// (SimGrid's options take no path with a comma.)
			{"star", "star", `sharing_policy="SPLITDUPLEX"`},
			{"torus " + c.torus, "torus", fmt.Sprintf(`sharing_policy="SPLITDUPLEX" topology="TORUS" topo_parameters="%s"`, c.torus)},
		} {
			pdir := filepath.Join(dir, pl.dir)
			if err := os.MkdirAll(pdir, 0o755); err != nil {
				t.Fatal(err)
			}
			platform, hostfile := writeCluster(t, pdir, c.ranks, 1, pl.attrs)
			for _, m := range sgModes {
				t.Run(c.name+"/"+pl.name+"/"+m.name, func(t *testing.T) {
					start := time.Now()
					res, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: c.ranks,
						Platform: platform, Hostfile: hostfile, Config: m.cfg, Precise: true})
					if err != nil {
						t.Fatal(err)
					}
					took := time.Since(start)
					sg := res.SimulatedTime
					ours := presetMakespan(t, index, platform, hostfile, m.preset, m.crosstraffic)
					d := (ours - sg) / sg
					t.Logf("| %s | %s | %s | %.9f | %.9f | %+.1e | %.1f s |", c.name, pl.name, m.name, sg, ours, d, took.Seconds())
					if math.Abs(d) > c.tol {
						t.Errorf("ours %.9f s, SimGrid %.9f s: %+.6f %% (bound %g %%)", ours, sg, 100*d, 100*c.tol)
					}
				})
			}
		}
	}
}
