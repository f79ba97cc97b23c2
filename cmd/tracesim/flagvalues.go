package main

import (
	"strconv"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// Flag values that take units, so that every command accepts `--size 4KiB`,
// `--compute 2ms` and `--cpu-speed 1Gf` the same way.

// durationValue is a duration in seconds given with a unit (ps … s).
type durationValue struct{ v *float64 }

func (d durationValue) String() string {
	if d.v == nil || *d.v < 0 {
		return "" // negative: unset (gen --compute: the pattern's), no "(default -1 s)"
	}
	return units.FormatDuration(*d.v)
}

// Type names the value in pflag's usage.
func (durationValue) Type() string { return "duration" }

func (d durationValue) Set(s string) error {
	x, err := units.ParseDuration(s)
	if err != nil {
		return err
	}
	*d.v = x
	return nil
}

// sizeValue is a size in bytes given with a unit (B, KB, KiB …).
type sizeValue struct{ v *int64 }

func (s sizeValue) String() string {
	if s.v == nil || *s.v == 0 {
		// 0 is "not given" (the help says what then), not a size
		// of 0 B to show as the default.
		return ""
	}
	return units.FormatBytes(*s.v)
}

// Type names the value in pflag's usage.
func (sizeValue) Type() string { return "size" }

func (s sizeValue) Set(v string) error {
	x, err := units.ParseSize(v)
	if err != nil {
		return err
	}
	*s.v = x
	return nil
}

// rateValue is a data rate in bytes per second (b/s, Mb/s, GB/s …).
type rateValue struct{ v *float64 }

func (r rateValue) String() string {
	if r.v == nil || *r.v == 0 {
		return ""
	}
	return units.FormatRate(*r.v)
}

// Type names the value in pflag's usage.
func (rateValue) Type() string { return "rate" }

func (r rateValue) Set(v string) error {
	x, err := units.ParseRate(v)
	if err != nil {
		return err
	}
	*r.v = x
	return nil
}

// flopsValue is a CPU speed in flops per second (f, Mf, Gf …).
type flopsValue struct{ v *float64 }

func (f flopsValue) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatFloat(*f.v, 'g', -1, 64) + "f"
}

// Type names the value in pflag's usage.
func (flopsValue) Type() string { return "speed" }

func (f flopsValue) Set(v string) error {
	x, err := units.ParseFlops(v)
	if err != nil {
		return err
	}
	*f.v = x
	return nil
}
