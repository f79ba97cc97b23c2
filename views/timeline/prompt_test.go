package timeline

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// TestPromptEditing: the prompts are text inputs: the cursor moves,
// ctrl+w deletes a word, a paste lands at the cursor, and the footer shows
// the text with the cursor where it is.
func TestPromptEditing(t *testing.T) {
	tr := genTrace(t, gen.Options{Pattern: "ring", Ranks: 4, Iters: 2})
	for _, c := range []struct {
		name  string
		keys  []string
		paste string
		want  string // the prompt's text
		foot  string // the footer line, trimmed
	}{
		{"typed", []string{"/", `"size>=4KiB tag=3"`}, "", "size>=4KiB tag=3", "/size>=4KiB tag=3█"},
		{"ctrl+w deletes a word", []string{"/", `"size>=4KiB tag=3"`, "ctrl+w"}, "", "size>=4KiB ", "/size>=4KiB █"},
		{"insert before the cursor", []string{"/", `"tag=3"`, "left", "left", `"1"`}, "", "tag1=3", "/tag1=3"},
		{"home, then paste", []string{"r", "home"}, "0-1 ", "0-1 ", "ranks: 0-1 █"},
		{"backspace", []string{"g", `"12us"`, "backspace", "backspace"}, "", "12", "go to: 12█"},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newModel(t, 80, 12, tr)
			press(m, c.keys...)
			if c.paste != "" {
				m.Update(tea.PasteMsg{Content: c.paste})
			}
			if got := m.prompt.in.Value(); got != c.want {
				t.Errorf("prompt holds %q, want %q", got, c.want)
			}
			lines := strings.Split(ansi.Strip(m.View()), "\n")
			if got := strings.TrimRight(lines[len(lines)-1], " "); got != c.foot {
				t.Errorf("footer %q, want %q", got, c.foot)
			}
		})
	}
	// Enter runs the prompt: a rank filter keeps the ranks typed.
	m := newModel(t, 80, 12, tr)
	press(m, "r", `"0,2"`, "enter")
	if m.Capturing() || m.filterText != "0,2" {
		t.Errorf("after enter: capturing %v, filter %q", m.Capturing(), m.filterText)
	}
	viewtest.Press(m, "r", "ctrl+w", "esc")
	if m.filterText != "0,2" {
		t.Errorf("esc changed the filter to %q", m.filterText)
	}
}
