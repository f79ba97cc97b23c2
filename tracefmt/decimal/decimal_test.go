package decimal

import (
	"math"
	"strconv"
	"testing"
)

// TestExact: the reals Exact reads are strconv's to the bit, and it
// refuses what it cannot read exactly.
func TestExact(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"0", true}, {"400000", true}, {"1e+06", true}, {"1E6", true}, {"0.1", true},
		{"3.", true}, {".5", true}, {".5e-3", true}, {"2.5e-7", true}, {"123456789012345", true},
		{"9.99999999999999e22", true}, {"1e22", true}, {"0.000001", true}, {"1e000", true},
		{"1234567890123456", false}, {"1e23", false}, {"1e-23", false}, {"-1", false},
		{"+1", false}, {"1e", false}, {"1e+", false}, {"e5", false}, {".", false}, {"1.2.3", false},
		{"0x10", false}, {"inf", false}, {"NaN", false}, {"1_0", false}, {"", false}, {"1e1000", false},
		{"1 ", false},
	} {
		v, ok := Exact([]byte(c.in))
		if ok != c.ok {
			t.Errorf("Exact(%q) ok = %v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(c.in, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Errorf("Exact(%q) = %v, strconv gives %v (%v)", c.in, v, want, err)
		}
	}
}

// TestParse: Parse gives strconv's value for every decimal strconv reads
// in float64's range, and refuses the rest.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true}, {"-0", math.Copysign(0, -1), true}, {"+2.5", 2.5, true}, {"-1e-3", -1e-3, true},
		{"1234567890123456789", 1234567890123456789, true}, {"1e23", 1e23, true},
		{"4.9e-324", 4.9e-324, true}, {"1e-400", 0, true}, {"0.1e1", 1, true},
		{"1e400", 0, false}, {"-1e400", 0, false}, {"inf", 0, false}, {"NaN", 0, false},
		{"0x1p3", 0, false}, {"1_000", 0, false}, {"", 0, false}, {"-", 0, false},
		{"+", 0, false}, {"1e", 0, false}, {"--1", 0, false}, {" 1", 0, false},
	} {
		v, ok := Parse([]byte(c.in))
		if ok != c.ok || ok && math.Float64bits(v) != math.Float64bits(c.want) {
			t.Errorf("Parse(%q) = %v, %v; want %v, %v", c.in, v, ok, c.want, c.ok)
		}
	}
}

// FuzzParse: Parse agrees with strconv.ParseFloat on every input made
// of the characters of a decimal, to the bit, and refuses the others;
// what Exact accepts, Parse gives the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"0", "1e+06", "-2.5e-7", "3.", ".5", "123456789012345678", "1e23", "0x10", "inf", "1_0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := Parse([]byte(s))
		decimal := s != ""
		for _, c := range []byte(s) {
			if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				decimal = false
			}
		}
		want, err := strconv.ParseFloat(s, 64)
		wantOK := decimal && err == nil && !math.IsInf(want, 0) && !math.IsNaN(want)
		if ok != wantOK || ok && math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("Parse(%q) = %v, %v; strconv gives %v, %v", s, v, ok, want, err)
		}
		if e, eok := Exact([]byte(s)); eok && (!ok || math.Float64bits(e) != math.Float64bits(v)) {
			t.Fatalf("Exact(%q) = %v, Parse gives %v, %v", s, e, v, ok)
		}
	})
}

// TestParseAsStrconv: Parse gives what strconv.ParseFloat gives for the
// decimals it accepts, bit for bit (its fast path divides by a power of
// ten), and refuses what the text readers do not take as a number (the
// cases tsim's own parser was tested with).
func TestParseAsStrconv(t *testing.T) {
	for _, c := range []struct {
		in string
		ok bool
	}{
		{"0", true}, {"-0", true}, {"+7", true}, {"1604.632", true}, {".5", true}, {"-.25", true},
		{"5.", true}, {"123456789012345", true}, {"1234567890.12345", true},
		{"1234567890123456", true}, {"0.1000000000000001", true}, {"12345678901234567890123", true},
		{"1e3", true}, {"2.5E-7", true}, {"0.000000000000000001", true},
		{"", false}, {".", false}, {"-", false}, {"+.", false}, {"1.2.3", false}, {"5.x", false},
		{"0x10", false}, {"1_000", false}, {"inf", false}, {"NaN", false}, {"1e400", false}, {"--1", false},
	} {
		got, ok := Parse([]byte(c.in))
		if ok != c.ok {
			t.Errorf("Parse(%q) ok=%v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(c.in, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("Parse(%q) = %v (%x), strconv gives %v (%x, %v)", c.in, got, math.Float64bits(got), want, math.Float64bits(want), err)
		}
	}
}
