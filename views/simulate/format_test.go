package simulate

import "testing"

func TestFormatTimes(t *testing.T) {
	for _, c := range []struct {
		s        float64
		dur, sec string
	}{
		{0.000999999, "1ms", "999.999µs"},
		{0.00099996, "1ms", "999.96µs"},
		{0.149773089602, "150ms", "149.7731ms"},
		{0.155733000000001, "156ms", "155.733ms"},
		{0.0010970712, "1.1ms", "1.097071ms"},
		{3, "3s", "3s"},
		{2.5e-6, "2.5µs", "2.5µs"},
	} {
		if got := fmtDur(c.s); got != c.dur {
			t.Errorf("fmtDur(%g) = %q, want %q", c.s, got, c.dur)
		}
		if got := fmtSeconds(c.s); got != c.sec {
			t.Errorf("fmtSeconds(%g) = %q, want %q", c.s, got, c.sec)
		}
	}
}
