package stats

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/analysis"
	"github.com/tracesim/tracesim/themes"
)

// Per-rank bars share one scale, the longest rank's time, so that a rank
// busy half as long draws half as long a bar; x switches to each rank's
// own scale (once every bar filled the width whatever its rank's time,
// hiding the imbalance).
func TestBarsShareOneScale(t *testing.T) {
	m := newModel(t, themes.Mono(), 100, 30)
	long := &analysis.RankProfile{Time: [analysis.NumActivities]float64{analysis.Compute: 2}}
	short := &analysis.RankProfile{Time: [analysis.NumActivities]float64{analysis.Compute: 0.5, analysis.Waiting: 0.5}}
	drawn := func(s string) int { return len([]rune(strings.TrimRight(ansi.Strip(s), " "))) }
	tests := []struct {
		name  string
		rp    *analysis.RankProfile
		scale float64
		want  int
	}{
		{"the longest rank fills the width", long, 2, 40},
		{"a rank half as long, half the width", short, 2, 20},
		{"its own scale: the full width", short, 0, 40},
	}
	for _, tc := range tests {
		if got := drawn(m.bar(tc.rp, 40, tc.scale)); got != tc.want {
			t.Errorf("%s: %d cells, want %d", tc.name, got, tc.want)
		}
	}
	if !strings.Contains(ansi.Strip(m.View()), "bars one scale (x: per rank)") {
		t.Errorf("the table does not say its bars share one scale:\n%s", ansi.Strip(m.View()))
	}
	press(m, "x")
	if !m.ownScale || !strings.Contains(ansi.Strip(m.View()), "bars per-rank scale (x: one scale)") {
		t.Errorf("x did not switch to per-rank scales:\n%s", ansi.Strip(m.View()))
	}
}
