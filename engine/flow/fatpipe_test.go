package flow

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// TestFatPipeSharesByPenalty: a FATPIPE backbone (or FATPIPE links)
// shares as SimGrid's LMM does: it saturates at its bandwidth times the
// smallest penalty of its flows, so that a flow of a route twice as long
// gets half the backbone while the shorter one has it all; a flow alone,
// or flows of one penalty, each get the whole bandwidth. A SHARED
// backbone splits it by penalty (2:1). smpirun shows the same on a
// cluster (TestFatPipeBackboneAgainstSimGrid in engine/preset); a bound
// per flow, as the model had before, ends both at 20.01 and 20.02 ms.
func TestFatPipeSharesByPenalty(t *testing.T) {
	us := des.Microsecond
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * us)}
	bb := topology.LinkProps{Bandwidth: 50e6}
	base := topology.NewCrossbar(4, lp, &bb)
	// Node 3's link is 15 µs: the route 2 → 3 is 20 µs, 0 → 1 is 10 µs.
	slow, err := topology.WithOverrides(base, map[topology.LinkID]topology.LinkProps{
		3: {Bandwidth: 125e6, Latency: int64(15 * us)}, 7: {Bandwidth: 125e6, Latency: int64(15 * us)}})
	if err != nil {
		t.Fatal(err)
	}
	const mb = 1_000_000
	ms := func(v float64) des.Time { return des.Time(v * float64(des.Millisecond)) }
	for _, tc := range []struct {
		name   string
		topo   topology.Topology
		fat    bool
		sends  []send
		want   []des.Time
		solver string
		// shared: SimGrid's sharing of the fatpipe is on at the end
		// (flows of two penalties met on it); otherwise the bound per
		// flow, the same there, keeps the solve incremental.
		shared bool
	}{
		{"fatpipe, penalties 1:2", slow, true, []send{{0, 0, 1, mb}, {0, 2, 3, mb}},
			// 0 → 1 starts at 10 µs at 50 MB/s (500 B alone until
			// 20 µs); 2 → 3 at 25 MB/s from 20 µs until 20.01 ms
			// (499,750 B), then at 50 MB/s for 10.005 ms.
			[]des.Time{ms(20) + 10*us, ms(30.015)}, "", true},
		{"fatpipe, reference solver", slow, true, []send{{0, 0, 1, mb}, {0, 2, 3, mb}},
			[]des.Time{ms(20) + 10*us, ms(30.015)}, "reference", true},
		{"fatpipe, one penalty", base, true, []send{{0, 0, 1, mb}, {0, 2, 3, mb}},
			[]des.Time{ms(20) + 10*us, ms(20) + 10*us}, "", false},
		{"fatpipe, alone", slow, true, []send{{0, 2, 3, mb}},
			[]des.Time{ms(20) + 20*us}, "", false},
		{"shared, penalties 1:2", slow, false, []send{{0, 0, 1, mb}, {0, 2, 3, mb}},
			// 2:1 of 50 MB/s from 20 µs: 0 → 1 ends at 30.005 ms,
			// 2 → 3 has 499,750 B then and 10.005 ms to go at 50 MB/s.
			[]des.Time{ms(30.005), ms(40.01)}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Topology: tc.topo, MediumFatPipe: tc.fat}
			h, n := runSolver(t, cfg, tc.sends, tc.solver == "reference")
			if n.sys.fatShare != tc.shared {
				t.Errorf("fatpipe shared as SimGrid does: %v, want %v", n.sys.fatShare, tc.shared)
			}
			for id, want := range tc.want {
				if got := h.delivered[int32(id)]; got-want > 2 || want-got > 2 {
					t.Errorf("message %d delivered at %v, want %v", id, got, want)
				}
			}
		})
	}
}
