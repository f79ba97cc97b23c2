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
