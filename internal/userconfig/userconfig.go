// Package userconfig reads the user's tracesim configuration file,
// $XDG_CONFIG_HOME/tracesim/config.toml (~/.config/tracesim/config.toml
// when XDG_CONFIG_HOME is unset):
//
//	theme = "light"          # a colour theme of the UI
//	preset = "insee-torus"   # the machine the Machine tab starts from
//
//	[keys]                   # global keys of the UI, by action
//	quit = "Q"
//	next_tab = ["tab", "l"]
//
// Every key is optional and a missing file is an empty configuration.
// Errors name the file and the line.
package userconfig

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// maxSize bounds the file: a configuration is a few lines, and a larger
// file is a mistake (a trace saved under the wrong name).
const maxSize = 64 << 10

// Config is the user's configuration. The zero value is the defaults.
type Config struct {
	// Path is the file it was read from, "" when there was none.
	Path string
	// Theme is a theme name ("" picks dark or light from the terminal).
	Theme string
	// Preset is the key of the machine preset the UI's Machine tab
	// starts from ("" is the default machine).
	Preset string
	// Keys rebinds global UI actions to keys, by action name.
	Keys map[string][]string
}

// Allowed lists the values a configuration may name; an empty list
// allows anything.
type Allowed struct {
	Themes  []string
	Presets []string
	// Actions are the key actions [keys] may rebind.
	Actions []string
}

// Path returns the configuration file's path from the environment:
// $XDG_CONFIG_HOME/tracesim/config.toml, else under $HOME/.config. It
// returns "" when neither variable is set.
func Path(getenv func(string) string) string {
	if d := getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "tracesim", "config.toml")
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "tracesim", "config.toml")
	}
	return ""
}

// Load reads the configuration at path; a path that does not exist (or
// "") gives the zero Config and no error. Values are checked against
// allowed. The file is opened through an os.Root on its directory, so a
// config.toml that is a link out of the configuration directory is
// refused rather than followed.
func Load(path string, allowed Allowed) (Config, error) {
	if path == "" {
		return Config{}, nil
	}
	root, err := os.OpenRoot(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, err
	}
	defer root.Close()
	f, err := root.Open(filepath.Base(path))
	if errors.Is(err, fs.ErrNotExist) {
		return Config{}, nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return Config{}, err
	} else if !st.Mode().IsRegular() {
		return Config{}, fmt.Errorf("%s: not a regular file", path)
	}
	src, err := io.ReadAll(io.LimitReader(f, maxSize+1))
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	if len(src) > maxSize {
		return Config{}, fmt.Errorf("%s: larger than %d KiB: not a configuration file", path, maxSize>>10)
	}
	c, err := Parse(src, allowed)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

// Parse reads a configuration from src. Errors start with "line N:".
func Parse(src []byte, allowed Allowed) (Config, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(src), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return Config{}, fmt.Errorf("line %d: %s", pe.Position.Line, pe.Message)
		}
		return Config{}, err
	}
	var c Config
	bad := func(key []string, format string, args ...any) error {
		return fmt.Errorf("line %d: %s: %s", lineOf(src, key), strings.Join(key, "."), fmt.Sprintf(format, args...))
	}
	// Keys in file order, so that the first mistake is the one reported.
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int { return lineOf(src, []string{a}) - lineOf(src, []string{b}) })
	for _, k := range keys {
		v := raw[k]
		key := []string{k}
		switch k {
		case "theme", "preset":
			s, ok := v.(string)
			if !ok {
				return Config{}, bad(key, "expected a string, got %s", typeName(v))
			}
			list := allowed.Themes
			if k == "preset" {
				list = allowed.Presets
			}
			if len(list) > 0 && !slices.Contains(list, s) {
				return Config{}, bad(key, "unknown %s %q (expected one of %s)", k, s, strings.Join(list, ", "))
			}
			if k == "theme" {
				c.Theme = s
			} else {
				c.Preset = s
			}
		case "keys":
			t, ok := v.(map[string]any)
			if !ok {
				return Config{}, bad(key, "expected a table [keys], got %s", typeName(v))
			}
			var err error
			if c.Keys, err = parseKeys(src, t, allowed.Actions); err != nil {
				return Config{}, err
			}
		default:
			return Config{}, bad(key, "unknown setting (expected theme, preset or [keys])")
		}
	}
	return c, nil
}

// parseKeys reads the [keys] table: action = "key" or ["key", …].
func parseKeys(src []byte, t map[string]any, actions []string) (map[string][]string, error) {
	out := make(map[string][]string, len(t))
	for action, v := range t {
		key := []string{"keys", action}
		if len(actions) > 0 && !slices.Contains(actions, action) {
			return nil, fmt.Errorf("line %d: keys.%s: unknown action (expected one of %s)",
				lineOf(src, key), action, strings.Join(actions, ", "))
		}
		var ks []string
		switch v := v.(type) {
		case string:
			ks = []string{v}
		case []any:
			for _, x := range v {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("line %d: keys.%s: expected key names, got %s", lineOf(src, key), action, typeName(x))
				}
				ks = append(ks, s)
			}
		default:
			return nil, fmt.Errorf("line %d: keys.%s: expected a key or a list of keys, got %s", lineOf(src, key), action, typeName(v))
		}
		for _, s := range ks {
			if strings.TrimSpace(s) == "" {
				return nil, fmt.Errorf("line %d: keys.%s: an empty key name", lineOf(src, key), action)
			}
		}
		if len(ks) == 0 {
			return nil, fmt.Errorf("line %d: keys.%s: no keys (an action cannot be unbound)", lineOf(src, key), action)
		}
		out[action] = ks
	}
	return out, nil
}

// lineOf returns the line where key (a top-level key, or a table and a
// key in it) is set, 0 when it cannot tell. The TOML decoder keeps
// positions for syntax errors only, so the lines are found by reading
// the file as TOML lays it out: "[table]" headers, then "key = value".
func lineOf(src []byte, key []string) int {
	table := ""
	want := key[len(key)-1]
	wantTable := strings.Join(key[:len(key)-1], ".")
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			table = strings.Trim(strings.TrimSpace(strings.Trim(line, "[]")), `"`)
			if table == strings.Join(key, ".") {
				return n // the table itself, as in [keys]
			}
			continue
		}
		name, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		name = strings.Trim(strings.TrimSpace(name), `"'`)
		if name == want && table == wantTable {
			return n
		}
		if table == "" && wantTable != "" && name == strings.Join(key, ".") {
			return n // dotted key: keys.quit = "Q"
		}
	}
	return 0
}

func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case int64:
		return "an integer"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case []any:
		return "a list"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("%T", v)
}
