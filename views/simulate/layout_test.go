package simulate

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/themes"
)

// TestLayoutSizes: every pane of every kind of network draws exactly
// Width×Height cells at sizes from 40×12 to 300×100, mid-run and
// finished, in colour and in monochrome.
func TestLayoutSizes(t *testing.T) {
	tr := stencil(t, 16)
	sizes := [][2]int{{40, 12}, {41, 13}, {60, 20}, {80, 24}, {100, 30}, {120, 40}, {160, 50}, {200, 60}, {300, 100}}
	topos := []string{"torus:4x4", "mesh:4x4", "torus:4x2x2", "ring:16", "hypercube:4",
		"fattree:k=4,levels=2", "dragonfly:p=1,a=4,h=1", "bus:16", "crossbar:16", ""}
	for _, topo := range topos {
		cfg := replay.Default()
		if topo != "" {
			cfg = packetConfig(t, topo)
		}
		m := newModel(t, tr, cfg, 100, 30)
		check := func(stage string) {
			for _, th := range []*themes.Theme{themes.Mono(), themes.Dark()} {
				m.common.Theme = th
				m.plain = false
				for _, sz := range sizes {
					for p := Pane(0); p < numPanes; p++ {
						m.pane = p
						m.SetSize(sz[0], sz[1])
						checkSize(t, topo+" "+stage, m.View(), sz[0], sz[1])
					}
				}
			}
		}
		check("idle")
		press(m, "t", "1", "2")
		check("prompt")
		press(m, "esc")
		drive(t, m, press(m, "t", "6", "2", "0", "u", "s", "enter"))
		m.router = 3
		check("mid-run")
		drive(t, m, press(m, "r"))
		drive(t, m, press(m, "R", "r")) // a second run, for the comparison
		if len(m.runs) != 2 {
			t.Fatalf("%s: %d runs (status %v, err %q)", topo, len(m.runs), m.status, m.err)
		}
		check("finished")
	}
}

func checkSize(t *testing.T, what, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("%s %dx%d: %d lines", what, w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%s %dx%d: line %d is %d wide: %q", what, w, h, i, got, ansi.Strip(l))
		}
	}
}
