// Package component is the contract every tracesim view follows and the
// per-session context each one embeds, in the manner of soft-serve's
// ui/common: a Common holding the size and the session's theme, and a
// Model interface of Bubble Tea's Init/Update/View plus SetSize and a help
// key map. The tui package composes Models into the application; views
// never reach for global state, so one process can serve many SSH sessions.
package component

import (
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/views/derived"
)

// Common is the per-session context shared by the components of one
// program.
type Common struct {
	// Width and Height are the cells the component may draw in.
	Width, Height int
	// Theme is the session's palette and styles.
	Theme *themes.Theme
	// Derived shares the data views derive from a trace (summaries,
	// indexes, graphs) with the other sessions of the process; nil means
	// each view builds its own. Views must not change what it returns.
	Derived *derived.Cache
	// Files opens and saves the files the session names besides traces
	// (topology graphs, placement maps, configurations), confined to a
	// library; nil means the file system, by path (the command line's
	// local application).
	Files *userfile.Space
}

// SetSize records the component's drawing area.
func (c *Common) SetSize(width, height int) {
	c.Width, c.Height = width, height
}

// Model is a view component.
type Model interface {
	help.KeyMap
	// Init returns the component's first command, if any.
	Init() tea.Cmd
	// Update handles a message and returns the updated component.
	Update(msg tea.Msg) (Model, tea.Cmd)
	// View renders the component in exactly Width×Height cells (lines
	// joined by "\n", each Width cells wide) so layouts never overflow.
	View() string
	// SetSize gives the component its drawing area.
	SetSize(width, height int)
}

// Fit lays lines out in exactly w×h cells, as View must: longer lines are
// cut at w cells (escape sequences kept intact), shorter ones padded with
// spaces, missing lines added blank and extra ones dropped.
func Fit(lines []string, w, h int) string {
	if w <= 0 || h <= 0 {
		return strings.Repeat("\n", max(h-1, 0))
	}
	out := make([]string, h)
	for i := range out {
		s := ""
		if i < len(lines) {
			s = lines[i]
		}
		if ansi.StringWidth(s) > w {
			s = ansi.Truncate(s, w, "")
		}
		out[i] = s + strings.Repeat(" ", max(0, w-ansi.StringWidth(s)))
	}
	return strings.Join(out, "\n")
}
