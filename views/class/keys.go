package class

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the Class tab's key bindings.
type KeyMap struct {
	// List moves through the students with the keys of every list:
	// ↑/k, ↓/j, pgup/ctrl+u, pgdown/ctrl+d, home/g, end/G.
	List component.ListKeys
	// Sort cycles the order: by name, stuck first, least progress first.
	Sort key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		List: component.DefaultListKeys("student"),
		Sort: key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort: name, stuck, progress")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.List.Down, k.Sort} }

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.List.Bindings(), {k.Sort}}
}
