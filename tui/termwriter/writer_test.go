package termwriter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// screen is a test terminal: the writer's output goes to a vt, and each
// write is reported on writes.
type screen struct {
	mu     sync.Mutex
	vt     *vt
	all    bytes.Buffer
	writes chan string
	fail   int           // writes left to fail
	hold   chan struct{} // when set, a write waits for it to close
	held   chan struct{} // a write is waiting on hold
}

func newScreen(w, h int) *screen {
	return &screen{vt: newVT(w, h), writes: make(chan string, 1000)}
}

func (s *screen) Write(b []byte) (int, error) {
	if s.hold != nil {
		select {
		case s.held <- struct{}{}:
		default:
		}
		<-s.hold
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail > 0 {
		s.fail--
		s.writes <- ""
		return 0, errors.New("client gone")
	}
	s.vt.Write(b)
	s.all.Write(b)
	s.writes <- string(b)
	return len(b), nil
}

// next waits for the writer's next write and returns it.
func (s *screen) next(t *testing.T) string {
	t.Helper()
	select {
	case b := <-s.writes:
		return b
	case <-time.After(5 * time.Second):
		t.Fatal("the writer wrote nothing within 5 s")
		return ""
	}
}

// none checks that the writer writes nothing for a while.
func (s *screen) none(t *testing.T) {
	t.Helper()
	select {
	case b := <-s.writes:
		t.Errorf("the writer wrote %q, want nothing", b)
	case <-time.After(50 * time.Millisecond):
	}
}

// fresh is what content looks like drawn on a clean w×h terminal: each
// line from its row's left edge.
func fresh(content string, w, h int) *vt {
	t := newVT(w, h)
	for y, line := range strings.Split(content, "\n") {
		if y >= h {
			break
		}
		fmt.Fprintf(t, "\x1b[%d;1H%s\x1b[m", y+1, line)
	}
	return t
}

func view(content string) tea.View {
	v := tea.NewView(content)
	v.AltScreen = true
	return v
}

const (
	red  = "\x1b[1;38;2;255;0;0m"
	blue = "\x1b[48;2;0;0;255m"
	off  = "\x1b[m"
)

// TestFrames draws frames one after the other and checks that the
// screen then shows the last one exactly as a clean terminal shows it
// (every cell's text and style), and the rows a user reads.
func TestFrames(t *testing.T) {
	type step struct {
		content string
		w, h    int // a resize before the frame (0: none)
	}
	for _, c := range []struct {
		name   string
		w, h   int
		steps  []step
		expect string   // the last frame as it must look (default: its content)
		want   []string // the screen's rows, trailing spaces removed
	}{
		{"shorter frame", 20, 4, []step{{content: "one\ntwo\nthree\nfour"}, {content: "uno\ndos"}}, "",
			[]string{"uno", "dos", "", ""}},
		{"shorter lines", 20, 2, []step{{content: "hello world\nsecond line"}, {content: "hi\nsecond line"}}, "",
			[]string{"hi", "second line"}},
		{"styled lines", 20, 3, []step{
			{content: red + "alarm" + off + " plain\n" + blue + "blue to the end\nplain"},
			{content: "calm plain\n" + blue + "blue" + off + " short\n" + red + "red"}}, "",
			[]string{"calm plain", "blue short", "red"}},
		{"wide runes", 12, 3, []step{{content: "漢字テスト\na🙂b\nplain text"}, {content: "ab漢\n漢字テスト\nx"}}, "",
			[]string{"ab漢", "漢字テスト", "x"}},
		{"full width lines", 10, 3, []step{{content: "0123456789\n漢字テスト12\nabc"}, {content: "0123456789\nabcdefghij\n漢字テスト"}}, "",
			[]string{"0123456789", "abcdefghij", "漢字テスト"}},
		{"too wide", 8, 2, []step{{content: "0123456789abc\n" + red + "redredredred"}}, "01234567\n" + red + "redredre",
			[]string{"01234567", "redredre"}},
		{"grow", 10, 2, []step{{content: "small\nscreen"}, {content: "a bigger\nscreen now\nthird row", w: 14, h: 4}}, "",
			[]string{"a bigger", "screen now", "third row", ""}},
		{"shrink", 14, 4, []step{{content: "a bigger\nscreen\nthird\nfourth"}, {content: "tiny\nrow", w: 6, h: 2}}, "",
			[]string{"tiny", "row"}},
		{"padding", 24, 3, []step{
			{content: "long line of text here\n" + red + "red" + off + " tail      \n" + blue + "blue pad      "},
			{content: "short   \n" + red + "r" + off + "   \n" + blue + "b     "}}, "",
			[]string{"short", "r", "b"}},
		{"more lines than rows", 10, 2, []step{{content: "a\nb\nc\nd"}}, "a\nb", []string{"a", "b"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := newScreen(c.w, c.h)
			w := New(s, nil, c.w, c.h)
			defer w.Close()
			width, height := c.w, c.h
			for _, st := range c.steps {
				if st.w > 0 {
					width, height = st.w, st.h
					s.mu.Lock()
					s.vt.resize(width, height)
					s.mu.Unlock()
					w.Resize(width, height)
				}
				w.Render(view(st.content))
				s.next(t)
			}
			expect := c.expect
			if expect == "" {
				expect = c.steps[len(c.steps)-1].content
			}
			s.mu.Lock()
			defer s.mu.Unlock()
			if got := s.vt.text(); !equal(got, c.want) {
				t.Errorf("screen rows %q, want %q", got, c.want)
			}
			if x, y, ok := s.vt.sameCells(fresh(expect, width, height)); !ok {
				t.Errorf("cell (%d,%d) differs from a clean drawing: %+v, want %+v\nbytes %q",
					x, y, s.vt.cells[y][x], fresh(expect, width, height).cells[y][x], s.all.String())
			}
			if s.vt.scrolls != 0 {
				t.Errorf("the screen scrolled %d lines", s.vt.scrolls)
			}
		})
	}
}

func equal(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n")
}

// TestChangedLinesOnly checks that a frame rewrites only the lines that
// changed, and that an unchanged frame writes nothing.
func TestChangedLinesOnly(t *testing.T) {
	s := newScreen(30, 4)
	w := New(s, nil, 30, 4)
	defer w.Close()
	w.Render(view("first row\nsecond row\nthird row\nfourth row"))
	s.next(t)
	w.Render(view("first row\nsecond ROW\nthird row\nfourth row"))
	got := s.next(t)
	if !strings.Contains(got, "\x1b[2;1Hsecond ROW") || strings.Contains(got, "first") || strings.Contains(got, "third") || strings.Contains(got, "fourth") {
		t.Errorf("second frame wrote %q, want only row 2", got)
	}
	w.Render(view("first row\nsecond ROW\nthird row\nfourth row"))
	s.none(t)
}

// TestModes checks what the first frame turns on (alternate screen,
// mouse, bracketed paste, title, hidden cursor), wraps frames in mode
// 2026 once the terminal has it, and what Close turns back off.
func TestModes(t *testing.T) {
	s := newScreen(20, 2)
	w := New(s, []string{"TERM=xterm-256color"}, 20, 2)
	v := view("hello")
	v.MouseMode = tea.MouseModeCellMotion
	v.WindowTitle = "tracesim — x.tsim"
	w.Render(v)
	first := s.next(t)
	if !strings.HasPrefix(first, ansi.RequestModeSynchronizedOutput) {
		t.Errorf("first write %q does not ask about mode 2026 first", first)
	}
	s.mu.Lock()
	for _, m := range []string{"1049", "1002", "1006", "2004"} {
		if !s.vt.modes[m] {
			t.Errorf("mode %s not set by the first frame", m)
		}
	}
	if on, ok := s.vt.modes["25"]; !ok || on {
		t.Error("the cursor is not hidden")
	}
	if s.vt.title != "tracesim — x.tsim" {
		t.Errorf("title %q", s.vt.title)
	}
	s.mu.Unlock()

	w.SetSync(true)
	v.Content = "hello again"
	w.Render(v)
	if got := s.next(t); !strings.HasPrefix(got, ansi.SetModeSynchronizedOutput) || !strings.HasSuffix(got, ansi.ResetModeSynchronizedOutput) {
		t.Errorf("frame %q is not wrapped in mode 2026", got)
	}
	w.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range []string{"1049", "1002", "1006", "2004"} {
		if s.vt.modes[m] {
			t.Errorf("mode %s still set after Close", m)
		}
	}
	if !s.vt.modes["25"] || s.vt.title != "" {
		t.Errorf("after Close: cursor shown %v, title %q; want shown, empty", s.vt.modes["25"], s.vt.title)
	}
	// Frames after Close are ignored.
	w.Render(view("late"))
	if bytes.Contains(s.all.Bytes(), []byte("late")) {
		t.Error("a frame after Close was written")
	}
}

// TestModeChanges checks that a later frame turns on and off exactly the
// terminal modes its view changed: alternate screen (1049), bracketed
// paste (2004), focus events (1004) and the mouse (1002/1003 with 1006).
func TestModeChanges(t *testing.T) {
	s := newScreen(20, 2)
	w := New(s, []string{"TERM=xterm-256color"}, 20, 2)
	v := view("one")
	v.MouseMode = tea.MouseModeCellMotion
	w.Render(v)
	s.next(t)
	for _, c := range []struct {
		name string
		edit func(*tea.View)
		want map[string]bool
	}{
		{"first frame", func(*tea.View) {}, map[string]bool{"1049": true, "2004": true, "1004": false, "1002": true, "1003": false, "1006": true}},
		{"focus on, paste off", func(v *tea.View) { v.ReportFocus = true; v.DisableBracketedPasteMode = true },
			map[string]bool{"1049": true, "2004": false, "1004": true, "1002": true, "1006": true}},
		{"main screen, all motion", func(v *tea.View) { v.AltScreen = false; v.MouseMode = tea.MouseModeAllMotion },
			map[string]bool{"1049": false, "2004": false, "1004": true, "1002": false, "1003": true, "1006": true}},
		{"back: paste on, focus off, no mouse", func(v *tea.View) {
			v.AltScreen = true
			v.DisableBracketedPasteMode = false
			v.ReportFocus = false
			v.MouseMode = tea.MouseModeNone
		}, map[string]bool{"1049": true, "2004": true, "1004": false, "1002": false, "1003": false, "1006": false}},
	} {
		c.edit(&v)
		v.Content = c.name
		w.Render(v)
		s.next(t)
		s.mu.Lock()
		for m, on := range c.want {
			if s.vt.modes[m] != on {
				t.Errorf("%s: mode %s set %v, want %v", c.name, m, s.vt.modes[m], on)
			}
		}
		s.mu.Unlock()
	}
	w.Close()
}

// TestQueryEnvironment checks when the writer asks the terminal about
// synchronized output: as Bubble Tea does, not over SSH.
func TestQueryEnvironment(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want bool
	}{
		{[]string{"TERM=xterm-256color"}, true},
		{[]string{"TERM=xterm-256color", "SSH_TTY=/dev/pts/3"}, false},
		{[]string{"TERM=xterm-kitty", "SSH_TTY=/dev/pts/3"}, true},
		{[]string{"TERM=xterm-256color", "TERM_PROGRAM=Apple_Terminal"}, false},
		{[]string{"TERM=xterm-256color", "TERM_PROGRAM=WezTerm"}, true},
	} {
		if got := querySync(c.env); got != c.want {
			t.Errorf("querySync(%q) = %v, want %v", c.env, got, c.want)
		}
	}
}

// TestLatestFrameWins blocks the terminal while frames keep coming: Render
// never waits for it, and once it drains only the latest frame is drawn.
func TestLatestFrameWins(t *testing.T) {
	s := newScreen(20, 1)
	s.hold, s.held = make(chan struct{}), make(chan struct{}, 1)
	w := New(s, nil, 20, 1)
	w.Render(view("frame 0"))
	<-s.held // the terminal takes no more
	done := make(chan struct{})
	go func() {
		for i := 1; i <= 100; i++ {
			w.Render(view(fmt.Sprintf("frame %d", i)))
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Render waited for a blocked terminal")
	}
	close(s.hold)
	s.next(t) // frame 0, written while the others came
	if got := s.next(t); !strings.Contains(got, "frame 100") || strings.Contains(got, "frame 99") {
		t.Errorf("after the terminal drained, wrote %q; want frame 100 only", got)
	}
	s.none(t)
	w.Close()
}

// TestRepaint checks ctrl+l's repaint over a garbled screen, and that a
// failed write makes the next frame a whole one.
func TestRepaint(t *testing.T) {
	s := newScreen(20, 3)
	w := New(s, nil, 20, 3)
	defer w.Close()
	content := "one\n" + red + "two" + off + "\nthree"
	w.Render(view(content))
	s.next(t)
	s.mu.Lock()
	s.vt.Write([]byte("\x1b[2;1Hgarbage from elsewhere"))
	s.mu.Unlock()
	m := w.Model(stub{view(content)})
	m.Update(tea.KeyPressMsg{Code: 'l', Mod: tea.ModCtrl})
	m.View()
	s.next(t)
	s.mu.Lock()
	if _, _, ok := s.vt.sameCells(fresh(content, 20, 3)); !ok {
		t.Errorf("after ctrl+l the screen shows %q", s.vt.text())
	}
	s.mu.Unlock()

	s.mu.Lock()
	s.fail = 1
	s.mu.Unlock()
	w.Render(view("one\ntwo\nTHREE"))
	s.next(t) // failed
	w.Render(view("one\ntwo\nthree!"))
	if got := s.next(t); !strings.Contains(got, "one") || !strings.Contains(got, "three!") {
		t.Errorf("after a failed write the next frame %q is not whole", got)
	}
}

// TestProfile checks that colours are converted to the terminal's
// profile, as Bubble Tea's renderer does.
func TestProfile(t *testing.T) {
	for _, c := range []struct {
		p          colorprofile.Profile
		want, nope string
	}{
		{colorprofile.TrueColor, "38;2;255;0;0", ""},
		{colorprofile.ANSI256, "38;5;196", "38;2;"},
		{colorprofile.ASCII, "\x1b[1mred", "38;"},
	} {
		s := newScreen(10, 1)
		w := New(s, nil, 10, 1)
		m := w.Model(stub{view(red + "red" + off)})
		m.Update(tea.ColorProfileMsg{Profile: c.p})
		m.View()
		got := s.next(t)
		w.Close()
		if !strings.Contains(got, c.want) || (c.nope != "" && strings.Contains(got, c.nope)) {
			t.Errorf("%v: wrote %q, want %q in it and no %q", c.p, got, c.want, c.nope)
		}
	}
}

// TestModelMessages checks the messages the wrapper passes to the writer
// and on to the model.
func TestModelMessages(t *testing.T) {
	s := newScreen(10, 2)
	w := New(s, nil, 10, 2)
	defer w.Close()
	inner := &counter{}
	m := w.Model(inner)
	m.Update(tea.ModeReportMsg{Mode: ansi.ModeSynchronizedOutput, Value: ansi.ModeReset})
	m.Update(tea.WindowSizeMsg{Width: 12, Height: 3})
	m.View()
	got := s.next(t)
	if !strings.Contains(got, ansi.SetModeSynchronizedOutput) || !strings.HasSuffix(got, ansi.ResetModeSynchronizedOutput) ||
		!strings.Contains(got, ansi.EraseEntireScreen) {
		t.Errorf("frame after a mode report and a resize %q: want synchronized and whole", got)
	}
	if inner.n != 2 || Inner(m) != inner {
		t.Errorf("the model got %d messages, want 2 (and Inner must return it)", inner.n)
	}
}

type stub struct{ v tea.View }

func (s stub) Init() tea.Cmd                       { return nil }
func (s stub) Update(tea.Msg) (tea.Model, tea.Cmd) { return s, nil }
func (s stub) View() tea.View                      { return s.v }

type counter struct{ n int }

func (c *counter) Init() tea.Cmd                       { return nil }
func (c *counter) Update(tea.Msg) (tea.Model, tea.Cmd) { c.n++; return c, nil }
func (c *counter) View() tea.View                      { return view(fmt.Sprint(c.n)) }

// TestClosedWriterKeepsNoFrame checks that a closed writer holds none of
// the frames it was given: a program's command can outlive the program
// (a tea.Tick waits out its timer) and keep the writer reachable through
// the model, so whatever it holds after Close is kept that long.
func TestClosedWriterKeepsNoFrame(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []string
		after  string // rendered after Close (ignored)
	}{
		{name: "drawn", frames: []string{"first\nframe"}},
		{name: "several", frames: []string{"a", "b\nc", "d\ne\nf"}},
		{name: "rendered after close", frames: []string{"x"}, after: "late frame"},
		{name: "none", after: "late frame"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newScreen(20, 4)
			w := New(s, nil, 20, 4)
			for _, f := range tc.frames {
				w.Render(view(f))
				s.next(t)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			if tc.after != "" {
				w.Render(view(tc.after))
				w.Repaint()
			}
			w.mu.Lock()
			next, queued, pending := w.next.Content, w.queued, w.pending
			w.mu.Unlock()
			if next != "" || queued || pending {
				t.Errorf("after Close: next frame %q (queued %v, pending %v), want none", next, queued, pending)
			}
			if w.shown.Content != "" || w.lines != nil || w.buf.Cap() != 0 {
				t.Errorf("after Close: shown %q, %d lines %q, a %d-byte buffer; want none", w.shown.Content, len(w.lines), w.lines, w.buf.Cap())
			}
		})
	}
}

// TestInline checks that an inline writer has each frame on the screen
// when Render returns (no hand-over to the drawing goroutine), changed
// rows only, and that frames drawn by its goroutine (a repaint) and
// inline ones take turns without losing one.
func TestInline(t *testing.T) {
	s := newScreen(20, 3)
	w := New(s, nil, 20, 3)
	w.SetInline(true)
	defer w.Close()
	for i, c := range []struct {
		content string
		repaint bool     // ask for a repaint (drawn by the goroutine) first
		want    []string // the screen's rows
		wrote   string   // a part of the frame's bytes
	}{
		{"one\ntwo\nthree", false, []string{"one", "two", "three"}, "three"},
		{"one\n2\nthree", false, []string{"one", "2", "three"}, "\x1b[2;1H2"},
		{"uno\n2\nthree", true, []string{"uno", "2", "three"}, "uno"},
		{"uno\n2\ntres", false, []string{"uno", "2", "tres"}, "\x1b[3;1Htres"},
	} {
		if c.repaint {
			w.Repaint()
			s.next(t) // the goroutine redraws the last frame whole
		}
		w.Render(view(c.content))
		var got string
		select {
		case got = <-s.writes:
		default:
			t.Fatalf("frame %d: nothing written when Render returned", i)
		}
		if !strings.Contains(got, c.wrote) {
			t.Errorf("frame %d wrote %q, want it to hold %q", i, got, c.wrote)
		}
		s.mu.Lock()
		rows := s.vt.text()
		s.mu.Unlock()
		if !equal(rows, c.want) {
			t.Errorf("frame %d: screen rows %q, want %q", i, rows, c.want)
		}
	}
	s.none(t)
}
