package simulate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// TestCompareFlowRuns: the run comparison works with the flow model, the
// default: two flow runs of the stencil on torus:4x4, at 10 Gb/s and at
// 1 Gb/s, are compared with their makespans and the link use the flow
// model measured (mean and peak whole-run utilisation of the router
// links, not "n/a"), slower links busier.
func TestCompareFlowRuns(t *testing.T) {
	flowCfg := func(bw string) replay.Config {
		cfg := replay.Default()
		for _, kv := range [][2]string{{"topology", "torus:4x4"}, {"bandwidth", bw}} {
			if err := cfg.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		if cfg.Model != replay.ModelFlow {
			t.Fatalf("default model %v, want flow", cfg.Model)
		}
		return cfg
	}
	m := newModel(t, stencil(t, 16), flowCfg("10Gb/s"), 120, 40)
	drive(t, m, press(m, "r"))
	m.SetConfig(flowCfg("1Gb/s"), "slow links")
	drive(t, m, press(m, "r"))
	if len(m.runs) != 2 {
		t.Fatalf("%d runs", len(m.runs))
	}
	// The router links' whole-run utilisation, from the flow model's
	// metrics of each run.
	use := func(r *replay.Results) (mean, peak float64) {
		n := 0
		for _, l := range r.Network.Links {
			if !l.FromNode && !l.ToNode {
				mean += l.MeanUtilisation
				peak = max(peak, l.MeanUtilisation)
				n++
			}
		}
		return mean / float64(n), peak
	}
	a, b := m.runs[0].Results, m.runs[1].Results
	if a.Model != "flow" || b.Model != "flow" || a.Network == nil || b.Network == nil {
		t.Fatalf("runs of models %q and %q, network metrics %v and %v", a.Model, b.Model, a.Network != nil, b.Network != nil)
	}
	ma, pa := use(a)
	mb, pb := use(b)
	if !(ma > 0 && mb > ma && pb > pa) {
		t.Errorf("router link use: 10 Gb/s mean %.4f peak %.4f, 1 Gb/s mean %.4f peak %.4f: want measured, and busier at 1 Gb/s", ma, pa, mb, pb)
	}
	drive(t, m, press(m, "v")) // results → history: the comparison
	m.memo.Invalidate()
	v := ansi.Strip(m.View())
	for _, want := range []string{
		fmt.Sprintf("makespan  A %s  B %s  B/A %.3f×", units.FormatDurationSig(a.Makespan, 7), units.FormatDurationSig(b.Makespan, 7), b.Makespan/a.Makespan),
		fmt.Sprintf("link use  A mean %.1f%% peak %.1f%%  B mean %.1f%% peak %.1f%%", 100*ma, 100*pa, 100*mb, 100*pb),
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, v)
		}
	}
}

// TestLiveHeatmapFlow: the live link heatmap draws the flow model's
// samples. Rank 0 on node 0 of torus:4x4 streams 10 MB to rank 1 on node
// 1 (8 ms at 10 Gb/s); paused at 4 ms (no event since the flow started:
// the flow model ends each busy period with a tick), the link 0 → 1 is
// full in the sample and drawn full (█) between routers 0 and 1, the link
// back carries the default 5 % crosstraffic, and no other router link
// carries anything.
func TestLiveHeatmapFlow(t *testing.T) {
	b := tracefmt.NewBuilder(2, false, tracefmt.Second)
	b.Add(0, tracefmt.Send(0, 1, 0, 0, 10_000_000))
	b.Add(1, tracefmt.Recv(0, 0, 0, 0, 10_000_000))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	cfg := replay.Default()
	if err := cfg.Set("topology", "torus:4x4"); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, tr, cfg, 110, 34)
	drive(t, m, press(m, "t", "4", "m", "s", "enter"))
	if m.Status() != Paused || m.snap == nil {
		t.Fatalf("status %v err %q", m.Status(), m.err)
	}
	u := gridUtil(&m.snap.Net, 16, 2)
	for i, v := range u {
		want := 0.0
		switch i {
		case 0: // router 0, dimension x, + direction
			want = 1
		case (1*2+0)*2 + 1: // router 1, dimension x, − direction
			want = 0.05
		}
		if math.Abs(v-want) > 1e-9 {
			t.Errorf("router %d dimension %d direction %d: utilisation %.4f, want %g", i/4, i/2%2, i%2, v, want)
		}
	}
	m.memo.Invalidate()
	v := ansi.Strip(m.View())
	var row string
	for _, l := range strings.Split(v, "\n") {
		if strings.HasPrefix(l, "o") {
			row = l // the first row of routers
			break
		}
	}
	segs := strings.Split(row, "o") // "", 0–1, 1–2, 2–3, 3–0 …
	if len(segs) < 4 || !strings.Contains(segs[1], "█") || strings.ContainsAny(strings.Join(segs[2:], ""), "░▒▓█") {
		t.Errorf("routers 0–3 drawn as %q: want the link 0 → 1 full and the others idle\n%s", row, v)
	}
}
