package flow

import (
	"math/rand/v2"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// TestReuseChangesNothing: when check adds flows, the solver extends the
// system it built and skips the links whose re-solved flows did not
// change (build, check); building every round anew and checking every
// link instead (system.fresh) delivers every message at the same
// picosecond, on the CG-like loop, the drifting stencil and random
// traffic with limiters, TCP bounds, SHARED and FATPIPE links.
func TestReuseChangesNothing(t *testing.T) {
	same := func(name string, got, want []des.Time) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d deliveries, %d building anew", name, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%s: delivery %d at %v, building anew %v", name, i, got[i], want[i])
			}
		}
	}
	for _, platform := range []string{"star", "torus"} {
		got, _ := runCG(t, platform, 5, "checked")
		want, _ := runCG(t, platform, 5, "fresh")
		same("cg "+platform, got, want)
	}
	for _, side := range []int{8, 16} {
		got, _ := runStencil(t, side, 8, "checked")
		want, _ := runStencil(t, side, 8, "fresh")
		same("stencil "+itoa(side*side), got, want)
	}
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	for trial := range 36 {
		spec := []string{"torus:4x4", "crossbar:8", "fattree:k=4,levels=2", "ring:6"}[trial%4]
		tp, err := topology.ParseWith(spec, topology.Options{Link: &lp})
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Topology: tp, Envelope: 16, CrossTraffic: []float64{0.05, 0, 0.5}[trial%3]}
		switch trial % 6 {
		case 1:
			cfg.Sharing = Shared
		case 2:
			cfg.Limiter = 200e6
		case 3:
			cfg.TCPGamma = 4194304
		case 5:
			cfg.Sharing = FatPipe
		}
		rng := rand.New(rand.NewPCG(uint64(trial), 11))
		N := tp.NumNodes()
		sends := make([]send, 300)
		for i := range sends {
			src := rng.IntN(N)
			sends[i] = send{at: des.Time(rng.IntN(20_000)) * des.Microsecond / 10, src: int32(src),
				dst: int32((src + 1 + rng.IntN(N-1)) % N), bytes: int64(1000 + rng.IntN(4<<20))}
		}
		h, _ := run(t, cfg, sends)
		fresh, _ := runSetup(t, cfg, sends, func(n *Network) { n.sys.fresh = true })
		got, want := make([]des.Time, len(sends)), make([]des.Time, len(sends))
		for id := range sends {
			got[id], want[id] = h.delivered[int32(id)], fresh.delivered[int32(id)]
		}
		same("random "+spec+" trial "+itoa(trial), got, want)
	}
}
