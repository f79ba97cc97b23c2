// Package viewtest drives a view in tests as the application would: keys
// pressed by name, the view's frame checked at every size from 40×12 to
// 300×100, golden frames. Every view's tests use it, so that a key name
// means the same key everywhere and no view ships a size it cannot draw.
package viewtest

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
)

// Key turns a key name into a key press: "enter", "esc", "tab",
// "backspace", "space", "up", "down", "left", "right", "pgup", "pgdown",
// "home", "end", "f1"…"f12", with "ctrl+", "alt+" and "shift+" prefixes
// ("ctrl+w", "shift+tab"); anything else is typed as text ("a", "?").
func Key(name string) tea.KeyPressMsg {
	var mod tea.KeyMod
	rest := name
	for len(rest) > 1 {
		p, r, ok := strings.Cut(rest, "+")
		if !ok || r == "" {
			break
		}
		switch p {
		case "ctrl":
			mod |= tea.ModCtrl
		case "alt":
			mod |= tea.ModAlt
		case "shift":
			mod |= tea.ModShift
		default:
			return text(name)
		}
		rest = r
	}
	if c, ok := special(rest); ok {
		k := tea.KeyPressMsg{Code: c, Mod: mod}
		if c == tea.KeySpace && mod == 0 {
			k.Text = " "
		}
		return k
	}
	if mod != 0 {
		return tea.KeyPressMsg{Code: []rune(rest)[0], Mod: mod}
	}
	return text(name)
}

// text is the press of the key that types s (its first character).
func text(s string) tea.KeyPressMsg {
	r := []rune(s)
	if len(r) == 0 {
		return tea.KeyPressMsg{}
	}
	return tea.KeyPressMsg{Code: r[0], Text: string(r[0])}
}

// special returns the code of a named key.
func special(name string) (rune, bool) {
	switch name {
	case "enter":
		return tea.KeyEnter, true
	case "esc":
		return tea.KeyEscape, true
	case "tab":
		return tea.KeyTab, true
	case "backspace":
		return tea.KeyBackspace, true
	case "space":
		return tea.KeySpace, true
	case "up":
		return tea.KeyUp, true
	case "down":
		return tea.KeyDown, true
	case "left":
		return tea.KeyLeft, true
	case "right":
		return tea.KeyRight, true
	case "pgup":
		return tea.KeyPgUp, true
	case "pgdown":
		return tea.KeyPgDown, true
	case "home":
		return tea.KeyHome, true
	case "end":
		return tea.KeyEnd, true
	case "delete":
		return tea.KeyDelete, true
	}
	if n, ok := strings.CutPrefix(name, "f"); ok && len(n) > 0 && len(n) <= 2 {
		k := 0
		for _, d := range n {
			if d < '0' || d > '9' {
				return 0, false
			}
			k = k*10 + int(d-'0')
		}
		if k >= 1 && k <= 12 {
			return tea.KeyF1 + rune(k-1), true
		}
	}
	return 0, false
}

// Press sends the keys to m in order, as the application would, and
// returns the commands they produced, batched. A key written in double
// quotes ("\"250us\"") types its text a character at a time.
func Press(m component.Model, keys ...string) tea.Cmd {
	var cmds []tea.Cmd
	send := func(k tea.KeyPressMsg) {
		_, cmd := m.Update(k)
		if cmd != nil {
			cmds = append(cmds, cmd)
		}
	}
	for _, k := range keys {
		if len(k) > 2 && k[0] == '"' && k[len(k)-1] == '"' {
			for _, r := range k[1 : len(k)-1] {
				send(tea.KeyPressMsg{Code: r, Text: string(r)})
			}
			continue
		}
		send(Key(k))
	}
	return tea.Batch(cmds...)
}

// Sizes returns the terminal sizes a view must draw at: the smallest the
// application supports (40×12), common ones, odd ones, and the largest a
// server admits (300×100).
func Sizes() [][2]int {
	return [][2]int{{40, 12}, {41, 13}, {60, 20}, {80, 24}, {120, 40}, {160, 48}, {200, 60}, {300, 100}}
}

// Sweep resizes m to each of Sizes (and back to the first) and fails t
// unless every frame is exactly that many cells, and drawing twice at one
// size gives the same frame.
func Sweep(t testing.TB, m component.Model) {
	t.Helper()
	sizes := append(Sizes(), Sizes()[0])
	for _, sz := range sizes {
		m.SetSize(sz[0], sz[1])
		f := m.View()
		if err := CheckFrame(f, sz[0], sz[1]); err != "" {
			t.Errorf("%d×%d: %s", sz[0], sz[1], err)
			continue
		}
		if g := m.View(); g != f {
			t.Errorf("%d×%d: a second View differs from the first", sz[0], sz[1])
		}
	}
}

// CheckFrame returns what is wrong with frame as a view of w×h cells
// ("line 3 is 81 cells wide"), or "" when nothing is.
func CheckFrame(frame string, w, h int) string {
	lines := strings.Split(frame, "\n")
	if len(lines) != h {
		return fmt.Sprintf("frame has %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			return fmt.Sprintf("line %d is %d cells wide, want %d: %q", i, got, w, ansi.Strip(l))
		}
	}
	return ""
}

// ASCII returns frame as a terminal without colour shows it: the text and
// its attributes (bold, reverse), the colours dropped, so that goldens do
// not change with a theme's palette.
func ASCII(t testing.TB, frame string) string {
	t.Helper()
	var b bytes.Buffer
	w := &colorprofile.Writer{Forward: &b, Profile: colorprofile.ASCII}
	if _, err := w.WriteString(frame); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// Golden compares frame with the test's golden file in testdata (go test
// -update rewrites it).
func Golden(t *testing.T, frame string) {
	t.Helper()
	golden.RequireEqual(t, frame)
}

// SweepThemes builds a view with build for each of a colour and the
// monochrome theme, at 80×24, and sweeps it over Sizes.
func SweepThemes(t *testing.T, build func(c component.Common) component.Model) {
	t.Helper()
	for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
		t.Run(th.Name, func(t *testing.T) {
			m := build(component.New(&component.Session{Theme: th}, 80, 24))
			m.Init()
			Sweep(t, m)
		})
	}
}

// Trace returns a small trace every view has something to show of: a
// 2-D stencil on 16 ranks, two iterations.
func Trace(t testing.TB) *tracefmt.Trace {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// Timer reports whether cmd is a timer rather than work: a cursor's blink
// (bubbles' cursor package, which textinputs and huh's fields start on
// every focus and key) or a tea.Tick or tea.Every. A timer's message is
// a matter of wall-clock time, so a test that drives a view's commands
// drops timers and runs every other command to completion: how long a
// command takes on a loaded host then changes nothing.
func Timer(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	f := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer())
	if f == nil {
		return false
	}
	name := f.Name()
	for _, p := range []string{"charm.land/bubbles/v2/cursor.", "charm.land/bubbletea/v2.Tick.", "charm.land/bubbletea/v2.Every."} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
