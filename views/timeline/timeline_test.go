package timeline

import (
	"math"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// layoutTraces are the awkward traces every size must cope with.
func layoutTraces(t *testing.T) map[string]*tracefmt.Trace {
	one := newBuilder(t, 1, true)
	one.state(0, "work", 0, 5)
	zero := newBuilder(t, 2, true)
	zero.state(0, "MPI_Send", 3, 3)
	zero.add(0, tracefmt.Send(3, 1, 0, 0, 8))
	zero.add(1, tracefmt.Recv(3, 0, 0, 0, 8))
	untimed := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 3})
	for r := range untimed.Ranks {
		for i := range untimed.Ranks[r].Events {
			untimed.Ranks[r].Events[i].Time = 0
		}
	}
	untimed.Timed = false
	orig, _ := reversedTrace(t)
	return map[string]*tracefmt.Trace{
		"nil":      nil,
		"empty":    {Timed: true, Comms: []tracefmt.Comm{{}}},
		"one-rank": one.finish(),
		"zero-dur": zero.finish(),
		"untimed":  untimed,
		"reversed": orig,
		"ring":     genTrace(t, gen.Options{Pattern: "ring", Ranks: 8, Iters: 4}),
		"many":     genTrace(t, gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 2}),
	}
}

// TestLayoutSizes renders every awkward trace at sizes from 20×6 to
// 300×100, in colour and in monochrome, before and after zooming,
// selecting and opening the legend and a prompt: every frame must be
// exactly Width×Height cells.
func TestLayoutSizes(t *testing.T) {
	// Sizes at and around every layout threshold (legend at 70 columns;
	// overview at 8 lines, details at 12 and 20; ranks 1–4 lines high).
	widths := []int{20, 21, 33, 69, 70, 80, 161, 300}
	heights := []int{6, 7, 8, 11, 12, 19, 20, 24, 37, 100}
	for name, tr := range layoutTraces(t) {
		t.Run(name, func(t *testing.T) {
			for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
				for _, w := range widths {
					for _, h := range heights {
						m := New(component.New(&component.Session{Theme: th}, w, h), tr)
						checkFrame(t, m.View(), w, h)
						press(m, "+", "+", "+", "w", "w", "L", "down", "space")
						checkFrame(t, m.View(), w, h)
						press(m, "L", "-", "m", "b", "/", `"MPI"`)
						checkFrame(t, m.View(), w, h)
						press(m, "enter", "n", "end", "f", "j", "j", "j")
						checkFrame(t, m.View(), w, h)
					}
				}
			}
		})
	}
}

// TestZoomKeepsCursorTime zooms around cursors at several places: the
// cursor keeps its time, and where the window need not be clamped to the
// run, its place on the screen.
func TestZoomKeepsCursorTime(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20})
	tests := []struct {
		name  string
		frac  float64 // cursor position in the fitted window
		keys  []string
		exact bool // no clamping: the screen fraction is kept too
	}{
		{"in middle", 0.5, []string{"+"}, true},
		{"in middle, twice", 0.5, []string{"+", "+"}, true},
		{"left third", 0.33, []string{"+", "+", "+"}, true},
		{"near right", 0.9, []string{"=", "+"}, true},
		{"in, in, out", 0.25, []string{"+", "+", "-"}, true},
		{"at start", 0, []string{"+"}, true},
		{"out from fit", 0.5, []string{"-"}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := newModel(t, 120, 30, tr)
			m.cur = m.a + tc.frac*(m.b-m.a)
			cur := m.cur
			frac := (m.cur - m.a) / (m.b - m.a)
			press(m, tc.keys...)
			if m.cur != cur {
				t.Errorf("cursor moved from %v to %v", cur, m.cur)
			}
			if got := (m.cur - m.a) / (m.b - m.a); tc.exact && math.Abs(got-frac) > 1e-9 {
				t.Errorf("cursor at %.4f of the window, was %.4f", got, frac)
			}
		})
	}
	t.Run("mouse wheel zooms at the pointer", func(t *testing.T) {
		m := newModel(t, 120, 30, tr)
		m.SetOffset(3, 2)
		col := 40
		m.Update(tea.MouseWheelMsg{X: 3 + m.lay.x0 + col, Y: 2 + m.lay.areaY, Button: tea.MouseWheelUp})
		want := m.history[0].a + (float64(col)+0.5)*(m.history[0].b-m.history[0].a)/float64(m.lay.cols)
		if m.cur != want {
			t.Errorf("cursor %v, want the pointer's time %v", m.cur, want)
		}
		if w0, w1 := m.history[0].b-m.history[0].a, m.b-m.a; math.Abs(w1-w0/2) > 1e-9*w0 {
			t.Errorf("width %v after wheel up, want %v", w1, w0/2)
		}
	})
}

// TestZoomHistory walks back through zooms, fits and go-tos.
func TestZoomHistory(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20})
	m := newModel(t, 120, 30, tr)
	var seen []window
	step := func(keys ...string) {
		seen = append(seen, window{m.a, m.b})
		press(m, keys...)
	}
	step("+")
	step("+")
	step("l") // a pan is not a zoom: not in the history
	seen = seen[:len(seen)-1]
	step("-")
	step("g", `"100us"`, "enter")
	step("f")
	for i := len(seen) - 1; i >= 0; i-- {
		press(m, "backspace")
		if got := (window{m.a, m.b}); got != seen[i] {
			t.Errorf("back %d: window %v, want %v", len(seen)-i, got, seen[i])
		}
	}
	press(m, "u")
	if m.status == "" {
		t.Error("going back past the start should say the history is empty")
	}
	if got, want := (window{m.a, m.b}), seen[0]; got != want {
		t.Errorf("after all the way back: %v, want the fitted %v", got, want)
	}
}

// TestSearch searches states and messages forwards and backwards.
func TestSearch(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "stencil2d", Ranks: 4, Iters: 3, Size: 2048})
	tests := []struct {
		query string
		want  func(e *tracefmt.Event, r int) bool
	}{
		{"waitall", func(e *tracefmt.Event, r int) bool {
			return e.Kind == tracefmt.KindEnter && tr.StateName(e.State()) == "MPI_Waitall"
		}},
		{"tag=0", func(e *tracefmt.Event, r int) bool { return e.Kind == tracefmt.KindSend && e.Tag == 0 }},
		{"size>1000", func(e *tracefmt.Event, r int) bool { return e.Kind == tracefmt.KindSend && e.Size > 1000 }},
		{"peer=3", func(e *tracefmt.Event, r int) bool {
			return e.Kind == tracefmt.KindSend && (e.Peer == 3 || r == 3)
		}},
		{"to=2 size>=2KiB", func(e *tracefmt.Event, r int) bool {
			return e.Kind == tracefmt.KindSend && e.Peer == 2 && e.Size >= 2048
		}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			m := newModel(t, 160, 40, tr)
			m.cur = m.a
			// Every hit, in (time, rank, index) order.
			var hits []pos
			for r := range tr.Ranks {
				for i := range tr.Ranks[r].Events {
					if tc.want(&tr.Ranks[r].Events[i], r) {
						hits = append(hits, pos{tr.Ranks[r].Events[i].Time, r, i})
					}
				}
			}
			slices.SortFunc(hits, func(a, b pos) int {
				if a.less(b) {
					return -1
				}
				return 1
			})
			if len(hits) < 3 {
				t.Fatalf("only %d hits: a poor test", len(hits))
			}
			press(m, "/", `"`+tc.query+`"`, "enter")
			for i, want := range hits[:3] {
				if i > 0 {
					press(m, "n")
				}
				if got := m.here(); got.r != want.r || got.i != want.i {
					t.Fatalf("hit %d: selected rank %d event %d, want rank %d event %d (%s)", i, got.r, got.i, want.r, want.i, m.status)
				}
				if m.Selection() == "" {
					t.Fatal("a hit must be described")
				}
				if t0, t1, _ := m.selRange(); t0 < m.a || t1 > m.b {
					t.Errorf("hit %d not in view", i)
				}
			}
			press(m, "N")
			if got := m.here(); got.r != hits[1].r || got.i != hits[1].i {
				t.Errorf("N: selected rank %d event %d, want the previous hit", got.r, got.i)
			}
		})
	}
	t.Run("no match and bad queries", func(t *testing.T) {
		m := newModel(t, 160, 40, tr)
		press(m, "/", `"nosuchstate"`, "enter")
		if !strings.Contains(m.status, "no match") || m.sel.kind != selNone {
			t.Errorf("status %q, selection %v", m.status, m.sel)
		}
		for _, q := range []string{"tag=x", "colour=red", "size>lots"} {
			if _, err := parseQuery(q); err == nil {
				t.Errorf("parseQuery(%q) accepted", q)
			}
		}
	})
}

// TestGoTo goes to times given with units.
func TestGoTo(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20}) // about 2 ms
	tests := []struct {
		in   string
		want float64 // µs from the start; < 0: an error
	}{
		{"100us", 100},
		{"1.5ms", 1500},
		{"0.0002", 200},
		{"250 µs", 250},
		{"1h", -1},
		{"soon", -1},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			m := newModel(t, 120, 30, tr)
			press(m, "+", "+", "+")
			w := m.b - m.a
			press(m, "g", `"`+tc.in+`"`, "enter")
			if tc.want < 0 {
				if m.status == "" {
					t.Error("no error shown")
				}
				return
			}
			if math.Abs(m.cur-(m.orig.start+tc.want)) > 1e-9 {
				t.Errorf("cursor at %v, want %v", m.cur-m.orig.start, tc.want)
			}
			if m.cur < m.a || m.cur > m.b || math.Abs((m.b-m.a)-w) > 1e-9*w {
				t.Errorf("window %v..%v does not keep its width around the cursor", m.a, m.b)
			}
		})
	}
}

// TestFocus focuses events of each kind: they are selected, their rank
// becomes the cursor rank and they come into view.
func TestFocus(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "stencil2d", Ranks: 16, Iters: 20})
	find := func(r int, k tracefmt.Kind, nth int) tracefmt.EventRef {
		for i := range tr.Ranks[r].Events {
			if tr.Ranks[r].Events[i].Kind == k {
				if nth == 0 {
					return tracefmt.EventRef{Rank: int32(r), Index: int32(i)}
				}
				nth--
			}
		}
		t.Fatalf("no %v on rank %d", k, r)
		return tracefmt.EventRef{}
	}
	tests := []struct {
		name string
		ref  tracefmt.EventRef
		kind selKind
	}{
		{"send", find(5, tracefmt.KindSend, 40), selMsg},
		{"recv", find(13, tracefmt.KindRecv, 30), selMsg},
		{"enter", find(2, tracefmt.KindEnter, 30), selState},
		{"leave", find(15, tracefmt.KindLeave, 3), selState},
		{"collective", find(7, tracefmt.KindCollective, 1), selEvent},
	}
	for _, tc := range tests {
		for _, viaMsg := range []bool{false, true} {
			m := newModel(t, 100, 12, tr) // room for few ranks: must scroll
			press(m, "r", `"0-3,13"`, "enter")
			if viaMsg {
				m.Update(component.FocusEventMsg{Event: tc.ref})
			} else {
				m.Focus(tc.ref)
			}
			if m.sel.kind != tc.kind || m.Selection() == "" {
				t.Errorf("%s: selection %v %q", tc.name, m.sel, m.Selection())
			}
			if m.ranks[m.row] != int(tc.ref.Rank) {
				t.Errorf("%s: cursor rank %d, want %d", tc.name, m.ranks[m.row], tc.ref.Rank)
			}
			m.View()
			if m.row < m.top || m.row >= m.top+m.lay.nvis {
				t.Errorf("%s: cursor rank row %d not among the %d shown from %d", tc.name, m.row, m.lay.nvis, m.top)
			}
			t0, t1, _ := m.selRange()
			if t0 < m.a || t1 > m.b {
				t.Errorf("%s: %v..%v not in window %v..%v", tc.name, t0, t1, m.a, m.b)
			}
			if tc.kind == selMsg {
				if len(m.arrows) == 0 || m.arrows[len(m.arrows)-1].sel != m.sel {
					t.Errorf("%s: the selected message is not drawn as an arrow", tc.name)
				}
			}
		}
	}
}

// TestToggleHidesState hides a state from the legend: no sample shows it
// any more, in the rows or the overview, and showing it again restores
// the frame.
func TestToggleHidesState(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 5})
	m := newModel(t, 120, 30, tr)
	before := m.View()
	idx := -1
	for i, s := range m.ix().states {
		if tr.States[s].Name == "MPI_Sendrecv" {
			idx = i
		}
	}
	if idx < 0 {
		t.Fatal("no MPI_Sendrecv in the legend")
	}
	press(m, "L")
	for range idx {
		press(m, "down")
	}
	press(m, "space")
	s := m.ix().states[idx]
	if !m.hidden[s] {
		t.Fatal("space in the legend did not hide the state")
	}
	frame := m.View()
	row := make([]int32, 200)
	for r := range tr.Ranks {
		m.ix().sampleRow(r, m.a, (m.b-m.a)/200, row, m.hidden, &m.acc)
		if slices.Contains(row, s+1) {
			t.Errorf("rank %d still shows the hidden state", r)
		}
	}
	if slices.Contains(m.over.cells, s+1) {
		t.Error("the overview still shows the hidden state")
	}
	// MPI_Sendrecv is the only p2p state: its monochrome fill is gone.
	fill := themes.Mono().Fill(tracefmt.CatP2P)
	for _, l := range strings.Split(frame, "\n")[m.lay.areaY : m.lay.areaY+m.lay.nvis*m.lay.per] {
		if strings.ContainsRune(l[:min(len(l), m.lay.x0+m.lay.cols)], fill) {
			t.Errorf("hidden state still drawn: %q", l)
		}
	}
	press(m, "space", "esc")
	if got := m.View(); got != before {
		t.Error("showing the state again did not restore the frame")
	}
}

// TestAltTimesReverseArrow shows a message received before it was sent
// (the arrow points back in time), switches to corrected times (it points
// forward) and back.
func TestAltTimesReverseArrow(t *testing.T) {
	orig, alt := reversedTrace(t)
	m := newModel(t, 80, 24, orig)
	m.Focus(tracefmt.EventRef{Rank: 0, Index: 3})
	heads := func() (back, fwd int) {
		f := m.View()
		return strings.Count(f, "◀"), strings.Count(f, "▶")
	}
	if b, f := heads(); b != 1 || f != 0 {
		t.Fatalf("original times: %d backward and %d forward heads, want 1 and 0:\n%s", b, f, m.View())
	}
	if !strings.Contains(m.Selection(), "REVERSED") {
		t.Errorf("details do not say the message is reversed: %q", m.Selection())
	}
	_, cmd := m.Update(component.AltTraceMsg{Trace: alt, Label: "corrected"})
	if cmd == nil {
		t.Fatal("AltTraceMsg must build the alternative in a command")
	}
	m.Update(cmd())
	if b, f := heads(); b != 0 || f != 1 {
		t.Fatalf("corrected times: %d backward and %d forward heads, want 0 and 1:\n%s", b, f, m.View())
	}
	if !strings.Contains(m.View(), "corrected") {
		t.Error("the alternative's label is not shown")
	}
	press(m, "a")
	if b, f := heads(); b != 1 || f != 0 {
		t.Errorf("back to original: %d backward and %d forward heads", b, f)
	}
	press(m, "a")
	if b, f := heads(); b != 0 || f != 1 {
		t.Errorf("corrected again: %d backward and %d forward heads", b, f)
	}
	m.Update(component.AltTraceMsg{})
	if b, _ := heads(); b != 1 || m.alt != nil {
		t.Error("withdrawing the alternative did not restore the original times")
	}
	m.SetAlt(genTrace(t, gen.Options{Pattern: "ring", Ranks: 2, Iters: 3}), "other")
	if m.alt != nil || m.status == "" {
		t.Error("an alternative with other events must be refused with a message")
	}
}

// TestFrameCache checks that messages that change nothing do not render.
func TestFrameCache(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 5})
	m := newModel(t, 120, 30, tr)
	n := m.Renders()
	frame := m.View()
	for _, k := range []string{"x", "Q", "h", "[", "-", "f", "0", "up", "k"} {
		press(m, k) // at the start, fitted, on the first rank: nothing moves
		if got := m.View(); got != frame || m.Renders() != n {
			t.Fatalf("key %q re-rendered (%d renders)", k, m.Renders()-n)
		}
	}
	m.Update(tea.MouseMotionMsg{X: 5, Y: 5})
	m.View()
	if m.Renders() != n {
		t.Error("mouse motion re-rendered")
	}
	press(m, "+")
	m.View()
	m.View()
	if m.Renders() != n+1 {
		t.Errorf("a zoom rendered %d frames, want 1", m.Renders()-n)
	}
	m.SetSize(100, 20)
	checkFrame(t, m.View(), 100, 20)
}

// TestRankFilterAndScroll filters ranks and scrolls through many.
func TestRankFilterAndScroll(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "stencil2d", Ranks: 64, Iters: 2})
	m := newModel(t, 80, 24, tr)
	if m.lay.nvis >= 64 {
		t.Fatal("all ranks fit: a poor test")
	}
	press(m, "pgdown", "pgdown")
	m.View()
	if m.top == 0 || m.row < m.top || m.row >= m.top+m.lay.nvis {
		t.Errorf("paging down: row %d top %d shown %d", m.row, m.top, m.lay.nvis)
	}
	press(m, "r", `"3-5, 60-"`, "enter")
	if want := []int{3, 4, 5, 60, 61, 62, 63}; !slices.Equal(m.ranks, want) {
		t.Errorf("filtered ranks %v, want %v", m.ranks, want)
	}
	if f := m.View(); !strings.Contains(f, "ranks 3-5, 60-") {
		t.Error("the filter is not shown")
	}
	press(m, "r", `"99"`, "enter")
	if !strings.Contains(m.status, "outside") || len(m.ranks) != 7 {
		t.Errorf("bad filter: status %q, ranks %v", m.status, m.ranks)
	}
	press(m, "r", "backspace", "backspace", "backspace", "backspace", "backspace", "backspace",
		"backspace", "backspace", "backspace", "backspace", "backspace", "backspace", "enter")
	if len(m.ranks) != 64 {
		t.Errorf("clearing the filter left %d ranks", len(m.ranks))
	}
}

// TestUntimed shows an untimed trace by event order.
func TestUntimed(t *testing.T) {
	b := newBuilder(t, 2, false)
	b.state(0, "MPI_Send", 0, 0)
	b.add(0, tracefmt.ComputeWork(0, 1e6))
	b.add(0, tracefmt.Send(0, 1, 0, 0, 100))
	b.add(1, tracefmt.Recv(0, 0, 0, 0, 100))
	b.state(1, "MPI_Recv", 0, 0)
	tr := b.finish()
	m := newModel(t, 80, 24, tr)
	f := m.View()
	if !strings.Contains(f, "untimed") {
		t.Errorf("no note about untimed traces:\n%s", f)
	}
	press(m, "g", `"#2"`, "enter")
	if m.cur != 2 {
		t.Errorf("go to #2: cursor %v", m.cur)
	}
	m.Focus(tracefmt.EventRef{Rank: 0, Index: 3})
	if !strings.Contains(m.Selection(), "#3") {
		t.Errorf("selection %q should give event positions", m.Selection())
	}
	checkFrame(t, m.View(), 80, 24)
}

// TestStepAndSelect steps through events with w and b and selects under the
// cursor.
func TestStepAndSelect(t *testing.T) {
	orig, _ := reversedTrace(t)
	m := newModel(t, 80, 24, orig)
	m.cur = m.a
	press(m, "w")
	if m.sel.kind != selState || m.sel.ref != (tracefmt.EventRef{Rank: 0, Index: 0}) {
		t.Fatalf("first w: %v", m.sel)
	}
	press(m, "w", "w")
	if m.sel.kind != selMsg || m.sel.ref != (tracefmt.EventRef{Rank: 0, Index: 3}) {
		t.Fatalf("third w: %v, want the message", m.sel)
	}
	press(m, "b")
	if m.sel.kind != selState || m.sel.ref.Index != 2 {
		t.Errorf("b: %v, want MPI_Send", m.sel)
	}
	press(m, "esc")
	if m.Selection() != "" {
		t.Error("esc must clear the selection")
	}
	// Click on the compute state of rank 1 near the end.
	m.View()
	m.Update(tea.MouseClickMsg{X: m.lay.x0 + m.lay.cols - 2, Y: m.rowY(1), Button: tea.MouseLeft})
	if m.sel.kind != selState || m.sel.ref.Rank != 1 || !strings.Contains(m.Selection(), "Compute") {
		t.Errorf("click: %v %q", m.sel, m.Selection())
	}
}

// TestMouseAndModes clicks the legend and the overview and cycles the
// message modes.
func TestMouseAndModes(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20})
	m := newModel(t, 120, 30, tr)
	s := m.ix().states[0]
	m.Update(tea.MouseClickMsg{X: m.lay.legX + 3, Y: legendHeader, Button: tea.MouseLeft})
	if !m.hidden[s] {
		t.Error("clicking a legend row did not hide its state")
	}
	m.Update(tea.MouseClickMsg{X: m.lay.legX + 3, Y: legendHeader, Button: tea.MouseLeft})
	if m.hidden[s] {
		t.Error("clicking it again did not show it")
	}
	press(m, "+", "+", "+")
	w := m.b - m.a
	m.Update(tea.MouseClickMsg{X: m.lay.x0 + m.lay.cols - 1, Y: m.lay.overY, Button: tea.MouseLeft})
	if m.b != m.orig.end || math.Abs((m.b-m.a)-w) > 1e-9*w {
		t.Errorf("clicking the end of the overview: window %v..%v, want the last %v of the run", m.a, m.b, w)
	}
	m.Update(tea.MouseWheelMsg{X: m.lay.x0 + 5, Y: m.lay.areaY, Button: tea.MouseWheelLeft})
	if m.b >= m.orig.end {
		t.Error("wheel left did not pan")
	}
	// Fitted, the ring's 80 messages are too many for arrows at this
	// size: marks. Cycling: arrows, marks, off, auto.
	press(m, "f")
	count := func() (arrows, marks int) {
		f := m.View()
		return len(m.arrows), strings.Count(f, "▸") + strings.Count(f, "◂") + strings.Count(f, "◆")
	}
	if a, k := count(); a != 0 || k == 0 {
		t.Errorf("auto, fitted: %d arrows %d marks", a, k)
	}
	want := []struct{ arrows, marks bool }{{true, false}, {false, true}, {false, false}, {false, true}}
	for i, w := range want {
		press(m, "m")
		a, k := count()
		if (a > 0) != w.arrows || (k > 0) != w.marks {
			t.Errorf("mode %s: %d arrows %d marks", msgModeNames[(i+1)%len(msgModeNames)], a, k)
		}
	}
}

// TestOddTimes draws traces with times no real run has (huge, negative,
// infinite, NaN, running backwards): no panic, no endless loop, frames of
// the right size.
func TestOddTimes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times []float64
	}{
		{"huge", []float64{0, 1e300, 2e300, 3e300}},
		{"negative", []float64{-5e9, -4e9, -1, 0}},
		{"backwards", []float64{10, 5, 7, 1}},
		{"infinite", []float64{0, math.Inf(1), 1, 2}},
		{"nan", []float64{0, math.NaN(), 1, 2}},
		{"tiny", []float64{1e-300, 2e-300, 3e-300, 4e-300}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBuilder(t, 2, true)
			ts := tc.times
			b.state(0, "a", ts[0], ts[1])
			b.add(0, tracefmt.Send(ts[1], 1, 0, 0, 1))
			b.state(0, "b", ts[2], ts[3])
			b.state(1, "a", ts[0], ts[2])
			b.add(1, tracefmt.Recv(ts[3], 0, 0, 0, 1))
			tr := b.finish()
			for _, th := range []*themes.Theme{themes.Dark(), themes.Mono()} {
				m := New(component.New(&component.Session{Theme: th}, 90, 20), tr)
				checkFrame(t, m.View(), 90, 20)
				press(m, "+", "+", "w", "w", "w", "enter", "-", "l", "m", "/", `"a"`, "enter", "n", "g", `"1s"`, "enter")
				checkFrame(t, m.View(), 90, 20)
				m.Focus(tracefmt.EventRef{Rank: 1, Index: 2})
				checkFrame(t, m.View(), 90, 20)
			}
		})
	}
}

// TestTimeFormat checks that times print precisely enough to tell apart
// the ends of a short interval late in a run.
func TestTimeFormat(t *testing.T) {
	b := newBuilder(t, 1, true)
	b.state(0, "x", 0, 10e6) // a 10 s run in µs
	m := newModel(t, 80, 24, b.finish())
	tests := []struct {
		t, res float64
		want   string
	}{
		{5942.1, 0, "5.942ms"},
		{5942.1, 50, "5.942ms"},
		{5942.1, 0.05, "5.94210ms"},
		{5942.6, 0.05, "5.94260ms"},
		{2.5e6, 1, "2.500000s"},
		{12.3456, 0.001, "12.346µs"},
		{12.3456, 0.0001, "12.3456µs"},
		{0, 0.001, "0s"},
	}
	for _, tc := range tests {
		if got := m.fmtTimeRes(tc.t, tc.res); got != tc.want {
			t.Errorf("fmtTimeRes(%v, %v) = %q, want %q", tc.t, tc.res, got, tc.want)
		}
	}
}

// TestLegendWithoutPanel uses the legend keys in a view too narrow for the
// legend panel: the status line shows the legend row.
func TestLegendWithoutPanel(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 5})
	m := newModel(t, 50, 12, tr)
	if m.lay.legW != 0 {
		t.Fatal("the legend panel fits: a poor test")
	}
	press(m, "L")
	if f := m.View(); !strings.Contains(f, "legend 1/2: Compute (shown)") {
		t.Errorf("no legend row in the status line:\n%s", f)
	}
	press(m, "space")
	if f := m.View(); !strings.Contains(f, "Compute (hidden)") {
		t.Errorf("hiding is not shown:\n%s", f)
	}
	checkFrame(t, m.View(), 50, 12)
}

// TestZoomToSelection fits the window to the selected state.
func TestZoomToSelection(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20})
	m := newModel(t, 120, 30, tr)
	press(m, "z")
	if m.status == "" {
		t.Error("z without a selection should say so")
	}
	press(m, "w")
	t0, t1, _ := m.selRange()
	press(m, "z")
	if m.a > t0 || m.b < t1 || m.b-m.a > 2*(t1-t0) {
		t.Errorf("window %v..%v does not fit the selection %v..%v", m.a, m.b, t0, t1)
	}
	press(m, "u")
	if m.b-m.a == (t1-t0)*1.5 {
		t.Error("u did not undo the zoom")
	}
}

// TestMarkers draws marker events and selects one.
func TestMarkers(t *testing.T) {
	b := newBuilder(t, 2, true)
	b.state(0, "work", 0, 10)
	mk := b.b.Marker("checkpoint")
	e := tracefmt.Mark(5, mk)
	e.SetTextRef(b.b.Text("iteration 7"))
	b.add(0, e)
	b.state(1, "work", 0, 10)
	m := newModel(t, 80, 24, b.finish())
	if f := m.View(); strings.Count(f, "◇") != 1 {
		t.Errorf("want one marker drawn:\n%s", f)
	}
	m.cur = 5
	press(m, "enter")
	if got := m.Selection(); !strings.Contains(got, "checkpoint") || !strings.Contains(got, "iteration 7") {
		t.Errorf("selection %q should name the marker and its text", got)
	}
}

// TestHomeEnd pans to the ends of the run, keeping the width.
func TestHomeEnd(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 20})
	m := newModel(t, 120, 30, tr)
	press(m, "+", "+", "+")
	w := m.b - m.a
	press(m, "end")
	if m.b != m.orig.end || math.Abs(m.b-m.a-w) > 1e-9*w {
		t.Errorf("end: window %v..%v", m.a, m.b)
	}
	press(m, "home")
	if m.a != m.orig.start || math.Abs(m.b-m.a-w) > 1e-9*w {
		t.Errorf("home: window %v..%v", m.a, m.b)
	}
}

// TestSearchSpecial searches for reversed messages and by duration.
func TestSearchSpecial(t *testing.T) {
	orig, alt := reversedTrace(t)
	tests := []struct {
		query string
		tr    *tracefmt.Trace
		want  tracefmt.EventRef // Rank -1: no match
		kind  selKind
	}{
		{"reversed", orig, tracefmt.EventRef{Rank: 0, Index: 3}, selMsg},
		{"reversed", alt, tracefmt.EventRef{Rank: -1}, selNone},
		{"compute dur>9.5us", orig, tracefmt.EventRef{Rank: 0, Index: 0}, selState},
		{"dur<2us rank=1", orig, tracefmt.EventRef{Rank: 1, Index: 2}, selState},
		{"msg dur<0", orig, tracefmt.EventRef{Rank: 0, Index: 3}, selMsg},
		{"tag!=7", orig, tracefmt.EventRef{Rank: -1}, selNone},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			m := newModel(t, 80, 24, tc.tr)
			m.cur = m.a
			press(m, "/", `"`+tc.query+`"`, "enter")
			if m.sel.kind != tc.kind || (tc.kind != selNone && m.sel.ref != tc.want) {
				t.Errorf("selected %v, want %v %v (%s)", m.sel, tc.kind, tc.want, m.status)
			}
		})
	}
}

// TestBackgroundBuild builds the summary in the background: the view says
// so, Focus and alternative times given meanwhile wait for it, and the
// command from Init brings it in.
func TestBackgroundBuild(t *testing.T) {
	orig, alt := reversedTrace(t)
	m := newWithAsync(component.New(&component.Session{Theme: themes.Mono()}, 80, 24), orig, 0)
	m.plain = true
	if m.job == nil {
		t.Fatal("no background build")
	}
	if s, e := m.Window(); s != 0 || e != 20 {
		t.Errorf("window while building: %v..%v, want the run 0..20", s, e)
	}
	// Keep the build from finishing before the checks below.
	<-m.job.done
	m.job.done = make(chan struct{})
	if f := m.View(); !strings.Contains(f, "building the timeline") {
		t.Errorf("no building message:\n%s", f)
	}
	checkFrame(t, m.View(), 80, 24)
	cmd := m.Init()
	if cmd == nil {
		t.Fatal("Init returned no wait command")
	}
	press(m, "+", "/", `"x"`)
	m.Update(component.FocusEventMsg{Event: tracefmt.EventRef{Rank: 1, Index: 3}})
	m.Update(component.AltTraceMsg{Trace: alt, Label: "corrected"})
	if m.Selection() != "" || m.Capturing() {
		t.Error("keys or focus acted before the summary was built")
	}
	if _, again := m.Update(viewtest.Key("x")); again != nil {
		t.Error("a second wait command was issued")
	}
	close(m.job.done)
	m.Update(cmd())
	if m.job != nil || m.orig == nil {
		t.Fatal("the built summary was not installed")
	}
	if m.sel.kind != selMsg || m.alt == nil || !m.useAlt {
		t.Errorf("pending focus %v or alternative %v not applied", m.sel, m.alt != nil)
	}
	if f := m.View(); !strings.Contains(f, "corrected") || strings.Contains(f, "building") {
		t.Errorf("after the build:\n%s", f)
	}

	// Focus called directly has no command to wait with: it waits.
	m = newWithAsync(component.New(&component.Session{Theme: themes.Mono()}, 80, 24), orig, 0)
	m.Focus(tracefmt.EventRef{Rank: 0, Index: 3})
	if m.job != nil || m.sel.kind != selMsg {
		t.Errorf("direct Focus during the build: job %v, selection %v", m.job != nil, m.sel)
	}
}

// The ruler never shows a label the edge cuts nor a negative zero.
func TestRulerLabelsWhole(t *testing.T) {
	for name, tr := range layoutTraces(t) {
		if tr == nil {
			continue
		}
		for _, w := range []int{80, 161} {
			m := New(component.New(&component.Session{Theme: themes.Mono()}, w, 24), tr)
			for _, keys := range [][]string{nil, {"+", "+", "l"}} {
				press(m, keys...)
				v := ansi.Strip(m.View())
				ruler := strings.Split(v, "\n")[0]
				if strings.Contains(ruler, "-0") {
					t.Errorf("%s at %d: negative zero in the ruler %q", name, w, ruler)
				}
				for _, lab := range strings.Split(ruler, "|")[1:] {
					lab = strings.TrimSpace(strings.Split(strings.Split(lab, "│")[0], "▼")[0])
					if lab != "" && !strings.HasPrefix(lab, "#") && !strings.HasSuffix(lab, "s") {
						t.Errorf("%s at %d: cut ruler label %q in %q", name, w, lab, ruler)
					}
				}
			}
		}
	}
}
