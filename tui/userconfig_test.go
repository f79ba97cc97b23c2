package tui

import (
	"reflect"
	"regexp"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/views/machine"
)

// TestOptionsKeys: a user's key bindings replace the defaults, in the
// keys that work and in the help; ctrl+c always quits.
func TestOptionsKeys(t *testing.T) {
	m := newModel(t, 80, 24, func(o *Options) {
		o.Keys = map[string][]string{"quit": {"Q"}, "next_tab": {"l", "tab"}}
	})
	quits := func(k string) bool {
		cmd := press(m, k)
		if cmd == nil {
			return false
		}
		_, ok := cmd().(tea.QuitMsg)
		return ok
	}
	if quits("q") || !quits("Q") || !quits("ctrl+c") {
		t.Error("quit: want Q and ctrl+c, not q")
	}
	press(m, "l")
	if m.active != 1 {
		t.Errorf("l: tab %d, want 1", m.active)
	}
	press(m, "tab")
	if m.active != 2 {
		t.Errorf("tab: tab %d, want 2", m.active)
	}
	press(m, "?")
	help := ansi.Strip(m.Frame())
	if !regexp.MustCompile(`\bQ\s+quit`).MatchString(help) || !regexp.MustCompile(`\bl\s+next tab`).MatchString(help) {
		t.Errorf("help does not show the new keys:\n%s", help)
	}
}

// TestOptionsPreset: the Machine tab starts from the configured preset.
func TestOptionsPreset(t *testing.T) {
	p, err := preset.Lookup("insee-torus")
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.Config()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		preset string
		name   string
	}{
		{"insee-torus", p.Name},
		{"", "default"},
	} {
		m := newModel(t, 120, 40, func(o *Options) { o.Preset = tc.preset })
		i := -1
		for j, tab := range m.tabs {
			if tab.Name == "Machine" {
				i = j
			}
		}
		mv, ok := m.build(i).(*machine.Model)
		if !ok {
			t.Fatalf("tab %d is %T", i, m.build(i))
		}
		cfg, err := mv.Config()
		if err != nil {
			t.Fatal(err)
		}
		if tc.preset != "" && !reflect.DeepEqual(cfg, want) {
			t.Errorf("preset %q: Machine tab config differs from the preset's", tc.preset)
		}
		if tc.preset == "" && reflect.DeepEqual(cfg, want) {
			t.Error("no preset: the Machine tab has the preset's config")
		}
		if _, name := presetShared(tc.preset).Config(); name != tc.name {
			t.Errorf("preset %q: named %q, want %q", tc.preset, name, tc.name)
		}
	}
}
