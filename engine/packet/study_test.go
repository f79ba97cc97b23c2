package packet_test

import (
	"context"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
)

// run replays tr under the default configuration with settings applied.
func run(t *testing.T, tr *tracefmt.Trace, kv ...string) replay.Results {
	t.Helper()
	cfg := replay.Default()
	for i := 0; i+1 < len(kv); i += 2 {
		if err := cfg.Set(kv[i], kv[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err := replay.New(tr, cfg, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := s.Results()
	if !res.Complete {
		t.Fatalf("%v: incomplete run: %+v", kv, res.Deadlock)
	}
	return res
}

func generate(t *testing.T, o gen.Options) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(o)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// The INSEE study (seed 000 §6.1): on an 8×8 torus with 64-byte packets
// and buffers of 4 packets, the network clearing time (inject mode) of
// three routers — 1 VC with bubble dimension order, 3 VCs with bubble
// dimension order, 3 VCs adaptive with a bubble escape VC — relative to
// the first. Nearest-neighbour traffic (BT-like) gains nothing from VCs
// or adaptivity; intense non-local traffic (alltoall, IS-like) gains from
// VCs; CG gains little from VCs but much from adaptivity (its load is
// uneven). Links carry 32 bits per 1 ns cycle, routers and links take a
// cycle each.
func TestINSEEStudy(t *testing.T) {
	machine := []string{"mode", "inject", "model", "packet", "topology", "torus:8x8", "packet-size", "48B", "header", "16B",
		"buffer", "4", "bandwidth", "32Gb/s", "link-latency", "1ns", "router-delay", "1ns", "coll-alg", "alltoall=linear"}
	routers := [][]string{
		{"vcs", "1", "routing", "dor:bubble"},
		{"vcs", "3", "routing", "dor:bubble"},
		{"vcs", "3", "routing", "adaptive"},
	}
	patterns := []gen.Options{
		{Pattern: "stencil2d", Ranks: 64, Iters: 1, Compute: -1},
		{Pattern: "alltoall", Ranks: 64, Iters: 1, Compute: -1},
		{Pattern: "cg", Ranks: 64, Iters: 2, Compute: -1},
	}
	rel := map[string][3]float64{}
	t.Logf("%-10s %14s %14s %14s   (clearing time, relative to 1 VC)", "pattern", "1VC bubble", "3VC bubble", "3VC adaptive")
	for _, p := range patterns {
		tr := generate(t, p)
		var times [3]float64
		for i, r := range routers {
			times[i] = run(t, tr, append(append([]string{}, machine...), r...)...).Makespan
		}
		rel[p.Pattern] = [3]float64{1, times[1] / times[0], times[2] / times[0]}
		t.Logf("%-10s %11.2f µs %8.2f µs %.2f %8.2f µs %.2f", p.Pattern, times[0]*1e6, times[1]*1e6, times[1]/times[0],
			times[2]*1e6, times[2]/times[0])
	}
	nn, a2a, cg := rel["stencil2d"], rel["alltoall"], rel["cg"]
	// Nearest neighbour: no advantage from VCs or adaptivity (within 5 %).
	if nn[1] < 0.95 || nn[1] > 1.05 || nn[2] < 0.95 || nn[2] > 1.05 {
		t.Errorf("stencil2d: 3 VC %.3f, adaptive %.3f; want both within 5 %% of 1 VC", nn[1], nn[2])
	}
	// Alltoall: several VCs help clearly; adaptivity does not hurt.
	if a2a[1] > 0.85 || a2a[2] > a2a[1] {
		t.Errorf("alltoall: 3 VC %.3f, adaptive %.3f; want 3 VC below 0.85 and adaptive no worse", a2a[1], a2a[2])
	}
	// CG: VCs alone help less than they help alltoall; adaptivity helps.
	if cg[1] <= a2a[1] || cg[2] > 0.85*cg[1] {
		t.Errorf("cg: 3 VC %.3f (alltoall %.3f), adaptive %.3f; want VCs to help less than for alltoall and adaptivity to gain 15 %%",
			cg[1], a2a[1], cg[2])
	}
}

// The link-speed what-if of seed 000 Table 1: a CG trace predicted on
// 8×8 tori (adaptive, 3 VCs) with 100 Mb/s, 1 Gb/s and 10 Gb/s links.
// Faster links shorten the run; the first tenfold gains much (the run is
// communication-bound), the second less (it becomes computation-bound).
func TestLinkSpeedWhatIf(t *testing.T) {
	tr := generate(t, gen.Options{Pattern: "cg", Ranks: 64, Iters: 5, Compute: -1})
	var times []float64
	for _, bw := range []string{"100Mb/s", "1Gb/s", "10Gb/s"} {
		res := run(t, tr, "model", "packet", "topology", "torus:8x8", "packet-size", "48B", "header", "16B",
			"vcs", "3", "routing", "adaptive", "bandwidth", bw)
		times = append(times, res.Makespan)
	}
	s1, s2 := times[0]/times[1], times[1]/times[2]
	t.Logf("cg.64 on 8×8 tori: 100 Mb/s %.4g s, 1 Gb/s %.4g s, 10 Gb/s %.4g s; speedups %.2f and %.2f (INSEE: 3.49, 0.55, 0.25 s; 6.35 and 2.20)",
		times[0], times[1], times[2], s1, s2)
	if !(s1 > 4 && s2 > 1.3 && s2 < s1) {
		t.Errorf("speedups %.2f (100 Mb/s → 1 Gb/s) and %.2f (1 → 10 Gb/s); want the first above 4, the second above 1.3 and smaller", s1, s2)
	}
}
