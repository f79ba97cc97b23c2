package analysis

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/tracesim/tracesim/tracefmt/units"
)

// Window is a closed interval [Start, End] of trace time, in trace units
// (the Timeline's window).
type Window struct{ Start, End float64 }

// All is the window of the whole run.
func All() Window { return Window{math.Inf(-1), math.Inf(1)} }

// Contains reports whether t lies inside the window.
func (w Window) Contains(t float64) bool { return t >= w.Start && t <= w.End }

// IsAll reports whether the window is the whole run.
func (w Window) IsAll() bool { return math.IsInf(w.Start, -1) && math.IsInf(w.End, 1) }

// ParseWindow parses "a:b", two durations with units ("1ms:2.5ms")
// counted from origin, the trace's first timestamp, as the Timeline's
// ruler counts them; either side may be left empty for the start or the
// end of the run. unit is the length of a trace unit in seconds. The
// result is in trace units.
func ParseWindow(spec string, origin, unit float64) (Window, error) {
	a, b, ok := strings.Cut(spec, ":")
	if !ok {
		return Window{}, fmt.Errorf("%q: expected START:END, durations from the trace's start such as 1ms:2ms", spec)
	}
	w := All()
	if s := strings.TrimSpace(a); s != "" {
		x, err := units.ParseDuration(s)
		if err != nil {
			return Window{}, fmt.Errorf("start: %w", err)
		}
		w.Start = origin + x/unit
	}
	if s := strings.TrimSpace(b); s != "" {
		x, err := units.ParseDuration(s)
		if err != nil {
			return Window{}, fmt.Errorf("end: %w", err)
		}
		w.End = origin + x/unit
	}
	if w.Start > w.End {
		return Window{}, fmt.Errorf("%q: the start is after the end", spec)
	}
	return w, nil
}

// ParseRanks parses a list of ranks and ranges of a world of n ranks,
// "0-3, 8, 12-" (an open range runs to the last rank), and returns the
// ranks in increasing order, each once.
func ParseRanks(spec string, n int) ([]int, error) {
	seen := make([]bool, n)
	for _, part := range strings.FieldsFunc(spec, func(r rune) bool { return r == ',' || r == ' ' }) {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return nil, fmt.Errorf("%q is not a rank or a range like 0-3", part)
		}
		b := a
		if isRange {
			b = n - 1
			if hi != "" {
				if b, err = strconv.Atoi(hi); err != nil {
					return nil, fmt.Errorf("%q is not a rank or a range like 0-3", part)
				}
			}
		}
		if a < 0 || b >= n || a > b {
			return nil, fmt.Errorf("%q outside 0..%d", part, n-1)
		}
		for r := a; r <= b; r++ {
			seen[r] = true
		}
	}
	var out []int
	for r, ok := range seen {
		if ok {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no ranks in %q", spec)
	}
	return out, nil
}

// rankSet returns a membership table of ranks in a world of n, or nil
// (every rank) when ranks is nil.
func rankSet(ranks []int, n int) []bool {
	if ranks == nil {
		return nil
	}
	in := make([]bool, n)
	for _, r := range ranks {
		if r >= 0 && r < n {
			in[r] = true
		}
	}
	return in
}
