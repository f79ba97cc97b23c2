// Package decimal parses the decimal reals of text traces (SimGrid TI
// amounts, tsim times and sizes) faster than strconv, with strconv's
// answer: most numbers of a trace are short, and for those one
// multiplication or division of exact float64 values is the correctly
// rounded result.
package decimal

import (
	"math"
	"strconv"
)

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// Exact parses an unsigned decimal real ("400000", "1e+06", "0.25",
// "3.", ".5e-3") of at most 15 significant digits whose power of ten,
// once the fraction is counted, is within ±22: both are exact in a
// float64, so one multiplication or division rounds the value as
// strconv.ParseFloat does. Other text (a sign, more digits, a larger
// exponent, hexadecimal, inf, underscores) reports false, and the caller
// decides: Parse falls back to strconv; a reader may send the field to
// its general path.
func Exact(b []byte) (float64, bool) {
	var m uint64
	i := 0
	// The integer and fraction digits in loops of their own; a longer
	// number wraps m, but is refused by its digit count.
	for ; i < len(b) && b[i]-'0' <= 9; i++ {
		m = m*10 + uint64(b[i]-'0')
	}
	nd, frac := i, 0
	if i < len(b) && b[i] == '.' {
		i++
		start := i
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			m = m*10 + uint64(b[i]-'0')
		}
		frac = i - start
		nd += frac
	}
	if nd == 0 || nd > 15 {
		return 0, false
	}
	exp := 0
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		neg := false
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			neg = b[i] == '-'
			i++
		}
		ne := 0
		for ; i < len(b) && b[i]-'0' <= 9; i++ {
			if ne++; ne > 3 {
				return 0, false
			}
			exp = exp*10 + int(b[i]-'0')
		}
		if ne == 0 {
			return 0, false
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(b) {
		return 0, false
	}
	exp -= frac
	switch {
	case exp == 0:
		return float64(m), true
	case exp > 0 && exp < len(pow10):
		return float64(m) * pow10[exp], true
	case exp < 0 && -exp < len(pow10):
		return float64(m) / pow10[-exp], true
	}
	return 0, false
}

// Parse parses a decimal real: an optional sign, digits with an optional
// fraction, and an optional exponent. It accepts neither hexadecimal, nor
// underscores, nor infinities and NaN, nor a value beyond float64's
// range; the result is the correctly rounded float64, as
// strconv.ParseFloat gives.
func Parse(b []byte) (float64, bool) {
	rest := b
	neg := false
	if len(rest) > 0 && (rest[0] == '+' || rest[0] == '-') {
		neg = rest[0] == '-'
		rest = rest[1:]
	}
	if f, ok := Exact(rest); ok {
		if neg {
			f = -f
		}
		return f, true
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}
