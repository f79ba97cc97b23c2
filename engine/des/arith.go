package des

import (
	"math"
	"math/bits"
)

// Limit describes the end of Time's range for people: the engine's
// simulated time cannot reach 2^63 ps.
const Limit = "106.75 days (9,223,372 s, 2^63 ps)"

// Add returns a + b for non-negative a and b, or Never when the sum would
// reach the end of Time's range. Never is absorbing: Add(Never, b) is
// Never. The kernel refuses to schedule at Never (see Kernel.Overflow), so
// a model that adds with Add cannot wrap into the past.
func Add(a, b Time) Time {
	if b > Never-a {
		return Never
	}
	return a + b
}

// Mul returns n × t for non-negative n and t, or Never when the product
// would reach the end of Time's range.
func Mul(n int64, t Time) Time {
	if n == 0 || t == 0 {
		return 0
	}
	if n > 0 && t > 0 {
		// The full 128-bit product tells overflow without the division
		// the check n > Never/t costs; the analytic models multiply
		// several times per message.
		hi, lo := bits.Mul64(uint64(n), uint64(t))
		if hi != 0 || lo >= uint64(Never) {
			return Never
		}
		return Time(lo)
	}
	if t == Never || n > int64(Never/t) {
		return Never
	}
	if p := Time(n) * t; p != Never {
		return p
	}
	return Never
}

// FromPS rounds a number of picoseconds to Time: 0 for NaN and values
// that round to zero or less, Never for values at or past 2^63 ps (a
// float64 conversion past the range would be implementation-defined).
func FromPS(ps float64) Time {
	v := math.Round(ps)
	if !(v > 0) {
		return 0
	}
	if v >= 0x1p63 {
		return Never
	}
	return Time(v)
}
