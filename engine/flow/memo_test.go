package flow

import (
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// iterations is an iterative program's traffic on a crossbar of 8 nodes:
// every 3 ms (the network is idle in between), nodes 1–7 send 24,000 B to node 0 a microsecond
// apart, then each sends 8 B to its right neighbour: the same systems to
// solve every iteration.
func iterations(iters int) []send {
	var sends []send
	for it := range iters {
		t0 := des.Time(it) * 3 * des.Millisecond
		for r := int32(1); r < 8; r++ {
			sends = append(sends, send{at: t0 + des.Time(r)*des.Microsecond, src: r, dst: 0, bytes: 24000})
			sends = append(sends, send{at: t0 + 500*des.Microsecond, src: r, dst: (r + 1) % 8, bytes: 8})
		}
	}
	return sends
}

// TestMemoChangesNothing: remembering the systems solved before (memo)
// delivers every message at the same picosecond as solving every system,
// on an iterative pattern (where the memo finds most systems), on random
// traffic, with a memo too small to keep them all, and on the CG-like
// loop and the drifting stencil.
func TestMemoChangesNothing(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	xbar, err := topology.ParseWith("crossbar:8", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name    string
		cfg     Config
		sends   []send
		limit   int
		minHits float64 // least share of lookups found
	}
	cases := []tc{
		{"iterations", Config{Topology: xbar, CrossTraffic: 0.05, Envelope: 16}, iterations(30), 0, 0.8},
		{"iterations, small memo", Config{Topology: xbar, CrossTraffic: 0.05, Envelope: 16}, iterations(30), 600, 0},
	}
	for trial := range 12 {
		spec, cfg, sends := randomTraffic(t, trial, 11, 300)
		cases = append(cases, tc{"random " + spec + " trial " + itoa(trial), cfg, sends, 0, 0})
	}
	for _, c := range cases {
		// The whole-solve memo off: it would leave the memo of the
		// systems only the solves it misses.
		got, n := runSetup(t, c.cfg, c.sends, func(n *Network) { n.sys.memo.limit, n.whole.off = c.limit, true })
		want, _ := runSetup(t, c.cfg, c.sends, func(n *Network) { n.sys.memo.off, n.whole.off = true, true })
		for id := range c.sends {
			if g, w := got.delivered[int32(id)], want.delivered[int32(id)]; g != w {
				t.Fatalf("%s: message %d delivered at %v, without the memo %v", c.name, id, g, w)
			}
		}
		m := &n.sys.memo
		if share := float64(m.found) / float64(max(m.lookups, 1)); share < c.minHits {
			t.Errorf("%s: the memo found %d of %d systems (%.2f), want at least %.2f", c.name, m.found, m.lookups, share, c.minHits)
		}
		if c.limit > 0 && m.words > c.limit {
			t.Errorf("%s: the memo holds %d words, limit %d", c.name, m.words, c.limit)
		}
	}
	for _, platform := range []string{"star", "torus"} {
		got, _ := runCG(t, platform, 5, "nowhole")
		want, _ := runCG(t, platform, 5, "nomemo,nowhole")
		sameTimes(t, "cg "+platform, "without the memo", got, want)
	}
	got, _ := runStencil(t, 8, 8, "nowhole")
	want, _ := runStencil(t, 8, 8, "nomemo,nowhole")
	sameTimes(t, "stencil 64", "without the memo", got, want)
}

// sameTimes fails unless got and want (the deliveries of a run the way
// other names) are the same deliveries.
func sameTimes(t *testing.T, name, other string, got, want []des.Time) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d deliveries, %s %d", name, len(got), other, len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: delivery %d at %v, %s %v", name, i, got[i], other, want[i])
		}
	}
}

// TestMemoSkipsSystemsLargerThanItself: a system whose key alone is
// longer than the memo can hold is neither keyed nor looked up (store
// could never keep it, and trying made the memo forget everything): on
// bursts of all-to-all traffic on 8 nodes, 56 flows starting together
// (a key of about 550 words) against a memo of 200 words, no system is
// looked up, and every message arrives when it does without the memo.
func TestMemoSkipsSystemsLargerThanItself(t *testing.T) {
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	xbar, err := topology.ParseWith("crossbar:8", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	var sends []send
	for it := range 20 {
		for s := int32(0); s < 8; s++ {
			for d := int32(0); d < 8; d++ {
				if s != d {
					sends = append(sends, send{at: des.Time(it) * des.Millisecond, src: s, dst: d, bytes: 4000})
				}
			}
		}
	}
	cfg := Config{Topology: xbar, CrossTraffic: 0.05, Envelope: 16}
	got, n := runSetup(t, cfg, sends, func(n *Network) { n.sys.memo.limit, n.whole.off = 200, true })
	want, _ := runSetup(t, cfg, sends, func(n *Network) { n.sys.memo.off, n.whole.off = true, true })
	for id := range sends {
		if g, w := got.delivered[int32(id)], want.delivered[int32(id)]; g != w {
			t.Fatalf("message %d delivered at %v, without the memo %v", id, g, w)
		}
	}
	if m := &n.sys.memo; m.lookups != 0 || len(m.key) > 200 {
		t.Errorf("the memo looked up %d systems (last key %d words) larger than its 200 words", m.lookups, len(m.key))
	}
}
