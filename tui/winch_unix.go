//go:build unix

package tui

import (
	"os"
	"os/signal"
	"syscall"

	tea "charm.land/bubbletea/v2"
)

// watchSize sends p the size of terminal f whenever it changes (SIGWINCH),
// which Bubble Tea does only with its own renderer; stop ends the watch.
func watchSize(f *os.File, p *tea.Program) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-ch:
				w, h := termSize(f)
				p.Send(tea.WindowSizeMsg{Width: w, Height: h})
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
	}
}
