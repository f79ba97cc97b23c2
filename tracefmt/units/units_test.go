package units

import (
	"math"
	"testing"
)

func TestParseSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		err  bool
	}{
		{"4096", 4096, false},
		{"64KiB", 65536, false},
		{"64 KiB", 65536, false},
		{"1KB", 1000, false},
		{"1.5MiB", 1572864, false},
		{"2GB", 2e9, false},
		{"1e6", 1000000, false},
		{"1e3B", 1000, false},
		{"10 parsecs", 0, true},
		{"-1", 0, true},
		{"", 0, true},
		{"0.5B", 0, true},
		{"KiB", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseSize(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d, err=%v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"1", 1, false},
		{"10us", 10e-6, false},
		{"1449.848us", 1449.848e-6, false},
		{"2.5 ms", 2.5e-3, false},
		{"7ns", 7e-9, false},
		{"3ps", 3e-12, false},
		{"1e-3s", 1e-3, false},
		{"5 fortnights", 0, true},
		{"-1s", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseDuration(tt.in)
		if (err != nil) != tt.err || math.Abs(got-tt.want) > 1e-18 {
			t.Errorf("ParseDuration(%q) = %g, %v; want %g, err=%v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseRate(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"100Mb/s", 12.5e6, false},
		{"1Gb/s", 125e6, false},
		{"10 Gbps", 1.25e9, false},
		{"1GB/s", 1e9, false},
		{"125MB/s", 125e6, false},
		{"1GiB/s", 1 << 30, false},
		{"8b/s", 1, false},
		{"1000", 1000, false},
		{"1 furlong/s", 0, true},
		{"1Xb/s", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseRate(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseRate(%q) = %g, %v; want %g, err=%v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParseFlops(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		err  bool
	}{
		{"1Gf", 1e9, false},
		{"2.5GFlops", 2.5e9, false},
		{"500Mf/s", 5e8, false},
		{"1e9", 1e9, false},
		{"3kf", 3e3, false},
		{"1Gx", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseFlops(tt.in)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseFlops(%q) = %g, %v; want %g, err=%v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestFormat(t *testing.T) {
	tests := []struct{ got, want string }{
		{FormatDuration(1.204916984), "1.205 s"},
		{FormatDuration(12.5e-6), "12.5 µs"},
		{FormatDuration(0), "0 s"},
		{FormatDuration(830e-9), "830 ns"},
		{FormatDuration(1234.6), "1235 s"},
		{FormatDuration(0.00099996), "1 ms"},
		{FormatDurationSig(0.00099996, 3), "1 ms"},
		{FormatDurationSig(0.000999999, 7), "999.999 µs"},
		{FormatDurationSig(0.149773089602, 7), "149.7731 ms"},
		{FormatDurationSig(0.155733000000001, 7), "155.733 ms"},
		{FormatDurationSig(0.0010970712, 3), "1.1 ms"},
		{FormatDurationSig(2.5e-6, 3), "2.5 µs"},
		{FormatDurationSig(-3, 3), "-3 s"},
		{FormatCount(830), "830"},
		{FormatCount(1500), "1.5k"},
		{FormatCount(12345678), "12.35M"},
		{FormatCount(999960), "1M"},
		{FormatCount(2.5e9), "2.5G"},
		{FormatBytes(512), "512 B"},
		{FormatBytes(65536), "64 KiB"},
		{FormatBytes(1572864), "1.5 MiB"},
		{FormatRate(12.5e6), "100 Mb/s"},
		{FormatRate(1.25e9), "10 Gb/s"},
		{FormatFlops(2e9), "2 Gf"},
		{FormatFlops(1.5e6), "1.5 Mf"},
		{FormatFlops(123456), "123.5 kf"},
		{FormatFlops(12), "12 f"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}

func TestFormatDurationRes(t *testing.T) {
	tests := []struct {
		sec, res float64
		want     string
	}{
		{0.3841234, 3e-7, "384.1234 ms"},
		{0.3841264, 3e-7, "384.1264 ms"},
		{0.3841234, 0, "384.1 ms"},
		{0.3841234, 1e-3, "384.1 ms"},
		{12.5e-6, 1e-9, "12.500 µs"},
		{2.000001, 1e-7, "2.0000010 s"},
	}
	for _, tc := range tests {
		if got := FormatDurationRes(tc.sec, tc.res); got != tc.want {
			t.Errorf("FormatDurationRes(%g, %g) = %q, want %q", tc.sec, tc.res, got, tc.want)
		}
	}
}

func TestFormatElapsed(t *testing.T) {
	for _, tt := range []struct {
		sec  float64
		want string
	}{{0, "0s"}, {0.4, "0s"}, {41.6, "42s"}, {59.4, "59s"}, {59.6, "1m00s"}, {245, "4m05s"}, {3599.4, "59m59s"}, {3720, "1h02m"}, {90061, "25h01m"}} {
		if got := FormatElapsed(tt.sec); got != tt.want {
			t.Errorf("FormatElapsed(%v) = %q, want %q", tt.sec, got, tt.want)
		}
	}
}

func TestFormatPercent(t *testing.T) {
	for _, tc := range []struct {
		frac float64
		dec  int
		want string
	}{
		{0.804, 1, "80.4 %"}, {1, 0, "100 %"}, {0.93, 0, "93 %"}, {0, 1, "0.0 %"}, {0.0004, 2, "0.04 %"},
	} {
		if got := FormatPercent(tc.frac, tc.dec); got != tc.want {
			t.Errorf("FormatPercent(%v, %d) = %q, want %q", tc.frac, tc.dec, got, tc.want)
		}
	}
	if got := FormatPercentSigned(0.02, 1); got != "+2.0 %" {
		t.Errorf("signed +: %q", got)
	}
	if got := FormatPercentSigned(-0.002, 1); got != "-0.2 %" {
		t.Errorf("signed -: %q", got)
	}
}
