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
	"github.com/tracesim/tracesim/tracefmt/tsim"
)

// irecvProgram is an MPI program of 4 ranks, three iterations of: rank 0
// computes; every rank posts MPI_Irecv from its partner (rank ^ 1), sends
// it size bytes with MPI_Send and waits (NAS CG's exchange, safe in MPI
// whatever the protocol); then a ring halo of two MPI_Irecv, two
// MPI_Isend and MPI_Waitall. ti gives it as SimGrid's TI actions (each
// receive at its MPI_Irecv), mpe as an untimed tsim trace logged as MPE
// logs it (the MPI_Irecv a state alone, its receive event inside the
// wait that completes it).
func irecvProgram(size int) (ti func(r int) []string, mpe string) {
	const P = 4
	ti = func(r int) []string {
		var a []string
		left, right := (r+P-1)%P, (r+1)%P
		for it := range 3 {
			if r == 0 {
				a = append(a, fmt.Sprintf("compute %d", 2000000*(it+1)))
			}
			a = append(a, fmt.Sprintf("irecv %d 1 %d 6", r^1, size), fmt.Sprintf("send %d 1 %d 6", r^1, size), fmt.Sprintf("wait %d %d 1", r^1, r),
				fmt.Sprintf("irecv %d 7 %d 6", left, size/5), fmt.Sprintf("irecv %d 7 %d 6", right, size/5),
				fmt.Sprintf("isend %d 7 %d 6", left, size/5), fmt.Sprintf("isend %d 7 %d 6", right, size/5), "waitall")
		}
		return a
	}
	var b strings.Builder
	b.WriteString("tsim 1\nranks 4\nuntimed\nunit s\n")
	for r := range P {
		left, right := (r+P-1)%P, (r+1)%P
		req := 0
		rec := func(format string, args ...any) { fmt.Fprintf(&b, "- %d "+format+"\n", append([]any{r}, args...)...) }
		call := func(name string, inner ...string) {
			rec("enter %s", name)
			for _, x := range inner {
				rec("%s", x)
			}
			rec("leave %s", name)
		}
		for it := range 3 {
			if r == 0 {
				rec("compute flops=%d", 2000000*(it+1))
			}
			req++
			x := req
			call("MPI_Irecv")
			call("MPI_Send", fmt.Sprintf("send to=%d tag=1 size=%d", r^1, size))
			call("MPI_Wait", fmt.Sprintf("recv from=%d tag=1 size=%d nb req=%d", r^1, size, x), fmt.Sprintf("wait req=%d", x))
			call("MPI_Irecv")
			call("MPI_Irecv")
			req += 4
			call("MPI_Isend", fmt.Sprintf("send to=%d tag=7 size=%d nb req=%d", left, size/5, req-1))
			call("MPI_Isend", fmt.Sprintf("send to=%d tag=7 size=%d nb req=%d", right, size/5, req))
			call("MPI_Waitall", fmt.Sprintf("recv from=%d tag=7 size=%d nb req=%d", left, size/5, req-3),
				fmt.Sprintf("recv from=%d tag=7 size=%d nb req=%d", right, size/5, req-2), "wait all")
		}
	}
	return ti, b.String()
}

// TestIrecvPostedAtItsCall: a receive MPE logs at its wait is posted at
// its MPI_Irecv call, as the program posted it. Logged that way, the
// exchange above deadlocked the replay once its messages went by
// rendezvous (each rank's MPI_Send waited for a receive its partner
// posted only after its own send); now the trace replays as the same
// program given as SimGrid's TI actions does, and as smpirun -replay
// replays those, with messages below and above the 64 KiB threshold.
func TestIrecvPostedAtItsCall(t *testing.T) {
	for _, size := range []int{20000, 100000, 1000000} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			ti, mpe := irecvProgram(size)
			index, err := simgrid.WriteRanks(t.TempDir(), "irecv", 4, ti)
			if err != nil {
				t.Fatal(err)
			}
			fromTI, err := simgridti.ReadFile(index)
			if err != nil {
				t.Fatal(err)
			}
			fromMPE, err := tsim.Read(strings.NewReader(mpe))
			if err != nil {
				t.Fatal(err)
			}
			for _, model := range []string{"flow", "packet", "puppet"} {
				cfg := flowSGConfig(t, "0.05")
				if err := cfg.Set("model", model); err != nil {
					t.Fatal(err)
				}
				_, want := simulate(t, fromTI, cfg, Options{})
				_, got := simulate(t, fromMPE, cfg, Options{})
				if !got.Complete || got.Makespan != want.Makespan {
					t.Errorf("%s: logged as MPE: complete %v, %.9f s (deadlock %+v); as TI actions: %.9f s", model, got.Complete, got.Makespan, got.Deadlock, want.Makespan)
				}
				// Streamed, the rank's events are scanned ahead in its
				// window: the same.
				path := filepath.Join(t.TempDir(), "mpe.tsim")
				if err := os.WriteFile(path, []byte(mpe), 0o644); err != nil {
					t.Fatal(err)
				}
				src, err := tsim.OpenSource(path)
				if err != nil {
					t.Fatal(err)
				}
				s, err := NewSource(src, cfg, Options{})
				if err == nil {
					s.window = 3 // refill at nearly every event
				}
				if res := runToEnd(t, s, err); res.Makespan != got.Makespan {
					t.Errorf("%s: streamed %.9f s, in memory %.9f s", model, res.Makespan, got.Makespan)
				}
				src.Close()
			}
			if _, err := simgrid.Path(); err != nil || testing.Short() {
				return
			}
			sg, err := simgrid.Run(context.Background(), simgrid.Replay{Index: index, Ranks: 4,
				Cluster: simgrid.Cluster{Hosts: 4, Speed: 1e9, Bandwidth: 125e6, Latency: 5e-6}, Config: []string{"network/model:CM02"}, Precise: true})
			if err != nil {
				t.Fatal(err)
			}
			_, got := simulate(t, fromMPE, flowSGConfig(t, "0.05"), Options{})
			if d := (got.Makespan - sg.SimulatedTime) / sg.SimulatedTime; math.Abs(d) > 1e-5 {
				t.Errorf("logged as MPE, flow model %.9f s; smpirun -replay %.9f s (%+.4f %%)", got.Makespan, sg.SimulatedTime, 100*d)
			}
		})
	}
}
