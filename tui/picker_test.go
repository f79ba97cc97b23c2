package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/tracesim/tracesim/views/component/viewtest"
)

// In a library the picker names directories relative to it — a served
// session never shows the server's paths — and lists SimGrid TI traces,
// whose files are .txt.
func TestPickerShowsLibraryNames(t *testing.T) {
	lib := t.TempDir()
	files := map[string]string{
		"week3/app.txt":                  "app.txt_files/rank-0.txt\napp.txt_files/rank-1.txt\n",
		"week3/app.txt_files/rank-0.txt": "0 init\n0 send 1 64\n0 finalize\n",
		"week3/app.txt_files/rank-1.txt": "1 init\n1 recv 0 64\n1 finalize\n",
	}
	for name, text := range files {
		p := filepath.Join(lib, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := newModel(t, 100, 30, func(o *Options) { o.Library = lib })
	pick(m, "o")
	if m.picker == nil {
		t.Fatal("o did not open the picker")
	}
	steps := []struct {
		keys   []string
		header string
		lists  string
	}{
		{nil, "Open a trace  /", "week3/"},
		{[]string{"enter"}, "Open a trace  /week3/", "app.txt"},
	}
	for _, st := range steps {
		pick(m, st.keys...)
		frame := ansi.Strip(m.Frame())
		lines := strings.Split(frame, "\n")
		if !strings.Contains(frame, st.header) || !strings.Contains(frame, st.lists) || strings.Contains(frame, lib) {
			t.Errorf("after %v: want %q listing %q, without %s:\n%s", st.keys, st.header, st.lists, lib, strings.Join(lines[:min(len(lines), 8)], "\n"))
		}
	}
	// The index opens as the two-rank trace it is.
	pick(m, "down", "down", "enter")
	if m.load == nil {
		t.Fatalf("enter on app.txt did not start loading (picker error %q)", m.picker.err)
	}
	finishLoad(t, m)
	if m.Trace() == nil || m.Trace().Size() != 2 || filepath.Base(m.path) != "app.txt" {
		t.Errorf("opened %s", m.path)
	}
}

// Every path the picker lists or opens in a library is looked up through
// the library's os.Root: links and ".." that lead out are refused
// whichever way they are written, links that stay inside work.
func TestPickerRootEscapes(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.tsim"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	lib := t.TempDir()
	sub := filepath.Join(lib, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "ok.tsim"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(lib, "outdir")); err != nil {
		t.Skip("no symlinks:", err)
	}
	for _, l := range [][2]string{{"sub/ok.tsim", "inlink.tsim"}, {"../../" + filepath.Base(outside), "sub/up"}} {
		if err := os.Symlink(l[0], filepath.Join(lib, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		path string
		err  string // "" when allowed
	}{
		{"sub/ok.tsim", ""},
		{"sub/../sub/ok.tsim", ""},
		{"inlink.tsim", ""},
		{"sub", ""},
		{"../" + filepath.Base(outside) + "/secret.tsim", "secret.tsim: outside the trace library"},
		{"outdir", "outdir: outside the trace library"},
		{"outdir/secret.tsim", "secret.tsim: outside the trace library"},
		{"sub/up/secret.tsim", "secret.tsim: outside the trace library"},
		{"sub/missing.tsim", "missing.tsim: no such file or directory"},
	} {
		err := within(lib, filepath.Join(lib, c.path))
		if got := fmt.Sprint(err); (c.err == "" && err != nil) || (c.err != "" && got != c.err) {
			t.Errorf("within(%s) = %v, want %q", c.path, err, c.err)
		}
	}
	// The picker cannot enter a directory link that leads out.
	m := newModel(t, 100, 30, func(o *Options) { o.Library = lib })
	pick(m, "o")
	m.Update(m.chdir(filepath.Join(lib, "outdir"))())
	if !strings.Contains(m.picker.err, "outside the trace library") || strings.Contains(m.picker.err, outside) {
		t.Errorf("entering outdir: error %q", m.picker.err)
	}
	for _, e := range m.picker.entries {
		if e.name == "secret.tsim" {
			t.Error("the picker lists a file outside the library")
		}
	}
}

// pick presses keys in the picker and delivers the directory listings
// they ask for, as Bubble Tea would run their commands. Other commands
// (a load) are left to the test.
func pick(m *Model, keys ...string) {
	for _, k := range keys {
		seq := -1
		if m.picker != nil {
			seq = m.picker.seq
		}
		_, cmd := m.Update(viewtest.Key(k))
		if m.picker != nil && m.picker.seq != seq && cmd != nil {
			m.Update(cmd())
		}
	}
}
