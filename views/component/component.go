// Package component is the contract every tracesim view follows and the
// context each one is given, in the manner of soft-serve's ui/common: a
// Common holding the view's own size and a pointer to the Session every
// view of one program shares (theme, derived-data cache, file space,
// what-if state), and a Model interface of Bubble Tea's Init/Update/View
// plus SetSize and a help key map. It also holds what views and the
// application tell each other (messages.go), the memo every view caches
// its frame in (Memo) and the what-if state the Machine and Simulate tabs
// share (WhatIf). The tui package composes Models into the application;
// views never reach for global state, so one process can serve many SSH
// sessions.
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

// Session is what the views of one program share: one per session, used
// from the Bubble Tea goroutine only. The application changes Theme and
// then sends a ThemeMsg; views read the rest and never change it.
type Session struct {
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
	// WhatIf is the machine configuration the Machine tab last produced,
	// which a Simulate tab built later starts from; nil: each view keeps
	// its own (tests of one view).
	WhatIf *WhatIf
}

// Common is a view's context: the session it belongs to and its own
// drawing area. Views hold it by value, so that each one's SetSize can
// tell whether its size changed and no view sees another's size.
type Common struct {
	*Session
	// Width and Height are the cells the view may draw in.
	Width, Height int
}

// New returns the context of a view of width×height cells in session s
// (nil: a session of its own in the monochrome theme, for tests).
func New(s *Session, width, height int) Common {
	if s == nil {
		s = &Session{Theme: themes.Mono()}
	}
	return Common{Session: s, Width: width, Height: height}
}

// SetSize records the view's drawing area and reports whether it changed.
func (c *Common) SetSize(width, height int) bool {
	changed := width != c.Width || height != c.Height
	c.Width, c.Height = width, height
	return changed
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

// Cache returns the session's derived-data cache: nil (each view builds
// its own) when there is none or no session.
func (c Common) Cache() *derived.Cache {
	if c.Session == nil {
		return nil
	}
	return c.Derived
}
