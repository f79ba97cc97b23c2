package simulate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
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
	m.dirty = true
	v := ansi.Strip(m.View())
	for _, want := range []string{
		fmt.Sprintf("makespan  A %s  B %s  B/A %.3f×", fmtSeconds(a.Makespan), fmtSeconds(b.Makespan), b.Makespan/a.Makespan),
		fmt.Sprintf("link use  A mean %.1f%% peak %.1f%%  B mean %.1f%% peak %.1f%%", 100*ma, 100*pa, 100*mb, 100*pb),
	} {
		if !strings.Contains(v, want) {
			t.Errorf("the comparison lacks %q:\n%s", want, v)
		}
	}
}
