package machine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

// burst delivers keys as they arrive over a slow link: all of them before
// the message of any command they (or the form they open) lead to. Then
// the commands run, as Bubble Tea runs them once the keys are handled.
func burst(m *Model, keys ...string) {
	var cmds []tea.Cmd
	for _, k := range keys {
		_, c := m.Update(viewtest.Key(k))
		cmds = append(cmds, c)
	}
	_ = drive(m, tea.Batch(cmds...))
}

// TestTypeAhead types into the Machine tab's forms faster than their own
// messages come back (the form's start, its move to the next field, its
// submit): the keys must do what they do when typed one by one.
func TestTypeAhead(t *testing.T) {
	named := map[string]bool{"enter": true, "down": true, "right": true, "backspace": true}
	// keys spells keys: named keys, text typed rune by rune, and
	// repetitions ([]string).
	keys := func(ks ...any) []string {
		var out []string
		for _, k := range ks {
			switch k := k.(type) {
			case string:
				if named[k] {
					out = append(out, k)
					continue
				}
				out = append(out, strings.Split(k, "")...)
			case []string:
				out = append(out, k...)
			}
		}
		return out
	}
	times := func(n int, k string) []string { return strings.Fields(strings.Repeat(k+" ", n)) }
	backspaces := times(12, "backspace")
	tests := []struct {
		name    string
		row     string
		keys    []string
		setting string // the setting the form sets
		want    string // its value afterwards
		cur     string // the row selected afterwards
	}{
		{"placement strategy only", "placement", keys("enter", "down", "down", "down", "enter", "enter"), "placement", "roundrobin", "placement"},
		{"placement down five times", "placement", keys("enter", "down", "down", "down", "down", "down", "enter", "0,1", "enter"), "placement", "map:0,1", "placement"},
		{"placement strategy and parameters", "placement", keys("enter", "down", "down", "enter", "4", "enter"), "placement", "block:4", "placement"},
		{"topology kind and parameters", "topology", keys("enter", "down", "down", "down", "enter", "4x4", "enter"), "topology", "torus:4x4", "topology"},
		{"bandwidth typed over", "bandwidth", keys("enter", backspaces, "5Gb/s", "enter"), "bandwidth", "5Gb/s", "bandwidth"},
		{"collectives across fifteen fields", "coll-alg", keys("enter", "enter", "right", times(14, "enter")), "coll-alg", "bcast=linear", "coll-alg"},
		{"bandwidth then the list", "bandwidth", keys("enter", backspaces, "5Gb/s", "enter", "down"), "bandwidth", "5Gb/s", "link-latency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// One key at a time, each key's commands run before the next.
			slow, _ := newMachine(t, 16)
			if !slow.Select(tt.row) {
				t.Fatalf("no %s row", tt.row)
			}
			typeKeys(slow, tt.keys...)
			// All keys first.
			fast, _ := newMachine(t, 16)
			fast.Select(tt.row)
			burst(fast, tt.keys...)
			for _, m := range []struct {
				how string
				m   *Model
			}{{"one by one", slow}, {"typed ahead", fast}} {
				got, _ := m.m.cfg.Get(tt.setting)
				if got != tt.want {
					t.Errorf("%s: %s = %q, want %q", m.how, tt.setting, got, tt.want)
				}
				if m.m.Capturing() {
					t.Errorf("%s: the form is still open:\n%s", m.how, m.m.View())
				}
				if r := m.m.rows[m.m.cur].key; r != tt.cur {
					t.Errorf("%s: row %q selected, want %q", m.how, r, tt.cur)
				}
			}
		})
	}
}

// TestTypeAheadFileCheck types a file-valued topology, enter and more keys
// in one burst: the keys typed while the file is checked ("checking…")
// wait for its result, then do what they do when typed after it — move
// the list, or correct a value the check refused.
func TestTypeAheadFileCheck(t *testing.T) {
	dir := t.TempDir()
	graph := "router r\nnode n0 r\nnode n1 r\nnode n2 r\nnode n3 r\n"
	if err := os.WriteFile(filepath.Join(dir, "net.txt"), []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	// The topology editor: its kind (file, the tenth), then the path.
	open := append([]string{"enter"}, strings.Fields(strings.Repeat("down ", 9)+"enter")...)
	path := func(s string) []string { return strings.Split(s, "") }
	tests := []struct {
		name     string
		keys     []string
		topology string
		cur      string // the row selected afterwards
		open     bool   // the editor still open
	}{
		{"then the list", slices.Concat(open, path("net.txt"), []string{"enter", "down", "down"}), "file:net.txt", "vcs", false},
		{"then a correction", slices.Concat(open, path("none.txt"), []string{"enter"}, strings.Fields(strings.Repeat("backspace ", 8)),
			path("net.txt"), []string{"enter", "down"}), "file:net.txt", "routing", false},
		{"then more text", slices.Concat(open, path("none.txt"), []string{"enter"}, path("x")), "", "topology", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			slow, _ := newMachineIn(t, 4, userfile.DirSpace(dir, ""))
			slow.Select("topology")
			for _, k := range tt.keys {
				typeKeys(slow, k)
			}
			fast, _ := newMachineIn(t, 4, userfile.DirSpace(dir, ""))
			fast.Select("topology")
			burst(fast, tt.keys...)
			for _, m := range []struct {
				how string
				m   *Model
			}{{"one by one", slow}, {"in one burst", fast}} {
				if m.m.cfg.Topology != tt.topology || m.m.Capturing() != tt.open || m.m.rows[m.m.cur].key != tt.cur {
					t.Errorf("%s: topology %q, editor open %v, row %q; want %q, %v, %q:\n%s", m.how, m.m.cfg.Topology, m.m.Capturing(),
						m.m.rows[m.m.cur].key, tt.topology, tt.open, tt.cur, ansi.Strip(m.m.View()))
				}
			}
			if tt.open {
				// The text typed during the check went to the value,
				// after the check's error was shown.
				if a, b := ansi.Strip(slow.View()), ansi.Strip(fast.View()); a != b || !strings.Contains(b, "none.txtx") {
					t.Errorf("the views differ or lack the value none.txtx:\none by one:\n%s\nin one burst:\n%s", a, b)
				}
			}
		})
	}
}
