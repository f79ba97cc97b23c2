package causality

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the Causality tab's key bindings. They avoid the
// application's global keys (tab, shift+tab, 1–9, q, ?, o, T).
type KeyMap struct {
	List            component.ListKeys
	Sort, Reverse   key.Binding
	Focus           key.Binding
	Correct, LMin   key.Binding
	Recheck, Cancel key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return KeyMap{
		List:    component.DefaultListKeys("finding"),
		Sort:    b("s", "sort: amount/kind/rank", "s"),
		Reverse: b("r", "reverse order", "r"),
		Focus:   b("enter", "show in the timeline", "enter"),
		Correct: b("c", "correct the timestamps", "c"),
		LMin:    b("l", "l_min: 0, 1, 10, 100 µs", "l"),
		Recheck: b("R", "check again", "R"),
		Cancel:  b("esc", "cancel the check or correction", "esc"),
	}
}

// ShortHelp returns the bindings shown in the one-line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.List.Down, k.Sort, k.Reverse, k.Focus, k.Correct}
}

// FullHelp returns every binding, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		k.List.Bindings(),
		{k.Sort, k.Reverse, k.Focus},
		{k.Correct, k.LMin, k.Recheck, k.Cancel},
	}
}
