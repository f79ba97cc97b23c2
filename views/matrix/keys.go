package matrix

import "charm.land/bubbles/v2/key"

// KeyMap is the matrix view's key bindings.
type KeyMap struct {
	Up, Down, Left, Right key.Binding
	Home                  key.Binding
	Mode                  key.Binding
	Nodes                 key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:    key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "sender up")),
		Down:  key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "sender down")),
		Left:  key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "receiver left")),
		Right: key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "receiver right")),
		Home:  key.NewBinding(key.WithKeys("home", "0"), key.WithHelp("home", "cursor to 0,0")),
		Mode:  key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "bytes/count/mean size")),
		Nodes: key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "ranks per node (node space)")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Mode, k.Nodes}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Left, k.Right, k.Home}, {k.Mode, k.Nodes}}
}
