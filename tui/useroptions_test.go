package tui

import (
	"bytes"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/log/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/machine"
	"github.com/tracesim/tracesim/views/simulate"
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
		if _, name := presetWhatIf(tc.preset).Config(); name != tc.name {
			t.Errorf("preset %q: named %q, want %q", tc.preset, name, tc.name)
		}
	}
}

// TestOptionsLog: the debug log records the traces the UI loads and the
// simulations it runs, start and end.
func TestOptionsLog(t *testing.T) {
	var buf syncBuffer
	lg := log.NewWithOptions(&buf, log.Options{Level: log.DebugLevel, Formatter: log.LogfmtFormatter})
	p := writeTrace(t, t.TempDir(), "ring.clog2", gen.Options{Pattern: "ring", Ranks: 6, Iters: 4, Seed: 1})
	m := New(Options{Path: p, NoColor: true, Log: lg})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Init()
	finishLoad(t, m)
	sim := m.tabIndex("Simulate")
	press(m, string(rune('1'+sim)))
	settle(t, m, press(m, "r"))
	if v := m.ViewOf(sim).(*simulate.Model); v.Status() != simulate.Finished {
		t.Fatalf("status %v", v.Status())
	}
	var msgs []string
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		msg := regexp.MustCompile(`msg="([^"]+)"`).FindStringSubmatch(line)
		if msg == nil || !strings.Contains(line, "ring.clog2") {
			t.Errorf("record without msg or path: %q", line)
			continue
		}
		msgs = append(msgs, msg[1])
	}
	want := "file loaded|simulation started|simulation ended"
	if got := strings.Join(msgs, "|"); got != want {
		t.Errorf("records %s, want %s\n%s", got, want, buf.String())
	}
}

// syncBuffer is a bytes.Buffer the load goroutine and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
