package tui

import (
	"bytes"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/teatest/v2"
)

// TestProgram runs the application in a real Bubble Tea program (without
// a terminal): it starts, follows keys to another tab, survives a resize
// and quits on q.
func TestProgram(t *testing.T) {
	tm := teatest.NewTestModel(t, New(Options{Trace: testTrace(t), Path: "stencil.tsim", NoColor: true}),
		teatest.WithInitialTermSize(100, 30),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	wait := func(s string) {
		t.Helper()
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(20*time.Millisecond))
	}
	wait("12 ranks")
	tm.Type("2")
	wait("Traffic bytes")
	tm.Send(tea.WindowSizeMsg{Width: 60, Height: 20})
	tm.Type("m")
	wait("Traffic messages")
	tm.Type("q")
	tm.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
	m := tm.FinalModel(t).(*Model)
	if m.Active() != 1 || m.width != 60 || m.height != 20 {
		t.Errorf("final state: tab %d, %d×%d", m.Active(), m.width, m.height)
	}
}
