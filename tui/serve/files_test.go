package serve

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tracesim/tracesim/tui"
)

// machineTab returns the key that selects the Machine tab.
func machineTab(t *testing.T) string {
	t.Helper()
	i := slices.IndexFunc(tui.DefaultTabs(), func(t tui.Tab) bool { return t.Name == "Machine" })
	if i < 0 || i > 8 {
		t.Skip("the application has no Machine tab")
	}
	return strconv.Itoa(i + 1)
}

const (
	keyDown  = "\x1b[B"
	keyEnter = "\r"
)

// TestServedFilesConfined: in a served session, the Machine tab's
// topology and placement files and its configuration loads name files of
// the library only: /dev/zero, /etc/passwd, .. and a link out are
// refused with an error that shows nothing of the outside file, and the
// server goes on serving.
func TestServedFilesConfined(t *testing.T) {
	ts := startServer(t, nil)
	if err := os.WriteFile(filepath.Join(filepath.Dir(ts.libDir), "outside.txt"), []byte("root:x:0:0:root:/root:/bin/bash\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := machineTab(t)
	// The topology editor: a kind (file is the last of nine after
	// "none"), then its parameters. The placement editor: the row of
	// placement is the eleventh setting, file the sixth strategy after
	// "none". The load prompt starts with machine.toml.
	// A form's keys go in one burst once it shows open ("┃ placement
	// strategy"): the keys after the strategy's enter reach the
	// parameters field, as they do over a slow link.
	load := func(name string) [][]string {
		return [][]string{{"l", strings.Repeat("\x7f", len("machine.toml")), name, keyEnter}}
	}
	// Topologies come from configurations a teacher put in the library
	// (the form's path is the placement's, checked below, and
	// views/machine's tests).
	topology := func(name string) [][]string {
		conf := "topo-" + strings.NewReplacer("/", "_", ".", "_").Replace(name) + ".toml"
		if err := os.WriteFile(filepath.Join(ts.libDir, conf), []byte("topology = \"file:"+name+"\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return load(conf)
	}
	save := func(name string) [][]string {
		return [][]string{{"w", strings.Repeat("\x7f", len("machine.toml")), name, keyEnter}}
	}
	placement := func(name string) [][]string {
		return [][]string{{strings.Repeat(keyDown, 10), keyEnter}, {"┃ placement strategy"}, {strings.Repeat(keyDown, 6), keyEnter, name, keyEnter}}
	}
	cases := []struct {
		steps [][]string
		want  string
	}{
		{topology("/dev/zero"), "topology file /dev/zero: outside the library"},
		{topology("/etc/passwd"), "topology file /etc/passwd: outside the library"},
		{topology("../outside.txt"), "topology file ../outside.txt: outside the library"},
		{topology("etc/passwd"), "topology file etc/passwd: outside the library"}, // etc links to /etc
		{placement("/dev/zero"), "placement file /dev/zero: outside the library"},
		{placement("/etc/passwd"), "placement file /etc/passwd: outside the library"},
		{placement("../outside.txt"), "placement file ../outside.txt: outside the library"},
		{placement("etc/passwd"), "placement file etc/passwd: outside the library"},
		{load("/dev/zero"), "configuration file /dev/zero: outside the library"},
		{load("/etc/passwd"), "configuration file /etc/passwd: outside the library"},
		{load("../outside.txt"), "configuration file ../outside.txt: outside the library"},
		{load("etc/passwd"), "configuration file etc/passwd: outside the library"},
		{load("week2"), "configuration file week2: not a regular file"},
		{save("../x.toml"), "save: ../x.toml: outside the library"},
		{save("/tmp/x.toml"), "save: /tmp/x.toml: outside the library"},
	}
	for _, tc := range cases {
		t.Run(strings.ReplaceAll(tc.want, "/", "_"), func(t *testing.T) {
			c := ts.connect(t)
			tm := openTerminal(t, c, "ring", 200, 40)
			tm.waitLoaded(t)
			tm.press(t, tab)
			tm.waitFor(t, "The machine")
			h := 40
			// A resize redraws the whole screen, so that what the test
			// waits for is not cut by the renderer's partial updates.
			redraw := func() {
				h++
				if err := tm.sess.WindowChange(h, 200); err != nil {
					t.Fatal(err)
				}
			}
			for _, step := range tc.steps {
				if len(step) == 1 && strings.HasPrefix(step[0], "┃") {
					redraw()
					tm.waitFor(t, step[0])
					continue
				}
				tm.press(t, step...)
			}
			redraw()
			tm.waitFor(t, tc.want)
			if out := tm.screen(); strings.Contains(out, "root:x") {
				t.Errorf("the session shows the outside file:\n%s", out)
			}
			tm.press(t, "\x1b")
		})
	}
	// The server is still up and serving.
	c := ts.connect(t)
	tm := openTerminal(t, c, "ring", 100, 30)
	tm.waitLoaded(t)
	tm.press(t, "q")
	if code := tm.exit(t); code != 0 {
		t.Errorf("exit status %d after the refusals, want 0", code)
	}
}
