package gen

import (
	"testing"
)

// A sweep's gen command reads as the command would: defaults where no
// flag is given, units in values, flags before or after the pattern.
func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want Options
		err  string
	}{
		{[]string{"ring"}, Options{Pattern: "ring", Compute: -1, Seed: 1}, ""},
		{[]string{"stencil2d", "--ranks", "16", "--size=4KiB", "-compute", "1ms"},
			Options{Pattern: "stencil2d", Ranks: 16, Size: 4096, Compute: 1e-3, Seed: 1}, ""},
		{[]string{"--seed", "7", "cg", "--bandwidth", "10Gb/s", "--jitter", "0.2", "--format", "otf2"},
			Options{Pattern: "cg", Compute: -1, Seed: 7, Bandwidth: 1.25e9, Jitter: 0.2}, ""},
		{[]string{"--ranks", "4"}, Options{}, "expected a pattern (one of "},
		{[]string{"ring", "--ranks"}, Options{}, "flag --ranks: expected a value after it"},
		{[]string{"ring", "--ranks", "many"}, Options{}, `flag --ranks many: expected a number, not "many"`},
		{[]string{"ring", "--colour", "red"}, Options{}, "flag --colour red: unknown flag (expected ranks, "},
		{[]string{"ring", "cg"}, Options{}, `argument "cg": a second pattern (after ring)`},
	}
	for _, tc := range tests {
		got, err := ParseArgs(tc.args)
		switch {
		case tc.err != "":
			if err == nil || len(err.Error()) < len(tc.err) || err.Error()[:len(tc.err)] != tc.err {
				t.Errorf("ParseArgs(%q) = %v, want an error starting %q", tc.args, err, tc.err)
			}
		case err != nil:
			t.Errorf("ParseArgs(%q): %v", tc.args, err)
		case got != tc.want:
			t.Errorf("ParseArgs(%q) = %+v, want %+v", tc.args, got, tc.want)
		}
	}
}
