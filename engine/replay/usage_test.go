package replay

import "testing"

func TestUnused(t *testing.T) {
	tests := []struct {
		set  [][2]string
		key  string
		want string
	}{
		{[][2]string{{"model", "puppet"}}, "routing", "not used by puppet"},
		{[][2]string{{"model", "packet"}}, "routing", ""},
		{[][2]string{{"model", "puppet"}}, "L", "not used by puppet"},
		{[][2]string{{"model", "loggops"}}, "L", ""},
		{[][2]string{{"model", "loggops"}}, "switching", "not used by loggops"},
		{[][2]string{{"model", "simgrid"}}, "envelope", ""},
		{[][2]string{{"model", "packet"}}, "envelope", "not used by packet"},
		{[][2]string{{"collectives", "analytic"}}, "coll-alg", "not used by analytic collectives"},
		{[][2]string{{"collectives", "expand"}}, "coll-factor", "not used by expanded collectives"},
		{[][2]string{{"collectives", "expand"}}, "coll-alg", ""},
		{[][2]string{{"model", "puppet"}}, "bandwidth", ""},
		{[][2]string{{"model", "puppet"}}, "no-such-setting", ""},
	}
	for _, tc := range tests {
		c := Default()
		for _, kv := range tc.set {
			if err := c.Set(kv[0], kv[1]); err != nil {
				t.Fatal(err)
			}
		}
		if got := Unused(&c, tc.key); got != tc.want {
			t.Errorf("%v: Unused(%q) = %q, want %q", tc.set, tc.key, got, tc.want)
		}
	}
}
