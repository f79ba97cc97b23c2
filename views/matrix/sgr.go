package matrix

import (
	"image/color"
	"strconv"
	"strings"
)

// runWriter builds one line of coloured cells, emitting a colour code only
// when the colour changes: a matrix line costs a few escape sequences
// rather than one lipgloss render per cell.
type runWriter struct {
	b   strings.Builder
	cur color.Color
	on  bool
}

// write appends s in foreground colour c (nil: the terminal's default).
func (w *runWriter) write(c color.Color, s string) {
	if !sameColor(c, w.cur) || (c == nil) == w.on {
		if w.on {
			w.b.WriteString("\x1b[m")
			w.on = false
		}
		if c != nil {
			r, g, b, _ := c.RGBA()
			w.b.WriteString("\x1b[38;2;")
			w.b.WriteString(strconv.Itoa(int(r >> 8)))
			w.b.WriteByte(';')
			w.b.WriteString(strconv.Itoa(int(g >> 8)))
			w.b.WriteByte(';')
			w.b.WriteString(strconv.Itoa(int(b >> 8)))
			w.b.WriteByte('m')
			w.on = true
		}
		w.cur = c
	}
	w.b.WriteString(s)
}

// raw appends already styled text, closing the current run first.
func (w *runWriter) raw(s string) {
	if w.on {
		w.b.WriteString("\x1b[m")
		w.on = false
	}
	w.cur = nil
	w.b.WriteString(s)
}

// String returns the line, with every colour closed.
func (w *runWriter) String() string {
	if w.on {
		w.b.WriteString("\x1b[m")
		w.on = false
	}
	return w.b.String()
}

func sameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}
