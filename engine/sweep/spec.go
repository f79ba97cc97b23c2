// Package sweep runs parameter sweeps: one simulation of a trace for every
// point of a grid of machine settings. A TOML spec (docs/sweep.md) names
// the traces, the base machine and the axes; Expand turns it into points,
// Run simulates them on a pool of workers, and the result IO reads and
// writes one row per point, so that a sweep can resume, run in shards on
// a cluster and be merged.
package sweep

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/tracesim/tracesim/engine/preset"
	"github.com/tracesim/tracesim/engine/replay"
	"github.com/tracesim/tracesim/tracefmt/gen"
	"github.com/tracesim/tracesim/tracefmt/units"
)

// TraceRef is one trace of a sweep: a file, or a `tracesim gen` command.
type TraceRef struct {
	// Name is how the spec wrote it: the path or the gen command. It is
	// the result's trace column.
	Name string
	// Path is the file, resolved against the spec's directory; empty for
	// a generated trace.
	Path string
	// Gen holds the arguments of `tracesim gen` (pattern and flags)
	// for a generated trace.
	Gen []string
	// GenOptions are Gen's options (gen.ParseArgs, checked), and
	// GenEvents the number of events they make (gen.Expect).
	GenOptions gen.Options
	GenEvents  int
	// Line is the spec's line that names the trace.
	Line int
}

// At writes the trace's place in the spec for messages: "study.toml:
// line 3: traces: \"gen ring\"".
func (t *TraceRef) At(spec string) string {
	return fmt.Sprintf("%s: line %d: traces: %q", spec, t.Line, t.Name)
}

// Axis is one swept setting.
type Axis struct {
	// Key is the sim setting's key, the result's column.
	Key string
	// Values are the setting's values, each written as the setting
	// writes it back (Setting.Get), so that equal values compare equal.
	Values []string
	// Zip is the zip group of the axis (-1 when it is crossed).
	Zip int
	// Line is the spec's line that declared the axis.
	Line int
}

// Spec is a parsed sweep specification.
type Spec struct {
	// File is the spec's path, for messages.
	File   string
	Traces []TraceRef
	// Base is the machine every point starts from: defaults, then the
	// preset, then the config file, then the top-level settings.
	Base replay.Config
	// Preset is the preset's key, or "".
	Preset string
	// Settings are the top-level sim settings in file order, as
	// key/value pairs.
	Settings [][2]string
	// Axes in the order the spec lists them.
	Axes []Axis
	// Seeds are the repetitions' seeds: one run of every point per
	// seed. A single seed unless the spec asks for repetitions.
	Seeds []uint64
	// Reps is true when the spec asked for repetitions or seeds: the
	// result then has rep and seed columns.
	Reps bool
	// repsAt says where the spec asked for them ("line 4:
	// repetitions"), for the error when nothing reads the seed.
	repsAt string
}

// reservedKeys are the spec's own top-level keys; any other key is a sim
// setting.
func reservedKeys() []string {
	return []string{"traces", "preset", "config", "repetitions", "seeds", "zip", "axes"}
}

// ParseFile reads a spec. Relative trace and config paths are resolved
// against the spec's directory.
func ParseFile(path string, data []byte) (*Spec, error) {
	s, err := parse(data, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	s.File = path
	return s, nil
}

// keyLines maps "key" and "table.key" to the line that defines them. The
// TOML decoder keeps no positions, so the spec is scanned for them: good
// enough for the flat layout a spec has.
func keyLines(data []byte) map[string]int {
	lines := map[string]int{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	table := ""
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(l, "[") && !strings.HasPrefix(l, "[[") {
			table = strings.Trim(l, "[] \t") + "."
			continue
		}
		k, _, ok := strings.Cut(l, "=")
		if !ok || strings.HasPrefix(l, "#") {
			continue
		}
		k = strings.Trim(strings.TrimSpace(k), `"'`)
		if _, dup := lines[table+k]; !dup {
			lines[table+k] = n
		}
	}
	return lines
}

func parse(data []byte, dir string) (*Spec, error) {
	var tree map[string]any
	md, err := toml.Decode(string(data), &tree)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("line %d, column %d: %s", pe.Position.Line, pe.Position.Col, pe.Message)
		}
		return nil, err
	}
	lines := keyLines(data)
	reserved := reservedKeys()
	at := func(key string) string {
		if n, ok := lines[key]; ok {
			return fmt.Sprintf("line %d: %s", n, key)
		}
		return key
	}
	s := &Spec{Base: replay.Default(), Seeds: []uint64{0}}

	// Keys in file order: the axes' order is the columns' order and
	// the nesting of the loops.
	var top, axisKeys []string
	for _, k := range md.Keys() {
		switch len(k) {
		case 1:
			top = append(top, k[0])
		case 2:
			if k[0] == "axes" {
				axisKeys = append(axisKeys, k[1])
			} else if k[0] != "axes" && !slices.Contains(reserved, k[0]) {
				return nil, fmt.Errorf("%s: the spec has no table [%s] (sim settings go at the top level, swept ones under [axes])", at(k[0]+"."+k[1]), k[0])
			}
		}
	}

	if v, ok := tree["preset"]; ok {
		name, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected a preset name", at("preset"))
		}
		p, err := preset.Lookup(name)
		if err == nil {
			err = p.Apply(&s.Base)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at("preset"), err)
		}
		s.Preset = p.Key
	}
	if v, ok := tree["config"]; ok {
		name, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s: expected a configuration file name", at("config"))
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		if err := s.Base.LoadFile(name); err != nil {
			return nil, fmt.Errorf("%s: %w", at("config"), err)
		}
	}
	for _, k := range top {
		if slices.Contains(reserved, k) {
			continue
		}
		if _, ok := replay.LookupSetting(k); !ok {
			return nil, fmt.Errorf("%s: not a sim setting nor a sweep key (%s)", at(k), strings.Join(reserved, ", "))
		}
		v, err := scalar(tree[k])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at(k), err)
		}
		v = resolvePath(k, v, dir)
		if err := s.Base.Set(k, v); err != nil {
			return nil, fmt.Errorf("%s: %w", at(k), err)
		}
		s.Settings = append(s.Settings, [2]string{k, v})
	}

	if err := s.parseTraces(tree["traces"], dir, at("traces"), data, lines["traces"]); err != nil {
		return nil, err
	}
	if err := s.parseSeeds(tree, at); err != nil {
		return nil, err
	}

	axes, _ := tree["axes"].(map[string]any)
	if _, ok := tree["axes"]; ok && axes == nil {
		return nil, fmt.Errorf("%s: expected a table of setting = values", at("axes"))
	}
	for _, k := range axisKeys {
		set, ok := replay.LookupSetting(k)
		if !ok {
			return nil, fmt.Errorf("%s: not a sim setting", at("axes."+k))
		}
		if k == "seed" && s.Reps {
			return nil, fmt.Errorf("%s: seed is both an axis and set by repetitions/seeds; give one", at("axes."+k))
		}
		vals, err := axisValues(set, axes[k], dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at("axes."+k), err)
		}
		if len(vals) == 0 {
			return nil, fmt.Errorf("%s: no values", at("axes."+k))
		}
		s.Axes = append(s.Axes, Axis{Key: k, Values: vals, Zip: -1, Line: lines["axes."+k]})
	}
	if err := s.parseZip(tree["zip"], at("zip")); err != nil {
		return nil, err
	}
	// The top-level settings and the axes are given by hand: the base
	// takes what they imply (an eager-threshold axis without a send
	// mode varies the protocol of every send), and the machine column
	// records it.
	s.Base.ByHand(func(k string) bool {
		return slices.ContainsFunc(s.Settings, func(kv [2]string) bool { return kv[0] == k }) ||
			slices.ContainsFunc(s.Axes, func(a Axis) bool { return a.Key == k })
	})
	// Every point must make a valid machine: say which one does not
	// before anything runs.
	if _, err := s.Expand(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Spec) parseTraces(v any, dir, where string, data []byte, line int) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		if v == nil {
			return fmt.Errorf("traces: missing (a list of trace files or \"gen PATTERN [flags]\" commands)")
		}
		return fmt.Errorf("%s: expected a list of trace files or \"gen PATTERN [flags]\" commands", where)
	}
	seen := map[string]bool{}
	for i, e := range list {
		name, ok := e.(string)
		name = strings.TrimSpace(name)
		if !ok || name == "" {
			return fmt.Errorf("%s[%d]: expected a file name or a gen command", where, i)
		}
		if seen[name] {
			return fmt.Errorf("%s[%d]: %q listed twice", where, i, name)
		}
		seen[name] = true
		ref := TraceRef{Name: name, Line: elementLine(data, line, e.(string))}
		if f := strings.Fields(name); f[0] == "gen" {
			here := fmt.Sprintf("line %d: traces: %q", ref.Line, name)
			if len(f) < 2 {
				return fmt.Errorf("%s: gen needs a pattern (as in `tracesim gen PATTERN [flags]`)", here)
			}
			ref.Gen = f[1:]
			// The command is checked now, not when the run starts: a
			// typo costs no output file, and its size is known before
			// anything is generated.
			o, err := gen.ParseArgs(ref.Gen)
			if err == nil {
				o, err = o.Normalize()
			}
			var cnt gen.Counts
			if err == nil {
				cnt, err = gen.Expect(o)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), "gen") {
					err = fmt.Errorf("gen: %w", err)
				}
				return fmt.Errorf("%s: %w", here, err)
			}
			ref.GenOptions, ref.GenEvents = o, cnt.Events
		} else {
			ref.Path = name
			if !filepath.IsAbs(name) {
				ref.Path = filepath.Join(dir, name)
			}
		}
		s.Traces = append(s.Traces, ref)
	}
	return nil
}

// elementLine returns the line of a list's element: the first line, from
// the list's own, that holds it quoted (the decoder keeps no positions).
func elementLine(data []byte, from int, elem string) int {
	if from <= 0 {
		return 0
	}
	lines := bytes.Split(data, []byte("\n"))
	for n := from; n <= len(lines); n++ {
		l := lines[n-1]
		if bytes.Contains(l, []byte(strconv.Quote(elem))) || bytes.Contains(l, []byte("'"+elem+"'")) {
			return n
		}
	}
	return from
}

func (s *Spec) parseSeeds(tree map[string]any, at func(string) string) error {
	base := s.Base.Seed
	reps, hasReps := tree["repetitions"]
	seeds, hasSeeds := tree["seeds"]
	switch {
	case hasReps && hasSeeds:
		return fmt.Errorf("%s: give repetitions or seeds, not both", at("seeds"))
	case hasReps:
		n, ok := reps.(int64)
		if !ok || n < 1 || n > 1e6 {
			return fmt.Errorf("%s: expected a whole number from 1 to 1000000", at("repetitions"))
		}
		// Repetition r runs with the base seed + r: the same spec gives
		// the same seeds everywhere.
		s.Seeds = make([]uint64, n)
		for r := range s.Seeds {
			s.Seeds[r] = base + uint64(r)
		}
		s.Reps = true
		s.repsAt = at("repetitions")
	case hasSeeds:
		list, ok := seeds.([]any)
		if !ok || len(list) == 0 {
			return fmt.Errorf("%s: expected a list of whole numbers", at("seeds"))
		}
		s.Seeds = s.Seeds[:0]
		for i, e := range list {
			v, ok := e.(int64)
			if !ok || v < 0 {
				return fmt.Errorf("%s[%d]: expected a whole number ≥ 0", at("seeds"), i)
			}
			n := uint64(v)
			if slices.Contains(s.Seeds, n) {
				return fmt.Errorf("%s[%d]: seed %d listed twice", at("seeds"), i, n)
			}
			s.Seeds = append(s.Seeds, n)
		}
		s.Reps = true
		s.repsAt = at("seeds")
	default:
		s.Seeds = []uint64{base}
	}
	return nil
}

// parseZip reads zip = true (every axis in one group), zip = ["a", "b"]
// (one group) or zip = [["a", "b"], ["c", "d"]]. Zipped axes advance
// together and must have as many values.
func (s *Spec) parseZip(v any, where string) error {
	if v == nil {
		return nil
	}
	var groups [][]string
	switch x := v.(type) {
	case bool:
		if x {
			var g []string
			for _, a := range s.Axes {
				g = append(g, a.Key)
			}
			groups = append(groups, g)
		}
	case []any:
		var flat []string
		for i, e := range x {
			switch y := e.(type) {
			case string:
				flat = append(flat, y)
			case []any:
				var g []string
				for j, n := range y {
					name, ok := n.(string)
					if !ok {
						return fmt.Errorf("%s[%d][%d]: expected an axis name", where, i, j)
					}
					g = append(g, name)
				}
				groups = append(groups, g)
			default:
				return fmt.Errorf("%s[%d]: expected an axis name or a list of them", where, i)
			}
		}
		if flat != nil {
			if groups != nil {
				return fmt.Errorf("%s: mix of names and lists; write a list of lists for several groups", where)
			}
			groups = [][]string{flat}
		}
	default:
		return fmt.Errorf("%s: expected true, a list of axis names, or a list of such lists", where)
	}
	for g, names := range groups {
		if len(names) < 2 {
			return fmt.Errorf("%s: a zip group needs at least two axes", where)
		}
		n := -1
		for _, name := range names {
			i := slices.IndexFunc(s.Axes, func(a Axis) bool { return a.Key == name })
			if i < 0 {
				return fmt.Errorf("%s: %q is not an axis", where, name)
			}
			if s.Axes[i].Zip >= 0 {
				return fmt.Errorf("%s: axis %q is in two zip groups", where, name)
			}
			if n >= 0 && len(s.Axes[i].Values) != n {
				return fmt.Errorf("%s: zipped axes need as many values: %s has %d, %s has %d", where, names[0], n, name, len(s.Axes[i].Values))
			}
			n = len(s.Axes[i].Values)
			s.Axes[i].Zip = g
		}
	}
	return nil
}

// resolvePath resolves a relative file a setting names (a topology or
// placement "file:PATH", a platform, hostfile or factors file) against
// the spec's directory, as sim --config does against the configuration
// file's.
func resolvePath(key, v, dir string) string {
	if dir == "." || dir == "" {
		return v
	}
	switch key {
	case "topology", "placement":
		if p, ok := strings.CutPrefix(strings.TrimSpace(v), "file:"); ok && !filepath.IsAbs(p) {
			return "file:" + filepath.Join(dir, p)
		}
	case "platform", "hostfile", "factors":
		if v != "" && v != "none" && v != "smpi" && !filepath.IsAbs(v) {
			return filepath.Join(dir, v)
		}
	}
	return v
}

// scalar writes a decoded TOML value as the string a setting parses.
func scalar(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("expected a number or a string, not %v", v)
}

// maxAxisValues bounds a range, so that a wrong step cannot ask for
// billions of points.
const maxAxisValues = 10000

// axisValues reads an axis: a list of values, or a range table
// {from, to, step} (additive), {from, to, factor} (multiplicative) or
// {from, to, count, log} (count values, evenly spaced on a linear or
// logarithmic scale). Values are checked by the setting and written back
// in its canonical form.
func axisValues(set *replay.Setting, v any, dir string) ([]string, error) {
	var raw []string
	switch x := v.(type) {
	case []any:
		for i, e := range x {
			s, err := scalar(e)
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			raw = append(raw, resolvePath(set.Key, s, dir))
		}
	case map[string]any:
		nums, err := rangeValues(set, x)
		if err != nil {
			return nil, err
		}
		var out []string
		for i, n := range nums {
			// A range's values are written with a unit and four
			// significant digits ("13.73Gb/s"): the value the point
			// runs with is the one its column shows.
			v := formatValue(set.Kind, n)
			c := replay.Default()
			if err := set.Set(&c, v); err != nil {
				return nil, fmt.Errorf("value %d (%s): %w", i+1, v, err)
			}
			if slices.Contains(out, v) {
				return nil, fmt.Errorf("value %d (%s): the range repeats it at four significant digits; use fewer steps", i+1, v)
			}
			out = append(out, v)
		}
		return out, nil
	default:
		s, err := scalar(v)
		if err != nil {
			return nil, fmt.Errorf("expected a list of values or a range {from, to, step|factor|count}")
		}
		raw = []string{resolvePath(set.Key, s, dir)}
	}
	out := make([]string, 0, len(raw))
	for i, r := range raw {
		c := replay.Default()
		if err := set.Set(&c, r); err != nil {
			return nil, fmt.Errorf("value %d (%s): %w", i+1, r, err)
		}
		canon := set.Get(&c)
		if slices.Contains(out, canon) {
			return nil, fmt.Errorf("value %d (%s): listed twice", i+1, r)
		}
		out = append(out, canon)
	}
	return out, nil
}

// parseNumber reads a range bound in the setting's base unit.
func parseNumber(set *replay.Setting, v any) (float64, error) {
	switch x := v.(type) {
	case int64:
		return float64(x), nil
	case float64:
		return x, nil
	case string:
		switch set.Kind {
		case replay.KindSize:
			n, err := units.ParseSize(x)
			return float64(n), err
		case replay.KindDuration:
			return units.ParseDuration(x)
		case replay.KindRate:
			return units.ParseRate(x)
		case replay.KindSpeed:
			return units.ParseFlops(x)
		}
		return strconv.ParseFloat(strings.TrimSpace(x), 64)
	}
	return 0, fmt.Errorf("expected a number or a value with a unit, not %v", v)
}

func rangeValues(set *replay.Setting, t map[string]any) ([]float64, error) {
	switch set.Kind {
	case replay.KindInt, replay.KindFloat, replay.KindSize, replay.KindDuration, replay.KindRate, replay.KindSpeed:
	default:
		return nil, fmt.Errorf("a range needs a numeric setting; list the values of %s instead", set.Key)
	}
	for k := range t {
		if !slices.Contains([]string{"from", "to", "step", "factor", "count", "log"}, k) {
			return nil, fmt.Errorf("range: unknown key %q (expected from, to, and step, factor or count [with log = true])", k)
		}
	}
	if t["from"] == nil || t["to"] == nil {
		return nil, errors.New("range: needs from and to")
	}
	from, err := parseNumber(set, t["from"])
	if err != nil {
		return nil, fmt.Errorf("range: from: %w", err)
	}
	to, err := parseNumber(set, t["to"])
	if err != nil {
		return nil, fmt.Errorf("range: to: %w", err)
	}
	given := 0
	for _, k := range []string{"step", "factor", "count"} {
		if t[k] != nil {
			given++
		}
	}
	if given != 1 {
		return nil, errors.New("range: give exactly one of step, factor and count")
	}
	var out []float64
	// A relative tolerance, so that 1e9 + 9 × 1e8 still reaches 1.9e9.
	eps := float64(1e-9 * max(math.Abs(from), math.Abs(to)))
	switch {
	case t["step"] != nil:
		step, err := parseNumber(set, t["step"])
		if err != nil {
			return nil, fmt.Errorf("range: step: %w", err)
		}
		if step == 0 || (to-from)*step < 0 {
			return nil, fmt.Errorf("range: step %v does not lead from %v to %v", step, from, to)
		}
		for i := 0; ; i++ {
			v := from + float64(float64(i)*step)
			if (step > 0 && v > to+eps) || (step < 0 && v < to-eps) {
				break
			}
			if len(out) == maxAxisValues {
				return nil, fmt.Errorf("range: more than %d values", maxAxisValues)
			}
			out = append(out, v)
		}
	case t["factor"] != nil:
		f, err := parseNumber(&replay.Setting{Kind: replay.KindFloat}, t["factor"])
		if err != nil {
			return nil, fmt.Errorf("range: factor: %w", err)
		}
		if from <= 0 || to <= 0 || f <= 0 || f == 1 || (to > from) != (f > 1) && to != from {
			return nil, fmt.Errorf("range: factor %v does not lead from %v to %v (both must be positive)", f, from, to)
		}
		for v := from; (f > 1 && v <= to*(1+1e-9)) || (f < 1 && v >= to*(1-1e-9)); v *= f {
			if len(out) == maxAxisValues {
				return nil, fmt.Errorf("range: more than %d values", maxAxisValues)
			}
			out = append(out, v)
		}
	default:
		n, ok := t["count"].(int64)
		if !ok || n < 1 || n > maxAxisValues {
			return nil, fmt.Errorf("range: count: expected a whole number from 1 to %d", maxAxisValues)
		}
		logScale := false
		if l, ok := t["log"]; ok {
			if logScale, ok = l.(bool); !ok {
				return nil, errors.New("range: log: expected true or false")
			}
		}
		if logScale && (from <= 0 || to <= 0) {
			return nil, errors.New("range: a log range needs positive from and to")
		}
		for i := range n {
			frac := 0.0
			if n > 1 {
				frac = float64(i) / float64(n-1)
			}
			if logScale {
				out = append(out, from*math.Pow(to/from, frac))
			} else {
				out = append(out, from+float64((to-from)*frac))
			}
		}
	}
	if set.Kind == replay.KindInt || set.Kind == replay.KindSize {
		for i := range out {
			out[i] = math.Round(out[i])
		}
	}
	return out, nil
}

// formatValue writes a range value in the setting's unit with an SI
// prefix and four significant digits.
func formatValue(k replay.Kind, v float64) string {
	prefixed := func(v float64, unit string, prefixes []string) string {
		i := 0
		for i < len(prefixes)-1 && math.Abs(v) >= 1000 {
			v /= 1000
			i++
		}
		return strconv.FormatFloat(roundSig(v, 4), 'f', -1, 64) + prefixes[i] + unit
	}
	switch k {
	case replay.KindRate:
		return prefixed(v*8, "b/s", []string{"", "K", "M", "G", "T"})
	case replay.KindSpeed:
		return prefixed(v, "f", []string{"", "K", "M", "G", "T"})
	case replay.KindDuration:
		switch a := math.Abs(v); {
		case a == 0:
			return "0s"
		case a >= 1:
			return strconv.FormatFloat(roundSig(v, 4), 'f', -1, 64) + "s"
		case a >= 1e-3:
			return strconv.FormatFloat(roundSig(v*1e3, 4), 'f', -1, 64) + "ms"
		case a >= 1e-6:
			return strconv.FormatFloat(roundSig(v*1e6, 4), 'f', -1, 64) + "us"
		case a >= 1e-9:
			return strconv.FormatFloat(roundSig(v*1e9, 4), 'f', -1, 64) + "ns"
		}
		return strconv.FormatFloat(roundSig(v*1e12, 4), 'f', -1, 64) + "ps"
	case replay.KindSize:
		n := int64(math.Round(v))
		for _, u := range []struct {
			name string
			size int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if n != 0 && n%u.size == 0 {
				return strconv.FormatInt(n/u.size, 10) + u.name
			}
		}
		return strconv.FormatInt(n, 10) + "B"
	case replay.KindInt:
		return strconv.FormatInt(int64(math.Round(v)), 10)
	}
	return strconv.FormatFloat(roundSig(v, 4), 'g', -1, 64)
}

// roundSig rounds v to n significant digits.
func roundSig(v float64, n int) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	s := strconv.FormatFloat(v, 'e', n-1, 64)
	r, _ := strconv.ParseFloat(s, 64)
	return r
}

// AxisNumber returns the value of an axis of a numeric setting in its
// base unit (seconds, bytes, bytes/s, flops/s), for plotting; ok is false
// for other settings (topologies, choices) and values it cannot read.
func AxisNumber(key, value string) (v float64, ok bool) {
	set, found := replay.LookupSetting(key)
	if !found {
		return 0, false
	}
	switch set.Kind {
	case replay.KindInt, replay.KindFloat, replay.KindSize, replay.KindDuration, replay.KindRate, replay.KindSpeed:
	default:
		return 0, false
	}
	v, err := parseNumber(set, value)
	return v, err == nil
}

// PointOf returns the point of points whose row is row of t (same trace,
// axis values and repetition).
func (s *Spec) PointOf(points []Point, t *Table, row []string) (*Point, error) {
	k := t.Key(row)
	for i := range points {
		if s.PointKey(&points[i]) == k {
			return &points[i], nil
		}
	}
	return nil, fmt.Errorf("point %s is not a point of %s", row[0], s.File)
}
