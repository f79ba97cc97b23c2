package causality

import (
	"context"
	"fmt"
	"math"

	"github.com/tracesim/tracesim/tracefmt"
)

// Method selects how Correct changes timestamps.
type Method uint8

// Correction methods.
const (
	// MethodBoth removes constant offsets first (when they exist), then
	// runs the controlled logical clock on the result: offsets take out
	// most of the skew without changing any interval, the CLC the rest
	// (drift, jitter).
	MethodBoth Method = iota
	// MethodOffsets only shifts each rank by a constant.
	MethodOffsets
	// MethodCLC only runs the controlled logical clock.
	MethodCLC
)

// String returns "both", "offsets" or "clc".
func (m Method) String() string {
	switch m {
	case MethodBoth:
		return "both"
	case MethodOffsets:
		return "offsets"
	case MethodCLC:
		return "clc"
	}
	return fmt.Sprintf("method(%d)", uint8(m))
}

// ParseMethod returns the method with the given name.
func ParseMethod(s string) (Method, error) {
	for _, m := range []Method{MethodBoth, MethodOffsets, MethodCLC} {
		if m.String() == s {
			return m, nil
		}
	}
	return 0, fmt.Errorf("causality: unknown correction method %q (want offsets, clc or both)", s)
}

// Defaults of CorrectOptions.
const (
	// DefaultGamma is γ, the rate at which a clock pushed ahead glides
	// back to the original timestamps: intervals after a correction
	// shrink by at most 1 − γ.
	DefaultGamma = 0.99999
	// DefaultMinSpacing is δ, the spacing the CLC keeps between events
	// whose original timestamps differ: 1 ns.
	DefaultMinSpacing = 1e-9
	// DefaultSlope is σ, the slope of the backward amortisation:
	// intervals before a corrected receive stretch by at most 1 + σ.
	DefaultSlope = 0.01
	// DefaultMaxPasses bounds the CLC passes.
	DefaultMaxPasses = 4
)

// CorrectOptions tune Correct. Zero values select the defaults.
type CorrectOptions struct {
	Method Method
	// LMin is the minimum message latency l_min in seconds.
	LMin float64
	// Gamma is γ in (0, 1]; MinSpacing δ and Slope σ are ≥ 0.
	Gamma, MinSpacing, Slope float64
	// MaxPasses bounds the CLC passes; a pass is repeated, with a
	// smaller γ, only when violations remain after it.
	MaxPasses int
	// Progress, when not nil, is called from Correct's goroutine every
	// 65536 events of a CLC pass with the events done and the total, for
	// a progress bar on large traces.
	Progress func(done, total int)
}

func (o *CorrectOptions) normalize() error {
	bad := func(what string, v float64) error {
		return fmt.Errorf("causality: %s %v out of range", what, v)
	}
	switch {
	case o.LMin < 0 || math.IsNaN(o.LMin) || math.IsInf(o.LMin, 0):
		return bad("minimum latency", o.LMin)
	case o.Gamma < 0 || o.Gamma > 1 || math.IsNaN(o.Gamma):
		return bad("gamma", o.Gamma)
	case o.MinSpacing < 0 || math.IsNaN(o.MinSpacing) || math.IsInf(o.MinSpacing, 0):
		return bad("minimum spacing", o.MinSpacing)
	case o.Slope < 0 || math.IsNaN(o.Slope) || math.IsInf(o.Slope, 0):
		return bad("slope", o.Slope)
	case o.Method > MethodCLC:
		return fmt.Errorf("causality: unknown method %d", o.Method)
	}
	if o.Gamma == 0 {
		o.Gamma = DefaultGamma
	}
	if o.MinSpacing == 0 {
		o.MinSpacing = DefaultMinSpacing
	}
	if o.Slope == 0 {
		o.Slope = DefaultSlope
	}
	if o.MaxPasses <= 0 {
		o.MaxPasses = DefaultMaxPasses
	}
	return nil
}

// Correction is the result of Correct: the corrected trace next to the
// original, and what it took.
type Correction struct {
	// Original is the input trace, untouched; Trace the corrected copy
	// (same events, same order, same matches: only Time differs), so
	// that a view can toggle between the two.
	Original, Trace *tracefmt.Trace
	Method          Method
	// LMin is the minimum latency used, in seconds.
	LMin float64
	// Offsets holds the constant offset added to each rank, in seconds,
	// when the method includes offsets and they exist; nil otherwise.
	Offsets []float64
	// NegativeCycle lists ranks (first repeated at the end) whose
	// messages no constant offsets can satisfy, when the method includes
	// offsets and there are none: drift, or a real inconsistency.
	NegativeCycle []int
	// Before and After count the clock-condition findings (KindReversal,
	// KindLatency, KindCollective, KindBackwards) before and after.
	Before, After [NumKinds]int
	// Passes is the number of CLC passes run (0 for MethodOffsets).
	Passes int
	// Jumps is the number of receives and collective exits the CLC moved
	// later to satisfy an edge (the corrected violations of its last
	// pass).
	Jumps int
	// MaxShift is the largest |corrected − original| time in seconds,
	// at event MaxShiftAt.
	MaxShift   float64
	MaxShiftAt tracefmt.EventRef
	// Broken lists the edges the CLC ignored because they close a causal
	// cycle (see Lamport.Broken); violations may remain there.
	Broken []tracefmt.EventRef
}

// ViolationsBefore returns the number of clock-condition findings before
// the correction.
func (c *Correction) ViolationsBefore() int { return sumClock(&c.Before) }

// ViolationsAfter returns the number of clock-condition findings after
// the correction.
func (c *Correction) ViolationsAfter() int { return sumClock(&c.After) }

func sumClock(a *[NumKinds]int) int {
	n := 0
	for k := range NumKinds {
		if k.Class() == ClassClock {
			n += a[k]
		}
	}
	return n
}

// Shift returns the corrected minus the original time of event e, in
// seconds.
func (c *Correction) Shift(e tracefmt.EventRef) float64 {
	return c.Original.Seconds(c.Trace.Event(e).Time - c.Original.Event(e).Time)
}

// Correct returns a corrected copy of the timed trace t in which every
// message and collective edge satisfies the clock condition with minimum
// latency o.LMin, t itself untouched. See the package documentation for
// the algorithms and what they promise.
func Correct(ctx context.Context, t *tracefmt.Trace, o CorrectOptions) (*Correction, error) {
	return NewGraph(t).Correct(ctx, o)
}

// Correct is the package-level Correct on a graph already built.
func (g *Graph) Correct(ctx context.Context, o CorrectOptions) (*Correction, error) {
	t := g.t
	if !t.Timed {
		return nil, fmt.Errorf("causality: the trace is untimed: there are no timestamps to correct")
	}
	if err := o.normalize(); err != nil {
		return nil, err
	}
	unit := t.Unit.Seconds()
	c := &Correction{Original: t, Method: o.Method, LMin: o.LMin, MaxShiftAt: NoEvent}
	before, err := g.clockCounts(ctx, t, o.LMin)
	if err != nil {
		return nil, err
	}
	c.Before = before
	// One copy of the events is all the work needs: offsets and the CLC
	// passes change its times in place.
	out := t.Clone()
	og := g.on(out)
	lmin := o.LMin / unit
	if o.Method != MethodCLC {
		res, err := g.offsets(ctx, lmin)
		if err != nil {
			return nil, err
		}
		switch {
		case res.theta != nil:
			shiftStart(t, res.theta)
			c.Offsets = make([]float64, len(res.theta))
			for r, th := range res.theta {
				c.Offsets[r] = th * unit
				ev := out.Ranks[r].Events
				for i := range ev {
					ev[i].Time += th
				}
			}
		case o.Method == MethodOffsets:
			c.NegativeCycle = res.cycle
			return nil, &NoOffsetsError{Cycle: res.cycle}
		default:
			c.NegativeCycle = res.cycle
		}
	}
	if c.After, err = og.clockCounts(ctx, out, o.LMin); err != nil {
		return nil, err
	}
	if o.Method != MethodOffsets {
		cl := clc{lmin: lmin, gamma: o.Gamma, delta: o.MinSpacing / unit, slope: o.Slope}
		// On a trace without violations (or once the offsets removed
		// them) the CLC would change nothing: every clock equals its
		// original timestamp and no receive jumps.
		for c.Passes < o.MaxPasses && sumClock(&c.After) > 0 {
			c.Passes++
			jumps, broken, err := cl.pass(ctx, g, out, o.Progress)
			if err != nil {
				return nil, err
			}
			c.Jumps, c.Broken = jumps, broken
			if c.After, err = og.clockCounts(ctx, out, o.LMin); err != nil {
				return nil, err
			}
			cl.gamma = 1 - float64(10*(1-cl.gamma))
		}
	}
	c.Trace = out
	for r := range t.Ranks {
		a, b := t.Ranks[r].Events, out.Ranks[r].Events
		for i := range a {
			// Constant offsets shift a rank's events by the same amount
			// up to rounding: report the first of them.
			if d := math.Abs(b[i].Time - a[i].Time); d*unit > c.MaxShift*(1+1e-9) {
				c.MaxShift = d * unit
				c.MaxShiftAt = tracefmt.EventRef{Rank: int32(r), Index: int32(i)}
			}
		}
	}
	return c, nil
}

// NoOffsetsError is returned by Correct with MethodOffsets when no
// constant per-rank offsets satisfy the clock condition.
type NoOffsetsError struct {
	// Cycle lists the ranks whose constraints contradict each other,
	// the first repeated at the end.
	Cycle []int
}

func (e *NoOffsetsError) Error() string {
	return fmt.Sprintf("causality: no constant clock offsets satisfy the clock condition (negative cycle through ranks %v): the clocks drift; use the controlled logical clock", e.Cycle)
}

// shiftStart shifts the offsets by a common constant so that the
// corrected trace starts when the original did: every solution shifted by
// a constant is a solution.
func shiftStart(t *tracefmt.Trace, theta []float64) {
	start, _ := t.Span()
	first := math.Inf(1)
	for r := range t.Ranks {
		ev := t.Ranks[r].Events
		for i := range ev {
			first = min(first, ev[i].Time+theta[r])
		}
	}
	if math.IsInf(first, 0) {
		return
	}
	d := start - first
	for r := range theta {
		theta[r] += d
	}
}

// on returns the graph of u, a trace with the same events as g's.
func (g *Graph) on(u *tracefmt.Trace) *Graph {
	h := *g
	h.t = u
	return &h
}

// clockCounts counts the clock-condition findings of u, which has g's
// structure.
func (g *Graph) clockCounts(ctx context.Context, u *tracefmt.Trace, lmin float64) ([NumKinds]int, error) {
	rep, err := g.on(u).check(ctx, Options{LMin: lmin, Replay: ReplayOff}, true)
	if err != nil {
		return [NumKinds]int{}, err
	}
	var out [NumKinds]int
	for k := range NumKinds {
		if k.Class() == ClassClock {
			out[k] = rep.Counts[k]
		}
	}
	return out, nil
}
