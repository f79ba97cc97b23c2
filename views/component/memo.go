package component

import "github.com/tracesim/tracesim/themes"

// Memo caches a view's frame: View draws again only when the view said its
// state changed (Invalidate), or its size or the session's theme differs
// from the frame's. Most messages change nothing on screen, and Bubble Tea
// asks for a frame after each one.
type Memo struct {
	frame   string
	theme   *themes.Theme
	w, h    int
	valid   bool
	renders int
}

// Invalidate makes the next View draw.
func (m *Memo) Invalidate() { m.valid = false }

// Valid reports whether the memo holds a frame for c's size and theme
// that nothing invalidated.
func (m *Memo) Valid(c Common) bool {
	w, h := max(c.Width, 0), max(c.Height, 0)
	return m.valid && m.w == w && m.h == h && c.Session != nil && m.theme == c.Theme
}

// View returns the frame for c's size and theme, calling draw(w, h) to
// make it when the memo does not hold it. draw may call Invalidate (a
// frame that shows work still under way), which holds for the next View.
func (m *Memo) View(c Common, draw func(w, h int) string) string {
	if m.Valid(c) {
		return m.frame
	}
	w, h := max(c.Width, 0), max(c.Height, 0)
	m.w, m.h, m.valid = w, h, true
	if c.Session != nil {
		m.theme = c.Theme
	}
	m.renders++
	m.frame = draw(w, h)
	return m.frame
}

// Renders returns how many frames View has drawn, for tests that check
// that a message which changes nothing costs no frame.
func (m *Memo) Renders() int { return m.renders }
