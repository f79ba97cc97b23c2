package stats

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the stats view's key bindings.
type KeyMap struct {
	List                  component.ListKeys
	Sort, Reverse, Switch key.Binding
	Window, Scale         key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		List:    component.DefaultListKeys("row"),
		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort by next column")),
		Reverse: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reverse sort")),
		Switch:  key.NewBinding(key.WithKeys("f", "left", "right", "h", "l"), key.WithHelp("f/←/→", "other table")),
		Window:  key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "whole run/visible window")),
		Scale:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "bars: one scale/per rank")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Sort, k.Reverse, k.Switch, k.Window, k.Scale}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.List.Bindings(), {k.Sort, k.Reverse, k.Switch, k.Window, k.Scale}}
}
