package flow

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// TestCachedPathsStayIntact: flows on fixed routes use their cached
// path's constraints in place (no copy per flow); flows that do not
// (between two ranks of one node, over its loopback) reuse the same
// slots. After random traffic mixing both, every cached path still
// holds the constraints the routing gives its pair, and every message
// arrives when it does with every path worked out afresh.
func TestCachedPathsStayIntact(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(2 * des.Microsecond)}
	tp, err := topology.ParseWith("torus:4x4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	loop := topology.LinkProps{Bandwidth: 1e9, Latency: int64(des.Microsecond / 10)}
	cfg := Config{Topology: tp, Envelope: 16, CrossTraffic: 0.05, Loopback: &loop}
	rng := rand.New(rand.NewPCG(5, 9))
	var sends []send
	at := des.Time(0)
	for range 600 {
		at += des.Time(rng.IntN(3000)) * des.Nanosecond
		src := rng.Int32N(16)
		dst := src // every third message stays on its node
		if rng.IntN(3) > 0 {
			dst = rng.Int32N(16)
		}
		sends = append(sends, send{at: at, src: src, dst: dst, bytes: int64(rng.IntN(64 << 10))})
	}
	h, n := run(t, cfg, sends)
	if len(h.delivered) != len(sends) {
		t.Fatalf("%d of %d messages delivered", len(h.delivered), len(sends))
	}
	N := tp.NumNodes()
	paths := 0
	for pair, at := range n.routeAt {
		if at == 0 {
			continue
		}
		paths++
		p := n.paths[at-1]
		src, dst := pair/N, pair%N
		want, _ := n.route(src, dst, nil)
		want, _ = n.route(dst, src, want)
		if got := n.routeBuf[p.off : p.off+p.n]; !slices.Equal(got, want) {
			t.Fatalf("path %d→%d holds %v, its route is %v", src, dst, got, want)
		}
	}
	if paths < 50 {
		t.Fatalf("only %d paths cached: the test shows little", paths)
	}
	// Paths worked out afresh for every flow: the same deliveries.
	fresh, _ := runSetup(t, cfg, sends, func(n *Network) { n.fixedRoutes = false })
	for id := range sends {
		if got, want := h.delivered[int32(id)], fresh.delivered[int32(id)]; got != want {
			t.Fatalf("message %d (%d→%d) delivered at %v, with paths afresh at %v", id, sends[id].src, sends[id].dst, got, want)
		}
	}
}
