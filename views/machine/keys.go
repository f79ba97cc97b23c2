package machine

import "charm.land/bubbles/v2/key"

// KeyMap is the Machine tab's key bindings.
type KeyMap struct {
	Up, Down, PageUp, PageDown key.Binding
	Edit, Default              key.Binding
	Presets, Save, Load        key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous setting")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next setting")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+u"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+d"), key.WithHelp("pgdn", "page down")),
		Edit:     key.NewBinding(key.WithKeys("enter", "e"), key.WithHelp("enter", "edit")),
		Default:  key.NewBinding(key.WithKeys("delete", "backspace"), key.WithHelp("del", "default value")),
		Presets:  key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "presets")),
		Save:     key.NewBinding(key.WithKeys("w", "ctrl+s"), key.WithHelp("w", "save config")),
		Load:     key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "load config")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Edit, k.Presets, k.Save, k.Load}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.PageUp, k.PageDown}, {k.Edit, k.Default}, {k.Presets, k.Save, k.Load}}
}
