package machine

import (
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestGoldenForm: the INSEE preset with a routing the torus does not
// support, marked inline; then the topology editor open.
func TestGoldenForm(t *testing.T) {
	m, _ := newMachine(t, 64)
	typeKeys(m, "p", "down", "enter")
	m.apply("routing", "updown")
	m.Select("routing")
	t.Run("error", func(t *testing.T) { viewtest.Golden(t, ansi.Strip(m.View())) })
	m.Select("topology")
	typeKeys(m, "enter")
	t.Run("topology", func(t *testing.T) { viewtest.Golden(t, ansi.Strip(m.View())) })
}
