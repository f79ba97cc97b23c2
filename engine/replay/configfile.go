package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/tracesim/tracesim/internal/userfile"
)

// LoadFile applies the settings of the configuration file at path onto c
// (see Decode), opened with c.Open: a regular file of at most
// userfile.ConfigLimit bytes. The format is chosen by the extension
// (.json, .toml), else by the content.
func (c *Config) LoadFile(path string) error {
	data, err := userfile.ReadAll(c.Open, "configuration", path, userfile.ConfigLimit)
	if err != nil {
		return err
	}
	format := strings.TrimPrefix(strings.ToLower(filepath.Ext(path)), ".")
	if format != "json" && format != "toml" {
		format = ""
	}
	topo, place := c.Topology, c.Placement
	plat, hosts, factors := c.Platform, c.Hostfile, c.Factors
	if err := c.Decode(data, format); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// A file: spec in the file is relative to the file's directory.
	dir := filepath.Dir(path)
	if c.Topology != topo {
		c.Topology = relativeTo(dir, c.Topology)
	}
	if c.Placement != place {
		c.Placement = relativeTo(dir, c.Placement)
	}
	// So are the platform, the hostfile and a factors file.
	for _, f := range []struct {
		p   *string
		old string
	}{{&c.Platform, plat}, {&c.Hostfile, hosts}, {&c.Factors, factors}} {
		if v := *f.p; v != f.old && v != "" && v != "none" && v != "smpi" && !filepath.IsAbs(v) && dir != "." {
			*f.p = filepath.Join(dir, v)
		}
	}
	return nil
}

// relativeTo resolves the path of a "file:PATH" spec against dir.
func relativeTo(dir, spec string) string {
	p, ok := strings.CutPrefix(strings.TrimSpace(spec), "file:")
	if !ok || filepath.IsAbs(p) || dir == "." {
		return spec
	}
	return "file:" + filepath.Join(dir, p)
}

// Relocated returns c with the relative paths of its file: specs
// rewritten relative to dir, the directory of a configuration file c is
// about to be written to: LoadFile resolves them against the file's
// directory, so they read back as the same files.
func (c Config) Relocated(dir string) Config {
	c.Topology = relocate(dir, c.Topology)
	c.Placement = relocate(dir, c.Placement)
	return c
}

// relocate is the inverse of relativeTo.
func relocate(dir, spec string) string {
	p, ok := strings.CutPrefix(strings.TrimSpace(spec), "file:")
	if !ok || filepath.IsAbs(p) || dir == "." || dir == "" {
		return spec
	}
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		// One is absolute, or dir climbs above p's base: compare them
		// from the working directory.
		ad, err1 := filepath.Abs(dir)
		ap, err2 := filepath.Abs(p)
		if err1 != nil || err2 != nil {
			return spec
		}
		if rel, err = filepath.Rel(ad, ap); err != nil {
			return "file:" + ap
		}
	}
	return "file:" + rel
}

// Decode applies the settings of a configuration file onto c: keys not in
// the file keep their values. format is "json", "toml" or "" (JSON when
// the content starts with '{', else TOML).
//
// Keys are the settings' keys (the flag names); values are strings with
// units ("10Gb/s", "1.5us", "64KiB") or bare numbers in the base unit
// (bytes, seconds, bytes per second, flops per second). Tables group
// settings and their names are ignored ([network] bandwidth = "1Gb/s"),
// except coll-alg, which may be a table of operation = algorithm; map may
// be an array of node numbers. Errors name the key, and for syntax errors
// the line and column.
func (c *Config) Decode(data []byte, format string) error {
	if format == "" {
		format = "toml"
		if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
			format = "json"
		}
	}
	var tree map[string]any
	switch format {
	case "json":
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if err := d.Decode(&tree); err != nil {
			return jsonError(data, err)
		}
		if d.More() {
			return errors.New("json: more than one value in the file")
		}
	case "toml":
		if _, err := toml.Decode(string(data), &tree); err != nil {
			var pe toml.ParseError
			if errors.As(err, &pe) {
				return fmt.Errorf("toml: line %d, column %d: %s", pe.Position.Line, pe.Position.Col, pe.Message)
			}
			return fmt.Errorf("toml: %w", err)
		}
	default:
		return fmt.Errorf("unknown configuration format %q (expected json or toml)", format)
	}
	flat := map[string]string{}
	origin := map[string]string{}
	if err := flatten(tree, "", flat, origin); err != nil {
		return err
	}
	return c.apply(flat, origin)
}

// apply sets the flat key/value pairs onto c. origin maps a key to the
// name the user wrote (a table path) for error messages.
func (c *Config) apply(flat, origin map[string]string) error {
	if _, a := flat["bandwidth"]; a {
		if _, b := flat["per-byte"]; b {
			return fmt.Errorf("%s and %s: give one of them (per-byte is 1/bandwidth)", origin["bandwidth"], origin["per-byte"])
		}
	}
	// Settings order, so that results do not depend on map order.
	for _, s := range Settings() {
		v, ok := flat[s.Key]
		if !ok {
			continue
		}
		if err := s.Set(c, v); err != nil {
			return fmt.Errorf("%s: %w", origin[s.Key], err)
		}
	}
	return nil
}

// flatten turns a decoded file into key → value strings.
func flatten(tree map[string]any, prefix string, flat, origin map[string]string) error {
	keys := make([]string, 0, len(tree))
	for k := range tree {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := tree[k]
		name := prefix + k
		if sub, ok := v.(map[string]any); ok {
			if k == "coll-alg" {
				s, err := algTable(name, sub)
				if err != nil {
					return err
				}
				if err := put(flat, origin, k, name, s); err != nil {
					return err
				}
				continue
			}
			if _, isSetting := LookupSetting(k); isSetting {
				return fmt.Errorf("%s: expected a value, not a table", name)
			}
			if err := flatten(sub, name+".", flat, origin); err != nil {
				return err
			}
			continue
		}
		if _, ok := LookupSetting(k); !ok {
			err := unknownKey(k)
			if prefix != "" {
				err = fmt.Errorf("%s: %w", strings.TrimSuffix(prefix, "."), err)
			}
			return err
		}
		s, err := scalar(name, v)
		if err != nil {
			return err
		}
		if err := put(flat, origin, k, name, s); err != nil {
			return err
		}
	}
	return nil
}

func put(flat, origin map[string]string, key, name, v string) error {
	if prev, dup := origin[key]; dup {
		return fmt.Errorf("%s: already set as %s", name, prev)
	}
	flat[key], origin[key] = v, name
	return nil
}

func algTable(name string, t map[string]any) (string, error) {
	ops := make([]string, 0, len(t))
	for op := range t {
		ops = append(ops, op)
	}
	slices.Sort(ops)
	var parts []string
	for _, op := range ops {
		s, ok := t[op].(string)
		if !ok {
			return "", fmt.Errorf("%s.%s: expected an algorithm name", name, op)
		}
		parts = append(parts, op+"="+s)
	}
	return strings.Join(parts, ","), nil
}

// scalar writes a decoded value as the string a setting parses.
func scalar(name string, v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case json.Number:
		return x.String(), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := scalar(fmt.Sprintf("%s[%d]", name, i), e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return strings.Join(parts, " "), nil
	case bool:
		return "", fmt.Errorf("%s: expected a number or a string, not %v", name, x)
	}
	return "", fmt.Errorf("%s: unsupported value %v", name, v)
}

// jsonError adds the line and column to a JSON syntax error.
func jsonError(data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line, col := lineCol(data, se.Offset)
		return fmt.Errorf("json: line %d, column %d: %v", line, col, err)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		line, col := lineCol(data, te.Offset)
		return fmt.Errorf("json: line %d, column %d: the file must be an object of settings", line, col)
	}
	return fmt.Errorf("json: %w", err)
}

func lineCol(data []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// Encode writes c as a configuration file in format "json" or "toml",
// every setting with its value, TOML with the settings' help as
// comments. Decode reads it back to the same Config.
func (c *Config) Encode(format string) ([]byte, error) {
	var b bytes.Buffer
	all := Settings()
	// bandwidth and per-byte are one value: write the one that reads
	// back exactly.
	skip := "per-byte"
	if !bandwidthExact(c.PerByte) {
		skip = "bandwidth"
	}
	switch format {
	case "json":
		b.WriteString("{\n")
		all = slices.DeleteFunc(all, func(s Setting) bool { return s.Key == skip })
		for i, s := range all {
			k, _ := json.Marshal(s.Key)
			v, _ := json.Marshal(s.Get(c))
			fmt.Fprintf(&b, "  %s: %s", k, v)
			if i < len(all)-1 {
				b.WriteByte(',')
			}
			b.WriteByte('\n')
		}
		b.WriteString("}\n")
	case "toml":
		b.WriteString("# tracesim simulation settings (tracesim sim --config FILE)\n")
		group := ""
		for _, s := range all {
			if s.Key == skip {
				continue
			}
			if s.Group != group {
				group = s.Group
				fmt.Fprintf(&b, "\n# %s\n", group)
			}
			fmt.Fprintf(&b, "# %s\n", s.Help)
			key := s.Key
			if strings.ContainsAny(key, ".") {
				key = strconv.Quote(key)
			}
			fmt.Fprintf(&b, "%s = %s\n", key, strconv.Quote(s.Get(c)))
		}
	default:
		return nil, fmt.Errorf("unknown configuration format %q (expected json or toml)", format)
	}
	return b.Bytes(), nil
}
