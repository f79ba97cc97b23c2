package timeline

import (
	"math"
	"slices"
	"strconv"
	"sync"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/cellbuf"
	"github.com/tracesim/tracesim/views/derived"
)

// The causal cone (key K) of the selected event (a message's send, a
// state's enter): on each rank, the events that happen before it (its
// past) and after it (its future) by happens-before, whatever their
// timestamps say. Everything between the two on a rank is concurrent with
// the selection and is dimmed, so that what could have influenced the
// selected event, and what it could influence, stands out. With skewed clocks the boundaries can sit at odd
// times (a past event stamped after a future one); after correction they
// line up.
//
// The cone is computed by causality.Graph.Cone, O(events) per call, off
// the event loop; the Graph is built once per trace, also off the event
// loop, and shared by every cone computed on that trace. The cone is the
// same in original and alternative times (same events, same matches):
// only where it is drawn changes. A selection made through Focus (the
// application's FocusEventMsg) gets its cone with the next message the
// view handles, since Focus cannot return a command.

// coneState is the cone display.
type coneState struct {
	on bool
	// graph builds the trace's happens-before graph once; nil until the
	// first cone is asked for, and replaced when the trace changes.
	graph *graphCache
	cone  *causality.Cone   // of event ev; nil until computed
	ev    tracefmt.EventRef // the event cone describes
	want  tracefmt.EventRef // the event the computation in flight is for
	busy  bool              // a computation is in flight
	err   string
}

// graphCache gets a trace's happens-before graph once, in whichever
// goroutine first needs it, from the session's derived-data cache: the
// Causality tab and the other sessions use the same graph.
type graphCache struct {
	tr    *tracefmt.Trace
	cache *derived.Cache // nil: a graph of its own
	once  sync.Once
	g     *causality.Graph
}

func (c *graphCache) get() *causality.Graph {
	c.once.Do(func() { c.g = derived.Graph(c.cache, c.tr) })
	return c.g
}

// coneReadyMsg carries a computed cone.
type coneReadyMsg struct {
	graph *graphCache
	ev    tracefmt.EventRef
	cone  *causality.Cone
	err   error
}

// ConeShown reports whether the causal cone display is on.
func (m *Model) ConeShown() bool { return m.cone.on }

// Cone returns the cone drawn, nil when none is (the display is off,
// nothing is selected, or the cone is being computed).
func (m *Model) Cone() *causality.Cone {
	if !m.cone.on || m.cone.cone == nil || m.sel.kind == selNone || m.cone.ev != m.sel.ref {
		return nil
	}
	return m.cone.cone
}

// coneUpdate handles the messages of the cone display: the Cone key
// (outside prompts and the legend) and computed cones. It reports whether
// it used msg.
func (m *Model) coneUpdate(msg tea.Msg) (tea.Cmd, bool) {
	if m.cone.graph != nil && m.cone.graph.tr != m.tr {
		// Another trace: nothing of the old cone applies.
		m.cone = coneState{on: m.cone.on}
	}
	switch msg := msg.(type) {
	case coneReadyMsg:
		if msg.graph != m.cone.graph || !m.cone.busy || msg.ev != m.cone.want {
			return nil, true // stale: another trace or selection
		}
		m.cone.busy = false
		m.cone.ev, m.cone.cone, m.cone.err = msg.ev, msg.cone, ""
		if msg.err != nil {
			m.cone.cone, m.cone.err = nil, msg.err.Error()
			m.status = "causal cone: " + m.cone.err
		}
		m.memo.Invalidate()
		return nil, true
	case tea.KeyPressMsg:
		if m.prompt.kind != promptNone || m.legend || m.ix() == nil || !key.Matches(msg, m.keys.Cone) {
			return nil, false
		}
		m.cone.on = !m.cone.on
		m.memo.Invalidate()
		if !m.cone.on {
			m.status = "causal cone hidden"
			return nil, true
		}
		m.status = "causal cone of the selection: events outside it dimmed (K hides)"
		if m.sel.kind == selNone {
			m.status = "causal cone: select an event first (enter)"
		}
		return m.coneFollow(), true
	}
	return nil, false
}

// coneFollow returns the command computing the cone of the selection when
// the display is on and the cone shown is another event's.
func (m *Model) coneFollow() tea.Cmd {
	if !m.cone.on || m.sel.kind == selNone || m.tr == nil {
		return nil
	}
	ev := m.sel.ref
	if (m.cone.cone != nil && m.cone.ev == ev) || (m.cone.busy && m.cone.want == ev) {
		return nil
	}
	if m.cone.graph == nil || m.cone.graph.tr != m.tr {
		m.cone.graph = &graphCache{tr: m.tr, cache: m.cache()}
	}
	m.cone.want, m.cone.busy = ev, true
	gc := m.cone.graph
	return func() tea.Msg {
		c, err := gc.get().Cone(ev)
		return coneReadyMsg{graph: gc, ev: ev, cone: c, err: err}
	}
}

// drawCone dims, on each shown rank, the columns between the cone's past
// and its future (the events concurrent with the selection), and says
// whose cone it is at the end of the status line.
func (m *Model) drawCone(p *palette) {
	c := m.Cone()
	l := m.lay
	if c == nil || l.nvis == 0 || l.cols <= 0 {
		return
	}
	ix := m.ix()
	cw := (m.b - m.a) / float64(l.cols)
	var bg cellbuf.Color
	if m.Theme != nil {
		bg = cellbuf.FromColor(m.Theme.Background)
	}
	for v := 0; v < l.nvis; v++ {
		r := m.ranks[m.top+v]
		// The concurrent part of the rank: after its last past event,
		// before its first future event.
		tp, tf := math.Inf(-1), math.Inf(1)
		if r < len(c.Past) && c.Past[r] >= 0 {
			tp = ix.time(r, int(c.Past[r]))
		}
		if r < len(c.Future) && c.Future[r] >= 0 {
			tf = ix.time(r, int(c.Future[r]))
		}
		if !(tp < tf) {
			continue
		}
		y0 := m.rowY(m.top + v)
		for col := range l.cols {
			t0, t1 := m.a+float64(col)*cw, m.a+float64(col+1)*cw
			if t0 <= tp || t1 >= tf {
				continue
			}
			for y := y0; y < y0+l.per && m.inArea(y); y++ {
				cl := m.buf.Ptr(l.x0+col, y)
				if cl == nil {
					continue
				}
				cl.Attrs |= cellbuf.Faint
				if p.mono {
					// No colour to fade: a state's fill becomes a dot.
					if y < y0+l.bar && slices.Contains(p.fills, cl.Rune) {
						cl.Rune = '·'
					}
					continue
				}
				cl.Fg, cl.Bg = fade(cl.Fg, bg), fade(cl.Bg, bg)
			}
		}
	}
	if l.footH > 0 {
		tag := " cone of " + strconv.Itoa(int(c.Event.Rank)) + ":" + strconv.Itoa(int(c.Event.Index)) + " (K) "
		n := len([]rune(tag))
		// Only over blank cells: a long status line (the cone's own
		// "… (K hides)") keeps its end.
		free := n < l.w/2
		for x := l.w - n; free && x < l.w; x++ {
			if r := m.buf.At(x, l.h-1).Rune; r != ' ' && r != 0 {
				free = false
			}
		}
		if free {
			m.buf.SetString(l.w-n, l.h-1, tag, p.accent, n)
		}
	}
}

// fade moves colour c two thirds of the way to the background bg (the
// terminal's default when bg is unset, approximated by black).
func fade(c, bg cellbuf.Color) cellbuf.Color {
	if c == cellbuf.NoColor {
		return c
	}
	r, g, b, _ := c.RGB()
	br, bgg, bb, _ := bg.RGB()
	mix := func(x, y uint8) uint8 { return uint8((int(x) + 2*int(y)) / 3) }
	return cellbuf.RGB(mix(r, br), mix(g, bgg), mix(b, bb))
}
