package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestCompletionQueueOrder: random pushes, changes of completion time and
// pops (many flows sharing a time, as symmetric traffic makes them) pop
// the flows by completion time then send order, the earliest of those
// queued each time, and every queued flow's recorded place (hpos) is
// where it sits.
func TestCompletionQueueOrder(t *testing.T) {
	const slots = 300
	n := &Network{flows: make([]flowRec, slots), hpos: make([]int32, slots)}
	for i := range n.hpos {
		n.hpos[i] = -1
		n.flows[i].seq = uint64(rand.New(rand.NewPCG(uint64(i), 1)).IntN(1<<20)<<9 | i)
	}
	rng := rand.New(rand.NewPCG(2, 3))
	queued := map[int32]bool{}
	popped := 0
	for step := range 40000 {
		fi := rng.Int32N(slots)
		switch op := rng.IntN(10); {
		case op < 4 && !queued[fi]:
			n.flows[fi].finish = des.Time(rng.IntN(50))
			n.heapPush(fi)
			queued[fi] = true
		case op < 7 && queued[fi]:
			n.flows[fi].finish = des.Time(rng.IntN(50))
			n.heapFix(int(n.hpos[fi]))
		case op >= 7 && len(n.heap) > 0:
			// The earliest queued flow, found by a scan.
			want := int32(-1)
			for q := range queued {
				if want < 0 || (hkey{n.flows[q].finish, n.flows[q].seq}).less(hkey{n.flows[want].finish, n.flows[want].seq}) {
					want = q
				}
			}
			if got := n.heapPop(); got != want {
				t.Fatalf("step %d: popped flow %d (%v), the earliest is %d (%v)", step, got, n.flows[got].finish, want, n.flows[want].finish)
			}
			if n.hpos[want] != -1 {
				t.Fatalf("step %d: popped flow %d still recorded at %d", step, want, n.hpos[want])
			}
			delete(queued, want)
			popped++
		}
		if len(n.heap) != len(queued) {
			t.Fatalf("step %d: %d queued, the heap holds %d", step, len(queued), len(n.heap))
		}
		for i, q := range n.heap {
			if n.hpos[q] != int32(i) || n.hkey[i].t != n.flows[q].finish {
				t.Fatalf("step %d: flow %d at %d, recorded at %d (key %v, finish %v)", step, q, i, n.hpos[q], n.hkey[i].t, n.flows[q].finish)
			}
		}
	}
	if popped < 5000 {
		t.Fatalf("only %d pops", popped)
	}
}
