package simulate

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt/units"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestRunProgress checks the run's progress row (a bubbles progress bar
// spliced into the frame) in colour and without: the bar fills the share
// of the trace's events replayed, the tail says how many and the bytes in
// flight the engine reports, and the frame keeps its size.
func TestRunProgress(t *testing.T) {
	tests := []struct {
		name  string
		plain bool
		steps int
	}{
		{"colour, idle", false, 0},
		{"colour, part way", false, 30},
		{"plain, part way", true, 45},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr := stencil(t, 16)
			m := newModel(t, tr, packetConfig(t, "torus:4x4"), 100, 30)
			if !tc.plain {
				m.plain = false
				m.common.Theme = themes.Dark()
			}
			for range tc.steps {
				drive(t, m, press(m, "d"))
			}
			frame := m.View()
			if err := viewtest.CheckFrame(frame, 100, 30); err != "" {
				t.Fatal(err)
			}
			if tc.plain && strings.Contains(frame, "\x1b") {
				t.Errorf("a plain frame has escape sequences")
			}
			row := ansi.Strip(strings.Split(frame, "\n")[1])
			var done, total uint64
			flying := int64(0)
			if m.snap != nil {
				done, total, flying = m.snap.TraceEvents, m.snap.TotalTraceEvents, m.snap.Net.BytesInFlight
			} else {
				total = uint64(tr.NumEvents())
			}
			if tc.steps > 0 && (done == 0 || done >= total) {
				t.Fatalf("%d of %d events after %d steps: the test shows no bar part way", done, total, tc.steps)
			}
			f := float64(done) / float64(total)
			tail := fmt.Sprintf("%d/%d events", done, total)
			if !strings.Contains(row, tail) || !strings.Contains(row, "in flight ("+units.FormatBytes(flying)+")") {
				t.Errorf("progress row %q; want %q and %s in flight", row, tail, units.FormatBytes(flying))
			}
			bw := m.bar.w
			bar := []rune(row)[:bw]
			full := strings.Count(string(bar), "█")
			if want := int(f*float64(bw) + 0.5); full != want || strings.Count(string(bar), "░") != bw-full {
				t.Errorf("bar %q: %d of %d cells full, want %d (%.0f%%)", string(bar), full, bw, want, f*100)
			}
		})
	}
}
