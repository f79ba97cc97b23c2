package machine

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A setting the chosen model ignores is greyed and says "not used by
// <model>", and the footer no longer calls it simply valid (once routing
// "adaptive" under the puppet model showed "✓ valid" and vanished from the
// run's label).
func TestUnusedSettingsSaySo(t *testing.T) {
	tests := []struct {
		model, key, value string
		says              string // on the setting's line; "" for its help
	}{
		{"puppet", "routing", "adaptive", "not used by puppet"},
		{"loggops", "switching", "wormhole", "not used by loggops"},
		{"packet", "routing", "adaptive", ""},
	}
	for _, tc := range tests {
		t.Run(tc.model+" "+tc.key, func(t *testing.T) {
			m, _ := newMachine(t, 16)
			if tc.model == "packet" {
				m.apply("topology", "torus:4x4")
			}
			m.apply("model", tc.model)
			m.apply(tc.key, tc.value)
			m.Select(tc.key)
			v := ansi.Strip(m.View())
			var line string
			for _, l := range strings.Split(v, "\n") {
				if strings.Contains(l, " "+tc.key+" ") {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no %s line:\n%s", tc.key, v)
			}
			if tc.says != "" {
				if !strings.Contains(line, tc.says) {
					t.Errorf("%s line %q does not say %q", tc.key, line, tc.says)
				}
				if !strings.Contains(v, "✓ valid, but "+tc.key+" is "+tc.says) {
					t.Errorf("the footer does not say %s changes nothing:\n%s", tc.key, v)
				}
			} else if strings.Contains(line, "not used") {
				t.Errorf("%s line %q says it is not used", tc.key, line)
			}
		})
	}
}
