package flow

import (
	"cmp"
	"math/rand/v2"
	"slices"
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

// TestCompletionQueueDrain: takeDue, which complete uses, hands out the
// flows due by now in the order of their keys (completion time, then
// send order), ties included, and leaves the others queued at their
// recorded places; against a sorted reference, on heaps large and
// small, with due flows at one instant (placed by send order, spans of
// send orders wide and narrow) and at several (sorted), and with few
// due flows (popped one by one).
func TestCompletionQueueDrain(t *testing.T) {
	cases := []struct {
		name        string
		slots       int
		times       int    // completion times drawn from 0 … times−1
		seqSpread   uint64 // send orders drawn from 0 … slots×seqSpread−1
		now         func(rng *rand.Rand) des.Time
		wantDrained bool // some call took them out together (drainAll)
	}{
		{"small heap", 100, 5, 1, func(rng *rand.Rand) des.Time { return des.Time(rng.IntN(5)) }, false},
		{"one instant, dense seqs", 3000, 1, 1, func(*rand.Rand) des.Time { return 0 }, true},
		{"one instant, sparse seqs", 3000, 1, 100, func(*rand.Rand) des.Time { return 0 }, true},
		{"several instants", 3000, 6, 2, func(rng *rand.Rand) des.Time { return des.Time(rng.IntN(6)) }, true},
		{"few due", 3000, 1000, 1, func(rng *rand.Rand) des.Time { return des.Time(rng.IntN(3)) }, false},
		{"mixed", 3000, 40, 3, func(rng *rand.Rand) des.Time { return des.Time(rng.IntN(40)) }, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.slots), tc.seqSpread))
			n := &Network{flows: make([]flowRec, tc.slots), hpos: make([]int32, tc.slots)}
			perm := rng.Perm(tc.slots * int(tc.seqSpread))
			for i := range n.hpos {
				n.hpos[i] = -1
				n.flows[i].seq = uint64(perm[i])
			}
			key := func(fi int32) hkey { return hkey{n.flows[fi].finish, n.flows[fi].seq} }
			queued := map[int32]bool{}
			drained := false
			last := des.Time(0) // the instant drained last
			for round := range 30 {
				// Queue every free slot, due after the last drain.
				base := last + 1
				for fi := range int32(tc.slots) {
					if !queued[fi] {
						n.flows[fi].finish = base + des.Time(rng.IntN(tc.times))
						n.heapPush(fi)
						queued[fi] = true
					}
				}
				now := base + tc.now(rng)
				last = now
				var want []int32
				for fi := range queued {
					if n.flows[fi].finish <= now {
						want = append(want, fi)
					}
				}
				slices.SortFunc(want, func(a, b int32) int {
					if key(a).less(key(b)) {
						return -1
					}
					return 1
				})
				queuedBefore := len(n.heap)
				n.drain.at = n.drain.at[:0]
				got := n.takeDue(now, nil)
				// drainDue walked the due flows and took them out.
				if len(n.drain.at) == len(want) && 8*len(want) >= queuedBefore && len(want) > 0 {
					drained = true
				}
				if !slices.Equal(got, want) {
					t.Fatalf("round %d, now %d: drained %d flows %v…, want %d %v…", round, now, len(got), got[:min(len(got), 8)], len(want), want[:min(len(want), 8)])
				}
				for _, fi := range got {
					delete(queued, fi)
					if n.hpos[fi] != -1 {
						t.Fatalf("round %d: drained flow %d still recorded at %d", round, fi, n.hpos[fi])
					}
				}
				if len(n.heap) != len(queued) {
					t.Fatalf("round %d: %d queued, the heap holds %d", round, len(queued), len(n.heap))
				}
				for i, q := range n.heap {
					if n.hpos[q] != int32(i) || n.hkey[i] != key(q) {
						t.Fatalf("round %d: flow %d at %d, recorded at %d", round, q, i, n.hpos[q])
					}
					if i > 0 && n.hkey[i].less(n.hkey[(i-1)/heapArity]) {
						t.Fatalf("round %d: entry %d earlier than its parent", round, i)
					}
				}
				// The rest come out in order after a drain.
				if round == 29 {
					var rest []int32
					for len(n.heap) > 0 {
						rest = append(rest, n.heapPop())
					}
					if !slices.IsSortedFunc(rest, func(a, b int32) int {
						if key(a).less(key(b)) {
							return -1
						}
						return 1
					}) {
						t.Fatalf("pops after the drains out of order")
					}
				}
			}
			if drained != tc.wantDrained {
				t.Fatalf("drained together: %v, want %v", drained, tc.wantDrained)
			}
		})
	}
}

// TestCompletionOrderTies: the messages a flow network delivers at one
// instant are delivered in the order they were sent, whether complete
// pops them one by one or drains hundreds at once (a synchronous
// exchange on a 600-node star: every flow of a size finishes at the
// same picosecond). Reference: the deliveries sorted by instant, then
// by send order (message ids are given in send order).
func TestCompletionOrderTies(t *testing.T) {
	const nodes = 600
	cases := []struct {
		name     string
		sizes    []int64    // drawn per message
		starts   []des.Time // drawn per message
		wantTies int        // at least this many deliveries share an instant
	}{
		{"one size, one start: all at once", []int64{1 << 20}, []des.Time{0}, nodes},
		{"three sizes", []int64{1 << 18, 1 << 19, 1 << 20}, []des.Time{0}, 150},
		{"sizes and starts", []int64{1 << 18, 1 << 20}, []des.Time{0, des.Millisecond, 3 * des.Millisecond}, 50},
		{"few nodes per instant", []int64{1000, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20}, []des.Time{0, 10 * des.Microsecond, 20 * des.Microsecond}, 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(tc.sizes)), uint64(len(tc.starts))))
			// Sent in id order: each node to a shifted partner, so that
			// no link carries two flows in the same direction.
			shift := 1 + rng.IntN(nodes-1)
			sends := make([]send, nodes)
			for i := range sends {
				sends[i] = send{tc.starts[rng.IntN(len(tc.starts))], int32(i), int32((i + shift) % nodes), tc.sizes[rng.IntN(len(tc.sizes))]}
			}
			h, _ := run(t, Config{Topology: star(t, nodes)}, sends)
			if len(h.order) != nodes {
				t.Fatalf("%d of %d messages delivered", len(h.order), nodes)
			}
			// The sends at one instant happen in id order; across
			// instants too, so send order is id order.
			want := make([]int32, nodes)
			for i := range want {
				want[i] = int32(i)
			}
			at := h.delivered
			slices.SortFunc(want, func(a, b int32) int {
				if at[a] != at[b] {
					return cmp.Compare(at[a], at[b])
				}
				return cmp.Compare(a, b)
			})
			if !slices.Equal(h.order, want) {
				for i := range want {
					if h.order[i] != want[i] {
						t.Fatalf("delivery %d: message %d (at %d), want %d (at %d)", i, h.order[i], at[h.order[i]], want[i], at[want[i]])
					}
				}
			}
			ties, streak := 1, 1
			for i := 1; i < len(h.order); i++ {
				if at[h.order[i]] == at[h.order[i-1]] {
					streak++
					ties = max(ties, streak)
				} else {
					streak = 1
				}
			}
			if ties < tc.wantTies {
				t.Fatalf("at most %d deliveries at one instant, want %d or more", ties, tc.wantTies)
			}
		})
	}
}

// TestHkeyLess: the completion queue's order, time then send order, for
// negative times, ties, the largest send orders and des.Never.
func TestHkeyLess(t *testing.T) {
	const maxSeq = ^uint64(0)
	cases := []struct {
		a, b hkey
		want bool
	}{
		{hkey{0, 1}, hkey{0, 2}, true},
		{hkey{0, 2}, hkey{0, 1}, false},
		{hkey{0, 1}, hkey{0, 1}, false},
		{hkey{1, 0}, hkey{0, maxSeq}, false},
		{hkey{0, maxSeq}, hkey{1, 0}, true},
		{hkey{-1, maxSeq}, hkey{0, 0}, true},
		{hkey{0, 0}, hkey{-1, maxSeq}, false},
		{hkey{-5, 3}, hkey{-5, 4}, true},
		{hkey{des.Never, 0}, hkey{des.Never - 1, maxSeq}, false},
		{hkey{des.Never - 1, maxSeq}, hkey{des.Never, 0}, true},
		{hkey{-1 << 63, 0}, hkey{des.Never, 0}, true},
	}
	for _, tc := range cases {
		if got := tc.a.less(tc.b); got != tc.want {
			t.Errorf("%v.less(%v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
