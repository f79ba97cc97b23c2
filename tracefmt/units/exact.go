package units

import (
	"math"
	"strconv"
)

// The Exact formatters write the form a spec, a preset or a configuration
// file holds: no space, ASCII units ("us", not "µs"), and a value that the
// matching parser reads back to the same number, so that a printed spec
// pasted back on the command line names the same machine.

// rateUnits are the bit-rate prefixes, largest first.
var rateUnits = []struct {
	name string
	m    float64
}{{"Tb/s", 1e12}, {"Gb/s", 1e9}, {"Mb/s", 1e6}, {"Kb/s", 1e3}, {"b/s", 1}}

// FormatRateExact writes bytes per second in bits per second with the
// fewest digits that ParseRate reads back to exactly bps: "100Gb/s",
// "9.87648Gb/s", "1.5Mb/s". A rate no decimal of the largest fitting
// prefix reproduces falls back to smaller prefixes and, at worst, to plain
// b/s, which is always exact (multiplying and dividing by 8 loses nothing).
func FormatRateExact(bps float64) string {
	s, _ := shortestRate(bps, func(r float64) bool { return r == bps })
	return s
}

// FormatRateWithin is FormatRateExact for a value stored coarser than a
// float64: it writes the shortest bits-per-second form whose parsed rate
// same accepts. A setting kept as picoseconds per byte, rounded to 1e-6
// ps, passes same = "rounds to the same per-byte time", so 1.23456GB/s
// prints "9.87648Gb/s" rather than the seventeen digits of 1e12/perByte.
// When no form satisfies same (a per-byte time that is not a rounded
// one), it writes the exact form of bps. 0 and non-finite rates print as
// strconv does ("0b/s", "+Infb/s").
func FormatRateWithin(bps float64, same func(float64) bool) string {
	if s, ok := shortestRate(bps, same); ok {
		return s
	}
	return FormatRateExact(bps)
}

// shortestRate is the shortest bits-per-second form, largest prefix first,
// whose parsed rate same accepts.
func shortestRate(bps float64, same func(float64) bool) (string, bool) {
	bits := bps * 8
	if bits == 0 || math.IsNaN(bits) || math.IsInf(bits, 0) {
		return strconv.FormatFloat(bits, 'g', -1, 64) + "b/s", true
	}
	for _, u := range rateUnits {
		v := bits / u.m
		if math.Abs(v) < 1 && u.m > 1 {
			continue
		}
		for sig := 1; sig <= 17; sig++ {
			s := trim(v, sig) + u.name
			if math.Abs(v) >= 1e6 {
				// Beyond the largest unit (a link of no limit, 1e30
				// B/s): "8e+18Tb/s", not nineteen digits.
				s = strconv.FormatFloat(v, 'g', sig, 64) + u.name
			}
			if r, err := ParseRate(s); err == nil && same(r) {
				return s, true
			}
		}
	}
	return strconv.FormatFloat(bits, 'f', -1, 64) + "b/s", same(bps)
}

// timeUnitsExact are the exact duration units, largest first, in
// picoseconds.
var timeUnitsExact = []struct {
	name string
	ps   int64
}{{"s", 1e12}, {"ms", 1e9}, {"us", 1e6}, {"ns", 1e3}}

// FormatPicoseconds writes a duration of ps picoseconds exactly, in the
// largest unit that needs at most three decimals: "1449.848us", "5s",
// "800ps". ParseDuration then Picoseconds read it back to ps.
func FormatPicoseconds(ps int64) string {
	if ps == 0 {
		return "0s"
	}
	for _, u := range timeUnitsExact {
		if ps >= u.ps && ps%u.ps*1000%u.ps == 0 { // ps%u.ps first: ps*1000 could wrap
			return strconv.FormatFloat(float64(ps)/float64(u.ps), 'f', -1, 64) + u.name
		}
	}
	return strconv.FormatInt(ps, 10) + "ps"
}

// FormatPicosecondsFrac writes a fractional number of picoseconds in its
// shortest exact decimal: "810.005184ps".
func FormatPicosecondsFrac(ps float64) string {
	return strconv.FormatFloat(ps, 'f', -1, 64) + "ps"
}

// FormatSizeExact writes a byte count with the largest binary unit that
// divides it: "64KiB", "1000B". ParseSize reads it back.
func FormatSizeExact(n int64) string {
	for _, u := range []struct {
		name string
		m    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.m && n%u.m == 0 {
			return strconv.FormatInt(n/u.m, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// FormatFlopsExact writes flops (per second for a speed) with the largest
// prefix it reaches and the fewest digits ParseFlops reads back to exactly
// f: "1Gf", "2.5Mf", "1234.5678f".
func FormatFlopsExact(f float64) string {
	if f == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return strconv.FormatFloat(f, 'g', -1, 64) + "f"
	}
	for _, u := range []struct {
		name string
		m    float64
	}{{"Tf", 1e12}, {"Gf", 1e9}, {"Mf", 1e6}, {"Kf", 1e3}} {
		v := f / u.m
		if math.Abs(v) < 1 {
			continue
		}
		for sig := 1; sig <= 17; sig++ {
			s := trim(v, sig) + u.name
			if r, err := ParseFlops(s); err == nil && r == f {
				return s
			}
		}
	}
	return strconv.FormatFloat(f, 'f', -1, 64) + "f"
}
