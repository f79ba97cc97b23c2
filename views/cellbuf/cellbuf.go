// Package cellbuf is a fixed-size grid of terminal cells (rune, colours,
// attributes) that renders to a string of lines with ANSI SGR sequences.
//
// It exists because styling each cell with lipgloss costs about 30 ms for
// a 200×60 frame, too slow for the big views (timeline, matrices) that
// redraw on every key press and run over slow SSH links. Render emits one
// SGR sequence per run of equally styled cells, not one per cell, which
// keeps both the rendering time (about 0.15 ms per frame) and the bytes
// sent to the terminal small.
//
// Colours are stored as packed 24-bit values so that cells compare
// cheaply; Bubble Tea's renderer downsamples them to what the terminal
// supports. A Buffer in a no-colour mode (NO_COLOR, the monochrome theme)
// drops colours and keeps only attributes, or emits plain text.
package cellbuf

import (
	"image/color"
	"strconv"
	"unicode/utf8"

	"github.com/mattn/go-runewidth"

	"github.com/tracesim/tracesim/themes"
)

// Color is a packed terminal colour: 0 means the terminal's default,
// otherwise 1<<24 | r<<16 | g<<8 | b.
type Color uint32

// NoColor is the terminal's default colour.
const NoColor Color = 0

// RGB returns the colour with the given components.
func RGB(r, g, b uint8) Color {
	return Color(1<<24 | uint32(r)<<16 | uint32(g)<<8 | uint32(b))
}

// FromColor converts an image/color (such as a lipgloss colour or a theme
// colour) to a Color; nil gives NoColor.
func FromColor(c color.Color) Color {
	if c == nil {
		return NoColor
	}
	r, g, b, _ := c.RGBA()
	return RGB(uint8(r>>8), uint8(g>>8), uint8(b>>8))
}

// RGB returns the colour's components and whether it is set (not the
// terminal's default).
func (c Color) RGB() (r, g, b uint8, ok bool) {
	return uint8(c >> 16), uint8(c >> 8), uint8(c), c != NoColor
}

// Attr is a set of text attributes.
type Attr uint8

// Text attributes.
const (
	Bold Attr = 1 << iota
	Faint
	Italic
	Underline
	Reverse
)

// Style is how a cell is drawn.
type Style struct {
	Fg, Bg Color
	Attrs  Attr
}

// Cell is one terminal cell. Rune 0 draws as a space.
type Cell struct {
	Rune rune
	Style
}

// Mode says which escape sequences Render emits.
type Mode uint8

// Rendering modes.
const (
	// ModeColor emits colours and attributes.
	ModeColor Mode = iota
	// ModeNoColor emits attributes only (bold, reverse...), for NO_COLOR:
	// the convention forbids colour, not emphasis.
	ModeNoColor
	// ModePlain emits no escape sequences at all: the text of the cells,
	// for golden files and for pipes.
	ModePlain
)

// ModeOf returns the mode for a theme: ModeNoColor for the monochrome
// theme (NO_COLOR, --no-color), whose views tell things apart by glyphs
// (themes.Theme.Fill) and attributes, ModeColor otherwise.
func ModeOf(t *themes.Theme) Mode {
	if t == nil || t.Mono {
		return ModeNoColor
	}
	return ModeColor
}

// Buffer is a Width×Height grid of cells. The zero value is an empty
// buffer; Resize gives it a size.
type Buffer struct {
	// Mode selects the escape sequences Render emits.
	Mode  Mode
	w, h  int
	cells []Cell
	// out is reused between renders so that a frame costs one allocation
	// (the returned string).
	out []byte
}

// New returns a buffer of w×h blank cells.
func New(w, h int) *Buffer {
	b := &Buffer{}
	b.Resize(w, h)
	return b
}

// Width returns the number of columns.
func (b *Buffer) Width() int { return b.w }

// Height returns the number of rows.
func (b *Buffer) Height() int { return b.h }

// Resize changes the size and clears every cell. Negative sizes count as
// zero.
func (b *Buffer) Resize(w, h int) {
	w, h = max(w, 0), max(h, 0)
	b.w, b.h = w, h
	if cap(b.cells) >= w*h {
		b.cells = b.cells[:w*h]
	} else {
		b.cells = make([]Cell, w*h)
	}
	b.Clear(Style{})
}

// Clear sets every cell to a space of style st.
func (b *Buffer) Clear(st Style) {
	c := Cell{Rune: ' ', Style: st}
	for i := range b.cells {
		b.cells[i] = c
	}
}

// In reports whether (x, y) is inside the buffer.
func (b *Buffer) In(x, y int) bool { return x >= 0 && y >= 0 && x < b.w && y < b.h }

// At returns the cell at (x, y); outside the buffer it returns a zero Cell.
func (b *Buffer) At(x, y int) Cell {
	if !b.In(x, y) {
		return Cell{}
	}
	return b.cells[y*b.w+x]
}

// Ptr returns a pointer to the cell at (x, y), or nil outside the buffer,
// for callers that change one field (the foreground of an overlay glyph)
// and keep the others.
func (b *Buffer) Ptr(x, y int) *Cell {
	if !b.In(x, y) {
		return nil
	}
	return &b.cells[y*b.w+x]
}

// Set sets the cell at (x, y); writes outside the buffer are ignored so
// that callers can clip by drawing.
func (b *Buffer) Set(x, y int, r rune, st Style) {
	if !b.In(x, y) {
		return
	}
	b.cells[y*b.w+x] = Cell{Rune: r, Style: st}
}

// Fill sets the cells of the rectangle x, y, w×h (clipped).
func (b *Buffer) Fill(x, y, w, h int, r rune, st Style) {
	x0, y0 := max(x, 0), max(y, 0)
	x1, y1 := min(x+w, b.w), min(y+h, b.h)
	c := Cell{Rune: r, Style: st}
	for yy := y0; yy < y1; yy++ {
		row := b.cells[yy*b.w : (yy+1)*b.w]
		for xx := x0; xx < x1; xx++ {
			row[xx] = c
		}
	}
}

// SetString writes s from (x, y) rightwards in one row, at most maxw cells
// (maxw < 0: up to the buffer's edge), and returns the cells written. A
// cell holds one column: runes of another width (wide CJK, combining
// marks, control characters) are replaced by '?' or dropped so that the
// grid never shifts.
func (b *Buffer) SetString(x, y int, s string, st Style, maxw int) int {
	if y < 0 || y >= b.h {
		return 0
	}
	lim := b.w
	if maxw >= 0 {
		lim = min(lim, x+maxw)
	}
	n := 0
	for _, r := range s {
		if x >= lim {
			break
		}
		switch w := runewidth.RuneWidth(r); {
		case r < ' ' || r == 0x7f:
			r = '?'
		case w == 0:
			continue
		case w != 1:
			r = '?'
		}
		if x >= 0 {
			b.cells[y*b.w+x] = Cell{Rune: r, Style: st}
		}
		x++
		n++
	}
	return n
}

// Render returns the buffer as Height lines joined by "\n", each exactly
// Width cells wide, with one SGR sequence per change of style. Every line
// ends in the default style so that lines can be joined with other
// content.
func (b *Buffer) Render() string {
	out := b.out[:0]
	if cap(out) == 0 {
		// Room for the text and a few sequences per line.
		out = make([]byte, 0, b.w*b.h*3+b.h*48)
	}
	for y := 0; y < b.h; y++ {
		if y > 0 {
			out = append(out, '\n')
		}
		cur := Style{}
		for _, c := range b.cells[y*b.w : (y+1)*b.w] {
			st := b.effective(c.Style)
			if st != cur {
				out = appendSGR(out, st)
				cur = st
			}
			r := c.Rune
			if r == 0 {
				r = ' '
			}
			out = utf8.AppendRune(out, r)
		}
		if cur != (Style{}) {
			out = append(out, "\x1b[m"...)
		}
	}
	b.out = out
	return string(out)
}

// effective returns the style Render draws for st in the buffer's mode.
func (b *Buffer) effective(st Style) Style {
	switch b.Mode {
	case ModeNoColor:
		return Style{Attrs: st.Attrs}
	case ModePlain:
		return Style{}
	}
	return st
}

// appendSGR appends one sequence that resets the style and sets st.
func appendSGR(out []byte, st Style) []byte {
	out = append(out, "\x1b[0"...)
	for i, code := range [...]string{"1", "2", "3", "4", "7"} {
		if st.Attrs&(1<<i) != 0 {
			out = append(out, ';')
			out = append(out, code...)
		}
	}
	out = appendColor(out, "38", st.Fg)
	out = appendColor(out, "48", st.Bg)
	return append(out, 'm')
}

func appendColor(out []byte, sel string, c Color) []byte {
	r, g, b, ok := c.RGB()
	if !ok {
		return out
	}
	out = append(out, ';')
	out = append(out, sel...)
	out = append(out, ";2;"...)
	out = strconv.AppendUint(out, uint64(r), 10)
	out = append(out, ';')
	out = strconv.AppendUint(out, uint64(g), 10)
	out = append(out, ';')
	return strconv.AppendUint(out, uint64(b), 10)
}
