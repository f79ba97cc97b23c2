package tui

import (
	"bytes"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tui/termwriter"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// keyScreenKeys are the keys `tracesim bench --ui` presses, in its order:
// Timeline zoom in, pan right, pan left, zoom out, next tab, previous tab.
var keyScreenKeys = []string{"+", "l", "h", "-", "tab", "shift+tab"}

// screenRenderer does what Bubble Tea's renderer does with a frame at
// each tick: parse the view's string into cells, diff them with the
// screen, and encode the difference (into out).
type screenRenderer struct {
	out bytes.Buffer
	buf uv.ScreenBuffer
	scr *uv.TerminalRenderer
}

func newScreenRenderer(w, h int) *screenRenderer {
	r := &screenRenderer{buf: uv.NewScreenBuffer(w, h)}
	r.scr = uv.NewTerminalRenderer(&r.out, []string{"TERM=xterm-256color", "COLORTERM=truecolor"})
	r.scr.SetColorProfile(colorprofile.TrueColor)
	r.scr.SetFullscreen(true)
	r.scr.SetRelativeCursor(false)
	r.scr.SetTabStops(-1)
	r.scr.SetScrollOptim(true)
	r.scr.Resize(w, h)
	return r
}

// frame draws content and returns the bytes written to the terminal.
func (r *screenRenderer) frame(content string) int {
	r.out.Reset()
	r.buf.Clear()
	uv.NewStyledString(content).Draw(r.buf, r.buf.Bounds())
	r.scr.Render(r.buf.RenderBuffer)
	_ = r.scr.Flush()
	return r.out.Len()
}

// keyScreenModel is the application at 200×60 on a 64-rank stencil2d
// trace of about 900 k events (under the size whose Timeline summary is
// built in the background), each key pressed once so that every view is
// built.
func keyScreenModel(b *testing.B) *Model {
	b.Helper()
	o := gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 1, Seed: 1, Compute: -1}
	c, err := gen.Expect(o)
	if err != nil {
		b.Fatal(err)
	}
	o.Iters = max(1, 900_000/c.Events)
	var tr *tracefmt.Trace
	if tr, err = gen.Generate(o); err != nil {
		b.Fatal(err)
	}
	m := New(Options{Trace: tr, Path: filepath.Join("x", "bench.tsim")})
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 60})
	for _, k := range keyScreenKeys {
		press(m, k)
		m.View()
	}
	return m
}

// signalWriter discards what is written and reports each write's size.
type signalWriter struct{ wrote chan int }

func (s *signalWriter) Write(b []byte) (int, error) {
	s.wrote <- len(b)
	return len(b), nil
}

// BenchmarkKeyToScreen is a key press as the UI handles it, without the
// terminal: the model's Update and View ("view"), Bubble Tea's renderer
// on that frame ("render": parse, diff, encode), the default renderer on
// it ("direct": package termwriter), and the model with Bubble Tea's
// renderer in turn ("both"), for the keys of `tracesim bench --ui` in turn, so that every
// frame differs from the one before.
func BenchmarkKeyToScreen(b *testing.B) {
	m := keyScreenModel(b)
	b.Run("view", func(b *testing.B) {
		i := 0
		for b.Loop() {
			m.Update(viewtest.Key(keyScreenKeys[i%len(keyScreenKeys)]))
			m.View()
			i++
		}
	})
	var frames []string
	for _, k := range keyScreenKeys {
		m.Update(viewtest.Key(k))
		frames = append(frames, m.View().Content)
	}
	b.Run("render", func(b *testing.B) {
		r := newScreenRenderer(200, 60)
		n, i := 0, 0
		for b.Loop() {
			n += r.frame(frames[i%len(frames)])
			i++
		}
		b.ReportMetric(float64(n)/float64(i), "bytes/frame")
	})
	b.Run("direct", func(b *testing.B) {
		// The default renderer: the frame handed over, diffed by line
		// and written by the writer's goroutine (timed until written).
		out := &signalWriter{wrote: make(chan int, 1)}
		w := termwriter.New(out, nil, 200, 60)
		defer w.Close()
		n, i := 0, 0
		for b.Loop() {
			w.Render(tea.NewView(frames[i%len(frames)]))
			n += <-out.wrote
			i++
		}
		b.ReportMetric(float64(n)/float64(i), "bytes/frame")
	})
	b.Run("both", func(b *testing.B) {
		r := newScreenRenderer(200, 60)
		n, i := 0, 0
		for b.Loop() {
			m.Update(viewtest.Key(keyScreenKeys[i%len(keyScreenKeys)]))
			n += r.frame(m.View().Content)
			i++
		}
		b.ReportMetric(float64(n)/float64(i), "bytes/frame")
	})
}
