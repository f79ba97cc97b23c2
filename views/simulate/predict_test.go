package simulate

import (
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/views/component"
)

// A run in progress has a timeline too: enter while paused offers the
// run so far to the Timeline, a trace that ends at the current simulated
// time.
func TestRunSoFarToTimeline(t *testing.T) {
	m := newModel(t, stencil(t, 16), replay.Default(), 100, 30)
	for range 40 {
		drive(t, m, press(m, "s"))
	}
	if m.Status() != Paused {
		t.Fatalf("status %v after steps", m.Status())
	}
	out := drive(t, m, press(m, "enter"))
	var got *component.AltTraceMsg
	for _, msg := range out {
		if a, ok := msg.(component.AltTraceMsg); ok {
			got = &a
		}
	}
	if got == nil || !got.Predicted || !strings.HasPrefix(got.Label, "run so far (") {
		t.Fatalf("enter while paused sent %+v", out)
	}
	_, end := got.Trace.Span()
	if n := got.Trace.NumEvents(); n == 0 || end > float64(m.snap.Time) {
		t.Fatalf("run so far: %d events up to %g, clock %d", n, end, m.snap.Time)
	}
	if m.Status() != Paused {
		t.Errorf("status %v after enter, want still paused", m.Status())
	}
}

// After a finished run, s and r start a new run on the machine as it is
// now: once s did nothing ("the run has ended").
func TestNewRunAfterFinish(t *testing.T) {
	for _, k := range []string{"s", "r"} {
		t.Run(k, func(t *testing.T) {
			m := newModel(t, stencil(t, 16), replay.Default(), 100, 30)
			drive(t, m, press(m, "r"))
			if m.Status() != Finished {
				t.Fatalf("status %v", m.Status())
			}
			// The machine changes after the run.
			cfg := replay.Default()
			if err := cfg.Set("bandwidth", "100Mb/s"); err != nil {
				t.Fatal(err)
			}
			m.SetConfig(cfg, "slow")
			drive(t, m, press(m, k))
			if k == "s" && (m.Status() != Paused || m.snap == nil || m.snap.Events == 0) {
				t.Fatalf("s after the end: status %v", m.Status())
			}
			if got, _ := m.eng.cfg.Get("bandwidth"); got != "100Mb/s" {
				t.Fatalf("the new run simulates bandwidth %v, want 100Mb/s", got)
			}
			if k == "r" && len(m.runs) != 2 {
				t.Fatalf("r after the end: %d runs, want 2", len(m.runs))
			}
		})
	}
}
