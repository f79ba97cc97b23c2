// Package des is the discrete-event kernel of the simulation engine: an
// integer clock in picoseconds, a priority queue of small concrete event
// values ordered by (time, insertion sequence), and a seeded random
// source.
//
// Events are plain 32-byte structs that carry a kind and two integer
// arguments; their owner (the replay engine, a network model) interprets
// them. Nothing is boxed in an interface on the hot path, and two events
// at the same time come out in the order they were scheduled, so a run is
// a deterministic function of its inputs and its seed.
package des

import (
	"math"
	"strconv"
)

// Time is simulated time in picoseconds. Its range, ±106 days, covers any
// run the engine is meant for.
type Time int64

// Units of Time.
const (
	Picosecond  Time = 1
	Nanosecond  Time = 1000
	Microsecond Time = 1000 * Nanosecond
	Millisecond Time = 1000 * Microsecond
	Second      Time = 1000 * Millisecond
)

// Never is a time later than any event: the answer of "when" questions
// that have none.
const Never Time = math.MaxInt64

// FromSeconds converts seconds to Time, rounding to the nearest
// picosecond and saturating at ±Never.
func FromSeconds(s float64) Time {
	ps := math.Round(s * 1e12)
	switch {
	case math.IsNaN(ps):
		return 0
	case ps >= math.MaxInt64:
		return Never
	case ps <= -math.MaxInt64:
		return -Never
	}
	return Time(ps)
}

// Seconds returns t in seconds.
func (t Time) Seconds() float64 { return float64(t) / 1e12 }

// String formats t in seconds with picosecond precision ("1.204916984s").
func (t Time) String() string {
	if t == Never {
		return "never"
	}
	neg := t < 0
	if neg {
		t = -t
	}
	s := strconv.FormatInt(int64(t/Second), 10)
	if frac := int64(t % Second); frac != 0 {
		f := strconv.FormatInt(frac+1e12, 10)[1:]
		for f[len(f)-1] == '0' {
			f = f[:len(f)-1]
		}
		s += "." + f
	}
	if neg {
		s = "-" + s
	}
	return s + "s"
}
