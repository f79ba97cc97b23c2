package timeline

import (
	"math"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt/gen"
)

// Dragging the rank area pans: the time under the pointer at the press
// stays under it, the window keeps its width, and one u undoes the drag.
func TestDragPans(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20})
	m := newModel(t, 120, 30, tr)
	press(m, "+", "+", "+")
	press(m, "l") // away from the start, so a drag to the right can pan
	a0, b0 := m.a, m.b
	w, cols := b0-a0, float64(m.lay.cols)
	x, y := m.lay.x0+40, m.lay.areaY
	m.Update(tea.MouseClickMsg{X: x, Y: y, Button: tea.MouseLeft})
	for _, dx := range []int{3, 7, 10} {
		m.Update(tea.MouseMotionMsg{X: x + dx, Y: y, Button: tea.MouseLeft})
	}
	m.Update(tea.MouseReleaseMsg{X: x + 10, Y: y, Button: tea.MouseLeft})
	if want := a0 - 10*w/cols; math.Abs(m.a-want) > 1e-9*w || math.Abs((m.b-m.a)-w) > 1e-9*w {
		t.Errorf("after a drag of 10 columns: window %v..%v, want %v..%v", m.a, m.b, want, want+w)
	}
	// Motion after the release moves nothing.
	a1 := m.a
	m.Update(tea.MouseMotionMsg{X: x + 30, Y: y, Button: tea.MouseLeft})
	if m.a != a1 {
		t.Error("motion after the release panned")
	}
	press(m, "u")
	if m.a != a0 || m.b != b0 {
		t.Errorf("u after the drag: window %v..%v, want %v..%v", m.a, m.b, a0, b0)
	}
}
