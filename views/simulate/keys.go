package simulate

import (
	"charm.land/bubbles/v2/key"

	"github.com/tracesim/tracesim/views/component"
)

// KeyMap is the Simulate tab's key bindings.
type KeyMap struct {
	Pause, Run, Step, StepMessage, StepDelta, RunTo, Reset key.Binding
	Faster, Slower, Shorter, Longer, Pane                  key.Binding
	// List moves through the results' per-rank table and the run
	// history with the keys of every list: ↑/k, ↓/j, pgup/ctrl+u,
	// pgdown/ctrl+d, home/g, end/G. In the live view ↑↓ (and ←→) move
	// the selected router, home/end go to the first/last one.
	List            component.ListKeys
	Left, Right     key.Binding
	Compare, Flows  key.Binding
	Confirm, Cancel key.Binding
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Pause:       key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "pause/resume")),
		Run:         key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run to the end")),
		Step:        key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "step one event")),
		StepMessage: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "step one message")),
		StepDelta:   key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "step Δt")),
		RunTo:       key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "run to a time")),
		Reset:       key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "reset")),
		Faster:      key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/-", "speed")),
		Slower:      key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		Shorter:     key.NewBinding(key.WithKeys("["), key.WithHelp("[/]", "halve/double Δt")),
		Longer:      key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "double Δt")),
		Pane:        key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "live/results/history")),
		List:        component.DefaultListKeys("rank/run"),
		Left:        key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←→", "router (live view)")),
		Right:       key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "next router")),
		Compare:     key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "compare with selected run")),
		Flows:       key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "links: utilisation/flows")),
		Confirm:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "show run in Timeline")),
		Cancel:      key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
	}
}

// ShortHelp returns the bindings shown in the status line help.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Pause, k.Run, k.Step, k.Reset, k.Pane}
}

// FullHelp returns all bindings, in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Pause, k.Run, k.Reset, k.RunTo},
		{k.Step, k.StepMessage, k.StepDelta, k.Shorter, k.Faster},
		{k.Pane, k.Flows, k.Left, k.Compare, k.Confirm},
		k.List.Bindings(),
	}
}
