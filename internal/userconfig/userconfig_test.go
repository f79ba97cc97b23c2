package userconfig

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var allowed = Allowed{
	Themes:  []string{"dark", "light"},
	Presets: []string{"default", "insee-torus"},
	Actions: []string{"quit", "help", "next_tab"},
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want Config
		err  string
	}{
		{"empty", "", Config{}, ""},
		{"all", "# mine\ntheme = \"light\"\npreset = \"insee-torus\"\n\n[keys]\nquit = \"Q\"\nnext_tab = [\"tab\", \"l\"]\n",
			Config{Theme: "light", Preset: "insee-torus", Keys: map[string][]string{"quit": {"Q"}, "next_tab": {"tab", "l"}}}, ""},
		{"dotted keys", "keys.help = \"h\"\n", Config{Keys: map[string][]string{"help": {"h"}}}, ""},
		{"syntax", "theme = \"light\"\npreset = insee\n", Config{}, "line 2: "},
		{"unknown theme", "\n\ntheme = \"neon\"\n", Config{}, `line 3: theme: unknown theme "neon" (expected one of dark, light)`},
		{"unknown preset", "preset = \"cray\"\n", Config{}, `line 1: preset: unknown preset "cray" (expected one of default, insee-torus)`},
		{"theme not a string", "theme = 3\n", Config{}, "line 1: theme: expected a string, got an integer"},
		{"unknown setting", "theme = \"dark\"\ncolour = \"red\"\n", Config{}, "line 2: colour: unknown setting (expected theme, preset or [keys])"},
		{"first mistake first", "colour = 1\ntheme = \"neon\"\n", Config{}, "line 1: colour: unknown setting"},
		{"unknown action", "[keys]\nquit = \"Q\"\nfly = \"f\"\n", Config{}, "line 3: keys.fly: unknown action (expected one of quit, help, next_tab)"},
		{"keys not a table", "keys = \"q\"\n", Config{}, "line 1: keys: expected a table [keys], got a string"},
		{"key not a string", "[keys]\n\nquit = [1]\n", Config{}, "line 3: keys.quit: expected key names, got an integer"},
		{"no keys", "[keys]\nquit = []\n", Config{}, "line 2: keys.quit: no keys (an action cannot be unbound)"},
		{"empty key", "[keys]\nquit = \" \"\n", Config{}, "line 2: keys.quit: an empty key name"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse([]byte(tc.src), allowed)
			if tc.err != "" {
				if err == nil || len(err.Error()) < len(tc.err) || err.Error()[:len(tc.err)] != tc.err {
					t.Fatalf("error %v, want one starting %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestLoadAndPath(t *testing.T) {
	dir := t.TempDir()
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_CONFIG_HOME": dir, "HOME": "/home/u"}, filepath.Join(dir, "tracesim", "config.toml")},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.config/tracesim/config.toml"},
		// The XDG specification ignores relative paths.
		{map[string]string{"XDG_CONFIG_HOME": "rel", "HOME": "/home/u"}, "/home/u/.config/tracesim/config.toml"},
		{map[string]string{}, ""},
	}
	for _, tc := range tests {
		if got := Path(env(tc.env)); got != tc.want {
			t.Errorf("Path(%v) = %q, want %q", tc.env, got, tc.want)
		}
	}

	path := filepath.Join(dir, "tracesim", "config.toml")
	if c, err := Load(path, allowed); err != nil || !reflect.DeepEqual(c, Config{}) {
		t.Errorf("missing file: %+v, %v; want the zero Config", c, err)
	}
	if c, err := Load("", allowed); err != nil || !reflect.DeepEqual(c, Config{}) {
		t.Errorf("no path: %+v, %v", c, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("theme = \"dark\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path, allowed); err != nil || c.Theme != "dark" || c.Path != path {
		t.Errorf("Load: %+v, %v", c, err)
	}
	if err := os.WriteFile(path, []byte("theme = \"dark\"\nkeys = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, allowed); err == nil || err.Error() != path+": line 2: keys: expected a table [keys], got an integer" {
		t.Errorf("bad file: %v", err)
	}
	if err := os.WriteFile(path, make([]byte, maxSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path, allowed); err == nil || err.Error() != path+": larger than 64 KiB: not a configuration file" {
		t.Errorf("large file: %v", err)
	}
	if _, err := Load(filepath.Dir(path), allowed); err == nil || err.Error() != filepath.Dir(path)+": not a regular file" {
		t.Errorf("directory: %v", err)
	}
}

// TestLoadStaysInTheConfigDirectory: config.toml is opened through an
// os.Root on its directory, so a link out of it, directly or through "..",
// is an error naming the file, never a configuration read from elsewhere.
func TestLoadStaysInTheConfigDirectory(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(base string) string
	}{
		{"absolute link out", func(base string) string { return filepath.Join(base, "elsewhere.toml") }},
		{"relative link with ..", func(string) string { return filepath.Join("..", "..", "elsewhere.toml") }},
		{"through a subdirectory and ..", func(string) string { return filepath.Join("sub", "..", "..", "..", "elsewhere.toml") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			dir := filepath.Join(base, "xdg", "tracesim")
			if err := os.MkdirAll(filepath.Join(dir, "sub"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(base, "elsewhere.toml"), []byte("theme = \"light\"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "config.toml")
			if err := os.Symlink(tc.target(base), path); err != nil {
				t.Fatal(err)
			}
			c, err := Load(path, Allowed{})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Errorf("Load through a link out of the directory: %+v, %v; want an error naming %s", c, err, path)
			}
			if c.Theme != "" {
				t.Errorf("read theme %q from outside the configuration directory", c.Theme)
			}
		})
	}
	// A link that stays inside the directory is followed.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "mine.toml"), []byte("theme = \"mono\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("mine.toml", filepath.Join(dir, "config.toml")); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(filepath.Join(dir, "config.toml"), Allowed{}); err != nil || c.Theme != "mono" {
		t.Errorf("link inside the directory: %+v, %v", c, err)
	}
}
