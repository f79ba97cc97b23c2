package simulate

import (
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/cellbuf"
)

// painter draws text and heat cells into a cell buffer with the session's
// theme. In monochrome (and plain, for golden files) heat is told by
// glyph shading instead of colour.
type painter struct {
	b    *cellbuf.Buffer
	th   *themes.Theme
	mono bool

	norm, title, dim, bold, errSt, warnSt, okSt, sel cellbuf.Style
}

func newPainter(b *cellbuf.Buffer, th *themes.Theme, plain bool) *painter {
	p := &painter{b: b, th: th, mono: th.Mono || plain}
	c := cellbuf.FromColor
	p.norm = cellbuf.Style{Fg: c(th.Foreground)}
	p.title = cellbuf.Style{Fg: c(th.Accent), Attrs: cellbuf.Bold}
	p.dim = cellbuf.Style{Fg: c(th.Muted)}
	p.bold = cellbuf.Style{Fg: c(th.Foreground), Attrs: cellbuf.Bold}
	p.errSt = cellbuf.Style{Fg: c(th.Error), Attrs: cellbuf.Bold}
	p.warnSt = cellbuf.Style{Fg: c(th.Warning), Attrs: cellbuf.Bold}
	p.okSt = cellbuf.Style{Fg: c(th.OK)}
	p.sel = cellbuf.Style{Fg: c(th.Foreground), Attrs: cellbuf.Reverse}
	return p
}

// text writes s at (x, y), at most w cells, and returns the cells written.
func (p *painter) text(x, y, w int, s string, st cellbuf.Style) int {
	if w <= 0 {
		return 0
	}
	return p.b.SetString(x, y, s, st, w)
}

// heat draws one cell of a heat map: v in [0, 1], or negative for "no
// data". idle is the glyph of an idle link (a line along the link).
func (p *painter) heat(x, y int, v float64, idle rune) {
	switch {
	case v < 0:
	case v == 0 && p.mono:
		p.b.Set(x, y, idle, cellbuf.Style{})
	case v == 0:
		p.b.Set(x, y, idle, p.dim)
	default:
		p.b.Heat(x, y, 1, v, p.th)
	}
}

// legend draws the heat scale "0 % ░▒▓█ 100 %".
func (p *painter) legend(x, y, w int) {
	p.b.HeatLegend(x, y, w, units.FormatPercent(0, 0), units.FormatPercent(1, 0), 4, p.th, p.dim)
}

// series returns the style of a chart's columns: the theme's first
// series colour, none in monochrome.
func (p *painter) series() cellbuf.Style {
	if p.mono {
		return cellbuf.Style{}
	}
	return cellbuf.Style{Fg: cellbuf.FromColor(first(p.th.Series))}
}

func first[T any](s []T) T {
	var z T
	if len(s) == 0 {
		return z
	}
	return s[0]
}
