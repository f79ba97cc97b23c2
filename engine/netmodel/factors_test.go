package netmodel

import (
	"strings"
	"testing"

	"github.com/tracesim/tracesim/engine/des"
)

// TestCM02SMPIFactors: one message between two hosts of a 125 MB/s, 5 µs
// star cluster under smpirun's default model (SMPI, SimGrid 3.32's
// factors), the makespans smpirun -replay printed with 12 digits.
func TestCM02SMPIFactors(t *testing.T) {
	bw, err := ParseSizeFactors(SMPIBandwidthFactors)
	if err != nil {
		t.Fatal(err)
	}
	lat, err := ParseSizeFactors(SMPILatencyFactors)
	if err != nil {
		t.Fatal(err)
	}
	m := &CM02{LinkLatency: 5 * des.Microsecond, PerByte: 8000, Envelope: 16, BwFactor: bw, LatFactor: lat}
	for _, c := range []struct {
		size int64
		ps   des.Time // smpirun's makespan in picoseconds
	}{
		{0, 20_304_319}, {1, 20_314_170}, {100, 21_289_439}, {240, 22_668_607}, {241, 22_678_458},
		{242, 25_638_586}, {256, 25_969_837}, {1000, 43_269_985}, {65456, 785_424_002},
		{65457, 673_241_933}, {65472, 673_369_498}, {100000, 967_008_024},
	} {
		got := m.Latency(c.size, 2)
		if d := got - c.ps; d < -2 || d > 2 {
			t.Errorf("%d B: %d ps, smpirun %d ps", c.size, got, c.ps)
		}
	}
}

func TestParseSizeFactors(t *testing.T) {
	f, err := ParseSizeFactors("0:2; 1000:3;100:2.5")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    int64
		want float64
	}{{0, 1}, {1, 2}, {100, 2}, {101, 2.5}, {1000, 2.5}, {1001, 3}} {
		if got := f.At(c.s); got != c.want {
			t.Errorf("At(%d) = %g, want %g", c.s, got, c.want)
		}
	}
	if f.String() != "1000:3;100:2.5;0:2" {
		t.Errorf("String %q", f.String())
	}
	if f, err := ParseSizeFactors("13.01"); err != nil || f.At(0) != 13.01 || f.String() != "13.01" {
		t.Errorf("single value: %v %v", f, err)
	}
	for _, c := range []struct{ in, want string }{
		{"0:2;x:3", `chunk 2 "x:3": "x" is not a size in bytes`},
		{"0:-1", `chunk 1 "0:-1": "-1" is not a positive factor`},
		{"5:1;5:2", "size 5 given twice"},
		{"0:1;7", `chunk 2 "7": expected SIZE:FACTOR`},
	} {
		if _, err := ParseSizeFactors(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.in, err, c.want)
		}
	}
}

// TestCM02TCPGamma: with 1 ms links the 4 MiB TCP window binds (4194304 B
// / 4 ms = 1.048576 GB/s, below the 100 GB/s links): 20016 B take 19.09 µs
// after the 2 ms of latency, as smpirun -replay measured (0.002019 s).
func TestCM02TCPGamma(t *testing.T) {
	m := &CM02{LinkLatency: des.Millisecond, PerByte: 10, Envelope: 16, TCPGamma: 4194304}
	want := 2*des.Millisecond + 19_088_745 // 20016 B × 4e9 ps / 4194304 B
	if got := m.Latency(20000, 2); got != want {
		t.Errorf("%d ps, want %d", got, want)
	}
	m.TCPGamma = 0
	if got := m.Latency(20000, 2); got != 2*des.Millisecond+200160 {
		t.Errorf("without the window: %d ps", got)
	}
}

// FuzzParseSizeFactors: no input panics, and an accepted table reads back
// from its String form to the same factors.
func FuzzParseSizeFactors(f *testing.F) {
	f.Add(SMPIBandwidthFactors)
	f.Add("13.01")
	f.Add("0:1;5:2")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseSizeFactors(s)
		if err != nil {
			return
		}
		b, err := ParseSizeFactors(a.String())
		if err != nil || len(a) != len(b) {
			t.Fatalf("%q → %q: %v", s, a.String(), err)
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("%q: step %d %+v, read back %+v", s, i, a[i], b[i])
			}
		}
	})
}
