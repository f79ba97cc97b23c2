package flow

import (
	"runtime"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
)

// TestSendAllocatesNoBlock: where no path is cached (a crossbar of more
// than maxCachedNodes nodes, as at 65,536 ranks), a flow starting in a
// new slot takes its block (its route and the way back, with the room
// for their places) from the network's pool, however many flows start
// at once: the slots' arrays and the pool grow by doubling, so their
// growth adds a few allocations, not one per flow. Before the pool, each
// new slot allocated its block (routing into the slot's block step by
// step had allocated twice per flow, and activate a third time), objects
// the collector then marked. The flows then arrive as they should.
func TestSendAllocatesNoBlock(t *testing.T) {
	const nodes, flows = 2048, 4096
	n, err := New(Config{Topology: star(t, nodes), CrossTraffic: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if n.cachedPath(0, 1) != nil {
		t.Fatal("a path cached: the test needs a network without")
	}
	h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
	n.Attach(h)
	h.k.Grow(2 * flows) // the kernel's own growth is not the network's
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range int32(flows) {
		n.Send(netmodel.Message{ID: i, Src: i % nodes, Dst: (i + 1 + i/nodes) % nodes, Bytes: 1000})
	}
	runtime.ReadMemStats(&after)
	// Room for the doublings and for what the race detector's runtime
	// allocates, far below one a flow.
	if got, most := after.Mallocs-before.Mallocs, uint64(flows/16); got > most {
		t.Fatalf("%d flows sent with %d allocations, want at most %d (none a flow)", flows, got, most)
	}
	for f := range n.flows {
		if k, c := n.flows[f].nl, n.flows[f].bcap; k != 4 || c != 8 {
			t.Fatalf("flow %d: %d links in a block of %d, want 4 in 8", f, k, c)
		}
	}
	for {
		e, ok := h.k.Next()
		if !ok {
			break
		}
		n.Handle(e)
	}
	if len(h.delivered) != flows || n.InFlight() != 0 {
		t.Fatalf("%d of %d flows delivered, %d in flight", len(h.delivered), flows, n.InFlight())
	}
}
