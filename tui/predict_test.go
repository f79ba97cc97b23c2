package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/testshared"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tui/demo"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
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
			return openTrace(t, filepath.Join(testshared.Dir(), "clog2", "cpilog.clog2"))
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
					m := timeline.New(component.New(&component.Session{Theme: themes.Mono()}, sz[0], sz[1]), tr)
					m.SetPredicted(pred, "sim #1 on default")
					views := []string{"both", "recorded", "predicted"}
					if !tr.Timed {
						views = []string{"predicted", "recorded"}
					}
					for i, v := range views {
						if i > 0 {
							m.Update(tea.KeyPressMsg{Code: 'p', Text: "p"})
						}
						t.Run(v, func(t *testing.T) { viewtest.Golden(t, ansi.Strip(m.View())) })
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

// Causality's enter on a finding frames the message: both ends in the
// window with context, at least a microsecond wide, the same window at
// every terminal size, in original and in corrected times, and the ruler
// labelled even at 80×24 (once a corrected finding opened a 20 ps window
// with a bare ruler, and the zoom depended on the terminal's width).
func TestFindingZoom(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "ring", Ranks: 4, Iters: 5, Skew: 200e-6, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	label := regexp.MustCompile(`\|-?[0-9.]+(s|ms|µs|ns|ps)|-?[0-9.]+(s|ms|µs|ns|ps)\|`)
	for _, corrected := range []bool{false, true} {
		t.Run(fmt.Sprintf("corrected=%v", corrected), func(t *testing.T) {
			var widths []float64
			for _, sz := range [][2]int{{80, 24}, {200, 60}} {
				m := newModel(t, sz[0], sz[1], func(o *Options) { o.Trace, o.Path = tr, "ring.tsim" })
				caus := m.tabIndex("Causality")
				keys(t, m, string(rune('1'+caus)))
				if corrected {
					keys(t, m, "c")
				}
				keys(t, m, "enter")
				tl, ok := m.ViewOf(m.tabIndex(TimelineTab)).(*timeline.Model)
				if !ok || m.Active() != m.tabIndex(TimelineTab) {
					t.Fatalf("%dx%d: enter did not open the Timeline", sz[0], sz[1])
				}
				a, b := tl.Window()
				widths = append(widths, b-a)
				if sec := tr.Seconds(b - a); sec < 1e-6*(1-1e-9) {
					t.Errorf("%dx%d: window %gs, want at least 1µs", sz[0], sz[1], sec)
				}
				frame := ansi.Strip(m.Frame())
				ruler := strings.Split(frame, "\n")[1]
				if n := len(label.FindAllString(ruler, -1)); n < 2 {
					t.Errorf("%dx%d: ruler %q has %d labels, want at least 2", sz[0], sz[1], ruler, n)
				}
				if !strings.Contains(frame, "message ") {
					t.Errorf("%dx%d: no message selected:\n%s", sz[0], sz[1], frame)
				}
			}
			if widths[0] != widths[1] {
				t.Errorf("window %g at 80×24 but %g at 200×60", widths[0], widths[1])
			}
		})
	}
}

// A load error is shown whole, wrapped over the bottom of the view, and
// stays until esc (once it was cut at the terminal's width, losing its
// decisive end, and vanished at the next key).
func TestLoadErrorWrapsAndStays(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.tsim")
	// A tsim file whose fourth line names a field wrongly: the reader's
	// message ends with what it got.
	if err := os.WriteFile(bad, []byte("tsim 1\nranks 2\nunit us\n0 recv 1.0 form=0 tag=1 size=8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{80, 200} {
		m := newModel(t, w, 24)
		m.startLoad(bad)
		finishLoad(t, m)
		if m.err == "" {
			t.Fatal("no error for a bad file")
		}
		frame := ansi.Strip(m.Frame())
		joined := strings.Join(strings.Fields(frame), " ")
		want := strings.Join(strings.Fields(m.err), " ")
		if !strings.Contains(joined, want) {
			t.Errorf("%d columns: the error %q is not shown whole:\n%s", w, m.err, frame)
		}
		press(m, "right")
		if !strings.Contains(ansi.Strip(m.Frame()), "esc dismisses") {
			t.Errorf("%d columns: the error went at the next key", w)
		}
		press(m, "esc")
		if m.err != "" || strings.Contains(ansi.Strip(m.Frame()), "esc dismisses") {
			t.Errorf("%d columns: esc did not dismiss the error", w)
		}
	}
}

// "? help" is in the tab bar at every width from 60 columns (once it went
// at 80).
func TestHelpHintAlwaysShown(t *testing.T) {
	for _, w := range []int{60, 80, 100, 200} {
		m := newModel(t, w, 24)
		top := strings.Split(ansi.Strip(m.Frame()), "\n")[0]
		if !strings.Contains(top, "? help") {
			t.Errorf("%d columns: tab bar %q has no help hint", w, top)
		}
	}
}

// The help explains the mouse and every glyph, reachable at 80×24 by
// scrolling (once it had neither).
func TestHelpHasMouseAndGlyphs(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {200, 60}} {
		m := newModel(t, sz[0], sz[1])
		press(m, "?")
		seen := ""
		for range 20 {
			seen += ansi.Strip(m.Frame())
			press(m, "down")
		}
		for _, want := range []string{"Mouse", "wheel zooms at the pointer", "drag pans", "Glyphs", "◇", "▸ ◂ ◆", "◀ a receive recorded before its send", "predicted row"} {
			if !strings.Contains(seen, want) {
				t.Errorf("%dx%d: the help never shows %q", sz[0], sz[1], want)
			}
		}
		press(m, "esc")
		if m.showHelp {
			t.Errorf("%dx%d: esc did not close the help", sz[0], sz[1])
		}
	}
}
