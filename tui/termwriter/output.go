package termwriter

import (
	"fmt"
	"reflect"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Without its renderer, Bubble Tea still buffers what its commands write
// to the terminal (queries such as tea.RequestBackgroundColor, clipboard
// writes, tea.Raw) and flushes that buffer on its frame ticker, which
// runs at the program's frame-rate cap whatever the renderer: at 120 fps,
// 120 wake-ups a second of an idle UI, and a core's share of every key
// press on a loaded machine. Filter takes those writes over, so that the
// ticker has nothing left to do and can run slowly (tui.Run sets it to
// once a second).

// outputs maps the type of each Bubble Tea message that writes to the
// terminal to the sequence it writes, as Bubble Tea's event loop writes
// it. The message types are Bubble Tea's own (unexported): each is known
// by the type of what its command returns.
func outputs() map[reflect.Type]func(tea.Msg) string {
	fixed := func(seq string) func(tea.Msg) string { return func(tea.Msg) string { return seq } }
	// text is the string a message of a string type carries.
	text := func(f func(string) string) func(tea.Msg) string {
		return func(m tea.Msg) string { return f(reflect.ValueOf(m).String()) }
	}
	o := map[reflect.Type]func(tea.Msg) string{}
	for _, c := range []struct {
		msg tea.Msg
		seq func(tea.Msg) string
	}{
		{tea.ReadClipboard(), fixed(ansi.RequestSystemClipboard)},
		{tea.SetClipboard("")(), text(ansi.SetSystemClipboard)},
		{tea.ReadPrimaryClipboard(), fixed(ansi.RequestPrimaryClipboard)},
		{tea.SetPrimaryClipboard("")(), text(ansi.SetPrimaryClipboard)},
		{tea.RequestBackgroundColor(), fixed(ansi.RequestBackgroundColor)},
		{tea.RequestForegroundColor(), fixed(ansi.RequestForegroundColor)},
		{tea.RequestCursorColor(), fixed(ansi.RequestCursorColor)},
		{tea.RequestProgramStatusSupport(), fixed(ansi.RequestProgramStatusSupport)},
		{tea.RequestTerminalVersion(), fixed(ansi.RequestNameVersion)},
		{tea.RequestCapability("")(), text(func(s string) string { return ansi.RequestTermcap(s) })},
		{tea.RequestCursorPosition(), fixed(ansi.RequestCursorPositionReport)},
		{tea.RawMsg{}, func(m tea.Msg) string { return fmt.Sprint(m.(tea.RawMsg).Msg) }},
	} {
		o[reflect.TypeOf(c.msg)] = c.seq
	}
	return o
}

// Filter is a tea.WithFilter filter for a program drawn by w: a message
// that would have Bubble Tea write to the terminal (a query, a clipboard
// write, tea.Raw) is written by w instead, at once (ahead of the next
// frame when no frame has been drawn yet), and dropped; every other
// message passes unchanged. A program whose input is disabled must not
// use it: the replies to queries would then reach the shell.
func (w *Writer) Filter(_ tea.Model, msg tea.Msg) tea.Msg {
	if msg == nil {
		return nil
	}
	if seq, ok := w.outputs[reflect.TypeOf(msg)]; ok {
		w.Output(seq(msg))
		return nil
	}
	return msg
}

// Output writes seq to the terminal: at once (by the caller when the
// writer is inline and not drawing, else by the drawing goroutine), or
// with the first frame when none has been drawn yet.
func (w *Writer) Output(seq string) {
	if seq == "" {
		return
	}
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return
	}
	w.output += seq
	// Without a frame there is nothing to draw yet: the first one
	// writes it.
	w.pending = w.pending || w.queued
	now := w.pending
	inline := w.inline
	w.mu.Unlock()
	if now {
		w.deliver(inline)
	}
}
