package machine

import (
	"fmt"
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

// TestGoldenUnused: under loggops the network rows it does not read
// (topology, routing, hops, bandwidth, …) are greyed with "not used by
// loggops", and the footer says the selected one changes nothing; at
// 80×24 and 160×48.
func TestGoldenUnused(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			m, _ := newMachine(t, 16)
			m.SetSize(size[0], size[1])
			drive(m, m.apply("model", "loggops"))
			m.Select("hops")
			viewtest.Golden(t, ansi.Strip(m.View()))
		})
	}
}
