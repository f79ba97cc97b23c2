package sweep

import "charm.land/bubbles/v2/key"

// KeyMap is the Sweep view's key bindings.
type KeyMap struct {
	Up, Down, PageUp, PageDown key.Binding
	Prev, Next                 key.Binding
	XAxis, Lines, Metric       key.Binding
	Sort, Reverse              key.Binding
	Filter, Clear              key.Binding
	Open                       key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous row")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next row")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Prev:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous point on the line")),
		Next:     key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next point on the line")),
		XAxis:    key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "x axis")),
		Lines:    key.NewBinding(key.WithKeys("g"), key.WithHelp("g", "one line per")),
		Metric:   key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "plotted column")),
		Sort:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort column")),
		Reverse:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reverse sort")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Clear:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter; stop a running sweep")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open in Simulate")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.XAxis, k.Lines, k.Metric, k.Filter, k.Open}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Prev, k.Next},
		{k.XAxis, k.Lines, k.Metric},
		{k.Sort, k.Reverse, k.Filter, k.Clear, k.Open},
	}
}
