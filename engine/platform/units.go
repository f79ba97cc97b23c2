package platform

import (
	"fmt"
	"math"
	"strconv"
)

// unitTable maps a unit suffix to its multiplier, as SimGrid's
// xbt_parse_units builds it: every unit exists bare, with the SI prefixes
// k M G T P E Z Y (powers of 1000) and, where SimGrid generates them, with
// the binary prefixes Ki Mi Gi Ti Pi Ei Zi Yi (powers of 1024). Suffixes
// are case-sensitive: "kBps" is SI, "KBps" is no unit at all.
type unitTable map[string]float64

func (t unitTable) add(unit string, value float64, si, binary bool) {
	t[unit] = value
	if si {
		v := value
		for _, p := range []string{"k", "M", "G", "T", "P", "E", "Z", "Y"} {
			v *= 1000
			t[p+unit] = v
		}
	}
	if binary {
		v := value
		for _, p := range []string{"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "Zi", "Yi"} {
			v *= 1024
			t[p+unit] = v
		}
	}
}

// The tables of SimGrid 3.32 (src/xbt/xbt_parse_units.cpp): bandwidths in
// bytes per second ("Bps", and "bps" for bits, 1 Bps = 8 bps), times in
// seconds, CPU speeds in flop/s ("f", SI prefixes only, and the long form
// "flops" with "kiloflops", "megaflops", …).
var (
	bandwidthUnits = func() unitTable {
		t := unitTable{}
		t.add("bps", 0.125, true, true)
		t.add("Bps", 1, true, true)
		return t
	}()
	timeUnits = unitTable{
		"w": 7 * 24 * 3600, "d": 24 * 3600, "h": 3600, "m": 60, "s": 1,
		"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12,
	}
	speedUnits = func() unitTable {
		t := unitTable{}
		t.add("f", 1, true, false)
		v := 1.0
		t["flops"] = 1
		for _, p := range []string{"kilo", "mega", "giga", "tera", "peta", "exa", "zeta", "yotta"} {
			v *= 1000
			t[p+"flops"] = v
		}
		return t
	}()
)

// numberPrefix returns the length of the leading decimal number of s, in
// the forms C's strtod reads (sign, digits, fraction, exponent); 0 when s
// does not start with one. Hexadecimal, inf and nan are not accepted:
// nobody writes a bandwidth that way, and they would only hide a typo.
func numberPrefix(s string) int {
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		k := j
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}

// parseUnit reads "NUMBER[UNIT]" as SimGrid does: a number without a unit
// takes the default unit (SimGrid warns that this is deprecated but
// accepts it), an unknown unit is an error that lists the accepted ones.
func parseUnit(s string, units unitTable, def, what string) (float64, error) {
	n := numberPrefix(s)
	if n == 0 {
		return 0, fmt.Errorf("%q is not a number with a unit (expected for example %s)", s, examples[what])
	}
	v, err := strconv.ParseFloat(s[:n], 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%q: number out of range", s)
	}
	unit := s[n:]
	if unit == "" {
		unit = def
	}
	m, ok := units[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q for a %s (expected for example %s)", s, unit, what, examples[what])
	}
	return v * m, nil
}

var examples = map[string]string{
	"bandwidth": "125MBps (bytes), 10Gbps (bits), 1GiBps",
	"time":      "50us, 1.5ms, 10ns, 2s",
	"speed":     "1Gf, 100Mf, 1.5gigaflops",
}

// ParseBandwidth reads a SimGrid bandwidth ("125MBps", "10Gbps",
// "1KiBps"; bare numbers are bytes per second) in bytes per second.
func ParseBandwidth(s string) (float64, error) {
	return parseUnit(s, bandwidthUnits, "Bps", "bandwidth")
}

// ParseTime reads a SimGrid time ("50us", "1ms", "2m"; bare numbers are
// seconds) in seconds.
func ParseTime(s string) (float64, error) { return parseUnit(s, timeUnits, "s", "time") }

// ParseSpeed reads a SimGrid CPU speed ("1Gf", "100Mf", "3gigaflops";
// bare numbers are flop/s) in flop/s.
func ParseSpeed(s string) (float64, error) { return parseUnit(s, speedUnits, "f", "speed") }
