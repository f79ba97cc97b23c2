package gen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// ParseArgs reads the arguments of a `tracesim gen` command as a sweep's
// trace names it ("stencil2d --ranks 16 --size 4KiB"): a pattern and
// flags, in any order, each flag written -name value, --name value or
// --name=value. The options are those the command would generate with
// (seed 1 and the pattern's computation unless given); -o and --format,
// which only say where the command writes, are skipped. The pattern and
// values are checked when the options are normalised (Generate).
func ParseArgs(args []string) (Options, error) {
	o := Options{Compute: -1, Seed: 1}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if o.Pattern != "" {
				return o, fmt.Errorf("argument %q: a second pattern (after %s)", a, o.Pattern)
			}
			o.Pattern = a
			continue
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !hasVal {
			if i+1 == len(args) {
				return o, fmt.Errorf("flag %s: expected a value after it", a)
			}
			i++
			val = args[i]
		}
		if name == "o" || name == "format" {
			// Where and how the command writes: nothing to generate.
			continue
		}
		if err := SetFlag(&o, name, val); err != nil {
			return o, fmt.Errorf("flag %s %s: %w", a, val, err)
		}
	}
	if o.Pattern == "" {
		return o, fmt.Errorf("expected a pattern (one of %s)", strings.Join(PatternNames(), ", "))
	}
	return o, nil
}

// SetFlag sets the option of the `tracesim gen` flag called name (ranks,
// iters, size, compute, seed, skew, latency, bandwidth, overhead or
// jitter, without dashes) from its value as the command takes it: sizes,
// durations and rates with their units.
func SetFlag(o *Options, name, val string) error {
	// The flags by the kind of value they take.
	durations := map[string]*float64{"compute": &o.Compute, "skew": &o.Skew, "latency": &o.Latency, "overhead": &o.Overhead}
	ints := map[string]*int{"ranks": &o.Ranks, "iters": &o.Iters}
	var err error
	if p, ok := durations[name]; ok {
		*p, err = units.ParseDuration(val)
	} else if p, ok := ints[name]; ok {
		*p, err = strconv.Atoi(val)
	} else {
		switch name {
		case "size":
			o.Size, err = units.ParseSize(val)
		case "seed":
			o.Seed, err = strconv.ParseInt(val, 10, 64)
		case "bandwidth":
			o.Bandwidth, err = units.ParseRate(val)
		case "jitter":
			o.Jitter, err = strconv.ParseFloat(val, 64)
		default:
			return fmt.Errorf("unknown flag (expected ranks, iters, size, compute, seed, skew, latency, bandwidth, overhead or jitter)")
		}
	}
	if ne, ok := err.(*strconv.NumError); ok {
		err = fmt.Errorf("expected a number, not %q", ne.Num)
	}
	return err
}
