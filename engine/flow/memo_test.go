package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/netmodel"
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
	xbar := star(t, 8)
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
	xbar := star(t, 8)
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

// repeatedBursts is random traffic whose parts recur: every 4 ms (the
// network drains in between) the same random burst of 6 messages of 1 to
// 64 KB, plus 2 messages drawn afresh each time (sources, destinations,
// sizes, instants). The recurring part puts a part of the network through
// the same states again and again while the rest of it differs: the
// systems the memo finds are those of components whose surroundings
// changed.
func repeatedBursts(rng *rand.Rand, nodes, iters int) []send {
	msg := func(t0 des.Time) send {
		src := rng.IntN(nodes)
		return send{at: t0 + des.Time(rng.IntN(200))*des.Microsecond, src: int32(src),
			dst: int32((src + 1 + rng.IntN(nodes-1)) % nodes), bytes: int64(1000 + rng.IntN(64<<10))}
	}
	burst := make([]send, 6)
	for i := range burst {
		burst[i] = msg(0)
	}
	var sends []send
	for it := range iters {
		t0 := des.Time(it) * 4 * des.Millisecond
		for _, b := range burst {
			b.at += t0
			sends = append(sends, b)
		}
		sends = append(sends, msg(t0), msg(t0))
	}
	return sends
}

// TestMemoRecallsWhatBuildAndFillGive: every system the memo recalls is,
// to the bit, the system building and filling that round gives — the
// rates, the links the flows are fixed at, the links' kept loads, their
// re-solved flows and coefficients — on random recurring traffic over
// tori, crossbars, fat trees and rings with every sharing setting, on
// the iterative pattern, and on the CG-like loop; and the deliveries are
// those of the runs without the memo. The whole-solve memo is off, so
// that every solve reaches the memo of the systems.
func TestMemoRecallsWhatBuildAndFillGive(t *testing.T) {
	xbar := star(t, 8)
	type tc struct {
		name  string
		cfg   Config
		sends []send
	}
	cases := []tc{{"iterations", Config{Topology: xbar, CrossTraffic: 0.05, Envelope: 16}, iterations(20)}}
	for trial := range 24 {
		spec, cfg, _ := randomTraffic(t, trial, 7, 1)
		rng := rand.New(rand.NewPCG(uint64(trial), 99))
		cases = append(cases, tc{"bursts " + spec + " trial " + itoa(trial), cfg,
			repeatedBursts(rng, cfg.Topology.NumNodes(), 25)})
	}
	verified := 0
	for _, c := range cases {
		got, n := runSetup(t, c.cfg, c.sends, func(n *Network) { n.sys.memo.verify, n.whole.off = true, true })
		want, _ := runSetup(t, c.cfg, c.sends, func(n *Network) { n.sys.memo.off, n.whole.off = true, true })
		for id := range c.sends {
			if g, w := got.delivered[int32(id)], want.delivered[int32(id)]; g != w {
				t.Fatalf("%s: message %d delivered at %v, without the memo %v", c.name, id, g, w)
			}
		}
		m := &n.sys.memo
		if m.mismatched != 0 {
			t.Errorf("%s: %d of the %d systems recalled differ from building and filling them", c.name, m.mismatched, m.verified)
		}
		if m.verified != m.found {
			t.Errorf("%s: %d systems recalled, %d verified", c.name, m.found, m.verified)
		}
		verified += m.verified
	}
	for _, platform := range []string{"star", "torus"} {
		_, n := runCGWith(t, platform, 4, "nowhole,verify", 0.05)
		m := &n.sys.memo
		if m.mismatched != 0 || m.verified == 0 {
			t.Errorf("cg %s: %d of the %d systems recalled differ from building and filling them", platform, m.mismatched, m.verified)
		}
		verified += m.verified
	}
	// The cases must exercise recall: most of their systems recur.
	if verified < 1000 {
		t.Errorf("only %d systems recalled in all: the cases do not exercise the memo", verified)
	}
}

// TestMemoKeyCoversWhatBuildReads: on random states of a network's
// flows — random sets of flows to re-solve, with random rates — a system
// the memo has stored is recalled (and found equal to building and
// filling it, bit for bit), and a state that differs from it in one
// number build reads — one flow's rate before the solve, weight, bound
// or penalty, one link's load or capacity — is either not recalled or
// recalled equal to building and filling it: no field the solve depends
// on is left out of the key. Over tori, crossbars, fat trees and rings
// with every sharing setting (randomTraffic's).
func TestMemoKeyCoversWhatBuildReads(t *testing.T) {
	recalled, variants := 0, 0
	for trial := range 12 {
		spec, cfg, sends := randomTraffic(t, trial, 5, 40)
		for i := range sends {
			sends[i].at, sends[i].bytes = 0, 64<<20 // all in flight together
		}
		n, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		n.whole.off = true
		h := &host{k: des.NewKernel(1), n: n, delivered: map[int32]des.Time{}, injected: map[int32]des.Time{}}
		n.Attach(h)
		for i, s := range sends {
			n.Send(netmodel.Message{ID: int32(i), Src: s.src, Dst: s.dst, Bytes: s.bytes})
		}
		// Run until every flow is on its links and solved.
		for h.k.Pending() > 0 && h.k.NextTime() < des.Millisecond {
			e, ok := h.k.Next()
			if !ok {
				break
			}
			n.Handle(e)
		}
		var live []int32
		for fi := range n.flows {
			if f := &n.flows[fi]; n.hpos[fi] >= 0 && f.nl > 0 {
				live = append(live, int32(fi))
			}
		}
		if len(live) < 4 {
			t.Fatalf("%s: %d flows on their links", spec, len(live))
		}
		if n.sys.fatShare {
			// FATPIPE links with flows of different penalties: the
			// memo rests (noteFatPipes).
			if !n.sys.memo.off {
				t.Fatalf("%s: fatpipes shared as SimGrid does, the memo still on", spec)
			}
			continue
		}
		now := h.k.Now()
		m := &n.sys.memo
		m.verify = true
		rng := rand.New(rand.NewPCG(uint64(trial), 3))
		for range 30 {
			// A random set of flows to re-solve, at random rates.
			set := make([]int32, 1+rng.IntN(min(6, len(live))))
			for i, k := range rng.Perm(len(live))[:len(set)] {
				set[i] = live[k]
			}
			for _, fi := range set {
				n.flows[fi].value = float64(rng.IntN(4)) * 1e7
			}
			// Met three times: stored the second, recalled the third.
			for range 3 {
				memoRound(n, set, now)
			}
			if m.verified == recalled {
				t.Fatalf("%s: a system met three times was not recalled (lookups %d found %d verified %d rest %d)", spec, m.lookups, m.found, m.verified, m.rests)
			}
			recalled = m.verified
			// One number build reads changed, then put back.
			for _, v := range keyVariants(n, set) {
				old := *v
				*v = old*1.5 + 1
				memoRound(n, set, now)
				*v = old
				variants++
			}
		}
		if m.mismatched != 0 {
			t.Errorf("%s: %d of the %d systems recalled differ from building and filling them", spec, m.mismatched, m.verified)
		}
		recalled = 0
	}
	if variants == 0 {
		t.Fatal("no variant tried")
	}
}

// keyVariants lists the numbers build reads of the flows of set and of
// their links: each flow's rate (its rate before the solve, once
// settled), weight, bound and penalty; each link's load and capacity.
func keyVariants(n *Network, set []int32) []*float64 {
	var v []*float64
	for _, fi := range set {
		f := &n.flows[fi]
		v = append(v, &f.value, &f.w, &f.bound, &f.penalty)
		for _, l := range n.flinks(f) {
			v = append(v, &n.links[l].load, &n.links[l].cap)
		}
	}
	return v
}

// memoRound runs the first round of a solve of the flows of set as solve
// does (seeded with them alone), through the memo: recalled, or built,
// filled and remembered. The memo never rests.
func memoRound(n *Network, set []int32, now des.Time) {
	n.epoch++
	s := &n.sys
	s.slot, s.id, s.changed = s.slot[:0], s.id[:0], s.changed[:0]
	s.builtF, s.builtL, s.checkedF, s.checkedL = 0, 0, 0, 0
	for _, fi := range set {
		n.include(fi, now)
	}
	s.memo.begin()
	clear(s.memo.rests[:]) // looks up every time, however few hits
	if !n.recall() {
		n.build()
		s.fill()
		n.remember()
	}
}
