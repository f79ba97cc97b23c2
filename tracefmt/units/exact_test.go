package units

import (
	"math"
	"testing"
)

func TestFormatRateExact(t *testing.T) {
	tests := []struct {
		bps  float64
		want string
	}{
		{12.5e9, "100Gb/s"},
		{1.25e8, "1Gb/s"},
		{1.23456e9, "9.87648Gb/s"},
		{1.5e6 / 8, "1.5Mb/s"},
		{1e12 / 810.005184, "9.876480000404541Gb/s"}, // 1.23456GB/s as a per-byte time
		{125, "1Kb/s"},
		{0.1, "0.8b/s"},
		{1 << 30, "8.589934592Gb/s"},
		{0, "0b/s"},
	}
	for _, tt := range tests {
		got := FormatRateExact(tt.bps)
		if got != tt.want {
			t.Errorf("FormatRateExact(%v) = %q, want %q", tt.bps, got, tt.want)
		}
		back, err := ParseRate(got)
		if err != nil || back != tt.bps {
			t.Errorf("ParseRate(FormatRateExact(%v) = %q) = %v, %v: does not read back", tt.bps, got, back, err)
		}
	}
}

// TestFormatRateExactRoundTrip reads back rates that no short decimal
// holds: every one must parse to the very float64 it was printed from.
func TestFormatRateExactRoundTrip(t *testing.T) {
	x := 1.0
	for i := range 2000 {
		x = math.Mod(x*6364136223.846793+1442695040.888963, 1e13) // spread over 1 b/s … 100 Tb/s
		bps := x * math.Pow(10, float64(i%7-3))
		s := FormatRateExact(bps)
		back, err := ParseRate(s)
		if err != nil || back != bps {
			t.Fatalf("FormatRateExact(%v) = %q reads back as %v, %v", bps, s, back, err)
		}
	}
}

func TestFormatRateWithin(t *testing.T) {
	// The replay settings keep a rate as picoseconds per byte rounded to
	// 1e-6 ps: any rate that rounds to the same per-byte time will do.
	perByte := func(r float64) float64 { return math.Round(1e18/r) / 1e6 }
	for _, tt := range []struct {
		typed string
		want  string
	}{
		{"1.23456GB/s", "9.87648Gb/s"},
		{"125MB/s", "1Gb/s"},
		{"100Gb/s", "100Gb/s"},
		{"3Mb/s", "3Mb/s"},
		{"1GiB/s", "8.58993459Gb/s"}, // 931.322575 ps per byte either way
	} {
		r, err := ParseRate(tt.typed)
		if err != nil {
			t.Fatal(err)
		}
		pb := perByte(r)
		got := FormatRateWithin(1e12/pb, func(x float64) bool { return perByte(x) == pb })
		if got != tt.want {
			t.Errorf("%s: FormatRateWithin = %q, want %q", tt.typed, got, tt.want)
		}
	}
}

func TestFormatPicoseconds(t *testing.T) {
	for _, tt := range []struct {
		ps   int64
		want string
	}{
		{0, "0s"}, {5e12, "5s"}, {1449848000, "1449.848us"}, {800, "800ps"},
		{1500, "1.5ns"}, {1000001, "1000.001ns"}, {1000000001, "1000000.001ns"}, {999, "999ps"}, {1e6, "1us"}, {2500e9, "2.5s"},
	} {
		got := FormatPicoseconds(tt.ps)
		if got != tt.want {
			t.Errorf("FormatPicoseconds(%d) = %q, want %q", tt.ps, got, tt.want)
		}
		sec, err := ParseDuration(got)
		if err != nil || Picoseconds(sec) != tt.ps {
			t.Errorf("%q reads back as %d ps, %v; want %d", got, Picoseconds(sec), err, tt.ps)
		}
	}
}

func TestFormatSizeExact(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{{0, "0B"}, {1000, "1000B"}, {65536, "64KiB"}, {3 << 30, "3GiB"}, {1536, "1536B"}} {
		got := FormatSizeExact(tt.n)
		if got != tt.want {
			t.Errorf("FormatSizeExact(%d) = %q, want %q", tt.n, got, tt.want)
		}
		if back, err := ParseSize(got); err != nil || back != tt.n {
			t.Errorf("%q reads back as %d, %v", got, back, err)
		}
	}
}

func TestFormatFlopsExact(t *testing.T) {
	third := 1.0 / 3
	for _, tt := range []struct {
		f    float64
		want string
	}{{1e9, "1Gf"}, {2.5e6, "2.5Mf"}, {1234.5678, "1.2345678Kf"}, {12, "12f"}, {0, "0f"}, {third * 3, "1f"}, {0.1 + third, "0.43333333333333335f"}} {
		got := FormatFlopsExact(tt.f)
		if got != tt.want {
			t.Errorf("FormatFlopsExact(%v) = %q, want %q", tt.f, got, tt.want)
		}
		if back, err := ParseFlops(got); err != nil || back != tt.f {
			t.Errorf("%q reads back as %v, %v", got, back, err)
		}
	}
}

func TestFormatRateWithinFallsBackToExact(t *testing.T) {
	// A per-byte time no rounded rate reaches: the exact rate prints.
	bps := 1e12 / 810.0051840001
	got := FormatRateWithin(bps, func(float64) bool { return false })
	if back, err := ParseRate(got); err != nil || back != bps || got != FormatRateExact(bps) {
		t.Errorf("FormatRateWithin(%v, never) = %q (reads %v, %v), want the exact %q", bps, got, back, err, FormatRateExact(bps))
	}
}

// TestFormatRateExactHuge: a rate past the largest unit (a node link of
// no limit, 1e30 B/s) prints with an exponent and reads back exactly.
func TestFormatRateExactHuge(t *testing.T) {
	for _, bps := range []float64{1e30, 1.25e25, 3.3e21} {
		s := FormatRateExact(bps)
		if len(s) > 16 {
			t.Errorf("%g B/s: %q, want an exponent, not all the digits", bps, s)
		}
		if r, err := ParseRate(s); err != nil || r != bps {
			t.Errorf("%g B/s: %q reads back as %v, %v", bps, s, r, err)
		}
	}
}
