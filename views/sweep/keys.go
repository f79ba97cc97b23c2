package sweep

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the Sweep view's key bindings.
type KeyMap struct {
	// List moves through the table's points with the keys of every list:
	// ↑/k, ↓/j, pgup/ctrl+u, pgdown/ctrl+d, home/g, end/G.
	List                 component.ListKeys
	Prev, Next           key.Binding
	XAxis, Lines, Metric key.Binding
	Sort, Reverse        key.Binding
	Filter, Clear        key.Binding
	Open                 key.Binding
	// Accept keeps the filter typed; Clear (esc) drops it.
	Accept key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		List:    component.DefaultListKeys("point"),
		Prev:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "previous point on the line")),
		Next:    key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next point on the line")),
		XAxis:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "x axis")),
		Lines:   key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "a line by")),
		Metric:  key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "plotted column")),
		Sort:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort column")),
		Reverse: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "reverse sort")),
		Filter:  key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Clear:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter; stop a running sweep")),
		Open:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open in Simulate")),
		Accept:  key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep the filter")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.XAxis, k.Lines, k.Metric, k.Filter, k.Open}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		append(k.List.Bindings(), k.Prev, k.Next),
		{k.XAxis, k.Lines, k.Metric},
		{k.Sort, k.Reverse, k.Filter, k.Clear, k.Open},
	}
}
