package termwriter

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// TestFilter checks that the messages with which Bubble Tea would write to
// the terminal (and flush on its ticker) are written by the writer at
// once, byte for byte as Bubble Tea writes them, and dropped, and that
// every other message passes unchanged.
func TestFilter(t *testing.T) {
	for _, c := range []struct {
		name  string
		msg   tea.Msg
		wrote string // "": the message passes
	}{
		{"background colour", tea.RequestBackgroundColor(), "\x1b]11;?\x07"},
		{"foreground colour", tea.RequestForegroundColor(), "\x1b]10;?\x07"},
		{"cursor colour", tea.RequestCursorColor(), "\x1b]12;?\x07"},
		{"cursor position", tea.RequestCursorPosition(), "\x1b[6n"},
		{"terminal version", tea.RequestTerminalVersion(), "\x1b[>q"},
		{"capability", tea.RequestCapability("RGB")(), "\x1bP+q524742\x1b\\"},
		{"set clipboard", tea.SetClipboard("hi")(), "\x1b]52;c;aGk=\x07"},
		{"read clipboard", tea.ReadClipboard(), "\x1b]52;c;?\x07"},
		{"set primary", tea.SetPrimaryClipboard("hi")(), "\x1b]52;p;aGk=\x07"},
		{"raw", tea.Raw("\x1b[?1049h")(), "\x1b[?1049h"},
		{"key", tea.KeyPressMsg{Code: 'a', Text: "a"}, ""},
		{"size", tea.WindowSizeMsg{Width: 10, Height: 2}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, inline := range []bool{false, true} {
				s := newScreen(10, 2)
				w := New(s, nil, 10, 2)
				w.SetInline(inline)
				w.Render(view("frame"))
				s.next(t)
				got := w.Filter(nil, c.msg)
				if c.wrote == "" {
					if got != c.msg {
						t.Errorf("inline %v: Filter returned %#v, want the message %#v", inline, got, c.msg)
					}
					s.none(t)
				} else {
					if got != nil {
						t.Errorf("inline %v: Filter returned %#v, want nil (written by the writer)", inline, got)
					}
					if b := s.next(t); b != c.wrote {
						t.Errorf("inline %v: wrote %q, want %q", inline, b, c.wrote)
					}
				}
				_ = w.Close()
			}
		})
	}
}

// TestOutputBeforeFirstFrame checks that output given before any frame
// waits for the first one (it needs the terminal set up first) and goes
// ahead of its content, once.
func TestOutputBeforeFirstFrame(t *testing.T) {
	s := newScreen(10, 2)
	w := New(s, nil, 10, 2)
	defer w.Close()
	w.Output("\x1b]11;?\x07")
	s.none(t)
	w.Render(view("first"))
	got := s.next(t)
	q, f := strings.Index(got, "\x1b]11;?\x07"), strings.Index(got, "first")
	if q < 0 || f < 0 || q > f {
		t.Errorf("first frame %q: want the query once, before the content", got)
	}
	w.Render(view("second"))
	if got := s.next(t); strings.Contains(got, "\x1b]11;?") {
		t.Errorf("second frame %q repeats the query", got)
	}
}

// TestLineWidth checks lineWidth against ansi.StringWidth: every rune its
// fast path counts as one cell, alone and between others, and lines that
// take the fast path or fall back to ansi.StringWidth.
func TestLineWidth(t *testing.T) {
	for r := rune(0); r <= 0x2fff; r++ {
		if !narrow(r) {
			continue
		}
		s := "a" + string(r) + string(r) + "\x1b[1mb\x1b[m"
		if got, want := lineWidth(s), ansi.StringWidth(s); got != want || got != 4 {
			t.Errorf("U+%04X: lineWidth(%q) = %d, ansi.StringWidth %d, want 4", r, s, got, want)
		}
	}
	for _, c := range []struct {
		line string
		want int
	}{
		{"", 0},
		{"plain ascii", 11},
		{"\x1b[38;2;1;2;3;48;5;7m█▌▐ • ◆ ◇ ▸ ◂ µs ± ×\x1b[m  ", 22},
		{"wide 世界", 9},
		{"e\u0301 combining", 11},
		{"flag 🇫🇷 emoji ⌚", 16},
		{"\x1b]8;;http://x\x07link\x1b]8;;\x07", 4},
		{"soft\u00adhyphen", 10},
		{"tab\there", ansi.StringWidth("tab\there")},
		{"cut CSI \x1b[12", ansi.StringWidth("cut CSI \x1b[12")},
		{"bad \xff utf-8", ansi.StringWidth("bad \xff utf-8")},
		{"◽ wide square", 14},
	} {
		if got, std := lineWidth(c.line), ansi.StringWidth(c.line); got != c.want || got != std {
			t.Errorf("lineWidth(%q) = %d, ansi.StringWidth %d, want %d", c.line, got, std, c.want)
		}
	}
}
