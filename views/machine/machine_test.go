package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/internal/userfile"
	"github.com/tracesim/tracesim/themes"
	"github.com/tracesim/tracesim/tracefmt"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/views/component"
	"github.com/tracesim/tracesim/views/component/viewtest"
)

func TestCheck(t *testing.T) {
	base := replay.Default()
	packet := replay.Default()
	for k, v := range map[string]string{"model": "packet", "topology": "torus:8x8", "vcs": "2"} {
		if err := packet.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name       string
		cfg        replay.Config
		key, value string
		ranks      int
		wantErr    string // "" for none
		wantKey    string // the setting the error names
	}{
		{"good bandwidth", base, "bandwidth", "1Gb/s", 0, "", ""},
		{"bandwidth without a number", base, "bandwidth", "fast", 0, "bandwidth: ", "bandwidth"},
		{"bandwidth with a bad unit", base, "bandwidth", "10Gx/s", 0, "bandwidth: ", "bandwidth"},
		{"latency with a size unit", base, "link-latency", "10KiB", 0, "link-latency: ", "link-latency"},
		{"packet size with a time unit", base, "packet-size", "5us", 0, "packet-size: ", "packet-size"},
		{"negative cpu scale", base, "cpu-scale", "-1", 0, "cpu-scale", "cpu-scale"},
		{"unknown choice", base, "model", "quantum", 0, "model: ", "model"},
		{"torus with a zero dimension", base, "topology", "torus:0x8", 0, "topology", "topology"},
		{"unknown topology kind", base, "topology", "moebius:8", 0, "topology", "topology"},
		{"fat tree without k", base, "topology", "fattree:levels=3", 0, "topology", "topology"},
		{"too many ranks for the torus", packet, "topology", "torus:4x4", 64, "placement", ""},
		{"ranks that fit", packet, "topology", "torus:4x4", 16, "", ""},
		{"updown is not for tori", packet, "routing", "updown", 0, `routing "updown" is not valid on torus:8x8`, "routing"},
		{"dor needs 2 VCs on a torus", packet, "vcs", "1", 0, "", ""},
		{"adaptive on a torus", packet, "routing", "adaptive", 0, "", ""},
		{"dor with 1 VC", func() replay.Config { c := packet; c.VCs = 1; return c }(), "routing", "dor", 0, "needs at least 2 virtual channels", "routing"},
		{"minimal on a fat tree", func() replay.Config { c := packet; c.Topology = "fattree:k=4,levels=3"; return c }(), "routing", "minimal", 0, "is not valid on fattree", "routing"},
		{"placement with ranks-per-node", func() replay.Config { c := base; c.RanksPerNode = 2; return c }(), "placement", "block:2", 0, "placement", "placement"},
		{"unknown key", base, "bandwith", "1Gb/s", 0, "unknown setting", "bandwith"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Check(tt.cfg, tt.key, tt.value, tt.ranks)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Check(%s=%q): %v", tt.key, tt.value, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Check(%s=%q) = %v, want an error containing %q", tt.key, tt.value, err, tt.wantErr)
			}
			if tt.wantKey != "" && tt.key != "bandwith" {
				if got := culprit(err); got != tt.wantKey {
					t.Errorf("culprit(%q) = %q, want %q", err, got, tt.wantKey)
				}
			}
		})
	}
}

func TestPresetsValid(t *testing.T) {
	for _, p := range Presets() {
		c, err := p.Config()
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if p.Name == "1996 Ethernet bus" {
			if got, _ := c.Get("startup"); got != "1449.848us" {
				t.Errorf("Ethernet startup %s", got)
			}
			if got, _ := c.Get("switching"); got != "store-and-forward" {
				t.Errorf("Ethernet switching %s", got)
			}
		}
	}
}

// drive runs cmd and what its messages lead to through m, as Bubble Tea
// would. Timers (cursor blinks) are dropped and every other command runs
// to completion, in order, so that the outcome does not depend on how
// fast the host runs them.
func drive(m *Model, cmd tea.Cmd) []tea.Msg {
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for n := 0; len(queue) > 0 && n < 1000; n++ {
		c := queue[0]
		queue = queue[1:]
		if c == nil || viewtest.Timer(c) {
			continue
		}
		msg := c()
		if msg == nil {
			continue
		}
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().ConvertibleTo(reflect.TypeFor[[]tea.Cmd]()) {
			queue = append(queue, v.Convert(reflect.TypeFor[[]tea.Cmd]()).Interface().([]tea.Cmd)...)
			continue
		}
		switch msg.(type) {
		case component.ConfigMsg, component.StatusMsg, component.SweepMsg:
			out = append(out, msg)
			continue
		}
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
	return out
}

// typeKeys sends keys one by one; a key of several runes other than the
// named ones is typed rune by rune.
func typeKeys(m *Model, keys ...string) []tea.Msg {
	var out []tea.Msg
	for _, k := range keys {
		switch k {
		case "enter", "esc", "down", "up", "tab", "backspace", "right", "left":
			_, cmd := m.Update(viewtest.Key(k))
			out = append(out, drive(m, cmd)...)
			continue
		}
		for _, r := range k {
			_, cmd := m.Update(viewtest.Key(string(r)))
			out = append(out, drive(m, cmd)...)
		}
	}
	return out
}

func newMachine(t *testing.T, ranks int) (*Model, *component.WhatIf) {
	t.Helper()
	return newMachineIn(t, ranks, nil)
}

// newMachineIn is newMachine for a session confined to a library.
func newMachineIn(t *testing.T, ranks int, files *userfile.Space) (*Model, *component.WhatIf) {
	t.Helper()
	tr, err := gen.Generate(gen.Options{Pattern: "stencil2d", Ranks: ranks, Iters: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sh := component.NewWhatIf()
	m := New(component.New(&component.Session{Theme: themes.Mono(), Files: files, WhatIf: sh}, 0, 0), tr)
	m.SetSize(100, 30)
	_ = drive(m, m.Init())
	return m, sh
}

func lastConfig(t *testing.T, msgs []tea.Msg) *component.ConfigMsg {
	t.Helper()
	for i := len(msgs) - 1; i >= 0; i-- {
		if c, ok := msgs[i].(component.ConfigMsg); ok {
			return &c
		}
	}
	return nil
}

func TestEditBandwidthInline(t *testing.T) {
	m, sh := newMachine(t, 16)
	if !m.Select("bandwidth") {
		t.Fatal("no bandwidth row")
	}
	out := typeKeys(m, "enter")
	if !m.Capturing() {
		t.Fatal("editor did not open")
	}
	// Clear the field, type a bad unit: the form shows huh's inline
	// error and stays open.
	for range 10 {
		out = append(out, typeKeys(m, "backspace")...)
	}
	out = append(out, typeKeys(m, "10Gx/s", "enter")...)
	if !m.Capturing() {
		t.Fatal("a bad value closed the editor")
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "expected") {
		t.Errorf("no inline error for 10Gx/s:\n%s", v)
	}
	for range 10 {
		typeKeys(m, "backspace")
	}
	out = append(out, typeKeys(m, "1Gb/s", "enter")...)
	if m.Capturing() {
		t.Fatalf("editor still open:\n%s", ansi.Strip(m.View()))
	}
	c := lastConfig(t, out)
	if c == nil {
		t.Fatal("no ConfigMsg")
	}
	if got, _ := c.Config.Get("bandwidth"); got != "1Gb/s" {
		t.Errorf("bandwidth %s", got)
	}
	if cfg, _ := sh.Config(); cfg.PerByte != c.Config.PerByte {
		t.Error("shared config not updated")
	}
}

func TestEditTopologyAndRouting(t *testing.T) {
	m, _ := newMachine(t, 16)
	m.Select("model")
	out := typeKeys(m, "enter")
	// Choices: puppet loggops simgrid packet flow, the cursor on the
	// current one (flow, the default).
	out = append(out, typeKeys(m, "up", "enter")...)
	if got, _ := m.cfg.Get("model"); got != "packet" {
		t.Fatalf("model %s:\n%s", got, ansi.Strip(m.View()))
	}
	m.Select("topology")
	typeKeys(m, "enter")
	// Kinds: none ring mesh torus …: three downs for torus, then the
	// parameters.
	typeKeys(m, "down", "down", "down", "enter")
	out = append(out, typeKeys(m, "4x4", "enter")...)
	if m.cfg.Topology != "torus:4x4" || m.err != nil {
		t.Fatalf("topology %q err %v:\n%s", m.cfg.Topology, m.err, ansi.Strip(m.View()))
	}
	if c := lastConfig(t, out); c == nil || c.Config.Topology != "torus:4x4" {
		t.Fatalf("ConfigMsg %+v", c)
	}
	// An impossible topology is refused inline.
	typeKeys(m, "enter", "enter")
	for range 5 {
		typeKeys(m, "backspace")
	}
	typeKeys(m, "0x4", "enter")
	if !m.Capturing() {
		t.Fatal("torus:0x4 accepted")
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, `topology "torus:0x4"`) {
		t.Errorf("no inline topology error:\n%s", v)
	}
	typeKeys(m, "esc")
	if m.Capturing() || m.cfg.Topology != "torus:4x4" {
		t.Fatalf("esc: open %v topology %q", m.Capturing(), m.cfg.Topology)
	}
	// A routing not valid on the torus, set through the file form of
	// the setting, is marked on its row and not sent.
	out = nil
	if cmd := m.apply("routing", "updown"); cmd != nil {
		t.Fatal("an invalid configuration was published")
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, `✗ routing "updown" is not valid on torus:4x4`) || !strings.Contains(v, "not applied") {
		t.Errorf("routing error not shown:\n%s", v)
	}
	// The routing editor offers only the torus's routings.
	m.Select("routing")
	typeKeys(m, "enter")
	v = ansi.Strip(m.View())
	_, form, _ := strings.Cut(v, "───")
	if !strings.Contains(form, "dor:bubble") || strings.Contains(form, "updown") {
		t.Errorf("routing choices not filtered:\n%s", v)
	}
	out = typeKeys(m, "enter") // the default
	if m.err != nil || m.cfg.Routing != "" || lastConfig(t, out) == nil {
		t.Fatalf("routing default: %q %v", m.cfg.Routing, m.err)
	}
}

func TestPresetSaveLoad(t *testing.T) {
	dir := t.TempDir()
	m, _ := newMachineIn(t, 64, userfile.DirSpace(dir, ""))
	typeKeys(m, "p", "down", "enter") // INSEE 8×8 torus
	if m.cfg.Topology != "torus:8x8" || m.cfg.VCs != 3 || m.cfg.Routing != "adaptive" || m.err != nil {
		t.Fatalf("preset: %q %d %q %v", m.cfg.Topology, m.cfg.VCs, m.cfg.Routing, m.err)
	}
	typeKeys(m, "w")
	for range 20 {
		typeKeys(m, "backspace")
	}
	typeKeys(m, "insee.toml", "enter")
	data, err := os.ReadFile(filepath.Join(dir, "insee.toml"))
	if err != nil {
		t.Fatalf("%v (note %q)", err, m.note)
	}
	var back replay.Config = replay.Default()
	if err := back.Decode(data, "toml"); err != nil {
		t.Fatal(err)
	}
	if back.Topology != "torus:8x8" || back.VCs != 3 {
		t.Fatalf("saved file reads back as %q %d", back.Topology, back.VCs)
	}
	// Load it into a default form.
	m2, _ := newMachineIn(t, 64, userfile.DirSpace(dir, ""))
	typeKeys(m2, "l")
	for range 20 {
		typeKeys(m2, "backspace")
	}
	typeKeys(m2, "../../insee.toml", "enter") // confined to the root
	if want := "load: configuration file ../../insee.toml: outside the library"; !strings.HasPrefix(m2.note, want) || m2.cfg.Topology != "" {
		t.Fatalf("load of ../../insee.toml: note %q, want %q; topology %q", m2.note, want, m2.cfg.Topology)
	}
	typeKeys(m2, "l")
	for range 20 {
		typeKeys(m2, "backspace")
	}
	out := typeKeys(m2, "insee.toml", "enter")
	if m2.cfg.Topology != "torus:8x8" || lastConfig(t, out) == nil {
		t.Fatalf("load: %q, note %q", m2.cfg.Topology, m2.note)
	}
}

func TestLayoutSizes(t *testing.T) {
	m, _ := newMachine(t, 16)
	for _, sz := range [][2]int{{40, 12}, {60, 20}, {80, 24}, {120, 40}, {200, 60}, {300, 100}} {
		for _, editing := range []bool{false, true} {
			m.SetSize(sz[0], sz[1])
			if editing {
				m.Select("topology")
				typeKeys(m, "enter")
			}
			checkSize(t, m.View(), sz[0], sz[1])
			if editing {
				typeKeys(m, "esc")
			}
		}
	}
}

func checkSize(t *testing.T, v string, w, h int) {
	t.Helper()
	lines := strings.Split(v, "\n")
	if len(lines) != h {
		t.Fatalf("%dx%d: %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if got := ansi.StringWidth(l); got != w {
			t.Fatalf("%dx%d: line %d is %d wide: %q", w, h, i, got, ansi.Strip(l))
		}
	}
}

func TestEditPlacement(t *testing.T) {
	m, _ := newMachine(t, 16)
	m.Select("placement")
	typeKeys(m, "enter")
	// none linear block roundrobin random map file
	typeKeys(m, "down", "down", "enter", "x", "enter")
	if !m.Capturing() {
		t.Fatalf("block:x accepted: %q", m.cfg.Placement)
	}
	if v := ansi.Strip(m.View()); !strings.Contains(v, "placement") || !strings.Contains(v, "block:x") && !strings.Contains(v, "expected") {
		t.Errorf("no inline placement error:\n%s", v)
	}
	typeKeys(m, "backspace", "4", "enter")
	if m.Capturing() || m.cfg.Placement != "block:4" || m.err != nil {
		t.Fatalf("placement %q err %v open %v", m.cfg.Placement, m.err, m.Capturing())
	}
	// Four ranks per node on a 2×2 torus fit; one per node does not.
	if _, err := Check(m.cfg, "topology", "torus:2x2", 16); err != nil {
		t.Errorf("block:4 on torus:2x2: %v", err)
	}
	if _, err := Check(m.cfg, "placement", "linear", 16); err != nil {
		t.Errorf("linear on the complete graph: %v", err)
	}
	c := m.cfg
	c.Topology = "torus:2x2"
	if _, err := Check(c, "placement", "linear", 16); err == nil || culprit(err) != "placement" {
		t.Errorf("linear with 16 ranks on 4 nodes: %v", err)
	}
}

func TestEditCollectives(t *testing.T) {
	m, _ := newMachine(t, 16)
	m.Select("coll-alg")
	typeKeys(m, "enter")
	if !m.Capturing() {
		t.Fatal("no editor")
	}
	v := ansi.Strip(m.View())
	if !strings.Contains(v, "barrier") || !strings.Contains(v, "auto") {
		t.Fatalf("collectives editor:\n%s", v)
	}
	// barrier: one step right is its first algorithm; then accept every
	// other operation as it is.
	typeKeys(m, "right")
	var out []tea.Msg
	for i := 0; i < 20 && m.Capturing(); i++ {
		out = append(out, typeKeys(m, "enter")...)
	}
	if m.Capturing() {
		t.Fatalf("editor still open:\n%s", ansi.Strip(m.View()))
	}
	got, _ := m.cfg.Get("coll-alg")
	if got != "barrier=linear" {
		t.Fatalf("coll-alg = %q", got)
	}
	if lastConfig(t, out) == nil || m.err != nil {
		t.Fatalf("not applied: %v", m.err)
	}
}

// filePrompt answers the save (w) or load (l) prompt with name and waits
// for the outcome: the file is read or written by a command, which may
// take longer than drive waits for one.
func filePrompt(m *Model, key, name string) {
	typeKeys(m, key)
	for range len("machine.toml") { // the default answer
		typeKeys(m, "backspace")
	}
	typeKeys(m, name)
	_, cmd := m.Update(viewtest.Key("enter"))
	ch := make(chan tea.Msg, 64)
	run := func(c tea.Cmd) {
		if c != nil {
			go func() { ch <- c() }()
		}
	}
	run(cmd)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case msg := <-ch:
			if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().ConvertibleTo(reflect.TypeFor[[]tea.Cmd]()) {
				for _, c := range v.Convert(reflect.TypeFor[[]tea.Cmd]()).Interface().([]tea.Cmd) {
					run(c)
				}
				continue
			}
			switch msg := msg.(type) {
			case nil, component.ConfigMsg, component.StatusMsg:
			case fileMsg:
				_, next := m.Update(msg)
				drive(m, next)
				return
			default: // the form's own messages: next field, blinks
				_, next := m.Update(msg)
				run(next)
			}
		case <-deadline:
			return
		}
	}
}

// confinedLibrary makes a library with a trace, a FIFO, a file over the
// topology limit and links out of it, beside a directory of secrets.
func confinedLibrary(t *testing.T) (dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir, outside = filepath.Join(base, "lib"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := []byte("root:x:0:0:root:/root:/bin/bash\n")
	for _, f := range []string{filepath.Join(base, "outside.txt"), filepath.Join(outside, "x.txt"), filepath.Join(outside, "x.toml")} {
		if err := os.WriteFile(f, secret, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "course.tsim"), []byte("tsim 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), make([]byte, userfile.PlacementLimit+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := os.Symlink(filepath.Join(base, "outside.txt"), filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, outside
}

// In a library (a served session) every file the form names — topology
// graphs, placement maps, configurations loaded or saved — stays inside
// it: absolute paths, "..", links out, devices and FIFOs are refused,
// files past their size limit too, and no error shows an outside file's
// content. Saves go to the session's own directory and make
// configuration files only.
func TestRootConfinement(t *testing.T) {
	dir, outside := confinedLibrary(t)
	m, _ := newMachineIn(t, 16, userfile.DirSpace(dir, "saved/alice"))
	outsideErr := func(kind, name string) string {
		return kind + " file " + name + ": outside the library"
	}
	settings := []struct {
		key, value, err string
	}{
		{"topology", "file:/dev/zero", outsideErr("topology", "/dev/zero")},
		{"topology", "file:/etc/passwd", outsideErr("topology", "/etc/passwd")},
		{"topology", "file:../outside.txt", outsideErr("topology", "../outside.txt")},
		{"topology", "file:escape/x.txt", outsideErr("topology", "escape/x.txt")},
		{"topology", "file:link.txt", outsideErr("topology", "link.txt")},
		{"topology", "file:fifo", "topology file fifo: not a regular file"},
		{"topology", "file:big.txt", "topology file big.txt: larger than the 4 MiB limit for topology files"},
		{"placement", "file:/dev/zero", outsideErr("placement", "/dev/zero")},
		{"placement", "file:/etc/passwd", outsideErr("placement", "/etc/passwd")},
		{"placement", "file:../outside.txt", outsideErr("placement", "../outside.txt")},
		{"placement", "file:escape/x.txt", outsideErr("placement", "escape/x.txt")},
		{"placement", "file:link.txt", outsideErr("placement", "link.txt")},
		{"placement", "file:fifo", "placement file fifo: not a regular file"},
		{"placement", "file:big.txt", "placement file big.txt: larger than the 8 MiB limit for placement files"},
		{"platform", "/etc/passwd", outsideErr("platform", "/etc/passwd")},
		{"platform", "../outside.txt", outsideErr("platform", "../outside.txt")},
		{"platform", "escape/x.txt", outsideErr("platform", "escape/x.txt")},
		{"platform", "link.txt", outsideErr("platform", "link.txt")},
		{"platform", "fifo", "platform file fifo: not a regular file"},
		{"factors", "../outside.txt", outsideErr("factors", "../outside.txt")},
		{"factors", "link.txt", outsideErr("factors", "link.txt")},
	}
	for _, tc := range settings {
		// Update reads no file: the setting is taken, the check says
		// "checking…", and a command reads the file (a FIFO blocks no
		// one: it is refused before it is opened).
		cmd := m.apply(tc.key, tc.value)
		if v := ansi.Strip(m.View()); !m.checking || cmd == nil || !strings.Contains(v, "… checking the files the configuration names") {
			t.Errorf("%s %s: checking %v, cmd %v; the view does not say it is checking:\n%s", tc.key, tc.value, m.checking, cmd != nil, v)
		}
		done := make(chan []tea.Msg)
		go func() { done <- drive(m, cmd) }()
		select {
		case out := <-done:
			if len(out) != 0 {
				t.Errorf("%s %s: published %v", tc.key, tc.value, out)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s %s: blocked", tc.key, tc.value)
		}
		if m.err == nil || !strings.HasPrefix(m.err.Error(), tc.err) || m.errKey != tc.key {
			t.Errorf("%s %s: error %v (on %q), want %q", tc.key, tc.value, m.err, m.errKey, tc.err)
		}
		m.Select(tc.key) // the row that shows the error, scrolled into view
		if v := ansi.Strip(m.View()); !strings.Contains(v, tc.err) || strings.Contains(v, "root:x") {
			t.Errorf("%s %s: the view does not show %q, or shows the outside file:\n%s", tc.key, tc.value, tc.err, v)
		}
		drive(m, m.apply(tc.key, ""))
	}
	files := []struct {
		key, name, note string
	}{
		{"w", "course.tsim", "save: course.tsim: the name must end in .toml or .json"},
		{"w", "../x.toml", "save: ../x.toml: outside the library"},
		{"w", "/tmp/x.toml", "save: /tmp/x.toml: outside the library"},
		{"l", "/etc/passwd", "load: " + outsideErr("configuration", "/etc/passwd")},
		{"l", "/dev/zero", "load: " + outsideErr("configuration", "/dev/zero")},
		{"l", "../outside.txt", "load: " + outsideErr("configuration", "../outside.txt")},
		{"l", "escape/x.toml", "load: " + outsideErr("configuration", "escape/x.toml")},
		{"l", "link.txt", "load: " + outsideErr("configuration", "link.txt")},
		{"l", "fifo", "load: configuration file fifo: not a regular file"},
		{"l", "big.txt", "load: configuration file big.txt: larger than the 1 MiB limit for configuration files"},
		{"w", "ok.json", "saved saved/alice/ok.json"},
		{"l", "ok.json", "loaded saved/alice/ok.json"},
	}
	for _, tc := range files {
		filePrompt(m, tc.key, tc.name)
		if !strings.HasPrefix(m.note, tc.note) || strings.Contains(m.note, "root:x") || strings.Contains(m.note, dir) {
			t.Errorf("%s %s: note %q, want %q", tc.key, tc.name, m.note, tc.note)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "course.tsim")); string(data) != "tsim 1\n" {
		t.Errorf("the library's trace was overwritten: %q", data)
	}
	if _, err := os.Stat(filepath.Join(dir, "saved", "alice", "ok.json")); err != nil {
		t.Errorf("not saved in the student's directory: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 2 {
		t.Errorf("a file was written outside the library: %v", entries)
	}
}

// The topology editor checks a graph file as the user types it, through
// the session's library: a name outside it is refused inline, with no
// read of the file.
func TestTopologyEditorConfined(t *testing.T) {
	dir, _ := confinedLibrary(t)
	m, _ := newMachineIn(t, 16, userfile.DirSpace(dir, "saved/alice"))
	m.Select("topology")
	typeKeys(m, "enter")
	// Kinds: none and nine kinds, file last.
	typeKeys(m, "down", "down", "down", "down", "down", "down", "down", "down", "down", "enter")
	for _, tc := range []struct{ name, want string }{
		{"/etc/passwd", "topology file /etc/passwd: outside the library"},
		{"../outside.txt", "topology file ../outside.txt: outside the library"},
		{"link.txt", "topology file link.txt: outside the library"},
		{"fifo", "topology file fifo: not a regular file"},
	} {
		typeKeys(m, tc.name, "enter")
		v := ansi.Strip(m.View())
		if !m.Capturing() || !strings.Contains(v, tc.want) || strings.Contains(v, "root:x") || m.cfg.Topology != "" {
			t.Errorf("file:%s: open %v topology %q; want the editor open showing %q:\n%s", tc.name, m.Capturing(), m.cfg.Topology, tc.want, v)
		}
		for range tc.name {
			typeKeys(m, "backspace")
		}
	}
}

// Two students saving under one name keep their own files; both can load
// a configuration the teacher put in the library, and a graph file it
// names is found from the student's saved copy too.
func TestSaveSpaces(t *testing.T) {
	dir := t.TempDir()
	graph := "router r\nnode n0 r\nnode n1 r\nnode n2 r\nnode n3 r\n"
	if err := os.WriteFile(filepath.Join(dir, "net.txt"), []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "shared.toml"), []byte("topology = \"ring:4\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	alice, _ := newMachineIn(t, 4, userfile.DirSpace(dir, "saved/alice"))
	bob, _ := newMachineIn(t, 4, userfile.DirSpace(dir, "saved/bob"))
	steps := []struct {
		m             *Model
		key, name     string
		topology      string // set before the step ("" keeps it)
		note, wantTop string
	}{
		{alice, "w", "m.toml", "file:net.txt", "saved saved/alice/m.toml", "file:net.txt"},
		{bob, "w", "m.toml", "torus:2x2", "saved saved/bob/m.toml", "torus:2x2"},
		{alice, "l", "shared.toml", "", "loaded shared.toml", "ring:4"},
		{bob, "l", "shared.toml", "", "loaded shared.toml", "ring:4"},
		{alice, "l", "m.toml", "", "loaded saved/alice/m.toml", "file:net.txt"},
		{bob, "l", "m.toml", "", "loaded saved/bob/m.toml", "torus:2x2"},
	}
	for i, st := range steps {
		if st.topology != "" {
			st.m.apply("topology", st.topology)
			if st.m.err != nil {
				t.Fatalf("step %d: %v", i, st.m.err)
			}
		}
		filePrompt(st.m, st.key, st.name)
		if st.m.note != st.note || st.m.cfg.Topology != st.wantTop || st.m.err != nil {
			t.Errorf("step %d: note %q topology %q err %v; want %q %q", i, st.m.note, st.m.cfg.Topology, st.m.err, st.note, st.wantTop)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "saved", "alice", "m.toml"))
	if err != nil || !strings.Contains(string(data), `topology = "file:../../net.txt"`) {
		t.Errorf("alice's file: %v\n%s", err, data)
	}
}

// At 80 columns the help of packet-size wraps to two lines; the input
// line must still show under it.
func TestEditShowsInputUnderWrappedHelp(t *testing.T) {
	m, _ := newMachine(t, 16)
	m.SetSize(80, 24)
	m.Select("packet-size")
	typeKeys(m, "enter")
	typeKeys(m, "7")
	if v := ansi.Strip(m.View()); !strings.Contains(v, "> 0B7") && !strings.Contains(v, "> 7") {
		t.Errorf("no input line in the editor:\n%s", v)
	}
}

// TestSizeUnknownWarning: a trace whose collectives have no recorded size
// (MPE logs none for MPI_Allreduce) says so, once, under the title, at
// every size; a trace with sizes says nothing.
func TestSizeUnknownWarning(t *testing.T) {
	tr, err := gen.Generate(gen.Options{Pattern: "cg", Ranks: 4, Iters: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	known := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), tr)
	unknown := tr.Clone()
	n := 0
	for r := range unknown.Ranks {
		ev := unknown.Ranks[r].Events
		for i := range ev {
			if ev[i].Kind == tracefmt.KindCollective {
				ev[i] = tracefmt.Collective(ev[i].Time, ev[i].Op(), -1, ev[i].Comm, 0, 0)
				ev[i].Flags |= tracefmt.FlagSizeUnknown
				n++
			}
		}
	}
	m := New(component.New(&component.Session{Theme: themes.Mono()}, 0, 0), unknown)
	want := fmt.Sprintf("⚠ %d collective calls have no recorded size", n)
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		m.SetSize(sz[0], sz[1])
		v := ansi.Strip(m.View())
		checkSize(t, m.View(), sz[0], sz[1])
		lines := strings.Split(v, "\n")
		if !strings.HasPrefix(lines[1], want) || strings.Count(v, "⚠") != 1 {
			t.Errorf("%dx%d: line 2 %q, want it to start %q, once", sz[0], sz[1], lines[1], want)
		}
		known.SetSize(sz[0], sz[1])
		if v := ansi.Strip(known.View()); strings.Contains(v, "no recorded size") {
			t.Errorf("%dx%d: a trace with sizes warns:\n%s", sz[0], sz[1], v)
		}
	}
}

// The form's check of a graph file reads it in a command, not in
// Update: enter shows "checking…" under the value and keeps the editor
// open; the result applies the value (or shows why not) when it comes.
func TestTopologyFileCheckedByCommand(t *testing.T) {
	dir := t.TempDir()
	graph := "router r\nnode n0 r\nnode n1 r\nnode n2 r\nnode n3 r\n"
	if err := os.WriteFile(filepath.Join(dir, "net.txt"), []byte(graph), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, want, topology string
	}{
		{"net.txt", "", "file:net.txt"},
		{"none.txt", "topology file none.txt: file does not exist", ""},
	} {
		m, _ := newMachineIn(t, 4, userfile.DirSpace(dir, ""))
		m.Select("topology")
		typeKeys(m, "enter")
		typeKeys(m, "down", "down", "down", "down", "down", "down", "down", "down", "down", "enter")
		typeKeys(m, tc.name)
		_, cmd := m.Update(viewtest.Key("enter"))
		if v := ansi.Strip(m.View()); !m.Capturing() || !strings.Contains(v, "checking…") || m.cfg.Topology != "" {
			t.Fatalf("%s: before the check: editor open %v, topology %q:\n%s", tc.name, m.Capturing(), m.cfg.Topology, v)
		}
		out := drive(m, cmd)
		if m.cfg.Topology != tc.topology {
			t.Errorf("%s: topology %q, want %q", tc.name, m.cfg.Topology, tc.topology)
		}
		if tc.want == "" {
			if m.Capturing() || lastConfig(t, out) == nil || m.err != nil || !strings.Contains(ansi.Strip(m.View()), "4 nodes") {
				t.Errorf("%s: editor open %v, err %v, published %v:\n%s", tc.name, m.Capturing(), m.err, out, ansi.Strip(m.View()))
			}
			continue
		}
		if v := ansi.Strip(m.View()); !m.Capturing() || !strings.Contains(v, tc.want) {
			t.Errorf("%s: want the editor open showing %q:\n%s", tc.name, tc.want, v)
		}
	}
}

// TestEditEagerThresholdSetsSendAuto: editing the eager threshold is a
// what-if on the protocol, as `tracesim sim --eager-threshold` is: the
// send row turns from recorded to auto and the status line says why. A
// send mode the user chose other than recorded is kept, and resetting
// the threshold to its default implies nothing.
func TestEditEagerThresholdSetsSendAuto(t *testing.T) {
	const why = "send: auto — an eager threshold set by hand replays every send by it"
	tests := []struct {
		name      string
		send      string // set before the edit; "" leaves the default
		reset     bool   // reset the threshold (d) instead of typing one
		threshold string
		wantSend  string
		wantNote  string
	}{
		{"default send", "", false, "512KiB", "auto", why},
		{"buffered kept", "buffered", false, "512KiB", "buffered", ""},
		{"reset", "", true, "64KiB", "recorded", "eager-threshold reset to its default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, _ := newMachine(t, 4)
			if tt.send != "" {
				drive(m, m.apply("send", tt.send))
			}
			if !m.Select("eager-threshold") {
				t.Fatal("no eager-threshold row")
			}
			var out []tea.Msg
			if tt.reset {
				typeKeys(m, "backspace")
			} else {
				out = typeKeys(m, "enter")
				for range 10 {
					typeKeys(m, "backspace")
				}
				out = append(out, typeKeys(m, tt.threshold, "enter")...)
			}
			if m.Capturing() {
				t.Fatalf("editor still open:\n%s", ansi.Strip(m.View()))
			}
			cfg, err := m.Config()
			if err != nil {
				t.Fatal(err)
			}
			if c := lastConfig(t, out); !tt.reset && (c == nil || c.Config.Send != cfg.Send) {
				// The Simulate tab runs what the ConfigMsg carries.
				t.Errorf("ConfigMsg %v does not carry the tab's configuration", c)
			}
			if got, _ := cfg.Get("eager-threshold"); got != tt.threshold {
				t.Errorf("eager-threshold %s, want %s", got, tt.threshold)
			}
			if got, _ := cfg.Get("send"); got != tt.wantSend {
				t.Errorf("config's send %s, want %s", got, tt.wantSend)
			}
			v := ansi.Strip(m.View())
			if tt.wantNote != "" && !strings.Contains(v, tt.wantNote) {
				t.Errorf("status line lacks %q:\n%s", tt.wantNote, v)
			}
			if tt.wantNote != why && strings.Contains(v, why) {
				t.Errorf("status line says %q:\n%s", why, v)
			}
			// The send row, scrolled into view, shows the value run.
			m.Select("send")
			var row string
			for _, l := range strings.Split(ansi.Strip(m.View()), "\n") {
				if strings.HasPrefix(strings.TrimLeft(l, "▸ "), "send ") {
					row = l
				}
			}
			if f := strings.Fields(row); len(f) < 3 || f[1] != "send" || f[2] != tt.wantSend {
				t.Errorf("send row %q, want its value %s", row, tt.wantSend)
			}
		})
	}
}
