package flow

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
	"github.com/tracesim/tracesim/engine/topology"
)

// TestWholeMemoChangesNothing: replaying remembered solves (the
// whole-solve memo) delivers every message at the same picosecond as
// solving every time, on the CG-like loop (star and torus), the drifting
// stencil (crossbar and torus), with and without crosstraffic, with the
// exhaustive solver, with a memo too small to hold much, on an iterative
// pattern and on random traffic over tori, crossbars, fat trees and
// rings with SHARED and FATPIPE links, limiters, TCP bounds and factors.
// Where the traffic repeats, most solves are replayed. The memo's words
// are made once, at its limit.
func TestWholeMemoChangesNothing(t *testing.T) {
	type tc struct {
		solverCase
		minHits float64 // least share of the lookups replayed
	}
	var cases []tc
	for _, c := range solverCases(t, 6, 17) {
		minHits := 0.0
		if strings.HasPrefix(c.name, "cg ") {
			minHits = 0.3
		}
		cases = append(cases, tc{c, minHits})
	}
	cases = append(cases, tc{solverCase{"cg torus exhaustive", func(solver string) ([]des.Time, *Network) {
		return runCGWith(t, "torus", 4, "exhaustive,"+solver, 0.05)
	}}, 0.05})
	iterCfg := Config{Topology: star(t, 8), CrossTraffic: 0.05, Envelope: 16}
	cases = append(cases, tc{solverCase{"iterations", sendsRun(t, iterCfg, iterations(30))}, 0.8})
	for _, c := range cases {
		want, _ := c.run("nowhole")
		for _, solver := range []string{"", "tiny"} {
			got, n := c.run(solver)
			sameTimes(t, c.name+" "+solver, "without the whole-solve memo", got, want)
			w := &n.whole
			if share := float64(w.found) / float64(max(w.lookups, 1)); solver == "" && share < c.minHits {
				t.Errorf("%s: the memo replayed %d of %d solves (%.2f), want at least %.2f", c.name, w.found, w.lookups, share, c.minHits)
			}
			if solver == "tiny" && cap(w.words) > 300 {
				t.Errorf("%s: the tiny memo holds %d words, limit 300", c.name, cap(w.words))
			}
			// Made once at its limit, never grown: outgrown arrays were
			// garbage in the run's peak memory.
			if limit := map[string]int{"": wholeWords, "tiny": 300}[solver]; len(w.words) > 0 && cap(w.words) != limit {
				t.Errorf("%s %q: the memo's words have room for %d, want %d (made once at the limit)", c.name, solver, cap(w.words), limit)
			}
		}
	}
}

// solverCase is a run of the flow model that two solver settings must
// give the same delivery times: run returns them, by message, with the
// network, under the solver options (solverOptions) it is given.
type solverCase struct {
	name string
	run  func(solver string) ([]des.Time, *Network)
}

// solverCases are the runs the solver's equivalence tests compare: the
// CG-like loop of iters iterations on star and torus platforms, the
// drifting stencil of iters iterations on a crossbar and a torus, each
// with and without crosstraffic, and twelve random traffics drawn with
// seed (randomTraffic's tori, crossbars, fat trees and rings).
func solverCases(t *testing.T, iters int, seed uint64) []solverCase {
	var cases []solverCase
	for _, platform := range []string{"star", "torus"} {
		for _, ct := range []float64{0.05, 0} {
			cases = append(cases, solverCase{fmt.Sprintf("cg %s crosstraffic %v", platform, ct), func(solver string) ([]des.Time, *Network) {
				return runCGWith(t, platform, iters, solver, ct)
			}})
		}
	}
	for _, spec := range []string{"crossbar:64", "torus:8x8"} {
		for _, ct := range []float64{0.05, 0} {
			cases = append(cases, solverCase{fmt.Sprintf("stencil %s crosstraffic %v", spec, ct), func(solver string) ([]des.Time, *Network) {
				return runStencilOn(t, spec, 8, iters, solver, ct)
			}})
		}
	}
	for trial := range 12 {
		spec, cfg, sends := randomTraffic(t, trial, seed, 300)
		cases = append(cases, solverCase{fmt.Sprintf("random %s trial %d", spec, trial), sendsRun(t, cfg, sends)})
	}
	return cases
}

// sendsRun runs sends on cfg's network under a solver setting and
// returns their delivery times by message.
func sendsRun(t *testing.T, cfg Config, sends []send) func(solver string) ([]des.Time, *Network) {
	return func(solver string) ([]des.Time, *Network) {
		h, n := runSetup(t, cfg, sends, func(n *Network) { solverOptions(n, solver) })
		times := make([]des.Time, len(sends))
		for id := range sends {
			times[id] = h.delivered[int32(id)]
		}
		return times, n
	}
}

// TestWholeMemoRests: on traffic that never repeats, the memo stops
// looking solves up (and keeping the fingerprint) after a window of
// misses, and still delivers every message when solving every time
// does; on a longer CG-like loop it replays most solves.
func TestWholeMemoRests(t *testing.T) {
	// Random messages a few microseconds apart, of random sizes: a few
	// flows at a time, in states that do not come back.
	lp := topology.LinkProps{Bandwidth: 125e6, Latency: int64(5 * des.Microsecond)}
	tp, err := topology.ParseWith("torus:4x4", topology.Options{Link: &lp})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Topology: tp, CrossTraffic: 0.05, Envelope: 16}
	rng := rand.New(rand.NewPCG(7, 9))
	sends := make([]send, 2500)
	for i := range sends {
		src := rng.IntN(16)
		sends[i] = send{at: des.Time(i)*5*des.Microsecond + des.Time(rng.IntN(5000))*des.Nanosecond, src: int32(src),
			dst: int32((src + 1 + rng.IntN(15)) % 16), bytes: int64(1000 + rng.IntN(20000))}
	}
	h, n := runSetup(t, cfg, sends, func(*Network) {})
	ref, _ := runSetup(t, cfg, sends, func(n *Network) { n.whole.off = true })
	for id := range sends {
		if g, w := h.delivered[int32(id)], ref.delivered[int32(id)]; g != w {
			t.Fatalf("message %d delivered at %v, without the memo %v", id, g, w)
		}
	}
	w := &n.whole
	if w.rests.pause == 0 || w.lookups >= w.solves {
		t.Errorf("random traffic: %d lookups in %d solves, pause %d: want the memo to rest", w.lookups, w.solves, w.rests.pause)
	}
	_, cgn := runCGWith(t, "torus", 12, "", 0.05)
	if w := &cgn.whole; w.found*10 < w.solves*6 {
		t.Errorf("cg: %d of %d solves replayed, want at least 60 %%", w.found, w.solves)
	}
}

// TestWholeMemoAfterEmpty: when the last flow leaves, the fingerprint
// restarts from the empty network's, forgetting which flow left and the
// links it leaves pending. On a crossbar, a message from node 1 or from
// node 2 (alternately) to node 0 ends at the instant a message from 3 to
// 4 starts, in both orders of the two events; every delivery is the
// same picosecond as without the whole-solve memo, and the solves after
// the network emptied are replayed although the flows that left differ.
func TestWholeMemoAfterEmpty(t *testing.T) {
	cfg := Config{Topology: star(t, 8), CrossTraffic: 0.05, Envelope: 16}
	const iters = 24
	// The departing messages alone give the instants they end at.
	var first []send
	for it := range iters {
		first = append(first, send{at: des.Time(it) * des.Millisecond, src: int32(1 + it%2), dst: 0, bytes: 20000})
	}
	alone, _ := runSetup(t, cfg, first, func(n *Network) { n.whole.off = true })
	for _, tc := range []struct {
		name  string
		shift des.Time // the start's offset from the end
	}{
		{"start at the end", 0},
		{"start a picosecond after the end", 1},
	} {
		sends := append([]send(nil), first...)
		for it := range iters {
			end := alone.delivered[int32(it)]
			// The route's latency is two links of 5 µs: the flow starts
			// sharing at end + shift.
			sends = append(sends, send{at: end + tc.shift - 10*des.Microsecond, src: 3, dst: 4, bytes: 5000})
		}
		on, n := runSetup(t, cfg, sends, func(*Network) {})
		off, _ := runSetup(t, cfg, sends, func(n *Network) { n.whole.off = true })
		got, want := make([]des.Time, len(sends)), make([]des.Time, len(sends))
		for id := range sends {
			got[id], want[id] = on.delivered[int32(id)], off.delivered[int32(id)]
		}
		sameTimes(t, tc.name, "without the whole-solve memo", got, want)
		if w := &n.whole; w.found*2 < w.lookups {
			t.Errorf("%s: %d of %d solves replayed, want at least half", tc.name, w.found, w.lookups)
		}
	}
}
