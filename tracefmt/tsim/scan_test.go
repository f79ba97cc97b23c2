package tsim

import (
	"fmt"
	"math"
	"strconv"
	"testing"
)

// TestPlainArgAsArg: plainArg reads every argument as arg does (the key,
// the value with its offset and quoting, the cursor after it, the
// error), whether it takes the argument itself or hands it to arg.
func TestPlainArgAsArg(t *testing.T) {
	for _, c := range []struct {
		line       string
		key, value string // what both read
		err        string
	}{
		{"to=5 tag=0", "to", "5", ""},
		{"size=32768", "size", "32768", ""},
		{"nb", "", "nb", ""},
		{`text="a b"`, "text", "a b", ""},
		{`"quoted flag"`, "", "quoted flag", ""},
		{`a"b=5`, `a"b`, "5", ""},
		{"x=y=z rest", "x", "y=z", ""},
		{"req=3\ttag=1", "req", "3", ""},
		{"=5", "", "", `tsim: line 1:1: expected an argument name before =, got "=5"`},
		{"to= 5", "", "", `tsim: line 1:4: expected a value after to=, got "5"`},
		{"to=", "", "", `tsim: line 1:4: expected a value after to=, got end of line`},
	} {
		t.Run(c.line, func(t *testing.T) {
			a := lineScanner{line: []byte(c.line), no: 1}
			b := a
			ka, va, ea := a.arg()
			kb, vb, eb := b.plainArg()
			if fmt.Sprint(ea) != fmt.Sprint(eb) {
				t.Fatalf("plainArg error %v, arg error %v", eb, ea)
			}
			if c.err != "" {
				if eb == nil || eb.Error() != c.err {
					t.Fatalf("error %v, want %s", eb, c.err)
				}
				return
			}
			if string(kb.b) != c.key || string(vb.b) != c.value {
				t.Fatalf("plainArg read %q=%q, want %q=%q", kb.b, vb.b, c.key, c.value)
			}
			if string(ka.b) != string(kb.b) || ka.off != kb.off || string(va.b) != string(vb.b) ||
				va.off != vb.off || va.quoted != vb.quoted || a.pos != b.pos || (ka.b == nil) != (kb.b == nil) {
				t.Fatalf("plainArg read %+v %+v (cursor %d), arg %+v %+v (cursor %d)", kb, vb, b.pos, ka, va, a.pos)
			}
		})
	}
}

// TestParseFloat: parseFloat gives what strconv.ParseFloat gives for the
// decimals it accepts, bit for bit (its fast path divides by a power of
// ten), and refuses what tsim does not take as a number.
func TestParseFloat(t *testing.T) {
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
		got, ok := parseFloat([]byte(c.in))
		if ok != c.ok {
			t.Errorf("parseFloat(%q) ok=%v, want %v", c.in, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(c.in, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("parseFloat(%q) = %v (%x), strconv gives %v (%x, %v)", c.in, got, math.Float64bits(got), want, math.Float64bits(want), err)
		}
	}
}
