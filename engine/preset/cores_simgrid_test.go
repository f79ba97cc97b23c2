package preset

import (
	"fmt"
	"math"
	"testing"
)

// TestMulticoreHostsAgainstSimGrid replays ranks sharing multicore hosts
// (a cluster's core attribute; the hostfile's HOST:N slots) with smpirun
// -replay and the presets (sgModes): up to C ranks of a host compute at
// full speed, more share its C cores equally, as SimGrid's CPU model
// shares a host (each execution at most one core). Four computations of
// 1 to 4 Gflop on one 2-core 1 Gflop/s host end at 5.5 s (each at half
// speed until the first ends at 2 s, then 2/3 until 3.5 s, then one core
// each), where one core gives 10 s; random programs (computation,
// messages, collectives) on hosts of 2 and 4 cores, over- and
// under-subscribed. Within 0.0001 %.
func TestMulticoreHostsAgainstSimGrid(t *testing.T) {
	needSmpirun(t)
	staggered := func(r int) []string {
		return []string{fmt.Sprintf("compute %d", (r+1)*1_000_000_000)}
	}
	random := randomActions
	for _, c := range []struct {
		name           string
		attrs          string
		hosts, perHost int
		ranks          int
		actions        func(int) []string
		want           float64 // s, 0: not pinned
	}{
		{"4 computations, 2 cores", `core="2"`, 1, 4, 4, staggered, 5.5},
		{"4 computations, 1 core", ``, 1, 4, 4, staggered, 10},
		{"4 computations, 4 cores", `core="4"`, 1, 4, 4, staggered, 4},
		{"random, 3 ranks a 2-core host", `core="2"`, 3, 3, 9, random(7, 9), 0},
		{"random, 4 ranks a 4-core host", `core="4"`, 2, 4, 8, random(11, 8), 0},
		{"random, 4 ranks a 2-core host, SHARED", `core="2" sharing_policy="SHARED"`, 2, 4, 8, random(12, 8), 0},
	} {
		var check func(*testing.T, float64)
		if c.want > 0 {
			want := c.want
			check = func(t *testing.T, ours float64) {
				if math.Abs(ours-want) > 1e-9 {
					t.Errorf("ours %.9f s, want %g s", ours, want)
				}
			}
		}
		againstSimGrid(t, c.name, c.ranks, c.hosts, c.perHost, c.attrs, c.actions, check)
	}
}
