package simulate

import (
	"testing"

	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestGoldenLive draws the live pane of a 16-rank stencil on torus:4x4
// (packet model) stopped at 620 µs of simulated time, without colour.
func TestGoldenLive(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 110, 34)
	drive(t, m, press(m, "t", "6", "2", "0", "u", "s", "enter"))
	if m.Status() != Paused {
		t.Fatalf("status %v err %q", m.Status(), m.err)
	}
	m.router = 5
	// The in-flight and blocked series sample at the ends of slices, which
	// a run at full speed cuts by host time: take them out of the frame
	// (TestGoldenSeries steps, so its slices are the same on every host).
	m.ranksAt = nil
	m.memo.Invalidate()
	viewtest.Golden(t, m.View())
}

// TestGoldenResults draws the results pane of the same run, finished.
func TestGoldenResults(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 100, 30)
	drive(t, m, press(m, "r"))
	// Host time varies: take it out of the frame.
	m.runs[0].Results.Wall, m.runs[0].Results.EventsPerSec = 0, 0
	m.memo.Invalidate()
	viewtest.Golden(t, m.View())
}

// TestGoldenHistory draws the history with two runs of the same trace,
// 10 Gb/s and 1 Gb/s links, compared.
func TestGoldenHistory(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 100, 34)
	drive(t, m, press(m, "r"))
	slow := packetConfig(t, "torus:4x4")
	if err := slow.Set("bandwidth", "1Gb/s"); err != nil {
		t.Fatal(err)
	}
	m.SetConfig(slow, "slow links")
	drive(t, m, press(m, "r"))
	drive(t, m, press(m, "v")) // results → history
	viewtest.Golden(t, m.View())
}

// TestGoldenLiveFlow draws the live pane of the same stencil with the
// flow model, stopped at 620 µs: the link heatmap and the utilisation
// chart show the flows' shares of the links, and the pane the packet
// model's queues take shows the flows on the busiest links (4 on each
// node's links at the halo exchange's peak).
func TestGoldenLiveFlow(t *testing.T) {
	tr := stencil(t, 16)
	cfg := packetConfig(t, "torus:4x4")
	if err := cfg.Set("model", "flow"); err != nil {
		t.Fatal(err)
	}
	m := newModel(t, tr, cfg, 110, 34)
	drive(t, m, press(m, "t", "6", "2", "0", "u", "s", "enter"))
	if m.Status() != Paused {
		t.Fatalf("status %v err %q", m.Status(), m.err)
	}
	m.router = 5
	// The in-flight and blocked series sample at the ends of slices, which
	// a run at full speed cuts by host time: take them out of the frame
	// (TestGoldenSeries steps, so its slices are the same on every host).
	m.ranksAt = nil
	m.memo.Invalidate()
	viewtest.Golden(t, m.View())
}

// TestGoldenSeries draws the live pane of the stencil on torus:4x4
// (packet model) after 60 steps of Δt = 10 µs, tall enough for the time
// series with axes: link utilisation, messages in flight and ranks
// blocked over the 600 µs simulated, with time labels.
func TestGoldenSeries(t *testing.T) {
	tr := stencil(t, 16)
	m := newModel(t, tr, packetConfig(t, "torus:4x4"), 120, 40)
	for range 60 {
		drive(t, m, press(m, "d"))
	}
	if m.Status() != Paused || len(m.ranksAt) != 60 {
		t.Fatalf("status %v err %q, %d points", m.Status(), m.err, len(m.ranksAt))
	}
	m.router = 5
	m.memo.Invalidate()
	viewtest.Golden(t, m.View())
}
