package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
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
	lines = append(lines, m.helpBlocks(keys.FullHelp(), w-2)...)
	if v := m.views[m.active]; v != nil {
		if groups := nonEmpty(m.unshadowed(v.FullHelp())); len(groups) > 0 {
			lines = append(lines, "", st.Bold.Render(m.tabs[m.active].Name))
			lines = append(lines, m.helpBlocks(groups, w-2)...)
		}
	}
	if len(lines) > h {
		// Too tall (80×24 and the Timeline's keys): the blank lines go
		// before any binding is cut off.
		lines = slices.DeleteFunc(lines, func(l string) bool { return l == "" })
	}
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return fit(lines, w, h)
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
	for _, b := range m.keys.global() {
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
