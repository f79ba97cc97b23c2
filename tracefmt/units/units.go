// Package units parses and formats the quantities users type on the command
// line and in configuration files: sizes (B, KB, KiB, ...), data rates (b/s,
// Mb/s, GB/s, ...), durations (ps, ns, us, ms, s) and CPU speeds (f, Mf,
// Gf, ...). A bare number takes the base unit (bytes, bytes per second,
// seconds, flops per second).
package units

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
)

// split separates a quantity into its number and unit ("1.5 MiB" → 1.5, "MiB").
func split(s string) (float64, string, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool {
		return !(unicode.IsDigit(r) || r == '.' || r == '+' || r == '-' || r == 'e' || r == 'E')
	})
	// An exponent marker must be followed by a digit or sign to belong to
	// the number ("1e6" is a number, "1e" is not).
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	for strings.HasSuffix(num, "e") || strings.HasSuffix(num, "E") {
		unit = num[len(num)-1:] + unit
		num = num[:len(num)-1]
	}
	if num == "" {
		return 0, "", fmt.Errorf("%q: expected a number", s)
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, "", fmt.Errorf("%q: %q is not a number", s, num)
	}
	return v, unit, nil
}

var sizeUnits = map[string]float64{
	"": 1, "B": 1, "b": 1,
	"KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
	"K": 1 << 10, "k": 1 << 10, "M": 1 << 20, "G": 1 << 30,
}

// ParseSize parses a byte count such as "4096", "64KiB" or "1.5 MB". KB, MB
// and GB are powers of 1000, KiB, MiB and GiB (and the bare K, M, G) powers
// of 1024.
func ParseSize(s string) (int64, error) {
	v, u, err := split(s)
	if err != nil {
		return 0, err
	}
	m, ok := sizeUnits[u]
	if !ok {
		return 0, fmt.Errorf("%q: unknown size unit %q (expected B, KB, KiB, MB, MiB, GB, GiB)", s, u)
	}
	b := v * m
	if b < 0 {
		return 0, fmt.Errorf("%q: size must not be negative", s)
	}
	if b > math.MaxInt64/2 {
		return 0, fmt.Errorf("%q: size too large", s)
	}
	if b != math.Trunc(b) {
		return 0, fmt.Errorf("%q: not a whole number of bytes", s)
	}
	return int64(b), nil
}

var timeUnits = map[string]float64{
	"": 1, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "ps": 1e-12,
	"min": 60, "h": 3600,
}

// ParseDuration parses a duration such as "10us", "1.5 ms" or "2" (seconds)
// and returns seconds.
func ParseDuration(s string) (float64, error) {
	v, u, err := split(s)
	if err != nil {
		return 0, err
	}
	m, ok := timeUnits[u]
	if !ok {
		return 0, fmt.Errorf("%q: unknown time unit %q (expected ps, ns, us, ms, s)", s, u)
	}
	if v < 0 {
		return 0, fmt.Errorf("%q: duration must not be negative", s)
	}
	return v * m, nil
}

// Picoseconds converts seconds to integer picoseconds, rounding to nearest.
func Picoseconds(sec float64) int64 { return int64(math.Round(sec * 1e12)) }

var prefixes = map[string]float64{"": 1, "K": 1e3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
var binPrefixes = map[string]float64{"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}

// ParseRate parses a data rate and returns bytes per second. Units ending
// in "b/s" or "bps" are bits, "B/s" bytes: "100Mb/s" = 12.5e6, "1GB/s" =
// 1e9, "1GiB/s" = 2^30. A bare number is bytes per second.
func ParseRate(s string) (float64, error) {
	v, u, err := split(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("%q: rate must not be negative", s)
	}
	if u == "" {
		return v, nil
	}
	var bits bool
	var pre string
	switch {
	case strings.HasSuffix(u, "bps"):
		bits, pre = true, strings.TrimSuffix(u, "bps")
	case strings.HasSuffix(u, "b/s"):
		bits, pre = true, strings.TrimSuffix(u, "b/s")
	case strings.HasSuffix(u, "Bps"):
		pre = strings.TrimSuffix(u, "Bps")
	case strings.HasSuffix(u, "B/s"):
		pre = strings.TrimSuffix(u, "B/s")
	default:
		return 0, fmt.Errorf("%q: unknown rate unit %q (expected b/s, Mb/s, Gb/s, B/s, MB/s, GB/s)", s, u)
	}
	m, ok := prefixes[pre]
	if !ok {
		m, ok = binPrefixes[pre]
	}
	if !ok {
		return 0, fmt.Errorf("%q: unknown prefix %q in rate unit", s, pre)
	}
	r := v * m
	if bits {
		r /= 8
	}
	return r, nil
}

// ParseFlops parses a CPU speed or an amount of work: "1Gf", "2.5 GFlops",
// "500Mf/s", "1e9". It returns flops (per second for a speed).
func ParseFlops(s string) (float64, error) {
	v, u, err := split(s)
	if err != nil {
		return 0, err
	}
	if v < 0 {
		return 0, fmt.Errorf("%q: must not be negative", s)
	}
	u = strings.TrimSuffix(u, "/s")
	l := strings.ToLower(u)
	var pre string
	switch {
	case strings.HasSuffix(l, "flops"):
		pre = u[:len(u)-5]
	case strings.HasSuffix(l, "flop"):
		pre = u[:len(u)-4]
	case strings.HasSuffix(l, "f"):
		pre = u[:len(u)-1]
	case u == "":
	default:
		return 0, fmt.Errorf("%q: unknown unit %q (expected f, Kf, Mf, Gf, Tf)", s, u)
	}
	m, ok := prefixes[strings.ToUpper(pre)]
	if !ok {
		return 0, fmt.Errorf("%q: unknown prefix %q (expected K, M, G, T)", s, pre)
	}
	return v * m, nil
}

// FormatDuration formats seconds with an adaptive unit and about four
// significant digits: "1.205 s", "12.5 µs", "830 ns".
func FormatDuration(sec float64) string { return FormatDurationSig(sec, 4) }

// FormatDurationSig formats seconds with an adaptive unit and at most sig
// significant digits, rounded before the unit is chosen so that 999.96 µs
// at three digits reads "1 ms", not "1000 µs". Seven digits tell close
// runs apart ("149.7731 ms"); three suit a status line ("150 ms").
func FormatDurationSig(sec float64, sig int) string {
	if sec == 0 || math.IsNaN(sec) || math.IsInf(sec, 0) {
		if sec == 0 {
			return "0 s"
		}
		return strconv.FormatFloat(sec, 'g', -1, 64) + " s"
	}
	sec, _ = strconv.ParseFloat(strconv.FormatFloat(sec, 'g', max(sig, 1), 64), 64)
	scale, suffix := TimeUnit(sec)
	return trim(sec/scale, sig) + " " + suffix
}

// TimeUnit returns the unit a duration of sec seconds prints in: its size
// in seconds and its name (1, "s"; 1e-3, "ms"; 1e-6, "µs"; 1e-9, "ns";
// 1e-12, "ps"). An axis picks one for its largest label and prints every
// label in it.
func TimeUnit(sec float64) (scale float64, suffix string) {
	a := math.Abs(sec)
	switch {
	case a >= 1:
		return 1, "s"
	case a >= 1e-3:
		return 1e-3, "ms"
	case a >= 1e-6:
		return 1e-6, "µs"
	case a >= 1e-9:
		return 1e-9, "ns"
	}
	return 1e-12, "ps"
}

// FormatDurationRes formats seconds like FormatDuration, with enough
// decimals that times res seconds apart print differently: two ends of a
// 3 µs message late in a run read "384.1234 ms → 384.1264 ms", not
// "384.1 ms → 384.1 ms". A res of 0 (or below a picosecond, which is
// rounding rather than a resolution) is FormatDuration.
func FormatDurationRes(sec, res float64) string {
	a, r := math.Abs(sec), math.Abs(res)
	if !(r >= 1e-12) || r >= a*1e-3 || math.IsInf(a, 0) {
		return FormatDuration(sec)
	}
	scale, suffix := TimeUnit(sec)
	dec := min(max(int(math.Ceil(-math.Log10(r/scale))), 0), 12)
	return strconv.FormatFloat(sec/scale, 'f', dec, 64) + " " + suffix
}

// FormatElapsed formats a wall-clock time to the second, as a clock
// reads it: "42s", "4m05s", "1h02m". Simulated times, which need
// sub-second precision, take FormatDuration.
func FormatElapsed(sec float64) string {
	s := int64(math.Round(sec))
	switch {
	case s < 60:
		return strconv.FormatInt(s, 10) + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm", s/3600, s/60%60)
}

// FormatCount formats a count (events, messages, events per second) with
// a k, M or G suffix and at most four significant digits: "830", "1.5k",
// "12.35M".
func FormatCount(v float64) string { return decimal(v, "", "k", "M", "G") }

// decimal formats v with four significant digits and the largest of the
// decimal prefixes (names[i] for 1000^i) it reaches, rounded first so
// that 999.96k reads "1M", not "1000k".
func decimal(v float64, names ...string) string {
	v, _ = strconv.ParseFloat(strconv.FormatFloat(v, 'g', 4, 64), 64)
	a := math.Abs(v)
	for i := len(names) - 1; i > 0; i-- {
		if p := math.Pow(1000, float64(i)); a >= p {
			return trim(v/p, 4) + names[i]
		}
	}
	return trim(v, 4) + names[0]
}

// FormatBytes formats a byte count with binary prefixes: "512 B", "64 KiB",
// "1.5 MiB".
func FormatBytes(b int64) string {
	f := float64(b)
	a := math.Abs(f)
	switch {
	case a >= 1<<40:
		return trim(f/(1<<40), 4) + " TiB"
	case a >= 1<<30:
		return trim(f/(1<<30), 4) + " GiB"
	case a >= 1<<20:
		return trim(f/(1<<20), 4) + " MiB"
	case a >= 1<<10:
		return trim(f/(1<<10), 4) + " KiB"
	}
	return strconv.FormatInt(b, 10) + " B"
}

// FormatRate formats bytes per second in bits per second: "100 Mb/s".
func FormatRate(bps float64) string {
	return decimal(bps*8, " b/s", " Kb/s", " Mb/s", " Gb/s", " Tb/s")
}

// FormatFlops formats an amount of work in flops (or a speed, with "/s"
// appended by the caller) with at most four significant digits, rounded
// before the prefix is chosen: "1.5 Gf", "2 Mf", "12 f", "10000 Tf";
// beyond that an exponent: "1e+18 Tf".
func FormatFlops(f float64) string {
	if math.Abs(f) >= 1e18 {
		return strconv.FormatFloat(f/1e12, 'g', 4, 64) + " Tf"
	}
	return decimal(f, " f", " kf", " Mf", " Gf", " Tf")
}

// trim formats v with at most sig significant digits and no trailing zeros.
func trim(v float64, sig int) string {
	a := math.Abs(v)
	dec := sig - 1
	if a >= 1 {
		dec = sig - 1 - int(math.Floor(math.Log10(a)))
	}
	if dec < 0 {
		dec = 0
	}
	out := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(out, ".") {
		out = strings.TrimRight(strings.TrimRight(out, "0"), ".")
	}
	return out
}

// FormatPercent writes a fraction as a percentage with decimals digits
// after the point and a space before the sign, as every figure of the
// command line and the views does: FormatPercent(0.804, 1) = "80.4 %".
func FormatPercent(frac float64, decimals int) string {
	return strconv.FormatFloat(100*frac, 'f', decimals, 64) + " %"
}

// FormatPercentSigned is FormatPercent with the sign always written, for
// a change: "+2.0 %", "-0.2 %".
func FormatPercentSigned(frac float64, decimals int) string {
	s := FormatPercent(frac, decimals)
	if frac >= 0 {
		s = "+" + s
	}
	return s
}
