package component

import (
	"math"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// ListKeys are the keys of every scrolling list (Stats' tables, the
// Causality findings, the Machine settings, the file picker, the help):
// one set, so that page down is the same key in every tab.
type ListKeys struct {
	Up, Down, PageUp, PageDown, Home, End key.Binding
}

// DefaultListKeys returns the list keys: ↑/k, ↓/j, pgup/ctrl+u,
// pgdown/ctrl+d, home/g, end/G. what names the items in the help
// ("finding", "setting", "row").
func DefaultListKeys(what string) ListKeys {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return ListKeys{
		Up:       b("↑/k", "previous "+what, "up", "k"),
		Down:     b("↓/j", "next "+what, "down", "j"),
		PageUp:   b("pgup", "page up", "pgup", "ctrl+u"),
		PageDown: b("pgdn", "page down", "pgdown", "ctrl+d"),
		Home:     b("home/g", "first "+what, "home", "g"),
		End:      b("end/G", "last "+what, "end", "G"),
	}
}

// Bindings returns the keys in help order.
func (k ListKeys) Bindings() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Home, k.End}
}

// Move returns how far msg moves a list whose page is page rows (home
// and end: as far as an int allows, for the list to clamp), and whether
// msg is a list key at all.
func (k ListKeys) Move(msg tea.KeyPressMsg, page int) (int, bool) {
	page = max(page, 1)
	switch {
	case key.Matches(msg, k.Up):
		return -1, true
	case key.Matches(msg, k.Down):
		return 1, true
	case key.Matches(msg, k.PageUp):
		return -page, true
	case key.Matches(msg, k.PageDown):
		return page, true
	case key.Matches(msg, k.Home):
		return math.MinInt / 2, true
	case key.Matches(msg, k.End):
		return math.MaxInt / 2, true
	}
	return 0, false
}
