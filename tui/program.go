package tui

import (
	"context"
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/term"

	"github.com/tracesim/tracesim/tui/termwriter"
)

// DirectTickFPS is the rate of Bubble Tea's frame ticker under the
// direct renderer: the writer draws every frame and writes Bubble Tea's
// other output itself (termwriter.Writer.Filter), so the ticker flushes
// nothing; it cannot be turned off, only slowed.
const DirectTickFPS = 1

// FPS is the frame-rate cap of Bubble Tea's renderer (RendererBubbleTea):
// it draws on a ticker, never right after an update, so a key press waits
// up to one tick to reach the screen; at Bubble Tea's highest cap (120)
// that wait is at most 8.3 ms. The default renderer (RendererDirect) draws
// on every update and uses no ticker of its own: the cap is then not used
// (see DirectTickFPS). docs/tui.md has the measurements.
const FPS = 120

// The renderers a program can draw with.
const (
	// RendererDirect writes each frame as soon as an update made it, the
	// changed lines only (package termwriter): the default.
	RendererDirect = "direct"
	// RendererBubbleTea is Bubble Tea's own renderer, which diffs cells
	// and flushes on its frame ticker: kept for comparison.
	RendererBubbleTea = "bubbletea"
)

// Renderers lists the renderer names, the default first.
func Renderers() []string { return []string{RendererDirect, RendererBubbleTea} }

// CheckRenderer returns an error naming the choices when name is no
// renderer.
func CheckRenderer(name string) error {
	if name == RendererDirect || name == RendererBubbleTea {
		return nil
	}
	return fmt.Errorf("renderer %q: want %s or %s", name, RendererDirect, RendererBubbleTea)
}

// Run runs m on the process's terminal with the renderer named renderer
// (empty: RendererDirect) at the frame-rate cap fps (Bubble Tea's renderer
// only: the direct one draws each frame at once), until it quits or
// ctx ends, and returns its final model.
func Run(ctx context.Context, m tea.Model, renderer string, fps int) (tea.Model, error) {
	if renderer == RendererBubbleTea {
		return tea.NewProgram(m, tea.WithContext(ctx), tea.WithFPS(fps)).Run()
	}
	in, out := os.Stdin, os.Stdout
	if !term.IsTerminal(in.Fd()) {
		// As Bubble Tea does: keys come from the controlling terminal.
		tin, _, err := tea.OpenTTY()
		if err != nil {
			return m, fmt.Errorf("opening the terminal: %w", err)
		}
		defer tin.Close()
		in = tin
	}
	// Without its renderer, Bubble Tea leaves the terminal as it is:
	// keys must come one by one, unechoed.
	if st, err := term.MakeRaw(in.Fd()); err == nil {
		defer term.Restore(in.Fd(), st) //nolint:errcheck // nothing better to do
	}
	width, height := termSize(out)
	w := termwriter.New(out, os.Environ(), width, height)
	// A local terminal takes a frame into the kernel's buffer: Update
	// writes it without waking the writer's goroutine.
	w.SetInline(true)
	// The first frame is drawn before Bubble Tea's ColorProfileMsg: the
	// profile it will send, detected alike.
	w.SetProfile(colorprofile.Detect(out, os.Environ()))
	// The writer writes what Bubble Tea would have buffered for its
	// ticker (queries, clipboard): the ticker has nothing left to flush,
	// and each of its ticks woke the idle UI (120 a second at the default
	// cap, a core's share of every key press on a loaded machine).
	p := tea.NewProgram(w.Model(m), tea.WithContext(ctx), tea.WithFPS(DirectTickFPS), tea.WithoutRenderer(),
		tea.WithFilter(w.Filter), tea.WithInput(in), tea.WithOutput(out), tea.WithWindowSize(width, height))
	stop := watchSize(out, p)
	final, err := p.Run()
	stop()
	_ = w.Close()
	return termwriter.Inner(final), err
}

// termSize is f's size, 80×24 when unknown.
func termSize(f *os.File) (int, int) {
	w, h, err := term.GetSize(f.Fd())
	if err != nil || w <= 0 || h <= 0 {
		return 80, 24
	}
	return w, h
}
