package causality

import (
	"context"
	"math"

	"github.com/tracesim/tracesim/tracefmt"
)

// clc is the controlled logical clock (Rabenseifner; Becker,
// Rabenseifner, Wolf and Linford 2009), in trace units.
type clc struct {
	lmin  float64
	gamma float64
	delta float64
	slope float64
}

// jump is an event the forward pass moved later than its own clock
// allowed, to satisfy an incoming edge.
type jump struct {
	index int32
	by    float64
}

// pass runs one forward pass over tr, replacing its times by the
// logical clocks, then amortises each jump backwards. It returns the
// number of jumps and the edges broken to escape causal cycles.
//
// Forward, for event i of a rank with original times t:
//
//	LC_i = max(t_i, LC_{i−1} + min(δ, Δ), LC_{i−1} + γ·Δ)   Δ = t_i − t_{i−1} > 0
//	LC_i = max(t_i, LC_{i−1})                               Δ ≤ 0
//
// then, at a receive, LC_i = max(LC_i, LC_send + l_min), and at a
// collective exit LC_i = max(LC_i, max LC_enter + l_min). Unlike the
// published rule, events logged at the same instant stay at the same
// instant: MPE stamps a call's enter and its send together, and spacing
// them by δ would shift every event of the trace for nothing.
//
// Backward, every jump J at an event whose own clock said LC' is
// amortised over the events before it: event j moves later by
// max(0, J − σ·(LC' − LC_j)), so the intervals before the jump stretch
// by a factor of at most 1 + σ instead of one interval absorbing all of
// it. A send moves no further than its receive (minus l_min) allows, a
// collective enter no further than the exits waiting for it, and no
// interval shrinks.
func (c *clc) pass(ctx context.Context, g *Graph, out *tracefmt.Trace, progress func(done, total int)) (int, []tracefmt.EventRef, error) {
	P := out.Size()
	jumps := make([][]jump, P)
	// The pass works in place: prev keeps each rank's previous original
	// time, the only one it still needs once overwritten.
	prev := make([]float64, P)
	inst := make([]float64, len(g.colls))
	for i := range inst {
		inst[i] = math.Inf(-1)
	}
	n := 0
	broken, err := g.walk(ctx, func(r, i int, msg bool, sink, src int32) {
		oev := out.Ranks[r].Events
		e := &oev[i]
		ti := e.Time
		lc := ti
		if i > 0 {
			last := oev[i-1].Time
			if d := ti - prev[r]; d > 0 {
				lc = max(lc, last+min(c.delta, d), last+float64(c.gamma*d))
			} else {
				lc = max(lc, last)
			}
		}
		prev[r] = ti
		own := lc
		if msg {
			// From the send's physical time: its delay moves with it.
			send := tracefmt.EventRef{Rank: e.Peer, Index: e.Match}
			lc = max(lc, out.Event(send).Time+out.SendDelay(send)+c.lmin)
		}
		if sink >= 0 {
			lc = max(lc, inst[sink]+c.lmin)
		}
		if lc > own {
			jumps[r] = append(jumps[r], jump{int32(i), lc - own})
			n++
		}
		e.Time = lc
		if src >= 0 {
			inst[src] = max(inst[src], lc)
		}
	}, progress)
	if err != nil {
		return 0, nil, err
	}
	// The margin keeps rounding from undoing a limit: shifted times stay
	// a few units in the last place inside them.
	start, end := out.Span()
	big := max(math.Abs(start), math.Abs(end)) + c.lmin
	margin := 8 * (math.Nextafter(big, math.Inf(1)) - big)
	var shift []float64
	for r := range P {
		if len(jumps[r]) == 0 {
			continue
		}
		if r&63 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, nil, err
			}
		}
		shift = c.amortise(g, out, r, jumps[r], shift, margin)
	}
	return n, broken, nil
}

// amortise shifts rank r's events before its jumps; shift is a scratch
// buffer, returned for reuse.
func (c *clc) amortise(g *Graph, out *tracefmt.Trace, r int, jumps []jump, shift []float64, margin float64) []float64 {
	ev := out.Ranks[r].Events
	n := len(ev)
	shift = shift[:0]
	for range n {
		shift = append(shift, 0)
	}
	srcs := g.collRefs().srcAt[r]
	sc := len(srcs) - 1
	jk := len(jumps) - 1
	// a is max over later jumps of J − σ·LC'; the amortised shift of
	// event j is a + σ·LC_j.
	a := math.Inf(-1)
	for j := n - 1; j >= 0; j-- {
		lc := ev[j].Time
		if jk < 0 && a+float64(c.slope*lc) <= 0 {
			break // before the amortisation window: nothing moves
		}
		s := max(0, a+float64(c.slope*lc))
		if j < n-1 {
			// No interval shrinks: at most the next event's shift, plus
			// its jump when it has one.
			lim := shift[j+1]
			if jk+1 < len(jumps) && jumps[jk+1].index == int32(j+1) {
				lim += max(0, jumps[jk+1].by-margin)
			}
			s = min(s, lim)
		}
		e := &ev[j]
		if e.Kind == tracefmt.KindSend && e.Match >= 0 && s > 0 {
			d := out.SendDelay(tracefmt.EventRef{Rank: int32(r), Index: int32(j)})
			s = min(s, max(0, out.Ranks[e.Peer].Events[e.Match].Time-c.lmin-lc-d-margin))
		}
		for sc >= 0 && srcs[sc].index > int32(j) {
			sc--
		}
		if sc >= 0 && srcs[sc].index == int32(j) && s > 0 {
			first := math.Inf(1)
			for _, x := range g.colls[srcs[sc].inst].sinks {
				first = min(first, out.Event(x).Time)
			}
			s = min(s, max(0, first-c.lmin-lc-margin))
		}
		shift[j] = s
		if jk >= 0 && jumps[jk].index == int32(j) {
			a = max(a, jumps[jk].by-float64(c.slope*(lc-jumps[jk].by)))
			jk--
		}
	}
	// A limit holds the events after it back too, so that no interval
	// stretches by more than 1 + σ.
	jk = 0
	for j := 1; j < n; j++ {
		for jk < len(jumps) && jumps[jk].index < int32(j) {
			jk++
		}
		if jk < len(jumps) && jumps[jk].index == int32(j) {
			continue
		}
		shift[j] = min(shift[j], shift[j-1]+float64(c.slope*(ev[j].Time-ev[j-1].Time)))
	}
	for j := range n {
		ev[j].Time += shift[j]
	}
	return shift
}
