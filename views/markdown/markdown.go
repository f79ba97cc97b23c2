// Package markdown draws Markdown (CommonMark with GitHub's tables) as
// styled, word-wrapped terminal lines: the lessons of the Learn tab,
// built-in and teacher-written.
//
// It parses with goldmark and draws the syntax tree itself, in the
// session's theme. glamour did this before; it links chroma, whose
// lexer and style tables are built at program start whatever the command:
// 40 ms and 11 MB of resident memory on every `tracesim sim`, for code
// highlighting no lesson needs.
package markdown

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/component"
)

// Styles are the styles of the parts of a document.
type Styles struct {
	Heading, Strong, Emphasis, Code, Link, Quote, Rule, Strike lipgloss.Style
}

// StylesFor gives the styles of a document in theme th (nil: plain
// attributes, as the monochrome theme).
func StylesFor(th *themes.Theme) Styles {
	plain := lipgloss.NewStyle()
	s := Styles{
		Heading:  plain.Bold(true),
		Strong:   plain.Bold(true),
		Emphasis: plain.Italic(true),
		Code:     plain,
		Link:     plain.Underline(true),
		Quote:    plain,
		Rule:     plain,
		Strike:   plain.Strikethrough(true),
	}
	if th == nil || th.Mono {
		return s
	}
	s.Heading = s.Heading.Foreground(th.Accent)
	s.Code = s.Code.Foreground(th.Warning)
	s.Link = s.Link.Foreground(th.Accent)
	s.Quote = s.Quote.Foreground(th.Muted)
	s.Rule = s.Rule.Foreground(th.Border)
	return s
}

// Render draws the Markdown document src wrapped to width cells (at
// least 10) and returns its lines, without trailing blank lines. Code
// blocks and table rows are not wrapped: the caller clips them.
func Render(src string, width int, st Styles) []string {
	width = max(width, 10)
	source := []byte(src)
	md := goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))
	doc := md.Parser().Parse(text.NewReader(source))
	r := renderer{src: source, st: st}
	lines := r.blocks(doc, width, false)
	for len(lines) > 0 && strings.TrimSpace(ansi.Strip(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

type renderer struct {
	src []byte
	st  Styles
}

// blocks draws the block children of n, one blank line between blocks;
// the blocks of an item of a tight list follow each other without one.
func (r *renderer) blocks(n ast.Node, width int, tight bool) []string {
	var out []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		b := r.block(c, width)
		if b == nil {
			continue
		}
		if len(out) > 0 && (!tight || c.HasBlankPreviousLines()) {
			out = append(out, "")
		}
		out = append(out, b...)
	}
	return out
}

func (r *renderer) block(n ast.Node, width int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		s := r.inline(n)
		if n.Level == 1 {
			s = strings.ToUpper(s)
		}
		return component.Wrap(r.st.Heading.Render(s), width, 0)
	case *ast.Paragraph, *ast.TextBlock:
		return component.Wrap(r.inline(n), width, 0)
	case *ast.Blockquote:
		bar := r.st.Quote.Render("│ ")
		return prefix(r.blocks(n, width-2, false), bar, bar)
	case *ast.List:
		return r.list(n, width)
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		var out []string
		lines := n.Lines()
		for i := 0; i < lines.Len(); i++ {
			seg := lines.At(i)
			l := strings.TrimRight(string(seg.Value(r.src)), "\r\n")
			out = append(out, "  "+r.st.Code.Render(strings.ReplaceAll(l, "\t", "    ")))
		}
		if out == nil {
			out = []string{""}
		}
		return out
	case *ast.ThematicBreak:
		return []string{r.st.Rule.Render(strings.Repeat("─", width))}
	case *east.Table:
		return r.table(n)
	case *ast.HTMLBlock:
		return nil // comments (the lessons' step headers) and raw HTML
	}
	if n.HasChildren() {
		return r.blocks(n, width, false)
	}
	return nil
}

// list draws a list: a bullet or the item's number, its blocks indented
// under it.
func (r *renderer) list(l *ast.List, width int) []string {
	var out []string
	num := l.Start
	marks := make([]string, 0, l.ChildCount())
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		if l.IsOrdered() {
			marks = append(marks, strconv.Itoa(num)+". ")
			num++
		} else {
			marks = append(marks, "• ")
		}
	}
	w := 0
	for _, m := range marks {
		w = max(w, ansi.StringWidth(m))
	}
	i := 0
	for c := l.FirstChild(); c != nil; c = c.NextSibling() {
		m := marks[i] + strings.Repeat(" ", w-ansi.StringWidth(marks[i]))
		i++
		item := r.blocks(c, width-w, l.IsTight)
		if len(item) == 0 {
			item = []string{""}
		}
		if len(out) > 0 && !l.IsTight {
			out = append(out, "")
		}
		out = append(out, prefix(item, m, strings.Repeat(" ", w))...)
	}
	return out
}

// table draws a GitHub table: columns as wide as their widest cell,
// aligned as the delimiter row says, the header row bold and underlined
// by a rule.
func (r *renderer) table(t *east.Table) []string {
	var rows [][]string
	for row := t.FirstChild(); row != nil; row = row.NextSibling() {
		var cells []string
		for c := row.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, r.inline(c))
		}
		rows = append(rows, cells)
	}
	var widths []int
	for _, row := range rows {
		for k, c := range row {
			if k == len(widths) {
				widths = append(widths, 0)
			}
			widths[k] = max(widths[k], ansi.StringWidth(c))
		}
	}
	var out []string
	for i, row := range rows {
		parts := make([]string, len(widths))
		for k := range widths {
			c := ""
			if k < len(row) {
				c = row[k]
			}
			pad := widths[k] - ansi.StringWidth(c)
			align := east.AlignNone
			if k < len(t.Alignments) {
				align = t.Alignments[k]
			}
			switch align {
			case east.AlignRight:
				c = strings.Repeat(" ", pad) + c
			case east.AlignCenter:
				c = strings.Repeat(" ", pad/2) + c + strings.Repeat(" ", pad-pad/2)
			default:
				c += strings.Repeat(" ", pad)
			}
			if i == 0 {
				c = r.st.Strong.Render(c)
			}
			parts[k] = c
		}
		out = append(out, strings.TrimRight(strings.Join(parts, "  "), " "))
		if i == 0 {
			rule := make([]string, len(widths))
			for k, w := range widths {
				rule[k] = strings.Repeat("─", w)
			}
			out = append(out, r.st.Rule.Render(strings.Join(rule, "  ")))
		}
	}
	return out
}

// inline draws the inline content of n as one styled string; a hard line
// break is a newline, a soft one a space.
func (r *renderer) inline(n ast.Node) string {
	var b strings.Builder
	r.inlines(&b, n, lipgloss.NewStyle(), false)
	return b.String()
}

// inlines writes n's inline children in style st (styled is false while
// st is the plain style, so that plain text is written as it is).
func (r *renderer) inlines(b *strings.Builder, n ast.Node, st lipgloss.Style, styled bool) {
	put := func(s string) {
		if styled {
			s = st.Render(s)
		}
		b.WriteString(s)
	}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			put(string(c.Segment.Value(r.src)))
			switch {
			case c.HardLineBreak():
				b.WriteByte('\n')
			case c.SoftLineBreak():
				b.WriteByte(' ')
			}
		case *ast.String:
			put(string(c.Value))
		case *ast.CodeSpan:
			var code strings.Builder
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				if s, ok := t.(*ast.Text); ok {
					code.Write(s.Segment.Value(r.src))
				}
			}
			b.WriteString(r.st.Code.Inherit(st).Render(code.String()))
		case *ast.Emphasis:
			s := r.st.Emphasis
			if c.Level >= 2 {
				s = r.st.Strong
			}
			r.inlines(b, c, s.Inherit(st), true)
		case *east.Strikethrough:
			r.inlines(b, c, r.st.Strike.Inherit(st), true)
		case *ast.Link:
			var label strings.Builder
			r.inlines(&label, c, r.st.Link.Inherit(st), true)
			b.WriteString(label.String())
			if dest := string(c.Destination); dest != "" && dest != ansi.Strip(label.String()) {
				put(" (" + dest + ")")
			}
		case *ast.AutoLink:
			b.WriteString(r.st.Link.Inherit(st).Render(string(c.URL(r.src))))
		case *ast.Image:
			var alt strings.Builder
			r.inlines(&alt, c, st, styled)
			put("[image: " + ansi.Strip(alt.String()) + "]")
		case *ast.RawHTML:
			// Inline HTML is not drawn.
		default:
			r.inlines(b, c, st, styled)
		}
	}
}

// prefix puts first before the first line and rest before the others.
func prefix(lines []string, first, rest string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		p := rest
		if i == 0 {
			p = first
		}
		out[i] = strings.TrimRight(p+l, " ")
	}
	return out
}
