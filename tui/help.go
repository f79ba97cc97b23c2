package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
)

// helpView is the help overlay: the global bindings, then the active
// view's, both generated from their key maps.
func (m *Model) helpView(w, h int) string {
	st := m.common.Theme.Styles
	lines := []string{st.Title.Render("Keys") + st.Dim.Render("  (? or esc closes)"), "", st.Bold.Render("Everywhere")}
	lines = append(lines, strings.Split(m.help.FullHelpView(m.keys.FullHelp()), "\n")...)
	if v := m.views[m.active]; v != nil {
		if groups := nonEmpty(v.FullHelp()); len(groups) > 0 {
			lines = append(lines, "", st.Bold.Render(m.tabs[m.active].Name))
			lines = append(lines, strings.Split(m.help.FullHelpView(groups), "\n")...)
		}
	}
	for i := range lines {
		lines[i] = "  " + lines[i]
	}
	return fit(lines, w, h)
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
