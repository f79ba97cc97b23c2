package sweep

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
)

// MachineColumn is the result column that records the spec's base
// machine (Machine), so that a point opened from the result alone runs
// on the machine the sweep ran it on. It comes last: it is neither a
// point's identity nor a measurement, and the same in every row.
const MachineColumn = "machine"

// Machine returns the spec's base machine as the machine column writes
// it: "key=value;key=value" of every sim setting whose value differs
// from the defaults after the preset, the config file and the top-level
// settings, in Settings order (so that one machine is always written
// alike). A value holding ';', '"' or '\' is written as a Go-quoted
// string. The default machine is "".
func (s *Spec) Machine() string { return FormatMachine(&s.Base) }

// FormatMachine writes c as Spec.Machine does.
func FormatMachine(c *replay.Config) string {
	def := replay.Default()
	defs := def.Values()
	var b strings.Builder
	for i, kv := range c.Values() {
		if kv[1] == defs[i][1] {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(';')
		}
		b.WriteString(kv[0])
		b.WriteByte('=')
		if strings.ContainsAny(kv[1], `;"\`) || strings.TrimSpace(kv[1]) != kv[1] {
			b.WriteString(strconv.Quote(kv[1]))
		} else {
			b.WriteString(kv[1])
		}
	}
	return b.String()
}

// ParseMachine reads a machine column's value (FormatMachine) into a
// configuration: the defaults with its settings applied through the
// settings registry that `tracesim sim` uses, so that every key means
// what it means there. The error names the setting and what was wrong.
func ParseMachine(v string) (replay.Config, error) {
	c := replay.Default()
	rest := v
	for rest != "" {
		key, after, ok := strings.Cut(rest, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			return c, fmt.Errorf("machine: %q: expected key=value", rest)
		}
		var val string
		if strings.HasPrefix(after, `"`) {
			q, err := strconv.QuotedPrefix(after)
			if err != nil {
				return c, fmt.Errorf("machine: %s: unterminated quoted value", key)
			}
			val, _ = strconv.Unquote(q)
			after = after[len(q):]
			if after != "" && after[0] != ';' {
				return c, fmt.Errorf("machine: %s: expected ';' after the quoted value", key)
			}
			rest = strings.TrimPrefix(after, ";")
		} else {
			val, rest, _ = strings.Cut(after, ";")
		}
		if err := c.Set(key, val); err != nil {
			return c, fmt.Errorf("machine: %w", err)
		}
	}
	return c, nil
}

// PointConfig returns the machine of a row of t without its spec: the
// machine column's when t has it (a result written since it exists),
// else base (a result from before: the caller's machine, as such a
// result was always opened), then the row's axis values and seed,
// validated. It is the machine the sweep ran the point on when t has
// the machine column.
func (t *Table) PointConfig(row []string, base replay.Config) (replay.Config, error) {
	if len(row) < len(t.Columns) {
		return base, fmt.Errorf("%d columns, expected %d", len(row), len(t.Columns))
	}
	cfg := base
	if i := t.Column(MachineColumn); i >= 0 {
		c, err := ParseMachine(row[i])
		if err != nil {
			return base, err
		}
		cfg = c
	}
	for _, c := range t.AxisColumns() {
		if err := cfg.Set(c, row[t.Column(c)]); err != nil {
			return base, err
		}
	}
	if i := t.Column("seed"); i >= 0 {
		if err := cfg.Set("seed", row[i]); err != nil {
			return base, err
		}
	}
	if err := cfg.Validate(); err != nil {
		return base, err
	}
	return cfg, nil
}
