package viewtest

import (
	"testing"
	"time"

	"charm.land/bubbles/v2/cursor"
	tea "charm.land/bubbletea/v2"
)

func TestKey(t *testing.T) {
	for _, c := range []struct {
		name string
		want tea.KeyPressMsg
		str  string
	}{
		{"enter", tea.KeyPressMsg{Code: tea.KeyEnter}, "enter"},
		{"shift+tab", tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}, "shift+tab"},
		{"ctrl+w", tea.KeyPressMsg{Code: 'w', Mod: tea.ModCtrl}, "ctrl+w"},
		{"ctrl+c", tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, "ctrl+c"},
		{"space", tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}, "space"},
		{"pgdown", tea.KeyPressMsg{Code: tea.KeyPgDown}, "pgdown"},
		{"f12", tea.KeyPressMsg{Code: tea.KeyF12}, "f12"},
		{"a", tea.KeyPressMsg{Code: 'a', Text: "a"}, "a"},
		{"+", tea.KeyPressMsg{Code: '+', Text: "+"}, "+"},
		{"?", tea.KeyPressMsg{Code: '?', Text: "?"}, "?"},
	} {
		got := Key(c.name)
		if got.Code != c.want.Code || got.Mod != c.want.Mod || got.Text != c.want.Text {
			t.Errorf("Key(%q) = %+v, want %+v", c.name, got, c.want)
		}
		if got.String() != c.str {
			t.Errorf("Key(%q).String() = %q, want %q", c.name, got.String(), c.str)
		}
	}
}

func TestCheckFrame(t *testing.T) {
	for _, c := range []struct {
		frame string
		w, h  int
		want  string
	}{
		{"ab\ncd", 2, 2, ""},
		{"ab\ncd", 2, 3, "frame has 2 lines, want 3"},
		{"ab\nc", 2, 2, `line 1 is 1 cells wide, want 2: "c"`},
		{"\x1b[1mab\x1b[m\n漢", 2, 2, ""},
	} {
		if got := CheckFrame(c.frame, c.w, c.h); got != c.want {
			t.Errorf("CheckFrame(%q, %d, %d) = %q, want %q", c.frame, c.w, c.h, got, c.want)
		}
	}
}

// TestTimer: a cursor's blink and tea's timers are timers; work, even a
// command that happens to sleep, is not.
func TestTimer(t *testing.T) {
	cur := cursor.New()
	cur.SetMode(cursor.CursorBlink)
	tests := []struct {
		name string
		cmd  tea.Cmd
		want bool
	}{
		{"cursor focus", cur.Focus(), true},
		{"tick", tea.Tick(time.Second, func(time.Time) tea.Msg { return nil }), true},
		{"every", tea.Every(time.Second, func(time.Time) tea.Msg { return nil }), true},
		{"work", func() tea.Msg { time.Sleep(time.Millisecond); return "done" }, false},
		{"nil", nil, false},
	}
	for _, tc := range tests {
		if got := Timer(tc.cmd); got != tc.want {
			t.Errorf("%s: Timer = %v, want %v", tc.name, got, tc.want)
		}
	}
}
