package timeline

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// legendNames are the 13 states of manyStatesTrace: more than a narrow
// legend (80 columns) can give two lines each.
var legendNames = []string{
	"Compute", "MPI_Send", "MPI_Recv", "MPI_Isend", "MPI_Irecv", "MPI_Wait", "MPI_Waitall",
	"MPI_Barrier", "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Alltoall", "user_io",
}

// manyStatesTrace has two ranks that each pass through the 13 states of
// legendNames, one after the other.
func manyStatesTrace(t *testing.T) *tracefmt.Trace {
	b := newBuilder(t, 2, true)
	for r := range 2 {
		for i, name := range legendNames {
			t0 := float64(10*i + r)
			b.state(r, name, t0, t0+float64(5+i%3))
		}
	}
	return b.finish()
}

// legendPart returns the legend panel's lines of a plain frame: what is
// right of the timeline's │ separator.
func legendPart(frame string) []string {
	var out []string
	for _, l := range strings.Split(frame, "\n") {
		if i := strings.LastIndex(l, "│"); i >= 0 {
			out = append(out, strings.TrimRight(l[i+len("│"):], " "))
		}
	}
	return out
}

func legendHas(lines []string, name string) bool {
	for _, l := range lines {
		// A row is "[>] swatch name [numbers]"; the mono theme's
		// Compute swatch is a blank.
		for _, f := range strings.Fields(strings.TrimPrefix(l, ">")) {
			if f == name {
				return true
			}
		}
	}
	return false
}

// TestLegendAllStates: at 80×24 a legend of 13 states showed 6 (two lines
// each) and nothing said there were more. Now every state is listed at
// once (one line each, names only), and where even that does not fit, a
// "+N more" line says how many are left and L with ↓ scrolls to each.
func TestLegendAllStates(t *testing.T) {
	tr := manyStatesTrace(t)
	t.Run("80x24", func(t *testing.T) {
		m := newModel(t, 80, 24, tr)
		v := m.View()
		viewtest.Golden(t, v)
		leg := legendPart(v)
		for _, name := range legendNames {
			if !legendHas(leg, name) {
				t.Errorf("state %s not in the legend:\n%s", name, strings.Join(leg, "\n"))
			}
		}
		// The compact rows have no numbers: with the legend focused, the
		// last line gives the cursor state's (Compute: 2 intervals of 5).
		press(m, "L")
		if leg := legendPart(m.View()); !strings.Contains(strings.Join(leg, "\n"), "2 × 10") {
			t.Errorf("focused compact legend shows no numbers for Compute:\n%s", strings.Join(leg, "\n"))
		}
	})
	for _, h := range []int{12, 16} {
		t.Run(fmt.Sprintf("80x%d scrolls", h), func(t *testing.T) {
			m := newModel(t, 80, h, tr)
			leg := legendPart(m.View())
			shown := 0
			for _, name := range legendNames {
				if legendHas(leg, name) {
					shown++
				}
			}
			if shown == len(legendNames) {
				t.Fatalf("all %d states fit at 80×%d: the case tests nothing", shown, h)
			}
			more := fmt.Sprintf("+%d more", len(legendNames)-shown)
			if !strings.Contains(strings.Join(leg, "\n"), more) {
				t.Errorf("legend of %d of %d states does not say %q:\n%s", shown, len(legendNames), more, strings.Join(leg, "\n"))
			}
			seen := map[string]bool{}
			press(m, "L")
			for range legendNames {
				leg := legendPart(m.View())
				for _, name := range legendNames {
					if legendHas(leg, name) {
						seen[name] = true
					}
				}
				press(m, "down")
			}
			for _, name := range legendNames {
				if !seen[name] {
					t.Errorf("state %s never shown while scrolling the legend", name)
				}
			}
			if leg := legendPart(m.View()); !strings.Contains(strings.Join(leg, "\n"), "↑ ") {
				t.Errorf("legend scrolled to the end does not say how many are above:\n%s", strings.Join(leg, "\n"))
			}
		})
	}
}

// TestLegendMoreClick: a click on the "+N more" line shows the next state
// and hides none (it once toggled the state that line covers).
func TestLegendMoreClick(t *testing.T) {
	m := newModel(t, 80, 12, manyStatesTrace(t))
	slots, per, _ := m.legendRows()
	y := legendHeader + slots*per
	if line := legendPart(m.View())[y]; !strings.HasPrefix(line, "+") {
		t.Fatalf("line %d of the legend is %q, want the +N more line", y, line)
	}
	m.Update(tea.MouseClickMsg{X: m.lay.legX + 3, Y: y, Button: tea.MouseLeft})
	for s, h := range m.hidden {
		if h {
			t.Errorf("state %d hidden by a click on the more line", s)
		}
	}
	next := legendNames[slots]
	if leg := legendPart(m.View()); !legendHas(leg, next) {
		t.Errorf("state %s not shown after the click:\n%s", next, strings.Join(leg, "\n"))
	}
}
