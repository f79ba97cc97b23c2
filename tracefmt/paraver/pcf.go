package paraver

import (
	"bufio"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// pcf is what a .pcf file says: the names and colours of state values,
// and the names of event types and of their values.
type pcf struct {
	states map[int32]string
	colors map[int32]string
	types  map[int32]*eventType
}

// eventType is one event type of a .pcf.
type eventType struct {
	name   string
	values map[int64]string
}

func newPCF() *pcf {
	return &pcf{states: map[int32]string{}, colors: map[int32]string{}, types: map[int32]*eventType{}}
}

// readPCF parses a .pcf. Sections it does not use (DEFAULT_OPTIONS,
// gradients) are skipped; a line it cannot parse inside a section it uses
// is an error naming the line.
func readPCF(name string, r io.Reader) (*pcf, error) {
	p := newPCF()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	section := ""
	// block holds the event types of the current EVENT_TYPE block: the
	// VALUES that follow belong to all of them.
	var block []*eventType
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			if section == "VALUES" || section == "EVENT_TYPE" {
				section = ""
			}
			continue
		}
		switch s {
		case "STATES", "STATES_COLOR", "VALUES", "DEFAULT_OPTIONS", "DEFAULT_SEMANTIC", "GRADIENT_COLOR", "GRADIENT_NAMES":
			section = s
			continue
		case "EVENT_TYPE":
			section, block = s, nil
			continue
		}
		bad := func(what string) error {
			return fmt.Errorf("%s:%d: expected %s in %s, got %q", name, line, what, section, s)
		}
		switch section {
		case "STATES", "STATES_COLOR":
			v, rest, ok := leadingInt(s)
			if !ok || v < 0 || v > 1<<31-1 {
				return nil, bad("a state value then its name")
			}
			if section == "STATES" {
				p.states[int32(v)] = rest
				continue
			}
			c, ok := parseColor(rest)
			if !ok {
				return nil, bad("a state value then {r,g,b}")
			}
			p.colors[int32(v)] = c
		case "EVENT_TYPE":
			f := strings.Fields(s)
			if len(f) < 2 {
				return nil, bad("gradient, type and name")
			}
			ty, err := strconv.ParseInt(f[1], 10, 32)
			if err != nil || ty < 0 {
				return nil, bad("gradient, type and name")
			}
			et := p.types[int32(ty)]
			if et == nil {
				et = &eventType{values: map[int64]string{}}
				p.types[int32(ty)] = et
			}
			et.name = strings.TrimSpace(strings.Join(f[2:], " "))
			block = append(block, et)
		case "VALUES":
			v, rest, ok := leadingInt(s)
			if !ok {
				return nil, bad("a value then its name")
			}
			for _, et := range block {
				et.values[v] = rest
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	return p, nil
}

// leadingInt splits "12   name" into 12 and "name".
func leadingInt(s string) (int64, string, bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	v, err := strconv.ParseInt(s[:i], 10, 64)
	if err != nil {
		return 0, "", false
	}
	return v, strings.TrimSpace(s[i:]), true
}

// parseColor turns "{r,g,b}" into "#rrggbb".
func parseColor(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}") {
		return "", false
	}
	parts := strings.Split(s[1:len(s)-1], ",")
	if len(parts) != 3 {
		return "", false
	}
	out := "#"
	for _, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || v < 0 || v > 255 {
			return "", false
		}
		out += fmt.Sprintf("%02x", v)
	}
	return out, true
}

// rgb turns "#rrggbb" into "{r,g,b}", or "" for other colour names.
func rgb(c string) string {
	if len(c) != 7 || c[0] != '#' {
		return ""
	}
	v, err := strconv.ParseUint(c[1:], 16, 32)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("{%d,%d,%d}", v>>16, v>>8&0xff, v&0xff)
}

// sortedKeys returns a map's integer keys in increasing order.
func sortedKeys[K int32 | int64, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
