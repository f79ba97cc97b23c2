package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/tracesim/tracesim/views/matrix"
)

// TestProgram runs the application in a real Bubble Tea program (without
// a terminal): it paints, follows keys to another tab and into its view,
// takes a resize and quits on q.
func TestProgram(t *testing.T) {
	tm := teatest.NewTestModel(t, New(Options{Trace: testTrace(t), Path: "stencil.tsim", NoColor: true}),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	// The first frame is painted whole; later ones are diffs of cells, so
	// the test checks their effect on the final model instead.
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("12 ranks")) },
		teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	tm.Type("2")
	tm.Send(tea.WindowSizeMsg{Width: 60, Height: 20})
	tm.Type("m")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	m := tm.FinalModel(t).(*Model)
	if m.Active() != 1 || m.width != 60 || m.height != 20 {
		t.Errorf("final state: tab %d, %d×%d", m.Active(), m.width, m.height)
	}
	if mx, ok := m.views[1].(*matrix.Model); !ok || mx.Mode() != matrix.Count {
		t.Errorf("m did not reach the matrix view")
	}
}
