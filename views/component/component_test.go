package component

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func TestFit(t *testing.T) {
	tests := []struct {
		lines []string
		w, h  int
		want  string
	}{
		{[]string{"ab", "c"}, 3, 3, "ab \nc  \n   "},
		{[]string{"abcdef"}, 4, 1, "abcd"},
		{[]string{"a", "b", "c"}, 1, 2, "a\nb"},
		{[]string{"\x1b[1mbold\x1b[m"}, 2, 1, "\x1b[1mbo\x1b[m"},
		{[]string{"漢字"}, 3, 1, "漢 "},
		{nil, 0, 2, "\n"},
		{nil, 3, 0, ""},
	}
	for _, tc := range tests {
		got := Fit(tc.lines, tc.w, tc.h)
		if ansi.Strip(got) != ansi.Strip(tc.want) {
			t.Errorf("Fit(%q, %d, %d) = %q, want %q", tc.lines, tc.w, tc.h, got, tc.want)
		}
		if tc.h > 0 && tc.w > 0 {
			for _, l := range strings.Split(got, "\n") {
				if ansi.StringWidth(l) != tc.w {
					t.Errorf("Fit(%q, %d, %d): line %q is %d cells", tc.lines, tc.w, tc.h, l, ansi.StringWidth(l))
				}
			}
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		s    string
		w, n int
		want []string
	}{
		{"hello world", 20, 0, []string{"hello world"}},
		{"hello  wide world", 11, 0, []string{"hello  wide", "world"}},
		{"see /a/very/long/path now", 10, 0, []string{"see", "/a/very/lo", "ng/path", "now"}},
		{"one two three four five", 9, 2, []string{"one two", "three fo…"}},
		{"漢字 漢字 漢字", 5, 0, []string{"漢字", "漢字", "漢字"}},
		{"stamped before the send (latency -63.17 µs)", 34, 0, []string{"stamped before the send (latency", "-63.17 µs)"}},
		{"", 10, 0, nil},
		{"text", 0, 0, nil},
	} {
		got := Wrap(c.s, c.w, c.n)
		if strings.Join(got, "|") != strings.Join(c.want, "|") || len(got) != len(c.want) {
			t.Errorf("Wrap(%q, %d, %d) = %q, want %q", c.s, c.w, c.n, got, c.want)
		}
		for _, l := range got {
			if ansi.StringWidth(l) > c.w {
				t.Errorf("Wrap(%q, %d, %d): %q is wider than %d", c.s, c.w, c.n, l, c.w)
			}
		}
	}
}
