package tui

import (
	"runtime"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/views/component/viewtest"
	"github.com/tracesim/tracesim/views/derived"
)

// TestSessionsShareDerived runs two sessions on one trace with one
// derived-data cache, as a server does: the second session's views build
// nothing the first already built, and each session keeps its own view
// state. (views/timeline checks that the Timeline's summary is the same
// pointer in both.)
func TestSessionsShareDerived(t *testing.T) {
	tr := testTrace(t)
	cache := derived.New()
	session := func() *Model {
		m := New(Options{Trace: tr, Path: "stencil.tsim", NoColor: true, Derived: cache})
		m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
		return m
	}
	m1 := session()
	for i := range m1.TabNames() {
		m1.ViewOf(i)
	}
	built := cache.Builds()
	// The Timeline's summary, the sizes index, the traffic matrix, the
	// whole run's profile.
	if built < 4 {
		t.Errorf("the views built %d derived values through the cache, want at least 4", built)
	}
	m2 := session()
	for i := range m2.TabNames() {
		m2.ViewOf(i)
	}
	if n := cache.Builds(); n != built {
		t.Errorf("the second session built %d derived values again, want 0", n-built)
	}

	w2 := m2.ViewOf(m2.tabIndex(TimelineTab)).(Windower)
	a2, b2 := w2.Window()
	frame2 := m2.Frame()
	m1.switchTab(m1.tabIndex(TimelineTab))
	for _, k := range []string{"+", "+", "right"} {
		m1.Update(viewtest.Key(k))
	}
	a1, b1 := m1.ViewOf(m1.tabIndex(TimelineTab)).(Windower).Window()
	if a1 == a2 && b1 == b2 {
		t.Errorf("session 1's zoom did not change its window")
	}
	if a, b := w2.Window(); a != a2 || b != b2 {
		t.Errorf("session 2's window moved with session 1's keys: %v..%v, was %v..%v", a, b, a2, b2)
	}
	if m2.Frame() != frame2 {
		t.Errorf("session 2's frame changed with session 1's keys")
	}
	runtime.KeepAlive(m1)
}
