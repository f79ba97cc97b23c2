package termwriter

import (
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Model returns m wrapped so that the program's frames go to w: every
// View is handed to w as it is made (Bubble Tea, without its renderer,
// asks for one after every update), and the messages the writer needs
// (the window's size, the colour profile, the terminal's answer about
// synchronized output, ctrl+l) reach it before m sees them.
func (w *Writer) Model(m tea.Model) tea.Model { return &model{inner: m, w: w} }

type model struct {
	inner tea.Model
	w     *Writer
}

func (m *model) Init() tea.Cmd { return m.inner.Init() }

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w.Resize(msg.Width, msg.Height)
	case tea.ColorProfileMsg:
		m.w.SetProfile(msg.Profile)
	case tea.ModeReportMsg:
		// A terminal that reports the mode as reset (or set) has it.
		if msg.Mode == ansi.ModeSynchronizedOutput && (msg.Value == ansi.ModeReset || msg.Value == ansi.ModeSet) {
			m.w.SetSync(true)
		}
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+l" {
			m.w.Repaint()
		}
	}
	var cmd tea.Cmd
	m.inner, cmd = m.inner.Update(msg)
	return m, cmd
}

func (m *model) View() tea.View {
	v := m.inner.View()
	m.w.Render(v)
	return v
}

// Inner returns the model m wraps, or m itself when it is no wrapper (a
// program's final model is the wrapper).
func Inner(m tea.Model) tea.Model {
	if w, ok := m.(*model); ok {
		return w.inner
	}
	return m
}
