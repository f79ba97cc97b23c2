package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
	"github.com/tracesim/tracesim/views/component"
)

// helpView is the help overlay: the global bindings, then the active
// view's, both generated from their key maps.
func (m *Model) helpView(w, h int) string {
	st := m.common.Theme.Styles
	lines := []string{st.Title.Render("Keys") + st.Dim.Render("  (? or esc closes)"), "", st.Bold.Render("Everywhere")}
	keys := m.keys
	if n := len(m.tabs); n > 1 && n < 9 {
		keys.Tab.SetHelp(fmt.Sprintf("1–%d", n), "go to tab") // the keys past the last tab do nothing
	}
	groups := keys.FullHelp()
	if m.lesson != nil {
		keys.Tab.SetHelp(fmt.Sprintf("1–%d", len(m.tabs)-1), "go to tab")
		groups = keys.FullHelp()
		groups[0] = append(groups[0], keys.Learn)
	}
	lines = append(lines, m.helpBlocks(groups, w-2)...)
	if v := m.views[m.active]; v != nil {
		if groups := nonEmpty(m.unshadowed(v.FullHelp())); len(groups) > 0 {
			lines = append(lines, "", st.Bold.Render(m.tabs[m.active].Name))
			lines = append(lines, m.helpBlocks(groups, w-2)...)
		}
	}
	lines = append(lines, "", st.Bold.Render("Mouse"))
	for _, l := range component.Wrap(mouseHelp, max(w-2, 10), 0) {
		lines = append(lines, st.HelpDesc.Render(l))
	}
	lines = append(lines, "", st.Bold.Render("Glyphs"))
	for _, g := range glyphHelp() {
		lines = append(lines, st.HelpKey.Render(g[0])+" "+st.HelpDesc.Render(g[1]))
	}
	if len(lines) > h {
		// Too tall (80×24 and the Timeline's keys): the blank lines go
		// before any binding is cut off.
		lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	}
	if len(lines) > h && h > 1 {
		// Still too tall: it scrolls, the last line saying so.
		m.helpTop = min(max(m.helpTop, 0), len(lines)-(h-1))
		more := st.Dim.Render(fmt.Sprintf("↑↓ scroll · lines %d–%d of %d", m.helpTop+1, m.helpTop+h-1, len(lines)))
		lines = append(slices.Clone(lines[m.helpTop:m.helpTop+h-1]), more)
	} else {
		m.helpTop = 0
	}
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return fit(lines, w, h)
}

// mouseHelp says what the mouse does.
const mouseHelp = "click a tab: switch to it · Timeline: wheel zooms at the pointer, shift+wheel (or the horizontal wheel) pans, drag pans, click selects (a rank's predicted row too), click the overview to jump, click the legend to hide a state · other tabs: click selects"

// glyphHelp explains the glyphs the views draw.
func glyphHelp() [][2]string {
	return [][2]string{
		{"• ●", "a message's send (● the selected message's)"},
		{"▶ ▼ ▲", "its receive; ◀ a receive recorded before its send (dashed arrow)"},
		{"▸ ◂ ◆", "sends, receives, both in a cell (zoomed out)"},
		{"◇", "a marker (MPE user event)"},
		{"[ ] |", "the selected state; the visible window on the overview"},
		{"┆ ▼", "the time cursor"},
		{"p ±1ms", "a rank's predicted row and its finish shift (both-view)"},
		{"█ ▓ ▒ ░", "states by category (monochrome), utilisation (Simulate)"},
	}
}

// helpBlocks renders groups of bindings as columns, starting a new row
// of columns whenever the next one would not fit in w cells, so that a
// view with many bindings is not cut off on a narrow terminal.
func (m *Model) helpBlocks(groups [][]key.Binding, w int) []string {
	var out []string
	for len(groups) > 0 {
		n := 1
		for n < len(groups) && lipgloss.Width(m.help.FullHelpView(groups[:n+1])) <= w {
			n++
		}
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, strings.Split(m.help.FullHelpView(groups[:n]), "\n")...)
		groups = groups[n:]
	}
	return out
}

// unshadowed drops the view bindings whose every key is a global key:
// global keys are matched first, so those bindings can never fire and
// the help must not promise them.
func (m *Model) unshadowed(groups [][]key.Binding) [][]key.Binding {
	global := map[string]bool{}
	shadow := m.keys.global()
	if m.lesson != nil {
		shadow = append(shadow, m.keys.Learn)
	}
	for _, b := range shadow {
		for _, k := range b.Keys() {
			global[k] = true
		}
	}
	out := make([][]key.Binding, len(groups))
	for i, g := range groups {
		for _, b := range g {
			for _, k := range b.Keys() {
				if !global[k] {
					out[i] = append(out[i], b)
					break
				}
			}
		}
	}
	return out
}

// nonEmpty drops empty groups, which would render as empty columns.
func nonEmpty(groups [][]key.Binding) [][]key.Binding {
	var out [][]key.Binding
	for _, g := range groups {
		if len(g) > 0 {
			out = append(out, g)
		}
	}
	return out
}
