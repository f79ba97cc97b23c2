package cellbuf

import (
	"image/color"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
)

func TestRenderRuns(t *testing.T) {
	red := Style{Fg: RGB(255, 0, 0)}
	blueBg := Style{Bg: RGB(0, 0, 255), Attrs: Bold}
	tests := []struct {
		name string
		mode Mode
		draw func(b *Buffer)
		want string
	}{
		{"blank", ModeColor, func(b *Buffer) {}, "    \n    "},
		{"one run per style", ModeColor, func(b *Buffer) {
			b.Fill(0, 0, 3, 1, 'x', red)
			b.Set(3, 0, 'y', blueBg)
		}, "\x1b[0;38;2;255;0;0mxxx\x1b[0;1;48;2;0;0;255my\x1b[m\n    "},
		{"back to default", ModeColor, func(b *Buffer) {
			b.Set(1, 1, 'z', red)
		}, "    \n \x1b[0;38;2;255;0;0mz\x1b[0m  "},
		{"no colour keeps attributes", ModeNoColor, func(b *Buffer) {
			b.Fill(0, 0, 2, 1, 'x', red)
			b.Set(2, 0, 'y', blueBg)
		}, "xx\x1b[0;1my\x1b[0m \n    "},
		{"plain", ModePlain, func(b *Buffer) {
			b.Fill(0, 0, 4, 2, '#', blueBg)
		}, "####\n####"},
		{"clipped writes", ModePlain, func(b *Buffer) {
			b.Set(-1, 0, 'a', Style{})
			b.Set(4, 0, 'a', Style{})
			b.Fill(-2, -2, 3, 3, 'b', Style{})
			b.SetString(2, 1, "hello", Style{}, -1)
		}, "b   \n  he"},
		{"set string width limit and odd runes", ModePlain, func(b *Buffer) {
			b.SetString(0, 0, "a\tb世", Style{}, 3)
			b.SetString(0, 1, "e\u0301xyz", Style{}, -1)
		}, "a?b \nexyz"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := New(4, 2)
			b.Mode = tc.mode
			tc.draw(b)
			got := b.Render()
			if got != tc.want {
				t.Errorf("Render() = %q, want %q", got, tc.want)
			}
			for i, line := range strings.Split(got, "\n") {
				if w := ansi.StringWidth(line); w != 4 {
					t.Errorf("line %d is %d cells wide, want 4", i, w)
				}
			}
		})
	}
}

func TestModeOf(t *testing.T) {
	for _, tc := range []struct {
		th   *themes.Theme
		want Mode
	}{{themes.Dark(), ModeColor}, {themes.ColorBlind(false), ModeColor}, {themes.Mono(), ModeNoColor}, {nil, ModeNoColor}} {
		if got := ModeOf(tc.th); got != tc.want {
			t.Errorf("ModeOf(%v) = %v, want %v", tc.th, got, tc.want)
		}
	}
	// NO_COLOR: the default theme is monochrome and the buffer emits no
	// colour.
	b := New(3, 1)
	b.Mode = ModeOf(themes.Default([]string{"NO_COLOR=1"}, true))
	b.Fill(0, 0, 3, 1, '#', Style{Fg: RGB(1, 2, 3), Bg: RGB(4, 5, 6), Attrs: Reverse})
	if got, want := b.Render(), "\x1b[0;7m###\x1b[m"; got != want {
		t.Errorf("NO_COLOR render = %q, want %q", got, want)
	}
}

func TestFromColor(t *testing.T) {
	if got := FromColor(nil); got != NoColor {
		t.Errorf("FromColor(nil) = %v, want NoColor", got)
	}
	c := FromColor(color.RGBA{R: 0x12, G: 0x34, B: 0x56, A: 0xff})
	r, g, b, ok := c.RGB()
	if r != 0x12 || g != 0x34 || b != 0x56 || !ok {
		t.Errorf("RGB() = %x %x %x %v", r, g, b, ok)
	}
	if _, _, _, ok := FromColor(color.Black).RGB(); !ok {
		t.Error("black must be a set colour, not the terminal default")
	}
}

func TestResizeAndSizes(t *testing.T) {
	b := New(0, 0)
	if got := b.Render(); got != "" {
		t.Errorf("empty buffer renders %q", got)
	}
	for _, sz := range [][2]int{{1, 1}, {10, 3}, {3, 10}, {-1, 4}} {
		b.Resize(sz[0], sz[1])
		b.Fill(0, 0, 100, 100, '█', Style{Fg: RGB(1, 2, 3)})
		out := b.Render()
		w, h := max(sz[0], 0), max(sz[1], 0)
		lines := strings.Split(out, "\n")
		if w == 0 || h == 0 {
			continue
		}
		if len(lines) != h {
			t.Fatalf("%v: %d lines, want %d", sz, len(lines), h)
		}
		for _, l := range lines {
			if ansi.StringWidth(l) != w {
				t.Fatalf("%v: line %q is %d wide", sz, l, ansi.StringWidth(l))
			}
			if n := strings.Count(l, "\x1b[0;"); n != 1 {
				t.Fatalf("%v: %d style sequences in a uniform line, want 1", sz, n)
			}
		}
	}
	if c := b.At(100, 100); c != (Cell{}) {
		t.Errorf("At outside = %v", c)
	}
	if b.Ptr(-1, 0) != nil {
		t.Error("Ptr outside must be nil")
	}
}

// BenchmarkRender renders a 200×60 frame of vertical stripes (a colour
// change every 4 cells, as a busy timeline has).
func BenchmarkRender(b *testing.B) {
	buf := New(200, 60)
	for y := range 60 {
		for x := range 200 {
			buf.Set(x, y, '▌', Style{Fg: RGB(uint8(x/4), 0, 0), Bg: RGB(0, uint8(y), 0)})
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		buf.Render()
	}
}
