package learn

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the Learn tab's key bindings.
type KeyMap struct {
	// Answer opens the answer box of a step's question, or goes on past
	// a step that only asks to be read.
	Answer key.Binding
	// Submit checks the typed answer; Cancel closes the box.
	Submit, Cancel key.Binding
	// List scrolls the lesson with the keys of every list (↑/k, ↓/j,
	// pgup/ctrl+u, pgdown/ctrl+d, home/g, end/G), and space pages down
	// as in a pager, for reading.
	List component.ListKeys
	// Pin shows the lesson beside the other tabs (the application
	// decides; see PinMsg).
	Pin key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Answer: key.NewBinding(key.WithKeys("enter", "a"), key.WithHelp("enter", "answer/continue")),
		Submit: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "check the answer")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close the answer box")),
		List:   lessonKeys(),
		Pin:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "lesson beside the other tabs")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Answer, k.Pin, k.List.Down, k.Cancel}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Answer, k.Submit, k.Cancel, k.Pin}, k.List.Bindings()}
}

// lessonKeys are the list keys for scrolling a lesson, space added to
// page down.
func lessonKeys() component.ListKeys {
	l := component.DefaultListKeys("line")
	l.PageDown = key.NewBinding(key.WithKeys(append(l.PageDown.Keys(), "space")...), key.WithHelp("pgdn/space", "page down"))
	return l
}
