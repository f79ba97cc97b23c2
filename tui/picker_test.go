package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
	press(m, "o")
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
		press(m, st.keys...)
		frame := ansi.Strip(m.Frame())
		lines := strings.Split(frame, "\n")
		if !strings.Contains(frame, st.header) || !strings.Contains(frame, st.lists) || strings.Contains(frame, lib) {
			t.Errorf("after %v: want %q listing %q, without %s:\n%s", st.keys, st.header, st.lists, lib, strings.Join(lines[:min(len(lines), 8)], "\n"))
		}
	}
	// The index opens as the two-rank trace it is.
	press(m, "down", "down", "enter")
	if m.load == nil {
		t.Fatalf("enter on app.txt did not start loading (picker error %q)", m.picker.err)
	}
	finishLoad(t, m)
	if m.Trace() == nil || m.Trace().Size() != 2 || filepath.Base(m.path) != "app.txt" {
		t.Errorf("opened %s", m.path)
	}
}
