package tsim

import (
	"fmt"
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
