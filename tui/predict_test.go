package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tui/demo"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/simulate"
	"github.com/tracesim/tracesim/views/timeline"
)

// replayed runs tr on the default machine and returns the replay's trace.
func replayed(t testing.TB, tr *tracefmt.Trace) *tracefmt.Trace {
	t.Helper()
	out, err := replay.RunToTrace(context.Background(), tr, replay.Default())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// openTrace reads a trace file (skipping when a shared sample is absent).
func openTrace(t *testing.T, path string) *tracefmt.Trace {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		t.Skipf("sample %s not available", path)
	}
	tr, _, err := formats.Open(context.Background(), path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestGoldenPredicted renders the Timeline of a run and its replay on the
// default machine in each view (recorded, predicted, both; an untimed
// trace has no both-view) at two sizes, as plain text.
func TestGoldenPredicted(t *testing.T) {
	traces := []struct {
		name string
		tr   func(t *testing.T) *tracefmt.Trace
	}{
		{"demo", func(t *testing.T) *tracefmt.Trace {
			tr, err := demo.Trace()
			if err != nil {
				t.Fatal(err)
			}
			return tr
		}},
		{"clog2", func(t *testing.T) *tracefmt.Trace {
			return openTrace(t, filepath.Join("..", "..", "shared", "testdata-external", "clog2", "cpilog.clog2"))
		}},
		{"ti", func(t *testing.T) *tracefmt.Trace {
			return openTrace(t, filepath.Join("..", "testdata", "simgrid", "halo.txt"))
		}},
	}
	for _, tc := range traces {
		t.Run(tc.name, func(t *testing.T) {
			tr := tc.tr(t)
			pred := replayed(t, tr)
			for _, sz := range [][2]int{{80, 24}, {160, 48}} {
				t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
					m := timeline.New(&component.Common{Width: sz[0], Height: sz[1], Theme: themes.Mono()}, tr)
					m.SetPredicted(pred, "sim #1 on default")
					views := []string{"both", "recorded", "predicted"}
					if !tr.Timed {
						views = []string{"predicted", "recorded"}
					}
					for i, v := range views {
						if i > 0 {
							m.Update(tea.KeyPressMsg{Code: 'p', Text: "p"})
						}
						t.Run(v, func(t *testing.T) { golden.RequireEqual(t, ansi.Strip(m.View())) })
					}
				})
			}
		})
	}
}

// An untimed trace (SimGrid TI) opens on its prediction: the Simulate tab
// replays it on the current machine in the background and the Timeline
// shows the predicted run, its states coloured, labelled with the
// machine. esc stops a prediction under way.
func TestUntimedTraceOpensOnPrediction(t *testing.T) {
	tr := openTrace(t, filepath.Join("..", "testdata", "simgrid", "halo.txt"))
	t.Run("opens", func(t *testing.T) {
		m := newModel(t, 120, 40, func(o *Options) { o.Trace, o.Path = tr, "halo.txt" })
		settle(t, m, m.Init())
		frame := ansi.Strip(m.Frame())
		for _, want := range []string{"States · predicted", "MPI_Waitall", "predicted on "} {
			if !strings.Contains(frame, want) {
				t.Errorf("the Timeline does not say %q:\n%s", want, frame)
			}
		}
		if m.Active() != m.tabIndex(TimelineTab) || m.pred == nil {
			t.Fatalf("tab %d, prediction %v", m.Active(), m.pred != nil)
		}
		if strings.Contains(frame, "untimed trace: positions are event order") {
			t.Errorf("the Timeline still shows event positions:\n%s", frame)
		}
	})
	t.Run("esc stops", func(t *testing.T) {
		m := newModel(t, 120, 40, func(o *Options) { o.Trace, o.Path = tr, "halo.txt" })
		m.Init() // the first slice's command is dropped: the run waits on it
		if !m.predicting {
			t.Fatal("no prediction under way")
		}
		settle(t, m, press(m, "esc"))
		sim := m.ViewOf(m.tabIndex("Simulate")).(*simulate.Model)
		if m.predicting || sim.Status() == simulate.Running {
			t.Fatalf("after esc: predicting %v, simulation %v", m.predicting, sim.Status())
		}
		if !strings.Contains(ansi.Strip(m.Frame()), "prediction stopped") {
			t.Errorf("esc did not say the prediction stopped:\n%s", ansi.Strip(m.Frame()))
		}
	})
}
