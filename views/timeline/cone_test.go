package timeline

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/causality"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// update sends msg to m and runs the commands it returns, feeding their
// messages back, as the program would.
func update(m *Model, msg tea.Msg) {
	for msg != nil {
		_, cmd := m.Update(msg)
		if cmd == nil {
			return
		}
		msg = cmd()
	}
}

// TestReversedThenCorrected follows what the Causality tab does: it
// focuses the receive of a message received before it was sent, then
// offers the corrected trace. The selected message is drawn highlighted
// (● at the send) with its head pointing back in time and the details
// saying so; with the corrected times the head points forward and the
// latency is positive; a switches back.
func TestReversedThenCorrected(t *testing.T) {
	orig, _ := reversedTrace(t)
	c, err := causality.Correct(t.Context(), orig, causality.CorrectOptions{Method: causality.MethodBoth, LMin: 1e-6})
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, 80, 24, orig)
	recv := tracefmt.EventRef{Rank: 1, Index: 3}
	if orig.Event(recv).Kind != tracefmt.KindRecv {
		t.Fatalf("event %v is %v", recv, orig.Event(recv).Kind)
	}
	update(m, component.FocusEventMsg{Event: recv})
	if m.sel.kind != selMsg || m.sel.peer != recv {
		t.Fatalf("focus on the receive selected %+v", m.sel)
	}
	v := m.View()
	for _, want := range []string{"●", "◀", "REVERSED", "(-4µs)"} {
		if !strings.Contains(v, want) {
			t.Errorf("original times: no %q in\n%s", want, v)
		}
	}
	update(m, component.AltTraceMsg{Trace: c.Trace, Label: "corrected"})
	v = m.View()
	if strings.Contains(v, "◀") || strings.Contains(v, "REVERSED") || !strings.Contains(v, "▶") || !strings.Contains(v, "recv") {
		t.Errorf("corrected times: the message still goes back\n%s", v)
	}
	if !strings.Contains(v, "times: corrected (a)") {
		t.Errorf("corrected times not announced\n%s", v)
	}
	if m.sel.peer != recv {
		t.Errorf("the selection did not survive the switch: %+v", m.sel)
	}
	d := m.describe(m.sel)
	if !strings.Contains(d, "(+") {
		t.Errorf("corrected latency not positive: %s", d)
	}
	update(m, viewtest.Key("a"))
	if v := m.View(); !strings.Contains(v, "◀") || !strings.Contains(v, "times: original (a)") {
		t.Errorf("a did not switch back to the original times\n%s", v)
	}
}

// skewedTrace is a small stencil whose clocks are skewed.
func skewedTrace(t testing.TB) *tracefmt.Trace {
	return genTrace(t, gen.Options{Pattern: "stencil2d", Ranks: 4, Iters: 3, Seed: 1, Skew: 80e-6})
}

func TestCone(t *testing.T) {
	tr := skewedTrace(t)
	m := newModel(t, 120, 30, tr)
	plain := m.View()
	// A receive in the middle of rank 1.
	var ev tracefmt.EventRef
	for i, e := range tr.Ranks[1].Events {
		if e.Kind == tracefmt.KindRecv && i > len(tr.Ranks[1].Events)/2 {
			ev = tracefmt.EventRef{Rank: 1, Index: int32(i)}
			break
		}
	}
	m.Focus(ev)
	selected := m.View()
	_, cmd := m.Update(viewtest.Key("K"))
	if !m.ConeShown() || cmd == nil {
		t.Fatal("K did not start computing the cone")
	}
	if m.Cone() != nil {
		t.Fatal("a cone before it was computed")
	}
	update(m, cmd())
	c := m.Cone()
	if c == nil || c.Event != m.sel.ref {
		t.Fatalf("cone %+v, selection %+v", c, m.sel)
	}
	want, err := causality.NewGraph(tr).Cone(m.sel.ref)
	if err != nil {
		t.Fatal(err)
	}
	for r := range want.Past {
		if c.Past[r] != want.Past[r] || c.Future[r] != want.Future[r] {
			t.Fatalf("rank %d: past %d future %d, want %d %d", r, c.Past[r], c.Future[r], want.Past[r], want.Future[r])
		}
	}
	v := m.View()
	tag := " cone of 1:" // the selection is the message's send when it is on rank 1
	if m.sel.ref.Rank != 1 {
		tag = " cone of "
	}
	if !strings.Contains(v, tag) || !strings.Contains(v, "·") || v == selected {
		t.Errorf("the cone is not drawn:\n%s", v)
	}
	viewtest.Golden(t, v)

	// Another selection: the cone follows it.
	m.Focus(tracefmt.EventRef{Rank: 0, Index: 1})
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyF12})
	if cmd == nil {
		t.Fatal("the cone does not follow the selection")
	}
	update(m, cmd())
	if c := m.Cone(); c == nil || c.Event != m.sel.ref {
		t.Fatalf("cone of %+v after selecting %+v", c, m.sel.ref)
	}
	// A cone that arrives for an old selection is dropped.
	m.Focus(ev)
	_, cmd = m.Update(tea.KeyPressMsg{Code: tea.KeyF12})
	m.Focus(tracefmt.EventRef{Rank: 2, Index: 1})
	m.Update(cmd())
	if m.Cone() != nil {
		t.Fatal("a stale cone is drawn")
	}

	// K again hides it: the frame is the plain one.
	m.Update(viewtest.Key("K"))
	m.Update(viewtest.Key("esc"))
	if m.ConeShown() {
		t.Fatal("K did not hide the cone")
	}
	press(m, "f")
	if v := m.View(); strings.Contains(v, " cone of ") || len(v) != len(plain) {
		t.Errorf("hidden cone still drawn:\n%s", v)
	}
}

func TestConeLayout(t *testing.T) {
	tr := skewedTrace(t)
	for _, sz := range [][2]int{{20, 6}, {40, 12}, {80, 24}, {300, 100}} {
		m := newModel(t, sz[0], sz[1], tr)
		m.plain = false
		m.Focus(tracefmt.EventRef{Rank: 2, Index: 5})
		update(m, viewtest.Key("K"))
		if m.Cone() == nil {
			t.Fatalf("%v: no cone", sz)
		}
		checkFrame(t, m.View(), sz[0], sz[1])
	}
}

// At 80 columns the status line "causal cone of the selection: …
// (K hides)" is long: the cone's tag must not be written over it.
func TestConeTagDoesNotOverwriteStatus(t *testing.T) {
	tr := skewedTrace(t)
	m := newModel(t, 80, 24, tr)
	m.Focus(tracefmt.EventRef{Rank: 1, Index: 1})
	_, cmd := m.Update(viewtest.Key("K"))
	if cmd != nil {
		update(m, cmd())
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "(K hides)") {
		t.Errorf("the status line was overwritten:\n%s", v)
	}
}
