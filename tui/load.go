package tui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/formats"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component"
)

// loading is a trace load in progress.
type loading struct {
	seq         int
	path        string
	done, total int64
	cancel      context.CancelFunc
	ch          chan tea.Msg
}

// loadProgressMsg reports bytes read so far.
type loadProgressMsg struct {
	seq         int
	done, total int64
}

// loadDoneMsg ends a load with a trace or an error.
type loadDoneMsg struct {
	seq  int
	path string
	tr   *tracefmt.Trace
	err  error
}

// startLoad reads path in a goroutine; progress and the result come back
// as messages through a channel, so Update never blocks on the file.
// With a library, the goroutine reads only inside it: a path outside, or
// a link out, ends the load with an error (Update touches no file to
// check it).
func (m *Model) startLoad(path string) tea.Cmd {
	m.cancelLoad()
	m.loadSeq++
	ctx, cancel := context.WithCancel(m.ctx)
	l := &loading{seq: m.loadSeq, path: path, cancel: cancel, ch: make(chan tea.Msg, 1)}
	m.load = l
	// The goroutine must not read the model, which Update owns.
	format, open, library, lg := m.opts.Format, m.opts.Open, m.opts.Library, m.opts.Log
	go func() {
		defer close(l.ch)
		var tr *tracefmt.Trace
		var err error
		start := time.Now()
		progress := func(done, total int64) {
			// Drop progress the UI has not taken yet: it only needs
			// the latest figure.
			select {
			case l.ch <- loadProgressMsg{l.seq, done, total}:
			default:
			}
		}
		tr, err = readTrace(ctx, open, library, path, format, progress)
		if err != nil {
			debug(lg, "file not loaded", "path", path, "err", err)
		} else {
			debug(lg, "file loaded", "path", path, "format", tr.Format, "ranks", len(tr.Ranks), "elapsed", time.Since(start))
		}
		select {
		case l.ch <- loadDoneMsg{l.seq, path, tr, err}:
		case <-ctx.Done():
		}
	}()
	return l.next
}

// readTrace reads the trace at path as the session opens files: through
// Options.Open when the session has one, else inside the library when
// there is one, else from the file system. It runs off the Bubble Tea
// goroutine.
func readTrace(ctx context.Context, open func(context.Context, string) (*tracefmt.Trace, error), library, path, format string, progress formats.Progress) (*tracefmt.Trace, error) {
	switch {
	case open != nil:
		// Options.Open is given paths that passed the library's check.
		if err := within(library, path); err != nil {
			return nil, err
		}
		return open(ctx, path)
	case library != "":
		// The open goes through the library's os.Root, side files
		// included, so that a link swapped in since cannot lead out.
		return openInLibrary(ctx, library, path, format, progress)
	}
	tr, _, err := formats.Open(ctx, path, format, progress)
	return tr, err
}

// openInLibrary reads the trace at path, which names a file in the
// library, through an os.Root on the library (formats.OpenIn). Errors
// name the file relative to the library, never by the server's path.
func openInLibrary(ctx context.Context, library, path, format string, progress formats.Progress) (*tracefmt.Trace, error) {
	rel, ok := libraryName(library, path)
	if !ok {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), errOutside)
	}
	root, err := os.OpenRoot(library)
	if err != nil {
		return nil, fmt.Errorf("trace library: %w", err)
	}
	defer root.Close()
	tr, _, err := formats.OpenIn(ctx, root, rel, format, progress)
	return tr, err
}

// next waits for the load's next message.
func (l *loading) next() tea.Msg {
	msg, ok := <-l.ch
	if !ok {
		return nil
	}
	return msg
}

// cancelLoad abandons the load in progress, if any.
func (m *Model) cancelLoad() {
	if m.load != nil {
		m.load.cancel()
		m.load = nil
	}
}

func (m *Model) loadProgress(msg loadProgressMsg) tea.Cmd {
	if m.load == nil || msg.seq != m.load.seq {
		return nil
	}
	m.load.done, m.load.total = msg.done, msg.total
	return m.load.next
}

func (m *Model) loadDone(msg loadDoneMsg) tea.Cmd {
	if m.load == nil || msg.seq != m.load.seq {
		return nil
	}
	m.load.cancel()
	m.load = nil
	if msg.err != nil {
		// The whole reason, wrapped over the bottom of the view until
		// esc dismisses it: the decisive part is often at the end.
		m.err = "could not open " + filepath.Base(msg.path) + ": " + strings.TrimPrefix(msg.err.Error(), msg.path+": ")
		return nil
	}
	return tea.Batch(m.openTrace(msg.tr, msg.path), m.setStatus("opened "+filepath.Base(msg.path)))
}

// loadView shows the load's progress.
func (m *Model) loadView(w, h int) string {
	st := m.common.Theme.Styles
	l := m.load
	frac := 0.0
	if l.total > 0 {
		frac = float64(l.done) / float64(l.total)
	}
	th := m.common.Theme
	bar := component.ProgressBar(min(w-4, 60), frac, th.Accent, th.Muted, true)
	lines := []string{
		"",
		"  " + st.Title.Render("Loading ") + filepath.Base(l.path),
		"",
		"  " + bar,
		"  " + fmt.Sprintf("%5s  %s of %s", units.FormatPercent(frac, 0), units.FormatBytes(l.done), units.FormatBytes(l.total)),
		"",
		"  " + st.HelpKey.Render("esc") + st.HelpDesc.Render(" cancel"),
	}
	return fit(lines, w, h)
}
