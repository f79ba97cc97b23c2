package simulate

import (
	"math"

	"github.com/tracesim/tracesim/themes"
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
	if v < 0 {
		return
	}
	switch {
	case v == 0 && p.mono:
		p.b.Set(x, y, idle, cellbuf.Style{})
		return
	case v == 0:
		p.b.Set(x, y, idle, p.dim)
		return
	case p.mono:
		p.b.Set(x, y, themes.HeatGlyph(v), cellbuf.Style{})
		return
	}
	p.b.Set(x, y, '█', cellbuf.Style{Fg: cellbuf.FromColor(p.th.HeatColor(v))})
}

// legend draws the heat scale "0 ░▒▓█ 100%".
func (p *painter) legend(x, y, w int) {
	if w < 12 {
		return
	}
	x += p.text(x, y, w, "0%", p.dim) + 1
	for i, v := range []float64{0.2, 0.45, 0.7, 1} {
		p.heat(x+i, y, v, '-')
	}
	p.text(x+5, y, w-8, "100%", p.dim)
}

// spark draws a sparkline of vals (negative: no data) scaled to their
// maximum, in w cells, the latest on the right.
func (p *painter) spark(x, y, w int, vals []float64) {
	if w <= 0 {
		return
	}
	if len(vals) > w {
		vals = vals[len(vals)-w:]
	}
	hi := 0.0
	for _, v := range vals {
		hi = math.Max(hi, v)
	}
	bars := []rune("▁▂▃▄▅▆▇█")
	x += w - len(vals)
	st := cellbuf.Style{Fg: cellbuf.FromColor(first(p.th.Series))}
	if p.mono {
		st = cellbuf.Style{}
	}
	for i, v := range vals {
		if v < 0 || hi <= 0 {
			continue
		}
		k := int(v / hi * float64(len(bars)-1))
		p.b.Set(x+i, y, bars[min(max(k, 0), len(bars)-1)], st)
	}
}

// bar draws a horizontal bar of w cells filled to fraction f.
func (p *painter) bar(x, y, w int, f float64, st cellbuf.Style) {
	if w <= 0 {
		return
	}
	f = math.Min(math.Max(f, 0), 1)
	full := int(math.Round(f * float64(w)))
	for i := 0; i < w; i++ {
		if i < full {
			p.b.Set(x+i, y, '█', st)
		} else {
			p.b.Set(x+i, y, '░', p.dim)
		}
	}
}

func first[T any](s []T) T {
	var z T
	if len(s) == 0 {
		return z
	}
	return s[0]
}
