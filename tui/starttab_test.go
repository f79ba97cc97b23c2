package tui

import (
	"testing"
)

// TestStartTab: Options.StartTab opens the session on the named tab (a
// teacher's Class tab); an unknown name or none keeps the first.
func TestStartTab(t *testing.T) {
	tr := testTrace(t)
	for _, tt := range []struct {
		start string
		want  string
	}{
		{"", "Timeline"},
		{"Causality", "Causality"},
		{"Simulate", "Simulate"},
		{"Nosuch", "Timeline"},
	} {
		m := New(Options{Trace: tr, Path: "start", NoColor: true, StartTab: tt.start})
		if got := m.TabNames()[m.Active()]; got != tt.want {
			t.Errorf("StartTab %q: active tab %q, want %q", tt.start, got, tt.want)
		}
		if m.ViewOf(m.Active()) == nil {
			t.Errorf("StartTab %q: no view built", tt.start)
		}
	}
}
