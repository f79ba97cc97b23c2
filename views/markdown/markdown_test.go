package markdown

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
)

// TestRender checks the drawn text (attributes stripped) of each kind of
// block a lesson may hold.
func TestRender(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		width int
		want  []string
	}{
		{"heading and paragraph", "# Title\n\nSome *text* and **more**.\n\n## Two\nBody.", 40,
			[]string{"TITLE", "", "Some text and more.", "", "Two", "", "Body."}},
		{"soft breaks join, hard breaks split", "one\ntwo  \nthree\\\nfour", 40,
			[]string{"one two", "three", "four"}},
		{"wrapped at the width", "the quick brown fox jumps over the lazy dog", 15,
			[]string{"the quick brown", "fox jumps over", "the lazy dog"}},
		{"long word broken", "abcdefghijklmnopqrstuvwxyz", 10,
			[]string{"abcdefghij", "klmnopqrst", "uvwxyz"}},
		{"tight bullet list, nested", "- one\n- two\n  - inner\n- three", 40,
			[]string{"• one", "• two", "  • inner", "• three"}},
		{"loose ordered list from 3", "3. first\n\n4. second item that wraps here", 20,
			[]string{"3. first", "", "4. second item that", "   wraps here"}},
		{"list item wraps under its text", "- a list item long enough to wrap", 16,
			[]string{"• a list item", "  long enough to", "  wrap"}},
		{"block quote", "> **Question:** how long\n> does it take?", 40,
			[]string{"│ Question: how long does it take?"}},
		{"quote of two paragraphs", "> one\n>\n> two", 40,
			[]string{"│ one", "│", "│ two"}},
		{"fenced code kept as it is", "Run:\n\n```sh\ntracesim sim a.tsim   --model flow\n\tx\n```", 12,
			[]string{"Run:", "", "  tracesim sim a.tsim   --model flow", "      x"}},
		{"code span", "press `r` now", 40, []string{"press r now"}},
		{"link with its target", "see [the docs](https://example.org/x) and <https://a.b>", 80,
			[]string{"see the docs (https://example.org/x) and https://a.b"}},
		{"rule", "a\n\n---\n\nb", 10, []string{"a", "", "──────────", "", "b"}},
		{"table aligned", "| rank | time |\n|---|---:|\n| 0 | 1.5 |\n| 12 | 10 |", 40,
			[]string{"rank  time", "────  ────", "0      1.5", "12      10"}},
		{"html comment and inline html dropped", "<!-- step\nkeys: 7\n-->\nText <b>bold</b>.", 40,
			[]string{"Text bold."}},
		{"image as its alt text", "![a ring](ring.png)", 40, []string{"[image: a ring]"}},
		{"strikethrough", "~~old~~ new", 40, []string{"old new"}},
		{"empty", "", 40, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Render(tc.src, tc.width, StylesFor(themes.Mono()))
			for i := range got {
				got[i] = ansi.Strip(got[i])
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestAttributes checks that emphasis is drawn with attributes, and in
// colour only in a colour theme.
func TestAttributes(t *testing.T) {
	src := "## Head\n\nA **strong** and *soft* word, `code`."
	mono := strings.Join(Render(src, 60, StylesFor(themes.Mono())), "\n")
	for _, want := range []string{"\x1b[1mHead", "\x1b[1mstrong", "\x1b[3msoft"} {
		if !strings.Contains(mono, want) {
			t.Errorf("mono: no %q in %q", want, mono)
		}
	}
	if strings.Contains(mono, "38;") {
		t.Errorf("mono draws colours: %q", mono)
	}
	dark := strings.Join(Render(src, 60, StylesFor(themes.Dark())), "\n")
	if !strings.Contains(dark, "38;2;") {
		t.Errorf("dark theme draws no colour: %q", dark)
	}
	if ansi.Strip(dark) != ansi.Strip(mono) {
		t.Errorf("the themes draw different text:\n%q\n%q", ansi.Strip(dark), ansi.Strip(mono))
	}
}

// FuzzRender: any input draws without panicking, and every line but code
// and table lines fits the width.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"# a\n\n- b\n  1. c\n> d\n\n```\ne\n```\n| x |\n|---|\n| y |", "*a **b** c*", "[x](y) <z> ![i](j)", "    code\n\n---"} {
		f.Add(s, 20)
	}
	f.Fuzz(func(t *testing.T, src string, width int) {
		width = width%200 + 1
		if width < 1 {
			width = -width + 1
		}
		lines := Render(src, width, StylesFor(themes.Mono()))
		if strings.Contains(src, "```") || strings.Contains(src, "    ") || strings.Contains(src, "\t") ||
			strings.Contains(src, "|") || strings.Contains(src, "~~~") {
			return // code blocks and tables are not wrapped
		}
		for _, l := range lines {
			// A list or quote nested deeper than the width is drawn
			// past it rather than lost.
			if w := ansi.StringWidth(l); w > max(width, 10) && !strings.ContainsAny(l, "•│") && !strings.Contains(l, ". ") {
				t.Fatalf("line %q is %d wide, over %d", l, w, max(width, 10))
			}
		}
	})
}

// TestRenderKeepsWidthAndText: the inputs fuzzing found past the width
// come out within it, every non-blank character still drawn.
func TestRenderKeepsWidthAndText(t *testing.T) {
	for _, src := range []string{
		"0000000000 -",
		" ~0 00000000\xe00  \xa40000000000000000000000000000000000000000000000000~000",
	} {
		lines := Render(src, 10, StylesFor(themes.Mono()))
		var drawn strings.Builder
		for _, l := range lines {
			if w := ansi.StringWidth(l); w > 10 {
				t.Errorf("%q: line %q is %d wide, over 10", src, l, w)
			}
			drawn.WriteString(ansi.Strip(l))
		}
		nonBlank := func(s string) string { return strings.Join(strings.Fields(s), "") }
		if got, want := nonBlank(drawn.String()), nonBlank(strings.ToValidUTF8(strings.ReplaceAll(src, "~", ""), "\uFFFD")); got != want {
			t.Errorf("%q: drawn %q, want %q", src, got, want)
		}
	}
}
