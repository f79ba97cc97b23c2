package timeline

import (
	"fmt"
	"testing"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestGolden renders a small fixed trace in plain text (monochrome theme,
// no escape sequences, so that the files are stable and readable): fitted
// (arrows), with send/receive marks, zoomed in, with a message selected,
// and a reversed message before and after correction. Run with
// -update to rewrite the files after an intended change.
func TestGolden(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 6, Iters: 6, Seed: 1, Jitter: 0.2})
	// The 3rd send of rank 2: a message to rank 3 in the middle of the run.
	send := nthSend(tr, 2, 3)
	orig, alt := reversedTrace(t)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			t.Run("fit", func(t *testing.T) {
				m := newModel(t, sz[0], sz[1], tr)
				viewtest.Golden(t, m.View())
			})
			t.Run("marks", func(t *testing.T) {
				m := newModel(t, sz[0], sz[1], tr)
				press(m, "m", "m") // auto → arrows → marks
				viewtest.Golden(t, m.View())
			})
			t.Run("zoomed", func(t *testing.T) {
				m := newModel(t, sz[0], sz[1], tr)
				m.cur = tr.Event(send).Time
				press(m, "+", "+", "+", "+")
				viewtest.Golden(t, m.View())
			})
			t.Run("selected", func(t *testing.T) {
				m := newModel(t, sz[0], sz[1], tr)
				m.Focus(send)
				viewtest.Golden(t, m.View())
			})
			t.Run("reversed", func(t *testing.T) {
				m := newModel(t, sz[0], sz[1], orig)
				m.Focus(tracefmt.EventRef{Rank: 1, Index: 3})
				viewtest.Golden(t, m.View())
			})
			t.Run("corrected", func(t *testing.T) {
				m := newModel(t, sz[0], sz[1], orig)
				m.SetAlt(alt, "corrected")
				viewtest.Golden(t, m.View())
			})
		})
	}
}
