//go:build !unix

package tui

import (
	"os"

	tea "charm.land/bubbletea/v2"
)

// watchSize does nothing where there is no SIGWINCH: the size stays the
// one at start.
func watchSize(*os.File, *tea.Program) (stop func()) { return func() {} }
