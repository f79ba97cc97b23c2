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
