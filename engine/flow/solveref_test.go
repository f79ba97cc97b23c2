package flow

import (
	"math"

	"github.com/tracesim/tracesim/engine/des"
)

// solveRef is the solver before the dense rewrite (solve.go), kept as
// the reference the tests and benchmarks compare the solver with: it
// recomputes the rates of the flows connected, through shared
// links, to the links changed since the last solve (n.pending), and their
// completion times. Flows elsewhere keep their rates.
func (n *Network) solveRef(now des.Time) {
	n.solvePending = false
	if len(n.pending) == 0 {
		n.wake()
		return
	}
	n.epoch++
	ep := n.epoch
	links := n.compLinks[:0]
	for _, l := range n.pending {
		if ls := &n.lsolve[l]; ls.mark != ep {
			ls.mark = ep
			links = append(links, l)
		}
	}
	n.pending = n.pending[:0]
	// The connected component: flows on these links, their other links,
	// and so on. Each link is prepared for the solver as it is reached,
	// each flow brought up to date.
	flows := n.compFlows[:0]
	for i := 0; i < len(links); i++ {
		lk := &n.links[links[i]]
		n.account(links[i], now)
		lk.rem, lk.usage, lk.unfixed = lk.cap, 0, int32(len(lk.el))
		for _, e := range lk.el {
			f := &n.flows[e.f]
			lk.usage += e.c * f.w
			if n.fmark[e.f] == ep {
				continue
			}
			n.fmark[e.f] = ep
			if dt := (now - f.last).Seconds(); dt > 0 {
				f.remain -= f.value * f.factor * dt
			}
			f.last, f.fixed, f.prev = now, false, f.value
			flows = append(flows, e.f)
			for _, l := range f.links {
				if ls := &n.lsolve[l]; ls.mark != ep {
					ls.mark = ep
					links = append(links, l)
				}
			}
		}
	}
	n.fillRef(links, flows)
	for _, l := range links {
		n.links[l].load = 0
	}
	for _, fi := range flows {
		f := &n.flows[fi]
		for k, l := range f.links {
			n.links[l].load += n.coeff(f, k) * f.value
		}
		n.reschedule(fi, now)
	}
	n.compLinks, n.compFlows = links[:0], flows[:0]
	n.wake()
}

// fillRef is the weighted max-min allocation by progressive filling: every
// unfixed flow f runs at level/p_f; the level rises until a link is
// saturated (its flows are fixed there) or a flow reaches its bound (it is
// fixed at the bound), and so on until every flow is fixed.
func (n *Network) fillRef(links, flows []int32) {
	unfixed := len(flows)
	for unfixed > 0 {
		x := math.Inf(1)
		for _, l := range links {
			if lk := &n.links[l]; lk.unfixed > 0 && lk.usage > 0 && !lk.fatpipe {
				x = min(x, lk.rem/lk.usage)
			}
		}
		xb := math.Inf(1)
		for _, fi := range flows {
			if f := &n.flows[fi]; !f.fixed && f.bound > 0 {
				xb = min(xb, f.bound*f.penalty)
			}
		}
		if xb < x || math.IsInf(x, 1) {
			if math.IsInf(xb, 1) {
				// Neither a link nor a bound limits what is left:
				// cannot happen with finite bandwidths.
				for _, fi := range flows {
					if f := &n.flows[fi]; !f.fixed {
						n.fixRef(f, 0)
						unfixed--
					}
				}
				return
			}
			thr := xb * (1 + boundTol)
			for _, fi := range flows {
				if f := &n.flows[fi]; !f.fixed && f.bound > 0 && f.bound*f.penalty <= thr {
					n.fixRef(f, f.bound)
					unfixed--
				}
			}
			continue
		}
		thr := x * (1 + levelTol)
		for _, l := range links {
			lk := &n.links[l]
			if lk.unfixed == 0 || lk.usage <= 0 || lk.fatpipe || lk.rem/lk.usage > thr {
				continue
			}
			for _, e := range lk.el {
				if f := &n.flows[e.f]; !f.fixed {
					n.fixRef(f, x*f.w)
					unfixed--
				}
			}
		}
	}
}

// fixRef sets flow f's rate and takes it off its links' remaining capacity.
func (n *Network) fixRef(f *flowRec, v float64) {
	f.value, f.fixed = v, true
	for k, l := range f.links {
		lk := &n.links[l]
		c := n.coeff(f, k)
		lk.rem = max(lk.rem-c*v, 0)
		lk.usage -= c * f.w
		lk.unfixed--
	}
}
