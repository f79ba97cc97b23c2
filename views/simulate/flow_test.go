package simulate

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/engine/runner"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
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
		fmt.Sprintf("link use  A mean %.1f %% peak %.1f %%  B mean %.1f %% peak %.1f %%", 100*ma, 100*pa, 100*mb, 100*pb),
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

// incast is ranks 0 and 1 each sending 10 MB to rank 2 at once (eagerly),
// on torus:4x4 under the flow model: on dimension-order routes both flows
// cross r1 → r2 and node 2's ejection link, r0 → r1 and the two injection
// links one each.
func incast(t *testing.T) (*tracefmt.Trace, replay.Config) {
	t.Helper()
	b := tracefmt.NewBuilder(3, false, tracefmt.Second)
	b.Add(0, tracefmt.Send(0, 2, 0, 0, 10_000_000))
	b.Add(1, tracefmt.Send(0, 2, 1, 0, 10_000_000))
	b.Add(2, tracefmt.Recv(0, 0, 0, 0, 10_000_000))
	b.Add(2, tracefmt.Recv(0, 1, 1, 0, 10_000_000))
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	cfg := replay.Default()
	for _, kv := range [][2]string{{"topology", "torus:4x4"}, {"eager-threshold", "100MB"}} {
		if err := cfg.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	return tr, cfg
}

// TestFlowsStrip: the Simulate tab shows the flows on the busiest links
// over time, as the flow model sampled them. The incast paused at 4 ms:
// r1 → r2 and r2 → n2 carry 2 flows now and at their peak period, then
// the links with one; the drawn rows say so in figures, beside the
// links' strips (full for 2 flows, half for 1). At 160×48 the strip takes
// the pane the flow model's missing queues leave; at 80×24 f swaps the
// link pane to it.
func TestFlowsStrip(t *testing.T) {
	type row struct {
		link      string
		now, peak string
	}
	want := []row{{"r1→r2", "2", "2"}, {"r2→n2", "2", "2"}, {"r0→r1", "1", "1"}, {"n0→r0", "1", "1"}, {"n1→r1", "1", "1"}}
	for _, tc := range []struct {
		w, h int
		keys []string
		rows int // rows drawn
	}{
		{80, 24, []string{"f"}, 4},
		{160, 48, nil, 5},
	} {
		t.Run(fmt.Sprintf("%dx%d", tc.w, tc.h), func(t *testing.T) {
			tr, cfg := incast(t)
			m := newModel(t, tr, cfg, tc.w, tc.h)
			drive(t, m, press(m, "t", "4", "m", "s", "enter"))
			if m.Status() != Paused || m.snap == nil {
				t.Fatalf("status %v err %q", m.Status(), m.err)
			}
			if tc.keys != nil {
				// Before f: the utilisation map, whose title says where
				// the flows are.
				m.memo.Invalidate()
				if v := ansi.Strip(m.View()); !strings.Contains(v, "Links · utilisation, last 10 µs (f: flows)") {
					t.Errorf("before f, the link pane's title does not point to the flows:\n%s", v)
				}
			}
			drive(t, m, press(m, tc.keys...))
			rows := busiestFlows(m.hist.cols, m.snap.Net.Links)
			if len(rows) != len(want) {
				t.Fatalf("%d links with flows, want %d", len(rows), len(want))
			}
			for i, r := range rows {
				l := &m.snap.Net.Links[r.idx]
				if linkName(l) != want[i].link || fmt.Sprint(r.now) != want[i].now || flowsLabel(r.peak) != want[i].peak {
					t.Errorf("row %d: %s now %d peak %g, want %+v", i, linkName(l), r.now, r.peak, want[i])
				}
			}
			m.memo.Invalidate()
			frame := m.View()
			viewtest.Golden(t, frame)
			lines := strings.Split(ansi.Strip(frame), "\n")
			found := 0
			for _, l := range lines {
				for _, w := range want[:tc.rows] {
					i := strings.Index(l, w.link+" ")
					if i < 0 {
						continue
					}
					fields := strings.Fields(l[i:])
					if len(fields) < 4 || fields[len(fields)-2] != w.now || fields[len(fields)-1] != w.peak {
						// A wide frame has the utilisation map on the
						// same rows, left of the strip.
						t.Errorf("row of %s: %q, want now %s peak %s", w.link, l[i:], w.now, w.peak)
					}
					strip := fields[1]
					glyph := '█'
					if w.peak == "1" {
						glyph = '▒' // half the scale of 2 flows
					}
					if strings.Trim(strip, string(glyph)) != "" || len([]rune(strip)) < 20 {
						t.Errorf("strip of %s: %q, want a run of %c", w.link, strip, glyph)
					}
					found++
				}
			}
			if found != tc.rows {
				t.Errorf("%d link rows drawn, want %d:\n%s", found, tc.rows, ansi.Strip(frame))
			}
		})
	}
}

// The f key swaps the link pane only where there are flows to show: the
// packet model says why not and keeps its utilisation map.
func TestFlowsKeyPacketModel(t *testing.T) {
	m := newModel(t, stencil(t, 16), packetConfig(t, "torus:4x4"), 80, 24)
	msgs := drive(t, m, press(m, "f"))
	said := false
	for _, msg := range msgs {
		if s, ok := msg.(component.StatusMsg); ok && strings.Contains(string(s), "only the flow model counts them") {
			said = true
		}
	}
	if m.showFlows || !said {
		t.Errorf("packet model: showFlows %v, status said %v", m.showFlows, said)
	}
}

// lastCols lays the latest periods out at the right and marks where the
// network skipped idle periods.
func TestLastCols(t *testing.T) {
	const p = 10e-6
	h := linkHistory{cols: make([][]runner.LinkUtil, 4), ts: []float64{1 * p, 2 * p, 5 * p, 6 * p}}
	for _, tc := range []struct {
		w    int
		want []int
	}{
		{7, []int{colEmpty, colEmpty, 0, 1, colSkipped, 2, 3}},
		{3, []int{colSkipped, 2, 3}},
		{2, []int{2, 3}},
		{0, []int{}},
	} {
		if got := h.lastCols(tc.w, p); fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("width %d: %v, want %v", tc.w, got, tc.want)
		}
	}
}
