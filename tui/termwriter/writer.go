// Package termwriter draws a Bubble Tea program's frames on a terminal as
// soon as the program has a new one, in place of Bubble Tea's renderer.
//
// Bubble Tea v2 writes frames on a ticker (at most 120 a second), never
// right after an update, so a key press waits up to a tick before it
// reaches the screen; and its cell renderer parses every frame into cells
// to diff them, which is most of the UI's CPU time per key. A Writer
// instead diffs frames by line and writes the changed lines at once, from
// a goroutine of its own: Update never waits for the terminal, and when
// frames come faster than the terminal takes them (a slow SSH client) only
// the latest one is written.
//
// Run the program with tea.WithoutRenderer and the model wrapped by
// Writer.Model; call Close when the program has ended. Each terminal has
// its own Writer.
package termwriter

import (
	"bytes"
	"image/color"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
)

// Writer draws frames on one terminal. Its methods may be called from any
// goroutine.
type Writer struct {
	out   io.Writer
	query bool // ask the terminal about synchronized output first

	mu            sync.Mutex
	next          tea.View // the latest frame, not yet written when pending
	pending       bool
	queued        bool // next holds a frame (written or not)
	repaint       bool // the next write redraws the whole screen
	width, height int
	profile       colorprofile.Profile
	sync          bool // the terminal supports mode 2026
	closed        bool
	// output is what Output was given and not yet written: it goes
	// before the next frame.
	output string
	// outputs are the Bubble Tea messages Filter takes over.
	outputs map[reflect.Type]func(tea.Msg) string

	// inline lets Render draw the frame itself when no drawing is under
	// way (SetInline).
	inline bool
	// drawing is held while a frame is drawn, by the drawing goroutine
	// or, inline, by Render: the state below is one drawer's at a time.
	drawing sync.Mutex

	kick chan struct{} // a frame is pending (capacity 1)
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the drawing goroutine has ended

	// The drawing goroutine's own state: what the terminal shows.
	started bool
	lines   []string // the rows drawn, exactly the height in force
	shown   tea.View // the modes, title and colours in force
	cursor  bool     // the cursor is visible
	buf     bytes.Buffer
	conv    colorprofile.Writer
}

// New returns a Writer drawing on out, a width×height terminal whose
// environment is environ (it decides whether to ask the terminal about
// synchronized output, as Bubble Tea does). The drawing goroutine runs
// until Close.
func New(out io.Writer, environ []string, width, height int) *Writer {
	w := &Writer{
		out: out, query: querySync(environ),
		width: width, height: height, profile: colorprofile.TrueColor,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		outputs: outputs(),
	}
	go w.loop()
	return w
}

// querySync reports whether the terminal should be asked about mode 2026:
// not over SSH (whose far end may not answer) nor in Apple's Terminal,
// unless the terminal is one known to answer. Bubble Tea asks under the
// same conditions; an unanswered query is harmless, frames are then
// written without the mode.
func querySync(environ []string) bool {
	get := func(k string) (string, bool) {
		for i := len(environ) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(environ[i], k+"="); ok {
				return v, true
			}
		}
		return "", false
	}
	termType, _ := get("TERM")
	prog, isProg := get("TERM_PROGRAM")
	_, isSSH := get("SSH_TTY")
	_, isWT := get("WT_SESSION")
	for _, t := range []string{"ghostty", "wezterm", "alacritty", "kitty", "rio"} {
		if strings.Contains(termType, t) {
			return true
		}
	}
	return isWT || (!isSSH && (!isProg || !strings.Contains(prog, "Apple")))
}

// Render hands the writer a frame: it is written as soon as the drawing
// goroutine is free, unless a newer frame replaces it first. Render never
// waits for the terminal.
func (w *Writer) Render(v tea.View) {
	w.mu.Lock()
	if w.closed || (w.queued && sameView(v, w.next)) {
		w.mu.Unlock()
		return
	}
	w.next, w.queued, w.pending = v, true, true
	inline := w.inline
	w.mu.Unlock()
	w.deliver(inline)
}

// deliver draws what is pending: here when inline and no drawing is
// under way, else by the drawing goroutine.
func (w *Writer) deliver(inline bool) {
	if inline && w.drawing.TryLock() {
		// Drawn here, the frame needs no hand-over to the drawing
		// goroutine: on a loaded machine each goroutine woken is one
		// more wait for a core before the key reaches the screen.
		w.draw()
		w.drawing.Unlock()
		return
	}
	w.signal()
}

// SetInline sets whether Render writes the frame itself when the writer
// is not drawing already (else it hands it to the drawing goroutine, as
// always without inline). Inline, Render waits for the terminal to take
// the frame: right for a local terminal, whose writes go to the kernel's
// buffer, not for a remote one (an SSH client can stall a write).
func (w *Writer) SetInline(on bool) {
	w.mu.Lock()
	w.inline = on
	w.mu.Unlock()
}

// Resize tells the writer the terminal's new size: the next frame
// repaints the whole screen (the terminal may have reflowed the old one).
func (w *Writer) Resize(width, height int) {
	w.mu.Lock()
	if width != w.width || height != w.height {
		w.width, w.height, w.repaint = width, height, true
	}
	w.mu.Unlock()
}

// Repaint redraws the whole screen with the latest frame (ctrl+l: the
// screen was garbled by another program's output).
func (w *Writer) Repaint() {
	w.mu.Lock()
	w.repaint = true
	w.pending = w.queued
	w.mu.Unlock()
	w.signal()
}

// SetProfile sets the colour profile frames are written in: colours of a
// richer profile are converted, as Bubble Tea's renderer does.
func (w *Writer) SetProfile(p colorprofile.Profile) {
	w.mu.Lock()
	w.profile = p
	w.mu.Unlock()
}

// SetSync tells whether the terminal supports synchronized output (mode
// 2026): each frame is then wrapped in it, so the terminal shows it whole.
func (w *Writer) SetSync(on bool) {
	w.mu.Lock()
	w.sync = on
	w.mu.Unlock()
}

// Close writes the pending frame, if any, then restores the terminal (the
// main screen, the cursor, the modes the frames set) and stops the drawing
// goroutine. Later frames are ignored.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		<-w.done
		return nil
	}
	w.closed = true
	w.mu.Unlock()
	close(w.stop)
	<-w.done
	// The program's commands may outlive it (a tea.Tick waits out its
	// timer), and through the program its model and this writer: the
	// frames go now, not with the last of them.
	w.mu.Lock()
	w.next, w.queued, w.pending, w.output = tea.View{}, false, false, ""
	w.mu.Unlock()
	w.drawing.Lock()
	w.lines, w.shown, w.buf = nil, tea.View{}, bytes.Buffer{}
	w.drawing.Unlock()
	return nil
}

func (w *Writer) signal() {
	select {
	case w.kick <- struct{}{}:
	default: // a frame is already pending: it will be the latest one
	}
}

// loop is the drawing goroutine.
func (w *Writer) loop() {
	defer close(w.done)
	for {
		select {
		case <-w.kick:
			w.drawing.Lock()
			w.draw()
			w.drawing.Unlock()
		case <-w.stop:
			w.drawing.Lock()
			w.draw()
			if w.started {
				w.buf.Reset()
				w.restore()
				_, _ = w.out.Write(w.buf.Bytes())
			}
			w.drawing.Unlock()
			return
		}
	}
}

// frame is what draw takes from the shared state.
type frame struct {
	v             tea.View
	output        string // written before the frame
	repaint, sync bool
	width, height int
	profile       colorprofile.Profile
}

// take returns the pending frame, if any, and marks it taken.
func (w *Writer) take() (frame, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.pending {
		return frame{}, false
	}
	f := frame{v: w.next, output: w.output, repaint: w.repaint, sync: w.sync, width: w.width, height: w.height, profile: w.profile}
	w.pending, w.repaint, w.output = false, false, ""
	return f, true
}

// draw writes the pending frame, if any.
func (w *Writer) draw() {
	f, ok := w.take()
	if !ok {
		return
	}
	w.buf.Reset()
	if !w.started {
		w.started = true
		if w.query {
			w.buf.WriteString(ansi.RequestModeSynchronizedOutput)
		}
		// The keyboard protocols Bubble Tea's renderer turns on, so that
		// keys arrive alike with either renderer.
		w.buf.WriteString(ansi.SetModifyOtherKeys2)
		w.buf.WriteString(ansi.PushKittyKeyboard(kittyFlags(f.v.KeyboardEnhancements)))
		w.buf.WriteString(ansi.ResetModeTextCursorEnable)
		w.cursor = false
		f.repaint = true
		w.modes(tea.View{}, f.v, true)
	} else {
		if f.v.AltScreen != w.shown.AltScreen {
			f.repaint = true
		}
		w.modes(w.shown, f.v, false)
	}
	w.buf.WriteString(f.output)
	w.shown = f.v
	if f.repaint || len(w.lines) != f.height {
		f.repaint = true
		w.lines = append(w.lines[:0], make([]string, f.height)...)
	}
	start := w.buf.Len()
	if f.sync {
		w.buf.WriteString(ansi.SetModeSynchronizedOutput)
	}
	body := w.buf.Len()
	w.content(f)
	w.placeCursor(f.v.Cursor, f.width, f.height)
	if w.buf.Len() == body {
		w.buf.Truncate(start) // nothing changed: no empty frame either
	} else if f.sync {
		w.buf.WriteString(ansi.ResetModeSynchronizedOutput)
	}
	if w.buf.Len() == 0 {
		return
	}
	var err error
	if f.profile < colorprofile.TrueColor {
		// ASCII keeps the control sequences; below it (NoTTY) colours
		// would go with every other sequence, and a frame needs those.
		w.conv = colorprofile.Writer{Forward: w.out, Profile: max(f.profile, colorprofile.ASCII)}
		_, err = w.conv.Write(w.buf.Bytes())
	} else {
		_, err = w.out.Write(w.buf.Bytes())
	}
	if err != nil {
		// What reached the terminal is unknown: draw the next frame whole.
		w.mu.Lock()
		w.repaint = true
		w.mu.Unlock()
	}
}

// content writes the rows of f that differ from what the screen shows.
func (w *Writer) content(f frame) {
	if f.repaint {
		w.buf.WriteString(ansi.ResetStyle + ansi.CursorHomePosition + ansi.EraseEntireScreen)
	}
	rest := f.v.Content
	for row := range f.height {
		var line string
		if rest != "" {
			line, rest, _ = strings.Cut(rest, "\n")
			line = strings.TrimSuffix(line, "\r")
		}
		if line == w.lines[row] && !f.repaint {
			continue
		}
		if f.repaint && line == "" {
			w.lines[row] = ""
			continue // the screen was erased
		}
		w.lines[row] = line
		w.writeLine(row, line, f.width)
	}
}

// writeLine writes one row: the line from the left edge, its style reset
// at its end, and the rest of the row erased unless the line fills it. (A
// line that fills the row leaves the cursor past the last column, where
// erasing would take the last character.)
func (w *Writer) writeLine(row int, line string, width int) {
	w.buf.WriteString(ansi.CursorPosition(1, row+1))
	line = trimPadding(line)
	cols := lineWidth(line)
	if cols > width {
		line, cols = ansi.Truncate(line, width, ""), width
	}
	w.buf.WriteString(line)
	if strings.IndexByte(line, ansi.ESC) >= 0 {
		w.buf.WriteString(ansi.ResetStyle)
	}
	if cols < width {
		w.buf.WriteString(ansi.EraseLineRight)
	}
}

// lineWidth is ansi.StringWidth(line), the cells line takes, found in
// one pass over its bytes when it holds only printable ASCII, narrow
// runes and CSI sequences (a view's styled line: the box drawing, blocks
// and symbols the views draw with): ansi.StringWidth splits every line
// into grapheme clusters, which was most of the writer's time per frame.
// Any other line is measured by ansi.StringWidth.
func lineWidth(line string) int {
	n := 0
	for i := 0; i < len(line); {
		c := line[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == ansi.ESC && i+1 < len(line) && line[i+1] == '[':
			// CSI: parameter bytes, intermediate bytes, a final byte.
			j := i + 2
			for j < len(line) && line[j] >= 0x30 && line[j] <= 0x3f {
				j++
			}
			for j < len(line) && line[j] >= 0x20 && line[j] <= 0x2f {
				j++
			}
			if j >= len(line) || line[j] < 0x40 || line[j] > 0x7e {
				return ansi.StringWidth(line)
			}
			i = j + 1
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(line[i:])
			if !narrow(r) {
				return ansi.StringWidth(line)
			}
			n++
			i += size
		default:
			return ansi.StringWidth(line)
		}
	}
	return n
}

// narrow reports whether r is in the ranges of runes one cell wide that
// never join the runes around them into a wider grapheme cluster (Latin,
// punctuation, arrows, mathematical operators, box drawing, blocks,
// geometric shapes, braille). TestLineWidth checks every one of them
// against ansi.StringWidth.
func narrow(r rune) bool {
	switch {
	case r < 0xa0:
		return false
	case r <= 0x2ff:
		return r != 0xad // the soft hyphen takes no cell
	case r < 0x2010:
		return false
	case r <= 0x2027, r >= 0x2030 && r <= 0x205e, r >= 0x2070 && r <= 0x20cf, r >= 0x2100 && r <= 0x22ff:
		return true
	case r >= 0x2500 && r <= 0x25fc, r >= 0x2800 && r <= 0x28ff:
		return true
	}
	return false
}

// trimPadding drops the spaces that end line in the default style (after
// its last escape sequence when that is a style reset, or in a line
// without any): erasing the rest of
// the row draws them alike, in fewer bytes. Views pad their lines to the
// screen's width.
func trimPadding(line string) string {
	t := strings.TrimRight(line, " ")
	if len(t) == len(line) {
		return line
	}
	i := strings.LastIndexByte(t, ansi.ESC)
	switch {
	case i < 0:
		return t
	case strings.HasPrefix(t[i:], "\x1b[m") || strings.HasPrefix(t[i:], "\x1b[0m"):
		return t // what follows the reset is in the default style
	}
	return line
}

// placeCursor shows the cursor where the view asks, or hides it.
func (w *Writer) placeCursor(c *tea.Cursor, width, height int) {
	if c == nil {
		if w.cursor {
			w.buf.WriteString(ansi.ResetModeTextCursorEnable)
			w.cursor = false
		}
		return
	}
	x, y := min(max(c.X, 0), width-1), min(max(c.Y, 0), height-1)
	w.buf.WriteString(ansi.CursorPosition(x+1, y+1))
	if !w.cursor {
		w.buf.WriteString(ansi.SetModeTextCursorEnable)
		w.cursor = true
	}
}

// mode writes set or reset when a terminal mode the view asks for changed
// from was to on; the first frame writes only the modes it turns on, as
// the terminal starts with all of them off.
func (w *Writer) mode(first, was, on bool, set, reset string) {
	switch {
	case first && on, !first && on && !was:
		w.buf.WriteString(set)
	case !first && was && !on:
		w.buf.WriteString(reset)
	}
}

// modes writes what changed from the view old to v among the settings a
// view asks of the terminal (all of them when first).
func (w *Writer) modes(old, v tea.View, first bool) {
	b := &w.buf
	w.mode(first, old.AltScreen, v.AltScreen, ansi.SetModeAltScreenSaveCursor, ansi.ResetModeAltScreenSaveCursor)
	w.mode(first, !old.DisableBracketedPasteMode, !v.DisableBracketedPasteMode, ansi.SetModeBracketedPaste, ansi.ResetModeBracketedPaste)
	w.mode(first, old.ReportFocus, v.ReportFocus, ansi.SetModeFocusEvent, ansi.ResetModeFocusEvent)
	if first || v.MouseMode != old.MouseMode {
		if !first {
			b.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
		}
		switch v.MouseMode {
		case tea.MouseModeCellMotion:
			b.WriteString(ansi.SetModeMouseButtonEvent + ansi.SetModeMouseExtSgr)
		case tea.MouseModeAllMotion:
			b.WriteString(ansi.SetModeMouseAnyEvent + ansi.SetModeMouseExtSgr)
		}
	}
	if (first && v.WindowTitle != "") || (!first && v.WindowTitle != old.WindowTitle) {
		b.WriteString(ansi.SetWindowTitle(v.WindowTitle))
	}
	if !first && v.KeyboardEnhancements != old.KeyboardEnhancements {
		b.WriteString(ansi.KittyKeyboard(kittyFlags(v.KeyboardEnhancements), 1))
	}
	for _, c := range []struct {
		now, was color.Color
		set      func(string) string
		reset    string
	}{
		{v.ForegroundColor, old.ForegroundColor, ansi.SetForegroundColor, ansi.ResetForegroundColor},
		{v.BackgroundColor, old.BackgroundColor, ansi.SetBackgroundColor, ansi.ResetBackgroundColor},
	} {
		if sameColor(c.now, c.was) && !(first && c.now != nil) {
			continue
		}
		if c.now == nil {
			b.WriteString(c.reset)
		} else {
			b.WriteString(c.set(hex(c.now)))
		}
	}
}

// restore undoes what the frames set: written once, when the writer
// closes.
func (w *Writer) restore() {
	v := w.shown
	b := &w.buf
	b.WriteString(ansi.ResetStyle)
	if !v.DisableBracketedPasteMode {
		b.WriteString(ansi.ResetModeBracketedPaste)
	}
	if v.ReportFocus {
		b.WriteString(ansi.ResetModeFocusEvent)
	}
	if v.MouseMode != tea.MouseModeNone {
		b.WriteString(ansi.ResetModeMouseButtonEvent + ansi.ResetModeMouseAnyEvent + ansi.ResetModeMouseExtSgr)
	}
	if v.WindowTitle != "" {
		b.WriteString(ansi.SetWindowTitle(""))
	}
	if v.ForegroundColor != nil {
		b.WriteString(ansi.ResetForegroundColor)
	}
	if v.BackgroundColor != nil {
		b.WriteString(ansi.ResetBackgroundColor)
	}
	b.WriteString(ansi.ResetModifyOtherKeys + ansi.PopKittyKeyboard(1))
	b.WriteString(ansi.SetModeTextCursorEnable)
	if v.AltScreen {
		b.WriteString(ansi.ResetModeAltScreenSaveCursor)
	} else {
		// Leave the shell's prompt below the last frame.
		b.WriteString(ansi.CursorPosition(1, len(w.lines)) + "\r\n")
	}
}

// kittyFlags are the Kitty keyboard protocol's flags for ke, as Bubble
// Tea's renderer sets them (disambiguation always on).
func kittyFlags(ke tea.KeyboardEnhancements) int {
	flags := ansi.KittyDisambiguateEscapeCodes
	if ke.ReportEventTypes {
		flags |= ansi.KittyReportEventTypes
	}
	if ke.ReportAlternateKeys {
		flags |= ansi.KittyReportAlternateKeys
	}
	if ke.ReportAllKeysAsEscapeCodes {
		flags |= ansi.KittyReportAllKeysAsEscapeCodes
	}
	if ke.ReportAssociatedText {
		flags |= ansi.KittyReportAssociatedKeys
	}
	return flags
}

// sameView reports whether a and b draw the same: the content and every
// setting the writer applies. (Most updates leave the frame as it was: a
// string comparison, usually of the same pointer, keeps them free.)
func sameView(a, b tea.View) bool {
	return a.Content == b.Content && a.AltScreen == b.AltScreen && a.MouseMode == b.MouseMode &&
		a.ReportFocus == b.ReportFocus && a.DisableBracketedPasteMode == b.DisableBracketedPasteMode &&
		a.WindowTitle == b.WindowTitle && a.KeyboardEnhancements == b.KeyboardEnhancements &&
		sameColor(a.ForegroundColor, b.ForegroundColor) && sameColor(a.BackgroundColor, b.BackgroundColor) &&
		sameCursor(a.Cursor, b.Cursor)
}

func sameCursor(a, b *tea.Cursor) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.X == b.X && a.Y == b.Y
}

func sameColor(a, b color.Color) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	r1, g1, b1, a1 := a.RGBA()
	r2, g2, b2, a2 := b.RGBA()
	return r1 == r2 && g1 == g2 && b1 == b2 && a1 == a2
}

// hex is c as #rrggbb.
func hex(c color.Color) string {
	r, g, b, _ := c.RGBA()
	v := (r>>8)<<16 | (g>>8)<<8 | b>>8
	s := strconv.FormatUint(uint64(v), 16)
	return "#" + strings.Repeat("0", 6-len(s)) + s
}
