package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/engine/replay"
)

// maxPoints bounds a sweep, so that a typo cannot ask for a billion runs.
const maxPoints = 1_000_000

// Point is one simulation of a sweep.
type Point struct {
	// Index is the point's place in the sweep (0-based): traces
	// outermost, then the axes in the spec's order (the last one
	// fastest), then the repetitions. The result's point column.
	Index int
	// Trace indexes Spec.Traces.
	Trace int
	// Values has one value per axis, in Spec.Axes order.
	Values []string
	// Rep indexes Spec.Seeds; Seed is its seed.
	Rep  int
	Seed uint64
	// Config is the machine: the base with the point's values.
	Config replay.Config
}

// Expand lists the sweep's points in order, each with its machine
// validated. An invalid combination is an error naming the point.
func (s *Spec) Expand() ([]Point, error) {
	// Loop units: a crossed axis, or a zip group that advances its axes
	// together, in the order their first axis appears.
	var units [][]int
	group := map[int]int{}
	for i, a := range s.Axes {
		if a.Zip < 0 {
			units = append(units, []int{i})
			continue
		}
		if u, ok := group[a.Zip]; ok {
			units[u] = append(units[u], i)
			continue
		}
		group[a.Zip] = len(units)
		units = append(units, []int{i})
	}
	total := len(s.Traces) * len(s.Seeds)
	for _, u := range units {
		total *= len(s.Axes[u[0]].Values)
		if total > maxPoints {
			return nil, fmt.Errorf("more than %d points", maxPoints)
		}
	}
	points := make([]Point, 0, total)
	idx := make([]int, len(units))
	used := make([]bool, len(s.Axes))
	unused := make([]string, len(s.Axes))
	seedRead, seedUnused := false, ""
	// Settings' applied once per unit combination; the seeds only
	// change the seed.
	for t := range s.Traces {
		for {
			cfg := s.Base
			vals := make([]string, len(s.Axes))
			for u, axes := range units {
				for _, a := range axes {
					vals[a] = s.Axes[a].Values[idx[u]]
				}
			}
			for a, v := range vals {
				if err := cfg.Set(s.Axes[a].Key, v); err != nil {
					return nil, s.pointError(vals, err)
				}
			}
			if err := cfg.Validate(); err != nil {
				return nil, s.pointError(vals, err)
			}
			seedWhy := replay.SeedUnused(&cfg)
			if seedWhy == "" {
				seedRead = true
			} else if seedUnused == "" {
				seedUnused = seedWhy
			}
			for a := range s.Axes {
				why := replay.Unused(&cfg, s.Axes[a].Key)
				if s.Axes[a].Key == "seed" {
					why = seedWhy
				}
				if why == "" {
					used[a] = true
				} else if unused[a] == "" {
					unused[a] = why
				}
			}
			for r, seed := range s.Seeds {
				c := cfg
				if s.Reps {
					c.Seed = seed
				} else {
					seed = c.Seed
				}
				points = append(points, Point{Index: len(points), Trace: t, Values: vals, Rep: r, Seed: seed, Config: c})
			}
			// Odometer: the last unit turns fastest.
			u := len(units) - 1
			for ; u >= 0; u-- {
				idx[u]++
				if idx[u] < len(s.Axes[units[u][0]].Values) {
					break
				}
				idx[u] = 0
			}
			if u < 0 {
				break
			}
		}
	}
	for a, ok := range used {
		// Sweeping a setting that changes nothing is a mistake worth
		// hearing of.
		if !ok {
			return nil, fmt.Errorf("line %d: axis %s: %s", s.Axes[a].Line, s.Axes[a].Key, unused[a])
		}
	}
	if s.Reps && len(s.Seeds) > 1 && !seedRead {
		// Repetitions of a machine without randomness are the same
		// rows over again: a spec asking for them expects them to
		// differ.
		return nil, fmt.Errorf("%s: every repetition would give the same row: %s", s.repsAt, seedUnused)
	}
	return points, nil
}

// pointError names an invalid point and the spec's line of an axis to
// change: the last axis, in the spec's order, another of whose values
// makes the point valid (for topology=torus routing=updown with a fat
// tree among the topologies, the topology's line), else the first whose
// value applied to the base and the values before it is invalid.
func (s *Spec) pointError(vals []string, err error) error {
	at := func(a int) error {
		if s.Axes[a].Line == 0 {
			// An axis no spec file wrote (a sweep started from the
			// Machine tab) has no line to name.
			return fmt.Errorf("axes.%s: point %s: %w", s.Axes[a].Key, describe(s.Axes, vals), err)
		}
		return fmt.Errorf("line %d: axes.%s: point %s: %w", s.Axes[a].Line, s.Axes[a].Key, describe(s.Axes, vals), err)
	}
	valid := func(vals []string) bool {
		cfg := s.Base
		for a, v := range vals {
			if cfg.Set(s.Axes[a].Key, v) != nil {
				return false
			}
		}
		return cfg.Validate() == nil
	}
	for a := len(vals) - 1; a >= 0; a-- {
		for _, v := range s.Axes[a].Values {
			if v == vals[a] {
				continue
			}
			other := slices.Clone(vals)
			other[a] = v
			if valid(other) {
				return at(a)
			}
		}
	}
	for a := range vals {
		if !valid(vals[:a+1]) {
			return at(a)
		}
	}
	return fmt.Errorf("point %s: %w", describe(s.Axes, vals), err)
}

func describe(axes []Axis, vals []string) string {
	parts := make([]string, len(axes))
	for i, a := range axes {
		parts[i] = a.Key + "=" + vals[i]
	}
	return strings.Join(parts, " ")
}

// Shard returns the points of shard i of n (0 ≤ i < n): every n-th
// point from the i-th, so that shards get similar mixes of traces and
// machines.
func Shard(points []Point, i, n int) []Point {
	var out []Point
	for k := i; k < len(points); k += n {
		out = append(out, points[k])
	}
	return out
}

// ParseShard reads "I/N" (0 ≤ I < N).
func ParseShard(v string) (i, n int, err error) {
	a, b, ok := strings.Cut(v, "/")
	if ok {
		i, err = strconv.Atoi(a)
		if err == nil {
			n, err = strconv.Atoi(b)
		}
	}
	if !ok || err != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("shard %q: expected I/N with 0 ≤ I < N, as in 0/4", v)
	}
	return i, n, nil
}
