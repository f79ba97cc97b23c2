package learn

import "charm.land/bubbles/v2/key"

// KeyMap is the Learn tab's key bindings.
type KeyMap struct {
	// Answer opens the answer box of a step's question, or goes on past
	// a step that only asks to be read.
	Answer key.Binding
	// Submit checks the typed answer; Cancel closes the box.
	Submit, Cancel key.Binding
	Up, Down       key.Binding
	PageUp         key.Binding
	PageDown       key.Binding
	// Pin shows the lesson beside the other tabs (the application
	// decides; see PinMsg).
	Pin key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Answer:   key.NewBinding(key.WithKeys("enter", "a"), key.WithHelp("enter", "answer/continue")),
		Submit:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "check the answer")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the answer box")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdown", "page down")),
		Pin:      key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "lesson beside the other tabs")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Answer, k.Pin, k.Down, k.Cancel}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Answer, k.Submit, k.Cancel, k.Pin}, {k.Up, k.Down, k.PageUp, k.PageDown}}
}
