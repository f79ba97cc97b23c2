package sizes

import "charm.land/bubbles/v2/key"

// KeyMap is the sizes view's key bindings.
type KeyMap struct {
	PrevRank, NextRank key.Binding
	AllRanks           key.Binding
	Mode               key.Binding
	Window             key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		PrevRank: key.NewBinding(key.WithKeys("left", "h", "up", "k"), key.WithHelp("←/h", "previous rank")),
		NextRank: key.NewBinding(key.WithKeys("right", "l", "down", "j"), key.WithHelp("→/l", "next rank")),
		AllRanks: key.NewBinding(key.WithKeys("a", "home"), key.WithHelp("a", "all ranks")),
		Mode:     key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "count/bytes")),
		Window:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "whole run/visible window")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.NextRank, k.Mode, k.Window}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.PrevRank, k.NextRank, k.AllRanks}, {k.Mode, k.Window}}
}
