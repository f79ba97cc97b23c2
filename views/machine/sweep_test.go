package machine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/views/component"
)

// s on a setting's row opens the sweep form: a numeric setting's range
// defaults to ×0.1…×10 of its value in ten log steps and takes other
// bounds, steps and scale; a categorical one offers all of its values;
// one without values says so. The completed form asks the application
// for the sweep (component.SweepMsg).
func TestSweepForm(t *testing.T) {
	clear := strings.Repeat("\b", 12) // backspaces, typed one by one below
	model, _ := replay.LookupSetting("model")
	tests := []struct {
		name  string
		key   string
		keys  []string
		want  []string // the values asked for; nil: no sweep
		title string   // the form's first line
		note  string   // shown after the form closed
	}{
		{"defaults", "bandwidth", []string{"enter", "enter", "enter", "enter"},
			[]string{"1Gb/s", "1.668Gb/s", "2.783Gb/s", "4.642Gb/s", "7.743Gb/s", "12.92Gb/s", "21.54Gb/s", "35.94Gb/s", "59.95Gb/s", "100Gb/s"},
			"sweep bandwidth on the loaded trace: from", "sweep of bandwidth over 10 values: starting…"},
		{"typed range", "bandwidth", []string{clear, "5Gb/s", "enter", clear, "20Gb/s", "enter", clear, "4", "enter", "enter"},
			[]string{"5Gb/s", "7.937Gb/s", "12.6Gb/s", "20Gb/s"}, "sweep bandwidth", "sweep of bandwidth over 4 values"},
		{"linear", "bandwidth", []string{clear, "10Gb/s", "enter", clear, "40Gb/s", "enter", clear, "4", "enter", "right", "enter"},
			[]string{"10Gb/s", "20Gb/s", "30Gb/s", "40Gb/s"}, "sweep bandwidth", "sweep of bandwidth over 4 values"},
		{"choices", "model", []string{"enter"}, model.Choices, "sweep model on the loaded trace (space toggles, enter runs)", "sweep of model over"},
		{"no values", "map", nil, nil, "", "map has no list of values to sweep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, _ := newMachine(t, 16)
			if !m.Select(tc.key) {
				t.Fatalf("no %s row", tc.key)
			}
			typeKeys(m, "s")
			if tc.title != "" && !strings.Contains(ansi.Strip(m.View()), tc.title) {
				t.Fatalf("the form does not show %q:\n%s", tc.title, ansi.Strip(m.View()))
			}
			var out []any
			for _, k := range tc.keys {
				if strings.Trim(k, "\b") == "" {
					for range k {
						for _, msg := range typeKeys(m, "backspace") {
							out = append(out, msg)
						}
					}
					continue
				}
				for _, msg := range typeKeys(m, k) {
					out = append(out, msg)
				}
			}
			var got *component.SweepMsg
			for _, msg := range out {
				if s, ok := msg.(component.SweepMsg); ok {
					got = &s
				}
			}
			switch {
			case tc.want == nil && got != nil:
				t.Errorf("a sweep of %v was asked for", got.Values)
			case tc.want != nil && got == nil:
				t.Fatalf("no sweep asked for:\n%s", ansi.Strip(m.View()))
			case tc.want != nil && (got.Key != tc.key || !slices.Equal(got.Values, tc.want)):
				t.Errorf("sweep of %s over %q, want %s over %q", got.Key, got.Values, tc.key, tc.want)
			}
			if m.Capturing() {
				t.Errorf("the form is still open")
			}
			if v := ansi.Strip(m.View()); !strings.Contains(v, tc.note) {
				t.Errorf("the tab does not say %q:\n%s", tc.note, v)
			}
		})
	}
}

// The topology form ticks every example but the placeholder file
// (file:net.txt names no file of the user's and would only refuse the
// sweep); a configured topology file is offered first, ticked; the
// application's refusal replaces the "starting" note with its reason.
func TestSweepTopologyChoices(t *testing.T) {
	for _, c := range []struct {
		name, topo string
		first      string
		n          int
	}{
		{"default", "", "ring:16", 8},
		{"a file of the user's", "file:mine.txt", "file:mine.txt", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, _ := newMachine(t, 16)
			if c.topo != "" {
				if err := m.cfg.Set("topology", c.topo); err != nil {
					t.Fatal(err)
				}
			}
			if !m.Select("topology") {
				t.Fatal("no topology row")
			}
			typeKeys(m, "s")
			var got *component.SweepMsg
			for _, msg := range typeKeys(m, "enter") {
				if s, ok := msg.(component.SweepMsg); ok {
					got = &s
				}
			}
			if got == nil {
				t.Fatalf("no sweep asked for:\n%s", ansi.Strip(m.View()))
			}
			for _, v := range got.Values {
				if v == "file:net.txt" {
					t.Errorf("the placeholder is swept: %q", got.Values)
				}
			}
			if got.Values[0] != c.first || len(got.Values) != c.n {
				t.Errorf("values %q", got.Values)
			}
			if v := ansi.Strip(m.View()); !strings.Contains(v, "sweep of topology over ") || strings.Contains(v, "see the Sweep tab") {
				t.Errorf("note:\n%s", v)
			}
			m.Update(component.SweepRefusedMsg{Key: "topology", Reason: "topology file:mine.txt: no such file"})
			if v := ansi.Strip(m.View()); !strings.Contains(v, "sweep of topology not started: topology file:mine.txt: no such file") {
				t.Errorf("refusal not shown:\n%s", v)
			}
		})
	}
}

// TestSweepRefusedWraps: the reason a sweep was refused shows whole at
// 80×24, wrapped under the footer, where one line cut it after "point
// topology=file:net.txt:" (it showed whole only at 250 columns).
func TestSweepRefusedWraps(t *testing.T) {
	// The application's words for a missing topology file
	// (tui.TestSweepRefusedOnMachineTab).
	const reason = "axes.topology: point topology=file:net.txt: topology file net.txt: no such file or directory"
	for _, c := range []struct {
		w, h, lines int
	}{
		{80, 24, 2},
		{160, 48, 1},
	} {
		t.Run(fmt.Sprintf("%dx%d", c.w, c.h), func(t *testing.T) {
			m, _ := newMachine(t, 16)
			m.SetSize(c.w, c.h)
			m.Update(component.SweepRefusedMsg{Key: "topology", Reason: reason})
			frame := strings.Split(ansi.Strip(m.View()), "\n")
			if len(frame) != c.h {
				t.Fatalf("%d lines drawn, want %d", len(frame), c.h)
			}
			start := -1
			for i, l := range frame {
				if strings.HasPrefix(l, "sweep of topology not started:") {
					start = i
				}
			}
			if start < 0 {
				t.Fatalf("no refusal:\n%s", strings.Join(frame, "\n"))
			}
			var note []string
			for _, l := range frame[start:min(start+c.lines, len(frame))] {
				note = append(note, strings.TrimSpace(l))
			}
			if got, want := strings.Join(note, " "), "sweep of topology not started: "+reason; got != want {
				t.Errorf("the refusal reads\n%q\nwant\n%q\nframe:\n%s", got, want, strings.Join(frame, "\n"))
			}
		})
	}
}
