package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/tracefmt"
)

// Times count from the start of the run everywhere, as the Timeline's
// ruler does, even when the trace's clock starts elsewhere (MPE's does).
func TestWindowCountsFromTheRunsStart(t *testing.T) {
	b := tracefmt.NewBuilder(2, true, tracefmt.Second)
	st := b.State("MPI_Send")
	for r, evs := range [][]tracefmt.Event{
		{tracefmt.Enter(5, st), tracefmt.Send(5, 1, 0, 0, 8), tracefmt.Leave(5.5, st)},
		{tracefmt.Enter(5.2, st), tracefmt.Recv(6, 0, 0, 0, 8), tracefmt.Leave(7, st)},
	} {
		for _, e := range evs {
			if _, err := b.Add(r, e); err != nil {
				t.Fatal(err)
			}
		}
	}
	tr, err := b.Finish()
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(t, 120, 30, func(o *Options) { o.Trace = tr })
	screen := ansi.Strip(m.Frame())
	if !strings.Contains(screen, "window 0 s–2 s") {
		t.Errorf("status bar window does not count from the run's start (5 s):\n%s", screen)
	}
}

// A theme against the terminal's background paints its own background;
// one that matches it leaves the terminal's alone.
func TestForcedThemePaintsBackground(t *testing.T) {
	for _, tc := range []struct {
		theme string
		dark  bool // the terminal's background
		paint bool
	}{
		{"light", true, true},
		{"light", false, false},
		{"dark", false, true},
		{"", true, false},
		{"", false, false},
		{"mono", false, false},
	} {
		m := newModel(t, 80, 24, func(o *Options) { o.Theme, o.NoColor = tc.theme, false })
		m.dark = tc.dark
		if tc.theme == "" {
			m.common.Theme = m.opts.theme(tc.dark)
		}
		if v := m.View(); (v.BackgroundColor != nil) != tc.paint {
			t.Errorf("theme %q on a dark=%v terminal: background %v, want painted=%v", tc.theme, tc.dark, v.BackgroundColor, tc.paint)
		}
	}
}
