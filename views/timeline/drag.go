package timeline

import tea "charm.land/bubbletea/v2"

// Dragging the rank area with the left button pans the window, as the
// hand tool of Jumpshot and Vampir does: the time under the pointer when
// the button went down stays under the pointer. A drag is one step of the
// zoom history, however far it goes.

// dragState is the pan under way, if any.
type dragState struct {
	on    bool
	x     int     // column of the press, relative to the plot
	a     float64 // window start at the press
	moved bool    // the history has the window before the drag
}

// startDrag remembers a press in the rank area at plot column x.
func (m *Model) startDrag(x int) {
	m.drag = dragState{on: true, x: x, a: m.a}
}

// handleDrag pans the window as the pointer moves with the button down.
func (m *Model) handleDrag(mo tea.Mouse) {
	if !m.drag.on || mo.Button != tea.MouseLeft || m.lay.cols <= 0 {
		return
	}
	dx := mo.X - m.offX - m.lay.x0 - m.drag.x
	if dx == 0 && !m.drag.moved {
		return
	}
	w := m.b - m.a
	if !m.drag.moved {
		// The window before the drag, pushed as it was at the press.
		a, b := m.a, m.b
		m.a, m.b = m.drag.a, m.drag.a+w
		m.pushHistory()
		m.a, m.b = a, b
		m.drag.moved = true
	}
	m.setWindow(m.drag.a-float64(dx)*w/float64(m.lay.cols), w)
}
