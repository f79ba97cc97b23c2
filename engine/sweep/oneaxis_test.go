package sweep

import (
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/replay"
)

// TestOneAxisInvalidPointNamesNoLine: a one-setting sweep (the Machine
// tab's) has no spec file, so an invalid point's error names the axis and
// the point, not "line 0".
func TestOneAxisInvalidPointNamesNoLine(t *testing.T) {
	s := OneAxis("t.tsim", replay.Default(), "topology", []string{"torus:2x2", "nosuch:3"})
	_, err := s.Expand()
	if err == nil {
		t.Fatal("Expand accepted topology nosuch:3")
	}
	if msg := err.Error(); strings.Contains(msg, "line 0") || !strings.Contains(msg, "axes.topology: point topology=nosuch:3") {
		t.Errorf("error %q: want the axis and point named, no line 0", msg)
	}
}
