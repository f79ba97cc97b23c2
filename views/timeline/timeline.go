// Package timeline is the Timeline view: one row per rank showing its
// states over time, messages between ranks, a time ruler, an overview of
// the whole run, a legend and a details pane.
package timeline

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component"
)

// Model is the Timeline component.
type Model struct {
	*component.Common
	tr         *tracefmt.Trace
	alt        *tracefmt.Trace
	altLabel   string
	start, end float64
}

var _ component.Model = (*Model)(nil)

// New returns a Timeline of tr (which may be nil) drawing in c's area.
func New(c *component.Common, tr *tracefmt.Trace) *Model {
	m := &Model{Common: c}
	m.SetTrace(tr)
	return m
}

// SetTrace shows a new trace and fits the view to it.
func (m *Model) SetTrace(tr *tracefmt.Trace) {
	m.tr, m.alt = tr, nil
	if tr != nil {
		m.start, m.end = tr.Span()
	}
}

// Focus brings the event into view and selects it.
func (m *Model) Focus(ref tracefmt.EventRef) {}

// SetAlt sets alternative times for the same events; nil withdraws them.
func (m *Model) SetAlt(tr *tracefmt.Trace, label string) { m.alt, m.altLabel = tr, label }

// Window returns the visible time window in trace units.
func (m *Model) Window() (start, end float64) { return m.start, m.end }

// Selection describes the selected state or message in one line.
func (m *Model) Selection() string { return "" }

// Init implements component.Model.
func (m *Model) Init() tea.Cmd { return nil }

// Update implements component.Model.
func (m *Model) Update(msg tea.Msg) (component.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case component.FocusEventMsg:
		m.Focus(msg.Event)
	case component.AltTraceMsg:
		m.SetAlt(msg.Trace, msg.Label)
	}
	return m, nil
}

// View implements component.Model.
func (m *Model) View() string {
	w, h := max(m.Width, 0), max(m.Height, 0)
	line := strings.Repeat(" ", w)
	lines := make([]string, h)
	for i := range lines {
		lines[i] = line
	}
	return strings.Join(lines, "\n")
}

// SetSize implements component.Model.
func (m *Model) SetSize(width, height int) { m.Common.SetSize(width, height) }

// ShortHelp implements help.KeyMap.
func (m *Model) ShortHelp() []key.Binding { return nil }

// FullHelp implements help.KeyMap.
func (m *Model) FullHelp() [][]key.Binding { return nil }
