package sweep

import (
	"fmt"

	"github.com/tracesim/tracesim/engine/replay"
)

// Range returns the values of a range of the numeric setting key, as the
// spec's `{ from, to, count, log }` writes them: count values from from
// to to (each with its unit, "10Gb/s"), evenly spaced on a linear or a
// logarithmic scale, at four significant digits.
func Range(key, from, to string, count int, log bool) ([]string, error) {
	set, ok := replay.LookupSetting(key)
	if !ok {
		return nil, fmt.Errorf("unknown setting %q", key)
	}
	vals, err := axisValues(set, map[string]any{"from": from, "to": to, "count": int64(count), "log": log}, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return vals, nil
}

// Values checks a list of values of the setting key and writes each as
// the setting writes it back, as a spec's axis list does.
func Values(key string, vals []string) ([]string, error) {
	set, ok := replay.LookupSetting(key)
	if !ok {
		return nil, fmt.Errorf("unknown setting %q", key)
	}
	raw := make([]any, len(vals))
	for i, v := range vals {
		raw[i] = v
	}
	out, err := axisValues(set, raw, "")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return out, nil
}

// OneAxis returns the spec of a sweep of one setting over values on one
// loaded trace, named trace in the result, from the machine base with its
// seed: the sweep the Machine tab starts from a setting's row.
func OneAxis(trace string, base replay.Config, key string, values []string) *Spec {
	// The axis is given by hand: what it implies holds at every point
	// (an eager-threshold axis varies the protocol of every send).
	base.ByHand(func(k string) bool { return k == key })
	return &Spec{
		File:   trace,
		Traces: []TraceRef{{Name: trace}},
		Base:   base,
		Axes:   []Axis{{Key: key, Values: values, Zip: -1}},
		Seeds:  []uint64{base.Seed},
	}
}

// Format writes v, in the base unit of the numeric setting key (seconds,
// bytes, bytes/s, flops/s), as a range's value is written: with a unit
// and four significant digits ("10Gb/s"). ok is false for a setting that
// is not numeric.
func Format(key string, v float64) (s string, ok bool) {
	set, found := replay.LookupSetting(key)
	if !found || !numericKind(set.Kind) {
		return "", false
	}
	return formatValue(set.Kind, v), true
}

// numericKind reports whether settings of kind k take ranges.
func numericKind(k replay.Kind) bool {
	switch k {
	case replay.KindInt, replay.KindFloat, replay.KindSize, replay.KindDuration, replay.KindRate, replay.KindSpeed:
		return true
	}
	return false
}
