package tui

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the application's global key bindings.
type KeyMap struct {
	Quit, ForceQuit key.Binding
	Help            key.Binding
	NextTab         key.Binding
	PrevTab         key.Binding
	Tab             key.Binding // documents the number keys; matched by digit
	Open            key.Binding
	Theme           key.Binding
	Cancel          key.Binding
	// Learn selects the Learn tab when a lesson is open (and only then:
	// without one, 0 stays the Timeline's and the Matrix's).
	Learn key.Binding
	// List scrolls the file picker and the help, with the keys every
	// tab's lists use.
	List component.ListKeys
}

// DefaultKeyMap returns the default global bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		NextTab:   key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "next tab")),
		PrevTab:   key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "previous tab")),
		Tab:       key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1–9", "go to tab")),
		Open:      key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open a trace")),
		Theme:     key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "next theme")),
		Cancel:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel/close")),
		Learn:     key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "the lesson (Learn tab)")),
		List:      component.DefaultListKeys("entry"),
	}
}

// KeyActions returns the names of the global actions a user's
// configuration may bind to other keys (Options.Keys). ctrl+c and the
// number keys stay as they are, so that a configuration cannot lock a
// user in.
func KeyActions() []string {
	return []string{"quit", "help", "next_tab", "prev_tab", "open", "theme", "cancel"}
}

// Rebind returns k with the actions named in keys (KeyActions) bound to
// the keys given instead; the help shows the first. Unknown actions and
// empty lists are ignored (the caller validated them).
func (k KeyMap) Rebind(keys map[string][]string) KeyMap {
	bindings := map[string]*key.Binding{
		"quit": &k.Quit, "help": &k.Help, "next_tab": &k.NextTab, "prev_tab": &k.PrevTab,
		"open": &k.Open, "theme": &k.Theme, "cancel": &k.Cancel,
	}
	for action, ks := range keys {
		b := bindings[action]
		if b == nil || len(ks) == 0 {
			continue
		}
		b.SetKeys(ks...)
		b.SetHelp(ks[0], b.Help().Desc)
	}
	return k
}

// ShortHelp implements help.KeyMap.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Help, k.NextTab, k.Open, k.Quit}
}

// FullHelp implements help.KeyMap.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Tab, k.NextTab, k.PrevTab},
		{k.Open, k.Theme, k.Help},
		{k.Cancel, k.Quit, k.ForceQuit},
	}
}

// global lists the bindings matched before the active view sees a key
// (esc is not one: it closes overlays, and otherwise belongs to the view).
func (k KeyMap) global() []key.Binding {
	return []key.Binding{k.Quit, k.ForceQuit, k.Help, k.NextTab, k.PrevTab, k.Tab, k.Open, k.Theme}
}
