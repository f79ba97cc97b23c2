package machine

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the Machine tab's key bindings.
type KeyMap struct {
	List          component.ListKeys
	Edit, Default key.Binding
	// Sweep opens the form that sweeps the selected setting.
	Sweep               key.Binding
	Presets, Save, Load key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		List:    component.DefaultListKeys("setting"),
		Edit:    key.NewBinding(key.WithKeys("enter", "e"), key.WithHelp("enter", "edit")),
		Default: key.NewBinding(key.WithKeys("delete", "backspace"), key.WithHelp("del", "default value")),
		Sweep:   key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sweep this setting")),
		Presets: key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "presets")),
		Save:    key.NewBinding(key.WithKeys("w", "ctrl+s"), key.WithHelp("w", "save config")),
		Load:    key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "load config")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Edit, k.Sweep, k.Presets, k.Save, k.Load}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{k.List.Bindings(), {k.Edit, k.Default, k.Sweep}, {k.Presets, k.Save, k.Load}}
}
