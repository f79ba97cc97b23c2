package class

import "charm.land/bubbles/v2/key"

// KeyMap is the Class tab's key bindings.
type KeyMap struct {
	Up, Down         key.Binding
	PageUp, PageDown key.Binding
	Top, Bottom      key.Binding
	// Sort cycles the order: by name, stuck first, least progress first.
	Sort key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous student")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next student")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdown", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "first student")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "last student")),
		Sort:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort: name, stuck, progress")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Down, k.Sort} }

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown}, {k.Top, k.Bottom, k.Sort}}
}
